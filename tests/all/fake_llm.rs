//! A local fake OpenAI-compatible server: serves scripted replies in order and records every
//! request body, so tests can check what the agent sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// One scripted reply.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
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

    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }

    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }

    pub fn with_usage(mut self, total: u64) -> Reply {
        let mut v: Value = serde_json::from_str(&self.body).unwrap();
        v["usage"]["total_tokens"] = json!(total);
        self.body = v.to_string();
        self
    }
}

/// The running server.
pub struct FakeLlm {
    pub url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl FakeLlm {
    /// Serve `script` in order; after it, `fallback` (if any) forever, else HTTP 500.
    pub fn start(script: Vec<Reply>, fallback: Option<Reply>) -> FakeLlm {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let script = Arc::new(Mutex::new(std::collections::VecDeque::from(script)));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (seen, script, fallback) = (seen.clone(), script.clone(), fallback.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut len = 0usize;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let l = line.trim_end().to_ascii_lowercase();
                        if l.is_empty() {
                            break;
                        }
                        if let Some(v) = l.strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0u8; len];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    seen.lock()
                        .unwrap()
                        .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
                    let reply = script
                        .lock()
                        .unwrap()
                        .pop_front()
                        .or(fallback)
                        .unwrap_or_else(|| {
                            Reply::status(
                                500,
                                "{\"error\": \"the fake server's script is exhausted\"}",
                            )
                        });
                    std::thread::sleep(reply.delay);
                    let mut out = stream;
                    let mut head = format!(
                        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                        reply.status,
                        reply.body.len()
                    );
                    for (k, v) in &reply.headers {
                        head.push_str(&format!("{k}: {v}\r\n"));
                    }
                    head.push_str("\r\n");
                    let _ = out.write_all(head.as_bytes());
                    let _ = out.write_all(reply.body.as_bytes());
                });
            }
        });
        FakeLlm { url, requests }
    }

    /// Request bodies received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}
