//! One LLM-in-Sandbox episode: the model gets a task, works in the sandbox through the three
//! tools, and ends by calling `submit`, or the episode stops at its step or token budget, or on
//! an LLM error it cannot survive. Everything is recorded as it happens.

pub mod prompt;
pub mod setup;
pub mod trajectory;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::llm::{Client, LlmError, Message, ToolCall, Usage, tool_calls_in_content};
use crate::runtime::executor;
use crate::tools::{Toolbox, schemas};
pub use prompt::Prompts;
pub use setup::{EpisodeSpec, SandboxSettings, SetupError, setup};
use trajectory::{Action, Recorder, Step, StepMeta};

/// The smallest `max_tokens` a context-length error may shrink to (as the reference).
pub const MIN_MAX_TOKENS: u32 = 8192;

/// Settings of an episode.
#[derive(Debug, Clone)]
pub struct EpisodeSettings {
    /// Model turns before the episode stops. Default 100.
    pub max_steps: u32,
    /// Stop once a call's total tokens (the context in use) reach this. Default 65,536.
    pub max_token_limit: u64,
    /// `max_tokens` per call; `None` leaves it to the server. A context-length error halves it
    /// (not below 8,192), then ends the episode.
    pub max_tokens: Option<u32>,
    /// Prompts, and the folders they name (input files, the answer file read at the end).
    pub prompts: Prompts,
}

impl Default for EpisodeSettings {
    fn default() -> Self {
        Self {
            max_steps: 100,
            max_token_limit: 65_536,
            max_tokens: None,
            prompts: Prompts::default(),
        }
    }
}

/// Why an episode ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The model called `submit`.
    Submitted,
    /// `max_steps` model turns were used.
    MaxSteps,
    /// The token budget was reached.
    TokenLimit,
    /// The conversation no longer fits the model's context.
    ContextLength,
    /// The LLM endpoint failed past retries or refused the request.
    LlmError(String),
    /// The host failed under a tool (not the model's doing); the episode could not go on.
    HostError(String),
}

/// The state of the conversation while an episode runs.
struct Turns {
    messages: Vec<Message>,
    tools: Value,
    usage: Usage,
    llm_time: Duration,
    tool_time: Duration,
    max_tokens: Option<u32>,
    step: u32,
}

/// What an episode produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EpisodeResult {
    /// Why it ended.
    pub stop: StopReason,
    /// The answer file's content, if it exists.
    pub answer: Option<String>,
    /// Model turns taken.
    pub steps: u32,
    /// Tokens over all calls.
    pub usage: Usage,
    /// Seconds waiting for the model.
    pub llm_seconds: f64,
    /// Seconds running tools.
    pub tool_seconds: f64,
    /// Seconds in all.
    pub total_seconds: f64,
    /// Why `events.jsonl` / `trajectory.json` may be incomplete (a write failed), if so.
    pub record_error: Option<String>,
}

/// A line of live progress for a terminal (`on_progress` callback).
pub type Progress = Box<dyn Fn(&str) + Send + Sync>;

/// Run one episode.
pub struct Episode {
    client: Client,
    tools: Toolbox,
    settings: EpisodeSettings,
    recorder: Recorder,
    progress: Option<Progress>,
}

impl std::fmt::Debug for Episode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Episode")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn short(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > n {
        format!("{}...", one_line.chars().take(n).collect::<String>())
    } else {
        one_line
    }
}

impl Episode {
    /// An episode with these parts.
    pub fn new(
        client: Client,
        tools: Toolbox,
        settings: EpisodeSettings,
        recorder: Recorder,
    ) -> Self {
        Episode {
            client,
            tools,
            settings,
            recorder,
            progress: None,
        }
    }

    /// The recorder writing this episode's trajectory.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// The sandbox the tools work in.
    pub fn sandbox(&self) -> &std::sync::Arc<crate::sandbox::Sandbox> {
        self.tools.shell().sandbox()
    }

    /// The settings.
    pub fn settings(&self) -> &EpisodeSettings {
        &self.settings
    }

    /// Receive one line per step (tool, short arguments, exit code, time).
    pub fn on_progress(mut self, f: Progress) -> Self {
        self.progress = Some(f);
        self
    }

    fn say(&self, line: &str) {
        if let Some(p) = &self.progress {
            p(line);
        }
    }

