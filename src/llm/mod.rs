//! An OpenAI-compatible chat-completions client (vLLM, SGLang, llama.cpp server, OpenAI):
//! retries with backoff and jitter on 429/5xx/connection errors/timeouts (honouring
//! `Retry-After`), a size cap on response bodies, token usage per call, and typed errors that
//! separate what is worth retrying from what is not.

#[cfg(feature = "testing")]
pub mod fake;
mod parse;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use parse::tool_calls_in_content;

/// Settings of the client.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// Base URL, e.g. `http://localhost:8000/v1` (the client appends `/chat/completions`).
    pub base_url: String,
    /// Bearer token, if the endpoint needs one.
    pub api_key: Option<String>,
    /// The `model` field.
    pub model: String,
    /// Sampling temperature (omitted when `None`).
    pub temperature: Option<f64>,
    /// Extra fields merged into every request body (e.g. `top_p`, `chat_template_kwargs`).
    pub extra_body: Map<String, Value>,
    /// Time limit for one HTTP request. Default 600 s.
    pub request_timeout: Duration,
    /// Retries after the first attempt for retryable failures. Default 5.
    pub max_retries: u32,
    /// First backoff delay; doubles each retry up to 60 s, with ±25% jitter. Default 1 s.
    pub retry_base: Duration,
    /// Largest response body accepted. Default 16 MiB.
    pub max_response_bytes: usize,
}

impl LlmConfig {
    /// Defaults for an endpoint and model.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            temperature: None,
            extra_body: Map::new(),
            request_timeout: Duration::from_secs(600),
            max_retries: 5,
            retry_base: Duration::from_secs(1),
            max_response_bytes: 16 << 20,
        }
    }
}

/// One chat message in the OpenAI format.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Message {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// Text content (may be absent on assistant messages that only call tools; then the key
    /// is left out, as litellm leaves it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Tool calls of an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a `tool` message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Reasoning text some servers return separately (`reasoning_content`); kept for the
    /// trajectory and sent back with the assistant message, as the reference's litellm does.
    #[serde(
        default,
        rename = "reasoning_content",
        skip_serializing_if = "Option::is_none"
    )]
    pub reasoning: Option<String>,
    /// Fields of the server's message that the OpenAI format does not name (e.g. vLLM's
    /// `reasoning`, a `thinking` field), sent back with the assistant message as the
    /// reference's litellm sends them: under `provider_specific_fields`.
    #[serde(
        default,
        rename = "provider_specific_fields",
        skip_serializing_if = "Option::is_none"
    )]
    pub provider_fields: Option<Map<String, Value>>,
}

/// The fields of a chat message the OpenAI format names (others are provider-specific).
const MESSAGE_FIELDS: &[&str] = &[
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
    "function_call",
    "refusal",
    "annotations",
    "audio",
    "reasoning_content",
    "thinking_blocks",
    "provider_specific_fields",
];

impl Message {
    /// A message with text content.
    pub fn text(role: &str, content: impl Into<String>) -> Self {
        Message {
            role: role.to_string(),
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning: None,
            provider_fields: None,
        }
    }

    /// A `tool` message answering `id`.
    pub fn tool(id: &str, content: impl Into<String>) -> Self {
        Message {
            tool_call_id: Some(id.to_string()),
            ..Message::text("tool", content)
        }
    }
}

/// A tool call as the API carries it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolCall {
    /// The call's id (answered by a `tool` message with the same id).
    #[serde(default)]
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// Name and JSON-encoded arguments.
    pub function: FunctionCall,
}

fn function_type() -> String {
    "function".into()
}

/// The function part of a tool call.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FunctionCall {
    /// Tool name.
    #[serde(default)]
    pub name: String,
    /// Arguments as a JSON string (as the API sends them; may be malformed).
    #[serde(default)]
    pub arguments: String,
}

/// Token usage of one call.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Total tokens.
    #[serde(default)]
    pub total_tokens: u64,
}

/// What one call returned.
#[derive(Debug, Clone)]
pub struct ChatResponse {
    /// The assistant message.
    pub message: Message,
    /// Token usage (zeros when the server does not report it).
    pub usage: Usage,
    /// `stop`, `tool_calls`, `length`, ...
    pub finish_reason: Option<String>,
    /// How many attempts it took.
    pub attempts: u32,
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The prompt is too long for the model's context.
    #[error("the request exceeds the model's context length: {0}")]
    ContextLength(String),
    /// The server refused the request for a reason retrying will not fix (400, 401, 404, ...).
    #[error("the server refused the request (HTTP {status}): {body}")]
    Refused {
        /// HTTP status.
        status: u16,
        /// Start of the response body.
        body: String,
    },
    /// Retryable failures went on past the retry budget.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// The response was not a chat completion.
    #[error("unexpected response from the server: {0}")]
    BadResponse(String),
    /// The client could not be built (bad URL, TLS setup).
    #[error("cannot set up the HTTP client: {0}")]
    Setup(String),
}

