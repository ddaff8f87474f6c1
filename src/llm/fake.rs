//! A local fake OpenAI-compatible server for tests and benchmarks (never for real use): it
//! answers from a script or a function of the request, on loopback, and records every request
//! body so callers can check what the agent sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// One reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: String,
    /// Wait this long before answering.
    pub delay: Duration,
}

impl Reply {
    fn ok(message: Value, usage: u64) -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: json!({
                "id": "x", "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": usage / 2, "completion_tokens": usage / 2, "total_tokens": usage}
            })
            .to_string(),
            delay: Duration::ZERO,
        }
    }

    /// An assistant message calling tools: (name, JSON arguments text).
    pub fn calls(calls: &[(&str, &str)]) -> Reply {
        let tool_calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({"id": format!("call_{}_{i}", name), "type": "function",
                       "function": {"name": name, "arguments": args}})
            })
            .collect();
        Reply::ok(
            json!({"role": "assistant", "content": "Let me work.", "tool_calls": tool_calls}),
            100,
        )
    }

    /// An assistant message with text only.
    pub fn text(content: &str) -> Reply {
        Reply::ok(json!({"role": "assistant", "content": content}), 100)
    }

    /// An error status with a body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }

    /// Add a header.
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }

    /// Answer after a delay.
    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }

    /// Report this many total tokens.
    pub fn with_usage(mut self, total: u64) -> Reply {
        if let Ok(mut v) = serde_json::from_str::<Value>(&self.body) {
            v["usage"]["total_tokens"] = json!(total);
            self.body = v.to_string();
        }
        self
    }
}

/// Decides the reply to a request body.
pub type Responder = Box<dyn Fn(&Value) -> Reply + Send + Sync>;

/// The running server (it lives until the process ends).
pub struct FakeServer {
    /// Base URL to give the client, e.g. `http://127.0.0.1:PORT/v1`.
    pub url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl std::fmt::Debug for FakeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeServer")
            .field("url", &self.url)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl FakeServer {
    /// Serve `script` in order; after it, `fallback` (if any) forever, else HTTP 500.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub fn scripted(script: Vec<Reply>, fallback: Option<Reply>) -> std::io::Result<FakeServer> {
        let script = Mutex::new(std::collections::VecDeque::from(script));
        FakeServer::start(Box::new(move |_| {
            lock(&script)
                .pop_front()
                .or_else(|| fallback.clone())
                .unwrap_or_else(|| {
                    Reply::status(
                        500,
                        "{\"error\": \"the fake server's script is exhausted\"}",
                    )
                })
        }))
    }

    /// Answer every request with `responder(request_body)`. The server runs on a thread of
    /// its own (one async runtime), keeps connections alive and waits out each reply's
    /// `delay` without holding a thread, so it can stand in for a remote model with latency
    /// under thousands of concurrent requests.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub fn start(responder: Responder) -> std::io::Result<FakeServer> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let url = format!("http://{}/v1", listener.local_addr()?);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let responder = Arc::new(responder);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("fake-model".into())
            .spawn(move || {
                rt.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    loop {
                        let Ok((stream, _)) = listener.accept().await else {
                            continue;
                        };
                        let (seen, responder) = (seen.clone(), responder.clone());
                        tokio::spawn(async move {
                            let _ = serve(stream, &seen, &responder).await;
                        });
                    }
                });
            })?;
        Ok(FakeServer { url, requests })
    }

    /// Request bodies received so far.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.requests).clone()
    }
}

/// Serve requests on one connection until the client closes it.
async fn serve(
    stream: tokio::net::TcpStream,
    seen: &Mutex<Vec<Value>>,
    responder: &Responder,
) -> std::io::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    // Replies go out at once (Nagle's algorithm would hold a reply's tail for the peer's
    // delayed ACK, ~40 ms).
    stream.set_nodelay(true)?;
    let mut stream = BufReader::new(stream);
    loop {
        let mut len = 0usize;
        let mut close = false;
        let mut line = String::new();
        loop {
            line.clear();
            if stream.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let l = line.trim_end().to_ascii_lowercase();
            if l.is_empty() {
                break;
            }
            if let Some(v) = l.strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
            close |= l.starts_with("connection:") && l.contains("close");
        }
        let mut body = vec![0u8; len.min(64 << 20)];
        stream.read_exact(&mut body).await?;
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let reply = responder(&request);
        lock(seen).push(request);
        // A zero delay answers at once: tokio's timer rounds a deadline up to its next
        // millisecond tick, so even `sleep(0)` added about a millisecond to every reply.
        if !reply.delay.is_zero() {
            tokio::time::sleep(reply.delay).await;
        }
        let mut head = format!(
            "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            reply.status,
            reply.body.len()
        );
        for (k, v) in &reply.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        head.push_str(&reply.body);
        let out = stream.get_mut();
        out.write_all(head.as_bytes()).await?;
        out.flush().await?;
        if close {
            return Ok(());
        }
    }
}