    /// Run the episode on `problem_statement` to its end.
    pub async fn run(mut self, problem_statement: &str) -> EpisodeResult {
        let started = Instant::now();
        let mut state = Turns {
            messages: vec![
                Message::text("system", self.settings.prompts.system()),
                Message::text(
                    "user",
                    format!(
                        "{}\n\nSteps Remaining: {}",
                        self.settings.prompts.instance(problem_statement),
                        self.settings.max_steps
                    ),
                ),
            ],
            tools: schemas(),
            usage: Usage::default(),
            llm_time: Duration::ZERO,
            tool_time: Duration::ZERO,
            max_tokens: self.settings.max_tokens,
            step: 0,
        };
        let stop = loop {
            if state.step >= self.settings.max_steps {
                break StopReason::MaxSteps;
            }
            state.step += 1;
            let (msg, total_tokens, turn_time) = match self.ask(&mut state).await {
                Ok(Some(reply)) => reply,
                Ok(None) => continue, // retry the step with a smaller max_tokens
                Err(stop) => break stop,
            };
            match self.act(&mut state, msg, turn_time).await {
                Ok(true) => break StopReason::Submitted,
                Ok(false) => {}
                Err(stop) => break stop,
            }
            if total_tokens >= self.settings.max_token_limit {
                break StopReason::TokenLimit;
            }
        };
        self.finish(stop, state, started).await
    }

    /// One model call. `Ok(None)`: the context was too long and `max_tokens` was shrunk, so
    /// the step is to be asked again.
    async fn ask(
        &mut self,
        st: &mut Turns,
    ) -> Result<Option<(Message, u64, Duration)>, StopReason> {
        let step = st.step;
        self.recorder.event(json!({"type": "request", "step": step, "messages": st.messages.len(), "max_tokens": st.max_tokens}));
        let t = Instant::now();
        let reply = self
            .client
            .chat(&st.messages, Some(&st.tools), st.max_tokens)
            .await;
        let turn_time = t.elapsed();
        st.llm_time += turn_time;
        let reply = match reply {
            Ok(r) => r,
            Err(LlmError::ContextLength(msg)) => {
                self.recorder.event(json!({"type": "error", "step": step, "error": format!("context length: {msg}")}));
                let current = st.max_tokens.unwrap_or(2 * MIN_MAX_TOKENS);
                if current > MIN_MAX_TOKENS {
                    let smaller = (current / 2).max(MIN_MAX_TOKENS);
                    st.max_tokens = Some(smaller);
                    self.say(&format!(
                        "step {step}: context too long; retrying with max_tokens={smaller}"
                    ));
                    st.step -= 1;
                    return Ok(None);
                }
                return Err(StopReason::ContextLength);
            }
            Err(e) => {
                self.recorder
                    .event(json!({"type": "error", "step": step, "error": e.to_string()}));
                self.say(&format!("step {step}: LLM error: {e}"));
                return Err(StopReason::LlmError(e.to_string()));
            }
        };
        st.usage.prompt_tokens += reply.usage.prompt_tokens;
        st.usage.completion_tokens += reply.usage.completion_tokens;
        st.usage.total_tokens += reply.usage.total_tokens;
        self.recorder.event(json!({
            "type": "response", "step": step, "content": reply.message.content,
            "reasoning": reply.message.reasoning, "tool_calls": reply.message.tool_calls,
            "usage": reply.usage, "finish_reason": reply.finish_reason,
            "attempts": reply.attempts, "llm_time": turn_time.as_secs_f64(),
        }));
        Ok(Some((reply.message, reply.usage.total_tokens, turn_time)))
    }