impl LlmError {
    /// Whether the episode may go on after this (only context-length errors, by shrinking).
    pub fn is_context_length(&self) -> bool {
        matches!(self, LlmError::ContextLength(_))
    }
}

/// One failed attempt: retry it (after an optional server-given delay) or stop.
enum Attempt {
    Retry(String, Option<Duration>),
    Fatal(LlmError),
}

/// The client.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    cfg: LlmConfig,
    url: String,
}

impl Client {
    /// Build a client.
    ///
    /// # Errors
    /// [`LlmError::Setup`] when the HTTP client cannot be built.
    pub fn new(cfg: LlmConfig) -> Result<Client, LlmError> {
        // reqwest is built without a bundled TLS provider; install ring's (idempotent).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(cfg.request_timeout)
            .connect_timeout(Duration::from_secs(30))
            // A model endpoint answers; it does not send us elsewhere (a redirect could point
            // a server's episode at the operator's own network).
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| LlmError::Setup(e.to_string()))?;
        let url = format!("{}/chat/completions", cfg.base_url.trim_end_matches('/'));
        Ok(Client { http, cfg, url })
    }

    /// The settings.
    pub fn config(&self) -> &LlmConfig {
        &self.cfg
    }

    /// The request body for these messages.
    pub fn body(
        &self,
        messages: &[Message],
        tools: Option<&Value>,
        max_tokens: Option<u32>,
    ) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), Value::from(self.cfg.model.clone()));
        body.insert(
            "messages".into(),
            serde_json::to_value(messages).unwrap_or(Value::Null),
        );
        // The reference's (litellm's) order: temperature, max_tokens, tools, then extra_body.
        if let Some(t) = self.cfg.temperature {
            body.insert("temperature".into(), Value::from(t));
        }
        if let Some(m) = max_tokens {
            body.insert("max_tokens".into(), Value::from(m));
        }
        if let Some(t) = tools {
            body.insert("tools".into(), t.clone());
        }
        for (k, v) in &self.cfg.extra_body {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }

    /// One chat completion, with retries.
    ///
    /// # Errors
    /// [`LlmError`]; [`LlmError::ContextLength`] lets the caller shrink and try again.
    pub async fn chat(
        &self,
        messages: &[Message],
        tools: Option<&Value>,
        max_tokens: Option<u32>,
    ) -> Result<ChatResponse, LlmError> {
        let body = self.body(messages, tools, max_tokens);
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let failure = match self.attempt(&body).await {
                Ok(mut r) => {
                    r.attempts = attempt;
                    return Ok(r);
                }
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Retry(why, after)) => (why, after),
            };
            if attempt > self.cfg.max_retries {
                return Err(LlmError::RetriesExhausted {
                    attempts: attempt,
                    last: failure.0,
                });
            }
            tokio::time::sleep(failure.1.unwrap_or_else(|| self.backoff(attempt))).await;
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.cfg.retry_base.as_secs_f64() * 2f64.powi(attempt.saturating_sub(1) as i32);
        let capped = base.min(60.0);
        Duration::from_secs_f64(capped * (0.75 + 0.5 * jitter()))
    }

    async fn attempt(&self, body: &Value) -> Result<ChatResponse, Attempt> {
        let mut req = self.http.post(&self.url).json(body);
        if let Some(key) = &self.cfg.api_key {
            req = req.bearer_auth(key);
        }
        let mut resp = match req.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Err(Attempt::Retry(format!("request timed out: {e}"), None));
            }
            Err(e) if e.is_connect() || e.is_request() => {
                return Err(Attempt::Retry(
                    format!("cannot reach {}: {e}", self.url),
                    None,
                ));
            }
            Err(e) => return Err(Attempt::Retry(e.to_string(), None)),
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry_after(v, std::time::SystemTime::now()));
        let mut bytes = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > self.cfg.max_response_bytes {
                        return Err(Attempt::Fatal(LlmError::BadResponse(format!(
                            "response body larger than {} bytes",
                            self.cfg.max_response_bytes
                        ))));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) if e.is_timeout() => {
                    return Err(Attempt::Retry(format!("response timed out: {e}"), None));
                }
                Err(e) => return Err(Attempt::Retry(format!("reading the response: {e}"), None)),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let snippet: String = text.chars().take(500).collect();
        if status == 429 || status >= 500 {
            return Err(Attempt::Retry(
                format!("HTTP {status}: {snippet}"),
                retry_after,
            ));
        }
        if status >= 400 {
            let lower = text.to_lowercase();
            if lower.contains("context length")
                || lower.contains("context_length")
                || lower.contains("maximum context")
                || lower.contains("too many tokens")
                || lower.contains("prompt is too long")
            {
                return Err(Attempt::Fatal(LlmError::ContextLength(snippet)));
            }
            return Err(Attempt::Fatal(LlmError::Refused {
                status,
                body: snippet,
            }));
        }
        parse_completion(&bytes).map_err(Attempt::Fatal)
    }
}

