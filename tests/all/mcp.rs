//! MCP: `llm-in-sandbox mcp` spoken to over its stdin/stdout as the real binary, and `serve`'s
//! `/mcp` (streamable HTTP) in process. JSON-RPC by hand, as any client would send it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use llm_in_sandbox::serve::ServeConfig;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::serve::start;

/// The text of a tool result and whether it is an error.
fn text_of(result: &Value) -> (String, bool) {
    let text = result["content"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default();
    (text, result["isError"].as_bool().unwrap_or(false))
}

fn initialize_params() -> Value {
    json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "llm-in-sandbox-tests", "version": "0"}
    })
}

/// `llm-in-sandbox mcp` as a child process.
struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl StdioServer {
    fn start() -> StdioServer {
        // The runtime in the shared cache (set up by `common::runtime` if needed).
        let _ = crate::common::runtime();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"));
        cmd.args(["mcp", "--timeout", "30"])
            .env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(a) = crate::common::setup_options().source {
            cmd.env("LLM_IN_SANDBOX_ARTIFACTS", a);
        }
        let mut child = cmd.spawn().expect("spawn llm-in-sandbox mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        StdioServer {
            child,
            stdin,
            stdout,
            next: 1,
        }
    }

    fn send(&mut self, msg: &Value) {
        let w = self.stdin.as_mut().expect("stdin open");
        writeln!(w, "{msg}").expect("write to the server");
        w.flush().expect("flush");
    }

    /// Send a request and read lines until its answer (skipping notifications).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(
                n > 0,
                "the server closed stdout while we waited for {method}"
            );
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line:?}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> (String, bool) {
        let v = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(v.get("error").is_none(), "{tool}: {v}");
        text_of(&v["result"])
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        drop(self.stdin.take());
        // EOF on stdin ends the server; do not leave it behind if it hangs.
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn stdio_tools() {
    let mut s = StdioServer::start();
    let v = s.request("initialize", initialize_params());
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18", "{v}");
    assert!(v["result"]["capabilities"]["tools"].is_object(), "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], "llm-in-sandbox", "{v}");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let v = s.request("tools/list", json!({}));
    let mut names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "execute_bash",
            "read_file",
            "run_bash",
            "run_python",
            "str_replace_editor",
            "submit",
            "write_file"
        ]
    );
    let tools = v["result"]["tools"].as_array().expect("tools");
    let rp = tools
        .iter()
        .find(|t| t["name"] == "run_python")
        .expect("run_python");
    assert_eq!(rp["inputSchema"]["required"], json!(["code"]), "{rp}");
    assert!(
        rp["inputSchema"]["properties"]["sandbox"].is_object(),
        "{rp}"
    );

    let (t, err) = s.call("run_python", json!({"code": "print(6*7)"}));
    assert!(!err, "{t}");
    assert!(t.starts_with("exit code: 0\n"), "{t}");
    assert!(t.contains("42\n"), "{t}");
    // The guest's failure is a result, not an error.
    let (t, err) = s.call("run_python", json!({"code": "1/0"}));
    assert!(!err, "{t}");
    assert!(t.starts_with("exit code: 1\n"), "{t}");
    assert!(t.contains("ZeroDivisionError"), "{t}");

    // run_bash writes a file, read_file reads it; the shell keeps its directory.
    let (t, err) = s.call(
        "run_bash",
        json!({"command": "mkdir -p sub && cd sub && echo hello > note.txt && pwd"}),
    );
    assert!(!err, "{t}");
    assert!(t.contains("/testbed/sub\n"), "{t}");
    let (t, err) = s.call("read_file", json!({"path": "sub/note.txt"}));
    assert_eq!((t.as_str(), err), ("hello\n", false));
    let (t, _) = s.call("run_bash", json!({"command": "pwd; exit 3"}));
    assert!(t.starts_with("exit code: 3\n"), "{t}");
    assert!(t.contains("/testbed/sub\n"), "{t}");

    // write_file, then the shell sees it.
    let (t, err) = s.call(
        "write_file",
        json!({"path": "/testbed/w/x.txt", "content": "from mcp\n"}),
    );
    assert!(!err, "{t}");
    let (t, _) = s.call("run_bash", json!({"command": "cat /testbed/w/x.txt"}));
    assert!(t.contains("from mcp\n"), "{t}");
    // Python sees the same files.
    let (t, _) = s.call(
        "run_python",
        json!({"code": "print(open('w/x.txt').read().upper())"}),
    );
    assert!(t.contains("FROM MCP"), "{t}");

    // The agent's tools answer exactly the model's observation.
    let (t, err) = s.call("execute_bash", json!({"command": "echo tool"}));
    assert!(!err, "{t}");
    assert!(
        t.starts_with("Exit code: 0\nExecution output of \\[execute_bash]:\n"),
        "{t}"
    );
    assert!(t.contains("tool\n"), "{t}");
    let (t, err) = s.call(
        "str_replace_editor",
        json!({"command": "create", "path": "/testbed/e.py", "file_text": "x = 1\n"}),
    );
    assert!(!err, "{t}");
    assert!(
        t.starts_with("Execution output of \\[str_replace_editor]:"),
        "{t}"
    );
    let (t, err) = s.call(
        "str_replace_editor",
        json!({"command": "view", "path": "/testbed/e.py", "view_range": [1, -1]}),
    );
    assert!(!err && t.contains("x = 1"), "{t}");
    let (t, err) = s.call(
        "str_replace_editor",
        json!({"command": "str_replace", "path": "/testbed/e.py", "old_str": "nope", "new_str": "y"}),
    );
    assert!(err, "a failed edit is an error result: {t}");
    let (t, err) = s.call("submit", json!({}));
    assert_eq!((t.as_str(), err), ("<<< Finished >>>", false));

    // Escapes and bad arguments are error results.
    for path in ["../etc/passwd", "/etc/passwd", "/testbed/../../etc/passwd"] {
        let (t, err) = s.call("read_file", json!({"path": path}));
        assert!(err, "{path}: {t}");
        let (t, err) = s.call("write_file", json!({"path": path, "content": "x"}));
        assert!(err, "{path}: {t}");
    }
    let (t, err) = s.call("read_file", json!({"path": "missing.txt"}));
    assert!(err, "{t}");
    let (t, err) = s.call("write_file", json!({"path": "x.txt"}));
    assert!(err, "missing content: {t}");

    // A keyed sandbox is another sandbox.
    let (t, _) = s.call(
        "run_bash",
        json!({"command": "ls /testbed", "sandbox": "other"}),
    );
    assert!(!t.contains("sub"), "{t}");
    let (t, err) = s.call("read_file", json!({"path": "w/x.txt", "sandbox": "other"}));
    assert!(err, "{t}");

    // Stdin's end ends the server.
    drop(s.stdin.take());
    let mut done = false;
    for _ in 0..100 {
        if let Ok(Some(st)) = s.child.try_wait() {
            assert!(st.success(), "{st}");
            done = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(done, "the server did not exit on EOF");
}

/// An MCP session over streamable HTTP.
struct HttpMcp {
    url: String,
    token: Option<String>,
    session: Option<String>,
    next: u64,
}

/// The JSON-RPC message in an answer: plain JSON, or the last SSE `data:` line that parses.
fn parse_answer(content_type: &str, body: &str) -> Value {
    if content_type.starts_with("application/json") {
        return serde_json::from_str(body).unwrap_or(Value::Null);
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or(Value::Null)
}

impl HttpMcp {
    fn new(base: &str, token: Option<&str>) -> HttpMcp {
        HttpMcp {
            url: format!("{base}/mcp"),
            token: token.map(str::to_string),
            session: None,
            next: 1,
        }
    }

    async fn post(&self, msg: &Value) -> reqwest::Response {
        let mut r = client()
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .timeout(Duration::from_secs(120))
            .body(msg.to_string());
        if let Some(t) = &self.token {
            r = r.bearer_auth(t);
        }
        if let Some(s) = &self.session {
            r = r
                .header("Mcp-Session-Id", s)
                .header("Mcp-Protocol-Version", "2025-06-18");
        }
        r.send().await.expect("POST /mcp")
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let r = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        assert_eq!(r.status(), StatusCode::OK, "{method}");
        if let Some(s) = r.headers().get("mcp-session-id") {
            self.session = Some(s.to_str().expect("ascii").to_string());
        }
        let ct = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = r.text().await.expect("body");
        let v = parse_answer(&ct, &body);
        assert_eq!(v["id"], json!(id), "{method}: {body}");
        v
    }

    async fn open(base: &str, token: Option<&str>) -> HttpMcp {
        let mut m = HttpMcp::new(base, token);
        let v = m.request("initialize", initialize_params()).await;
        assert!(v["result"]["capabilities"]["tools"].is_object(), "{v}");
        assert!(m.session.is_some(), "no Mcp-Session-Id");
        let r = m
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        m
    }

    async fn call(&mut self, tool: &str, args: Value) -> (String, bool) {
        let v = self
            .request("tools/call", json!({"name": tool, "arguments": args}))
            .await;
        assert!(v.get("error").is_none(), "{tool}: {v}");
        text_of(&v["result"])
    }

    async fn close(&self) -> StatusCode {
        let mut r = client().delete(&self.url);
        if let Some(t) = &self.token {
            r = r.bearer_auth(t);
        }
        if let Some(s) = &self.session {
            r = r.header("Mcp-Session-Id", s);
        }
        r.send().await.expect("DELETE /mcp").status()
    }
}

/// An HTTP client (reqwest is built without a TLS provider; install ring's).
fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

fn quiet() -> ServeConfig {
    ServeConfig {
        access_log: false,
        ..ServeConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn http_sessions_keys_and_cleanup() {
    let srv = start(quiet()).await;
    let mut a = HttpMcp::open(&srv.base, None).await;
    let v = a.request("tools/list", json!({})).await;
    assert_eq!(
        v["result"]["tools"].as_array().map(Vec::len),
        Some(7),
        "{v}"
    );
    // Nothing is made before the first tool call.
    assert_eq!(srv.server.sessions.len(), 0);

    // State persists across calls of one session.
    let (t, err) = a
        .call(
            "run_bash",
            json!({"command": "cd /tmp && export X=5 && echo a > f"}),
        )
        .await;
    assert!(!err, "{t}");
    assert_eq!(srv.server.sessions.len(), 1);
    let (t, _) = a
        .call("run_bash", json!({"command": "echo $X; pwd; cat f"}))
        .await;
    assert!(t.contains("5\n/tmp\na\n"), "{t}");
    let (t, err) = a.call("read_file", json!({"path": "/tmp/f"})).await;
    assert_eq!((t.as_str(), err), ("a\n", false));
    let (t, err) = a.call("read_file", json!({"path": "/etc/passwd"})).await;
    assert!(err, "{t}");

    // Another session has its own sandbox.
    let mut b = HttpMcp::open(&srv.base, None).await;
    let (t, _) = b
        .call("run_bash", json!({"command": "echo \"[$X]\"; ls /tmp"}))
        .await;
    assert!(t.contains("[]\n"), "{t}");
    assert!(!t.contains("\nf\n"), "{t}");
    assert_eq!(srv.server.sessions.len(), 2);

    // A key pins a sandbox across sessions.
    let (t, err) = a
        .call(
            "write_file",
            json!({"path": "k.txt", "content": "kept", "sandbox": "k"}),
        )
        .await;
    assert!(!err, "{t}");
    let (t, err) = b
        .call("read_file", json!({"path": "k.txt", "sandbox": "k"}))
        .await;
    assert_eq!((t.as_str(), err), ("kept", false));
    let mut c = HttpMcp::open(&srv.base, None).await;
    let (t, _) = c
        .call(
            "run_python",
            json!({"code": "print(open('k.txt').read()*2)", "sandbox": "k"}),
        )
        .await;
    assert!(t.contains("keptkept"), "{t}");
    let (t, _) = c.call("submit", json!({"sandbox": "k"})).await;
    assert_eq!(t, "<<< Finished >>>");
    assert_eq!(srv.server.sessions.len(), 3, "a's, b's and k");

    // Closing an MCP session deletes its own sandbox (not the keyed one).
    assert!(a.close().await.is_success());
    let mut gone = false;
    for _ in 0..50 {
        if srv.server.sessions.len() == 2 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "{} sessions", srv.server.sessions.len());
    assert!(srv.server.sessions.by_key("k").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn http_needs_the_token_and_a_loopback_host() {
    let srv = start(ServeConfig {
        token: Some("s3cret".into()),
        ..quiet()
    })
    .await;
    let m = HttpMcp::new(&srv.base, None);
    let init =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params()});
    assert_eq!(m.post(&init).await.status(), StatusCode::UNAUTHORIZED);
    let m = HttpMcp::new(&srv.base, Some("wrong"));
    assert_eq!(m.post(&init).await.status(), StatusCode::UNAUTHORIZED);
    let mut m = HttpMcp::open(&srv.base, Some("s3cret")).await;
    let (t, err) = m.call("run_python", json!({"code": "print('ok')"})).await;
    assert!(!err && t.contains("ok\n"), "{t}");

    // DNS rebinding guard: another Host is refused unless the server allows any.
    let r = initialize_as_host(&srv.base, "evil.example", Some("s3cret"), &init).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let open = start(ServeConfig {
        mcp_any_host: true,
        ..quiet()
    })
    .await;
    let r = initialize_as_host(&open.base, "sandbox.example", None, &init).await;
    assert_eq!(r.status(), StatusCode::OK);
}

/// An MCP `initialize` POST naming `host` in its Host header.
async fn initialize_as_host(
    base: &str,
    host: &str,
    token: Option<&str>,
    init: &serde_json::Value,
) -> reqwest::Response {
    let mut req = client()
        .post(format!("{base}/mcp"))
        .header("Host", host)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(init.to_string());
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.expect("POST")
}

/// A cancelled tool call (`notifications/cancelled`, what a client sends when it gives up)
/// stops its work on the server, whatever it waits for, frees its slot, and the sandbox goes
/// on. The server is the real binary, so `/metrics` shows only these calls.
#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_http_tool_call_stops_its_work() {
    use crate::interrupts::{Serve, Sign, Trickle, running, stopped_after};
    let trickle = Trickle::start();
    let net = format!("127.0.0.1:{}", trickle.port);
    let serve = Serve::start(&["--allow-net", &net, "--timeout", "120"], &[]);
    let mut m = HttpMcp::open(&serve.base, None).await;
    let key = "cancelled";
    let (t, err) = m
        .call(
            "run_bash",
            json!({"command": "mkdir -p kept && cd kept && export MARK=1", "sandbox": key}),
        )
        .await;
    assert!(!err, "{t}");
    let url = trickle.url();
    let cases: Vec<(&str, &str, Value, Vec<Sign>)> = vec![
        (
            "run_bash sleep",
            "run_bash",
            json!({"command": "sleep 30"}),
            vec![Sign::Slot],
        ),
        (
            "run_bash curl",
            "run_bash",
            json!({"command": format!("curl -s {url}")}),
            vec![Sign::Reading],
        ),
        (
            "run_bash time.sleep",
            "run_bash",
            json!({"command": "python3 -c 'import time; time.sleep(30)'"}),
            vec![Sign::Python],
        ),
        (
            "run_python time.sleep",
            "run_python",
            json!({"code": "import time; time.sleep(30)"}),
            vec![Sign::Python],
        ),
        (
            "run_python busy loop",
            "run_python",
            json!({"code": "while True: pass"}),
            vec![Sign::Python],
        ),
        (
            "execute_bash sleep",
            "execute_bash",
            json!({"command": "sleep 30"}),
            vec![Sign::Slot],
        ),
    ];
    let mut results = Vec::new();
    for (name, tool, mut args, signs) in cases {
        args["sandbox"] = json!(key);
        let opened = trickle.opened();
        let id = 1000 + results.len() as u64;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": tool, "arguments": args}});
        let (murl, session) = (m.url.clone(), m.session.clone());
        let call = tokio::spawn(async move {
            let mut r = client()
                .post(&murl)
                .header("Accept", "application/json, text/event-stream")
                .header("Content-Type", "application/json")
                .header("Mcp-Protocol-Version", "2025-06-18")
                .body(msg.to_string());
            if let Some(s) = session {
                r = r.header("Mcp-Session-Id", s);
            }
            let r = r.send().await.expect("POST");
            r.text().await.unwrap_or_default()
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        let seen = std::time::Instant::now();
        while !running(&serve, &trickle, opened, &signs).await {
            assert!(
                seen.elapsed() < Duration::from_secs(30),
                "{name}: never seen running"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!call.is_finished(), "{name}: ended before it was cancelled");
        let r = m
            .post(
                &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": id, "reason": "the client gave up"}}),
            )
            .await;
        let at = std::time::Instant::now();
        assert_eq!(r.status(), StatusCode::ACCEPTED, "{name}");
        results.push((
            name,
            stopped_after(&serve, &trickle, opened, &signs, at).await,
        ));
        call.abort();
        let started = std::time::Instant::now();
        let (t, err) = m
            .call(
                "run_bash",
                json!({"command": "pwd; echo $MARK", "sandbox": key}),
            )
            .await;
        assert!(!err && t.contains("/testbed/kept\n1\n"), "{name}: {t}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{name}: the next call waited {:?}",
            started.elapsed()
        );
    }
    eprintln!("after notifications/cancelled over HTTP:");
    for (name, took) in &results {
        eprintln!("  {name:<22} {took:?}");
    }
    for (name, took) in &results {
        assert!(
            took.is_some_and(|t| t < Duration::from_secs(5)),
            "{name}: not stopped ({took:?})"
        );
    }
}

/// Over stdio too: a cancelled `run_bash` stops at once, and the next call (which waits for
/// it to end) answers with the shell's state intact.
#[test]
fn a_cancelled_stdio_tool_call_stops_its_work() {
    let mut s = StdioServer::start();
    s.request("initialize", initialize_params());
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (t, err) = s.call(
        "run_bash",
        json!({"command": "mkdir -p kept && cd kept && export MARK=1"}),
    );
    assert!(!err, "{t}");
    for (name, tool, args) in [
        ("run_bash sleep", "run_bash", json!({"command": "sleep 30"})),
        (
            "run_bash time.sleep",
            "run_bash",
            json!({"command": "python3 -c 'import time; time.sleep(30)'"}),
        ),
        (
            "execute_bash sleep",
            "execute_bash",
            json!({"command": "sleep 30"}),
        ),
    ] {
        let id = 9000 + s.next;
        s.next += 1;
        s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": tool, "arguments": args}}));
        std::thread::sleep(Duration::from_millis(1500));
        s.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": id, "reason": "the client gave up"}}),
        );
        let at = std::time::Instant::now();
        let (t, err) = s.call("run_bash", json!({"command": "pwd; echo $MARK"}));
        let took = at.elapsed();
        eprintln!(
            "stdio {name}: the next call answered {:.1} ms after the cancel",
            took.as_secs_f64() * 1e3
        );
        assert!(!err && t.contains("/testbed/kept\n1\n"), "{name}: {t}");
        assert!(took < Duration::from_secs(5), "{name}: waited {took:?}");
    }
}