    /// Run the reply's tool calls in order and answer each. `Ok(true)`: submitted.
    async fn act(
        &mut self,
        st: &mut Turns,
        msg: Message,
        turn_time: Duration,
    ) -> Result<bool, StopReason> {
        let step = st.step;
        let thought = msg.content.clone().unwrap_or_default();
        let native = !msg.tool_calls.is_empty();
        let calls: Vec<ToolCall> = if native {
            msg.tool_calls.clone()
        } else {
            tool_calls_in_content(&thought)
        };
        st.messages.push(Message {
            role: "assistant".into(),
            content: msg.content.clone(),
            tool_calls: msg.tool_calls.clone(),
            tool_call_id: None,
            reasoning: None,
        });
        let remaining = self.settings.max_steps - step;
        if calls.is_empty() {
            self.say(&format!("step {step}: no tool call"));
            st.messages.push(Message::text(
                "user",
                format!(
                    "No tool call was found in your reply. Work with the tools: execute_bash, str_replace_editor, and submit once the answer is in {}.\n\nSteps Remaining: {remaining}",
                    self.settings.prompts.answer_file
                ),
            ));
            return Ok(false);
        }
        let mut submitted = false;
        let mut content_observations = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let id = if call.id.is_empty() {
                format!("call_{step}_{i}")
            } else {
                call.id.clone()
            };
            let out = if submitted {
                None
            } else {
                match self
                    .tools
                    .call(&call.function.name, &call.function.arguments)
                    .await
                {
                    Ok(o) => Some(o),
                    Err(fault) => {
                        let why = fault.to_string();
                        self.recorder.event(
                            json!({"type": "error", "step": step, "error": format!("host fault: {why}")}),
                        );
                        self.say(&format!("step {step}: host fault: {why}"));
                        return Err(StopReason::HostError(why));
                    }
                }
            };
            let (text, exit_code, took) = match &out {
                Some(o) => (o.observation.clone(), o.exit_code, o.duration),
                None => (
                    "Not run: the episode ended at submit.".to_string(),
                    None,
                    Duration::ZERO,
                ),
            };
            st.tool_time += took;
            let last = i + 1 == calls.len();
            let text_for_model = if last && !out.as_ref().is_some_and(|o| o.submitted) {
                format!("{text}\n\nSteps Remaining: {remaining}")
            } else {
                text.clone()
            };
            if native {
                st.messages.push(Message::tool(&id, text_for_model));
            } else {
                content_observations.push(format!(
                    "Observation ({}):\n{text_for_model}",
                    call.function.name
                ));
            }
            self.say(&format!(
                "step {step}: {} {}{} ({:.2}s)",
                call.function.name,
                short(&call.function.arguments, 60),
                exit_code
                    .map(|c| format!(" -> exit {c}"))
                    .unwrap_or_default(),
                took.as_secs_f64()
            ));
            self.recorder.step(Step {
                thought: if i == 0 {
                    thought.clone()
                } else {
                    String::new()
                },
                action: Action {
                    function: call.function.name.clone(),
                    parameters: serde_json::from_str(&call.function.arguments)
                        .unwrap_or_else(|_| Value::String(call.function.arguments.clone())),
                },
                observation: text,
                metadata: StepMeta {
                    step,
                    exec_time: took.as_secs_f64(),
                    llm_time: turn_time.as_secs_f64(),
                    exit_code,
                },
            });
            submitted |= out.is_some_and(|o| o.submitted);
        }
        if !content_observations.is_empty() {
            st.messages
                .push(Message::text("user", content_observations.join("\n\n")));
        }
        Ok(submitted)
    }

    async fn finish(self, stop: StopReason, st: Turns, started: Instant) -> EpisodeResult {
        let answer = self.read_answer().await;
        let mut result = EpisodeResult {
            stop,
            answer,
            steps: st.step,
            usage: st.usage,
            llm_seconds: st.llm_time.as_secs_f64(),
            tool_seconds: st.tool_time.as_secs_f64(),
            total_seconds: started.elapsed().as_secs_f64(),
            record_error: None,
        };
        let summary = json!({
            "status": "finished",
            "stop": result.stop,
            "answer": result.answer,
            "num_steps": result.steps,
            "usage": result.usage,
            "llm_seconds": result.llm_seconds,
            "tool_seconds": result.tool_seconds,
            "total_seconds": result.total_seconds,
        });
        if let Err(e) = self.recorder.finish(summary).await {
            let why = format!("the trajectory is incomplete: {e}");
            self.say(&format!("warning: {why}"));
            result.record_error = Some(why);
        }
        // Removing the sandbox's folders is file work: not on the caller's threads.
        let tools = self.tools;
        let _ = executor::blocking(move || drop(tools)).await;
        result
    }

    async fn read_answer(&self) -> Option<String> {
        let rel = self
            .settings
            .prompts
            .answer_file
            .strip_prefix(crate::sandbox::GUEST_WORKSPACE)?
            .trim_start_matches('/')
            .to_string();
        let sandbox = self.tools.shell().sandbox().clone();
        executor::blocking(move || sandbox.workspace().read_to_string(&rel).ok())
            .await
            .ok()
            .flatten()
    }
}