fn parse_completion(bytes: &[u8]) -> Result<ChatResponse, LlmError> {
    #[derive(Deserialize)]
    struct Completion {
        #[serde(default)]
        choices: Vec<Choice>,
        #[serde(default)]
        usage: Option<Usage>,
    }
    #[derive(Deserialize)]
    struct Choice {
        message: Value,
        #[serde(default)]
        finish_reason: Option<String>,
    }
    let c: Completion = serde_json::from_slice(bytes).map_err(|e| {
        let text: String = String::from_utf8_lossy(bytes).chars().take(300).collect();
        LlmError::BadResponse(format!("{e}: {text}"))
    })?;
    let Some(choice) = c.choices.into_iter().next() else {
        return Err(LlmError::BadResponse("no choices in the response".into()));
    };
    let raw = match choice.message {
        Value::Object(o) => o,
        _ => {
            return Err(LlmError::BadResponse(
                "the choice has no message object".into(),
            ));
        }
    };
    let mut message: Message = serde_json::from_value(Value::Object(raw.clone()))
        .map_err(|e| LlmError::BadResponse(format!("bad message: {e}")))?;
    if message.reasoning.is_none() {
        // vLLM's newer name for it.
        message.reasoning = raw
            .get("reasoning")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    let extra: Map<String, Value> = raw
        .into_iter()
        .filter(|(k, v)| !v.is_null() && !MESSAGE_FIELDS.contains(&k.as_str()))
        .collect();
    message.provider_fields = (!extra.is_empty()).then_some(extra);
    Ok(ChatResponse {
        message,
        usage: c.usage.unwrap_or_default(),
        finish_reason: choice.finish_reason,
        attempts: 1,
    })
}

/// The wait a `Retry-After` value asks for, in either of its forms: seconds (a fraction is
/// accepted) or an HTTP date (the time left until then). At most 300 s; `None` (our own
/// backoff then) when the value is neither or the date has passed.
fn retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    const MAX: f64 = 300.0;
    let value = value.trim();
    if let Ok(s) = value.parse::<f64>() {
        return (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s.min(MAX)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let left = at.duration_since(now).ok()?;
    Some(left.min(Duration::from_secs_f64(MAX)))
}

/// A number in [0, 1) that differs between calls (no RNG crate needed for jitter).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_body_is_merged_and_overrides() {
        let mut cfg = LlmConfig::new("http://x/v1/", "m");
        cfg.temperature = Some(0.5);
        cfg.extra_body.insert("top_p".into(), Value::from(0.9));
        cfg.extra_body
            .insert("temperature".into(), Value::from(0.1));
        let c = Client::new(cfg).unwrap();
        let b = c.body(&[Message::text("user", "hi")], None, Some(100));
        assert_eq!(b["top_p"], 0.9);
        assert_eq!(b["temperature"], 0.1);
        assert_eq!(b["max_tokens"], 100);
        assert_eq!(c.url, "http://x/v1/chat/completions");
    }

    #[test]
    fn retry_after_in_seconds_and_as_an_http_date() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        // Seconds, with a fraction, capped at 300.
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(retry_after(" 1.5 ", now), Some(Duration::from_millis(1500)));
        assert_eq!(retry_after("86400", now), Some(Duration::from_secs(300)));
        assert_eq!(retry_after("-1", now), None);
        // An HTTP date: the time left, nothing once it has passed, capped at 300.
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), None);
        assert_eq!(
            retry_after("Mon, 07 Nov 1994 08:49:37 GMT", now),
            Some(Duration::from_secs(300))
        );
        assert_eq!(retry_after("soon", now), None);
    }

    #[test]
    fn completions_parse_with_and_without_usage() {
        let r = parse_completion(br#"{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}"#).unwrap();
        assert_eq!(r.message.content.as_deref(), Some("hi"));
        assert_eq!(r.usage, Usage::default());
        assert!(parse_completion(b"{}").is_err());
        assert!(parse_completion(b"not json").is_err());
    }
}
