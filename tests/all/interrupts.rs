//! Every wait is interruptible: `sleep`, `curl`/`wget`, `pip install`, Python's `time.sleep`,
//! a busy loop and HTTP from Python stop soon after the call's deadline or after its caller
//! goes away (an HTTP client that disconnects from `/run_code` or a session's `exec`; Ctrl-C
//! on `benchmark` and `run`), and the session goes on. (MCP's cancelled calls are in
//! `mcp.rs`.) Each case prints how long the work took to stop; the assertions allow a
//! generous bound, as the machine may be busy.
//!
//! The servers are the real binary (`serve --no-token`), one per test, so `/metrics` shows
//! only that test's calls: `llm_in_sandbox_calls_in_flight` (a call keeps its admission slot
//! until it has really ended) and `llm_in_sandbox_instances_in_use` (Python instances alive).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;

/// What every case must stay under, however busy the machine; the printed times are the
/// measurement (expected: well under 100 ms past the event).
const BOUND: Duration = Duration::from_secs(5);

/// How long a case is watched before it is reported as not stopping.
const WATCH: Duration = Duration::from_secs(40);

/// An HTTP server whose answers never end: headers, then a byte every 20 ms. It notes when a
/// client stops reading (a write fails), i.e. when the `curl` or `urlopen` reading it stopped.
/// A request for `/tick` is only counted and answered at once.
pub(crate) struct Trickle {
    pub port: u16,
    closed: Arc<Mutex<Vec<Instant>>>,
    ticks: Arc<AtomicUsize>,
    opened: Arc<AtomicUsize>,
}

impl Trickle {
    pub fn start() -> Trickle {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let closed = Arc::new(Mutex::new(Vec::new()));
        let ticks = Arc::new(AtomicUsize::new(0));
        let opened = Arc::new(AtomicUsize::new(0));
        let (c, t, o) = (closed.clone(), ticks.clone(), opened.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let (c, t, o) = (c.clone(), t.clone(), o.clone());
                std::thread::spawn(move || serve_trickle(conn, &c, &t, &o));
            }
        });
        Trickle {
            port,
            closed,
            ticks,
            opened,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// Endless answers whose readers have gone.
    pub fn closed(&self) -> usize {
        self.closed.lock().unwrap().len()
    }

    /// Endless answers started.
    pub fn opened(&self) -> usize {
        self.opened.load(Ordering::SeqCst)
    }

    pub fn ticks(&self) -> usize {
        self.ticks.load(Ordering::SeqCst)
    }
}

fn serve_trickle(
    mut conn: TcpStream,
    closed: &Mutex<Vec<Instant>>,
    ticks: &AtomicUsize,
    opened: &AtomicUsize,
) {
    let mut head = Vec::new();
    let mut b = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match conn.read(&mut b) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&b[..n]),
        }
    }
    if head.starts_with(b"GET /tick") {
        ticks.fetch_add(1, Ordering::SeqCst);
        let _ = conn
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n");
        return;
    }
    opened.fetch_add(1, Ordering::SeqCst);
    let _ = conn.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n",
    );
    loop {
        if conn.write_all(b"x").and_then(|()| conn.flush()).is_err() {
            closed.lock().unwrap().push(Instant::now());
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A package index that accepts connections and never answers: a `pip install` through it
/// waits until it is stopped.
pub(crate) fn hanging_index() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().flatten() {
            held.push(conn);
        }
    });
    format!("http://127.0.0.1:{port}/simple/")
}

/// A cache folder of the test's own sharing the compiled runtime with the tests' cache (see
/// `common::cache`): a pip left running holds the package cache's lock, which must not make
/// other tests wait.
pub(crate) fn private_cache() -> tempfile::TempDir {
    let _ = common::runtime();
    let dir = tempfile::tempdir().expect("tempdir");
    for e in ["runtime", "downloads", "compiled", "preloaded", "reference"] {
        std::os::unix::fs::symlink(common::cache_root().join(e), dir.path().join(e))
            .expect("link the shared cache");
    }
    dir
}

/// Servers started by this test process, for their `pip_tag`s.
static SERVERS: AtomicUsize = AtomicUsize::new(0);

/// `serve --no-token` with `args`, its own package cache and `env`; killed when dropped.
pub(crate) struct Serve {
    child: Child,
    pub base: String,
    /// A package name of this server's own, for `pip install` cases (see [`pips_named`]).
    pub pip_tag: String,
    _cache: tempfile::TempDir,
}

impl Serve {
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Serve {
        let cache = private_cache();
        let mut all = vec!["--no-token", "--access-log", "off"];
        all.extend_from_slice(args);
        let (child, base) = common::spawn_serve(&all, |c| {
            c.env("LLM_IN_SANDBOX_CACHE", cache.path());
            for (k, v) in env {
                c.env(k, v);
            }
        });
        let pip_tag = format!(
            "interrupt-me-{}-{}",
            std::process::id(),
            SERVERS.fetch_add(1, Ordering::SeqCst)
        );
        Serve {
            child,
            base,
            pip_tag,
            _cache: cache,
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

pub(crate) async fn post(url: &str, body: &Value) -> Value {
    let r = http().post(url).json(body).send().await.expect("POST");
    let status = r.status();
    let v: Value = r.json().await.expect("JSON");
    assert!(status.is_success(), "{url}: {status} {v}");
    v
}

/// A gauge from `/metrics`.
pub(crate) async fn gauge(base: &str, name: &str) -> u64 {
    let text = http()
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("GET /metrics")
        .text()
        .await
        .expect("metrics text");
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

/// The live processes (zombies excluded) whose command line names `tag`: a pip asked for the
/// package `tag`, and anything it or a wrapper around it started (pyenv's shims run the real
/// pip as a child of their own).
pub(crate) fn pips_named(tag: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            // `pid (comm) state ...`: the state is the first field after the last ')'.
            let alive = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .is_some_and(|state| state != "Z" && state != "X");
            let cmdline = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            alive && String::from_utf8_lossy(&cmdline).contains(tag)
        })
        .collect()
}

/// What shows that a case's work is still going on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Sign {
    /// Only the admission slot (`calls_in_flight`).
    Slot,
    /// A Python instance alive too.
    Python,
    /// Reading the trickle server.
    Reading,
    /// A host pip process.
    Pip,
}

/// How long after `since` every sign of `signs` was gone (polled every 10 ms), or `None` when
/// one was still there after [`WATCH`].
pub(crate) async fn stopped_after(
    serve: &Serve,
    trickle: &Trickle,
    opened_before: usize,
    signs: &[Sign],
    since: Instant,
) -> Option<Duration> {
    loop {
        let mut busy = gauge(&serve.base, "llm_in_sandbox_calls_in_flight").await > 0;
        for s in signs {
            busy |= match s {
                Sign::Slot => false,
                Sign::Python => gauge(&serve.base, "llm_in_sandbox_instances_in_use").await > 0,
                Sign::Reading => trickle.closed() < trickle.opened().max(opened_before + 1),
                Sign::Pip => !pips_named(&serve.pip_tag).is_empty(),
            };
        }
        if !busy {
            return Some(since.elapsed());
        }
        if since.elapsed() > WATCH {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Wait until `check` holds (polled every 10 ms) or `within` passed; whether it held.
pub(crate) async fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < within {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    check()
}

/// Send a JSON POST on a connection of its own and leave it open, unread.
pub(crate) fn post_unread(base: &str, path: &str, body: &Value) -> TcpStream {
    let addr = base.trim_start_matches("http://").to_string();
    let body = body.to_string();
    let mut s = TcpStream::connect(&addr).expect("connect");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send the request");
    s
}

/// Close a connection without reading the answer, as a client that gives up does. Returns
/// when it closed, or the answer when the call had already ended (which the cases here must
/// not).
pub(crate) fn leave(s: TcpStream) -> Result<Instant, String> {
    s.set_nonblocking(true).expect("nonblocking");
    let mut b = [0u8; 4096];
    if let Ok(n @ 1..) = (&s).read(&mut b) {
        return Err(String::from_utf8_lossy(&b[..n]).into_owned());
    }
    drop(s);
    Ok(Instant::now())
}

/// Whether the signs of a case's work are all there: it really is waiting.
pub(crate) async fn running(
    serve: &Serve,
    trickle: &Trickle,
    opened_before: usize,
    signs: &[Sign],
) -> bool {
    for s in signs {
        let there = match s {
            Sign::Slot => gauge(&serve.base, "llm_in_sandbox_calls_in_flight").await > 0,
            Sign::Python => gauge(&serve.base, "llm_in_sandbox_instances_in_use").await > 0,
            Sign::Reading => trickle.opened() > opened_before,
            Sign::Pip => !pips_named(&serve.pip_tag).is_empty(),
        };
        if !there {
            return false;
        }
    }
    true
}

/// POST `body`, wait until the case's work is seen running (at least `settle`), then leave;
/// when the client left.
pub(crate) async fn post_and_leave(
    serve: &Serve,
    trickle: &Trickle,
    path: &str,
    body: &Value,
    signs: &[Sign],
    name: &str,
) -> Instant {
    let opened = trickle.opened();
    let conn = post_unread(&serve.base, path, body);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_millis(500)).await;
    while !running(serve, trickle, opened, signs).await {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{name}: never seen running"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    leave(conn).unwrap_or_else(|answer| panic!("{name}: ended before the client left: {answer}"))
}

/// One waiting command, how it is seen while it runs, and its name in the report.
pub(crate) struct Wait {
    pub name: &'static str,
    pub command: String,
    pub signs: Vec<Sign>,
}

/// The shell commands that wait, each as long as it is let.
pub(crate) fn shell_waits(trickle: &Trickle, pip_tag: &str) -> Vec<Wait> {
    let url = trickle.url();
    let w = |name, command: String, signs: &[Sign]| Wait {
        name,
        command,
        signs: signs.to_vec(),
    };
    vec![
        w("sleep", "sleep 30".into(), &[Sign::Slot]),
        w("curl", format!("curl -s {url}"), &[Sign::Reading]),
        w("wget", format!("wget -q -O - {url}"), &[Sign::Reading]),
        w(
            "time.sleep",
            "python3 -c 'import time; time.sleep(30)'".into(),
            &[Sign::Python],
        ),
        w(
            "busy loop",
            "python3 -c 'while True: pass'".into(),
            &[Sign::Python],
        ),
        w(
            "urlopen",
            format!("python3 -c 'import urllib.request as u; u.urlopen(\"{url}\").read()'"),
            &[Sign::Python, Sign::Reading],
        ),
        w(
            "subprocess sleep",
            "python3 -c 'import subprocess; subprocess.run([\"sleep\", \"30\"])'".into(),
            &[Sign::Python],
        ),
        w("bash loop", "while true; do :; done".into(), &[Sign::Slot]),
        w(
            "pip install",
            format!("pip install {pip_tag}"),
            &[Sign::Pip],
        ),
    ]
}

fn report(what: &str, results: &[(&str, Option<Duration>)]) {
    eprintln!("{what}:");
    for (name, took) in results {
        match took {
            Some(t) => eprintln!(
                "  {name:<18} stopped {:>7.1} ms after",
                t.as_secs_f64() * 1e3
            ),
            None => eprintln!("  {name:<18} still running after {WATCH:?}"),
        }
    }
}

fn assert_within(what: &str, results: &[(&str, Option<Duration>)]) {
    report(what, results);
    let slow: Vec<String> = results
        .iter()
        .filter(|(_, t)| t.is_none_or(|t| t > BOUND))
        .map(|(n, t)| format!("{n} ({t:?})"))
        .collect();
    assert!(
        slow.is_empty(),
        "{what}: not stopped within {BOUND:?}: {slow:?}"
    );
}

/// A session with a marker in its shell (a folder and a variable), to check that the shell
/// goes on after an interrupted call.
async fn marked_session(base: &str, timeout_s: u64) -> String {
    let v = post(
        &format!("{base}/v1/sandboxes"),
        &json!({"limits": {"timeout_s": timeout_s}}),
    )
    .await;
    let id = v["id"].as_str().expect("id").to_string();
    let v = post(
        &format!("{base}/v1/sandboxes/{id}/exec"),
        &json!({"command": "mkdir -p kept && cd kept && export MARK=1"}),
    )
    .await;
    assert_eq!(v["exit_code"], 0, "{v}");
    id
}

/// The session's shell still has its marker and runs the next command.
async fn assert_goes_on(base: &str, id: &str, case: &str) {
    let started = Instant::now();
    let v = post(
        &format!("{base}/v1/sandboxes/{id}/exec"),
        &json!({"command": "pwd; echo $MARK; python3 -c 'print(6*7)'"}),
    )
    .await;
    assert_eq!(
        v["stdout"], "/testbed/kept\n1\n42\n",
        "{case}: the session did not go on: {v}"
    );
    assert!(
        started.elapsed() < BOUND,
        "{case}: the next call waited {:?}",
        started.elapsed()
    );
}

/// `timeout_s` on a session's `exec` stops every kind of wait, and the session goes on.
#[tokio::test(flavor = "multi_thread")]
async fn every_wait_in_a_session_stops_at_the_calls_deadline() {
    let trickle = Trickle::start();
    let index = hanging_index();
    let net = format!("127.0.0.1:{}", trickle.port);
    let serve = Serve::start(
        &["--allow-net", &net, "--pip", "on", "--timeout", "120"],
        &[("LLM_IN_SANDBOX_PIP_INDEX_URL", &index)],
    );
    let id = marked_session(&serve.base, 120).await;
    let url = format!("{}/v1/sandboxes/{id}/exec", serve.base);
    let limit = Duration::from_secs(1);
    let mut results = Vec::new();
    let mut wrong = Vec::new();
    for wait in shell_waits(&trickle, &serve.pip_tag) {
        let started = Instant::now();
        let v = post(
            &url,
            &json!({"command": wait.command, "timeout_s": limit.as_secs_f64()}),
        )
        .await;
        let took = started.elapsed();
        if v["timed_out"] != true {
            wrong.push(format!("{}: {v}", wait.name));
        }
        // The answer comes once the call has ended; a pip it started must be gone too.
        let pip_gone = eventually(WATCH, || pips_named(&serve.pip_tag).is_empty()).await;
        eprintln!(
            "  {}: answered {:.1} ms past the limit",
            wait.name,
            took.saturating_sub(limit).as_secs_f64() * 1e3
        );
        results.push((
            wait.name,
            pip_gone.then(|| started.elapsed().saturating_sub(limit)),
        ));
        assert_goes_on(&serve.base, &id, wait.name).await;
    }
    assert_within("past a 1 s timeout_s on exec", &results);
    assert!(wrong.is_empty(), "not reported as timed out: {wrong:#?}");
}

/// Reads of stdin and of a fifo never wait here: stdin is what the call gave (or empty), a
/// fifo in the sandbox's file system reads like a file, and the guest has no pipes.
#[tokio::test(flavor = "multi_thread")]
async fn reads_of_an_empty_stdin_or_a_fifo_end_at_once() {
    let serve = Serve::start(&[], &[]);
    let id = marked_session(&serve.base, 60).await;
    let url = format!("{}/v1/sandboxes/{id}/exec", serve.base);
    for (command, says) in [
        (
            "python3 -c 'import sys; print(len(sys.stdin.read()))'",
            "0\n",
        ),
        ("cat; echo done", "done\n"),
        ("read line; echo \"read $?\"", "read 1\n"),
        ("mkfifo /tmp/f && cat /tmp/f; echo done", "done\n"),
        // WASI has no pipes to wait on.
        (
            "python3 -c 'import os; print(hasattr(os, \"pipe\"))'",
            "False\n",
        ),
    ] {
        let started = Instant::now();
        let v = post(&url, &json!({"command": command, "timeout_s": 30})).await;
        eprintln!(
            "{command:?}: {:.1} ms: {:?}",
            started.elapsed().as_secs_f64() * 1e3,
            v["stdout"]
        );
        assert_eq!(v["timed_out"], false, "{command}: {v}");
        assert_eq!(v["stdout"], says, "{command}: {v}");
        assert!(started.elapsed() < BOUND, "{command}: {v}");
    }
    // The same through /run_code, whose stdin is the request's.
    let v = post(
        &format!("{}/run_code", serve.base),
        &json!({"code": "import sys; print(sys.stdin.read().upper())", "stdin": "abc", "language": "python"}),
    )
    .await;
    assert_eq!(v["run_result"]["stdout"], "ABC\n", "{v}");
}

/// A client that disconnects from a session's `exec` stops the call's work, whatever it is
/// waiting for; its slot is freed and the session's shell goes on.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_leaving_an_exec_stops_every_kind_of_wait() {
    let trickle = Trickle::start();
    let index = hanging_index();
    let net = format!("127.0.0.1:{}", trickle.port);
    let serve = Serve::start(
        &["--allow-net", &net, "--pip", "on", "--timeout", "120"],
        &[("LLM_IN_SANDBOX_PIP_INDEX_URL", &index)],
    );
    let id = marked_session(&serve.base, 120).await;
    let path = format!("/v1/sandboxes/{id}/exec");
    let mut results = Vec::new();
    for wait in shell_waits(&trickle, &serve.pip_tag) {
        let opened = trickle.opened();
        let body = json!({"command": wait.command});
        let left = post_and_leave(&serve, &trickle, &path, &body, &wait.signs, wait.name).await;
        let took = stopped_after(&serve, &trickle, opened, &wait.signs, left).await;
        results.push((wait.name, took));
        assert_goes_on(&serve.base, &id, wait.name).await;
    }
    // The session's other calls that run code.
    for (name, endpoint, body, signs) in [
        (
            "python time.sleep",
            "python",
            json!({"code": "import time; time.sleep(30)"}),
            &[Sign::Python][..],
        ),
        (
            "tools execute_bash",
            "tools",
            json!({"name": "execute_bash", "arguments": {"command": "sleep 30"}}),
            &[Sign::Slot][..],
        ),
    ] {
        let opened = trickle.opened();
        let path = format!("/v1/sandboxes/{id}/{endpoint}");
        let left = post_and_leave(&serve, &trickle, &path, &body, signs, name).await;
        results.push((
            name,
            stopped_after(&serve, &trickle, opened, signs, left).await,
        ));
        assert_goes_on(&serve.base, &id, name).await;
    }
    assert_within("after the client left an exec", &results);
}

/// A client that disconnects from `/run_code` (or `/run_jupyter`) stops the code: Python at
/// once, bash too.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_leaving_run_code_stops_the_code() {
    let trickle = Trickle::start();
    let net = format!("127.0.0.1:{}", trickle.port);
    let serve = Serve::start(&["--allow-net", &net, "--timeout", "120"], &[]);
    let url = trickle.url();
    let tick = format!("{url}tick");
    let cases: Vec<(&str, &str, String, Vec<Sign>)> = vec![
        (
            "time.sleep",
            "python",
            "import time; time.sleep(30)".into(),
            vec![Sign::Python],
        ),
        (
            "busy loop",
            "python",
            "while True: pass".into(),
            vec![Sign::Python],
        ),
        (
            "urlopen",
            "python",
            format!("import urllib.request as u; u.urlopen({url:?}).read()"),
            vec![Sign::Python, Sign::Reading],
        ),
        ("bash sleep", "bash", "sleep 30".into(), vec![Sign::Slot]),
        (
            "bash curl",
            "bash",
            format!("curl -s {url}"),
            vec![Sign::Reading],
        ),
        (
            "bash python",
            "bash",
            "python3 -c 'while True: pass'".into(),
            vec![Sign::Python],
        ),
    ];
    let mut results = Vec::new();
    for (name, language, code, signs) in cases {
        let opened = trickle.opened();
        let body = json!({"code": code, "language": language, "run_timeout": 60});
        let left = post_and_leave(&serve, &trickle, "/run_code", &body, &signs, name).await;
        results.push((
            name,
            stopped_after(&serve, &trickle, opened, &signs, left).await,
        ));
    }
    let body = json!({"cells": ["x = 1", "import time; time.sleep(30)"]});
    let opened = trickle.opened();
    let left = post_and_leave(
        &serve,
        &trickle,
        "/run_jupyter",
        &body,
        &[Sign::Python],
        "jupyter",
    )
    .await;
    results.push((
        "run_jupyter cell",
        stopped_after(&serve, &trickle, opened, &[Sign::Python], left).await,
    ));
    // A script that would call home after its sleep never does.
    let ticks = trickle.ticks();
    let body =
        json!({"code": format!("sleep 3; curl -s {tick}"), "language": "bash", "run_timeout": 60});
    let conn = post_unread(&serve.base, "/run_code", &body);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let left = leave(conn).expect("still running");
    let took = stopped_after(&serve, &trickle, trickle.opened(), &[Sign::Slot], left).await;
    results.push(("sleep, then curl", took));
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_within("after the client left /run_code", &results);
    assert_eq!(
        trickle.ticks(),
        ticks,
        "the script went on after its client left"
    );
}

/// `benchmark`'s fake model: writes the text after `ANSWER=` to the answer file, then submits;
/// every reply after `delay`.
fn slow_model(delay: Duration) -> llm_in_sandbox::llm::fake::FakeServer {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    FakeServer::start(Box::new(move |req: &Value| {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        let task = msgs
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
            .to_string();
        let answer = task
            .split("ANSWER=")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("none")
            .to_string();
        let reply = if msgs.iter().any(|m| m["role"] == "tool") {
            Reply::calls(&[("submit", "{}")])
        } else {
            let cmd =
                json!({"command": format!("echo '{answer}' > /testbed/answer.txt")}).to_string();
            Reply::calls(&[("execute_bash", &cmd)])
        };
        reply.delayed(delay)
    }))
    .expect("fake model")
}

fn bin(cache: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"));
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("LLM_IN_SANDBOX_CACHE", cache)
        .env_remove("GITHUB_STEP_SUMMARY");
    c
}

fn sigint(child: &Child) {
    // SAFETY: a signal to our own child process, by its id.
    let r = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(r, 0, "kill -INT");
}

/// Wait for `child` to exit, up to [`WATCH`]; its output, and how long it took.
fn exit_of(mut child: Child, since: Instant) -> (std::process::Output, Duration) {
    while child.try_wait().expect("wait").is_none() {
        if since.elapsed() > WATCH {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = since.elapsed();
    (child.wait_with_output().expect("output"), took)
}

/// What a row's result is, for comparing runs: key, score, answer, stop reason, steps.
type Outcome = (String, Option<f64>, Option<String>, String, u32);

/// The rows of a results.jsonl that matter for the comparison, by key.
fn rows_of(dir: &std::path::Path) -> Vec<Outcome> {
    let mut rows: Vec<_> = llm_in_sandbox::eval::report::read_results(&dir.join("results.jsonl"))
        .into_iter()
        .map(|r| (r.key, r.score, r.answer, r.stop, r.steps))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

fn only_dir(root: &std::path::Path) -> std::path::PathBuf {
    let dirs: Vec<_> = std::fs::read_dir(root)
        .expect("the runs folder")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

/// Ctrl-C on `benchmark`: it stops soon, the rows finished are kept, and `--resume` finishes
/// the run with the same results as a run never interrupted.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_on_benchmark_keeps_finished_rows_and_resume_gives_the_same_results() {
    let cache = private_cache();
    let model = slow_model(Duration::from_millis(250));
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("d.jsonl");
    let text: String = (0..10)
        .map(|i| {
            let answer = if i % 3 == 2 {
                "nope".to_string()
            } else {
                (i * 3).to_string()
            };
            json!({"id": format!("r{i:02}"), "domain": "math",
                   "problem_statement": format!("Row {i}. ANSWER={answer} please"),
                   "ground_truth": (i * 3).to_string()})
            .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(&data, text).expect("write data");
    let bench = |out: &std::path::Path, extra: &[&str]| {
        let mut c = bin(cache.path());
        c.args([
            "benchmark",
            "--scorer",
            "exact",
            "--llm-base-url",
            &model.url,
        ])
        .args([
            "--llm-name",
            "fake",
            "--max-steps",
            "4",
            "--num-workers",
            "2",
        ])
        .arg("--data")
        .arg(&data)
        .arg("--output-dir")
        .arg(out)
        .args(extra);
        c
    };
    // Uninterrupted.
    let whole = dir.path().join("whole");
    let o = bench(&whole, &[]).output().expect("benchmark");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = rows_of(&only_dir(&whole));
    assert_eq!(expected.len(), 10);
    // Interrupted once some rows are done.
    let cut = dir.path().join("cut");
    let child = bench(&cut, &[]).spawn().expect("benchmark");
    let done = eventually(WATCH, || {
        std::fs::read_dir(&cut)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .map(|e| rows_of(&e.path()).len() >= 3)
            .unwrap_or(false)
    })
    .await;
    assert!(done, "no rows finished");
    let at = Instant::now();
    sigint(&child);
    let (o, took) = exit_of(child, at);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!(
        "benchmark stopped {:.1} ms after Ctrl-C ({:?}); it said: {}",
        took.as_secs_f64() * 1e3,
        o.status,
        err.lines().last().unwrap_or_default()
    );
    assert!(took < BOUND, "benchmark took {took:?} to stop: {err}");
    assert!(!o.status.success(), "an interrupted run is not a success");
    let run_dir = only_dir(&cut);
    let kept = rows_of(&run_dir);
    assert!(kept.len() >= 3 && kept.len() < 10, "kept {kept:?}");
    for row in &kept {
        assert!(expected.contains(row), "a kept row differs: {row:?}");
    }
    // Resumed: the same results as the uninterrupted run, nothing run twice.
    let o = bench(&cut, &["--resume", run_dir.to_str().expect("utf-8")])
        .output()
        .expect("benchmark --resume");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(rows_of(&run_dir), expected);
    let summary = |d: &std::path::Path| -> Value {
        let v: Value = serde_json::from_str(
            &std::fs::read_to_string(d.join("results.json")).expect("results.json"),
        )
        .expect("JSON");
        v["summary"]["overall"].clone()
    };
    let (a, b) = (summary(&only_dir(&whole)), summary(&run_dir));
    assert_eq!(a["mean_score"], b["mean_score"], "{a} {b}");
    assert_eq!(a["rows"], b["rows"], "{a} {b}");
}

/// Ctrl-C on `run` while its command waits: it stops soon and keeps the trajectory so far.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_on_run_stops_a_waiting_command_and_keeps_the_trajectory() {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    let cache = private_cache();
    let model = FakeServer::start(Box::new(|req: &Value| {
        if req["messages"].to_string().contains("\"role\":\"tool\"") {
            Reply::calls(&[("submit", "{}")])
        } else {
            Reply::calls(&[("execute_bash", r#"{"command": "echo start; sleep 60"}"#)])
        }
    }))
    .expect("fake model");
    let out = tempfile::tempdir().expect("tempdir");
    let child = bin(cache.path())
        .args([
            "run",
            "--query",
            "wait a minute",
            "--llm-base-url",
            &model.url,
        ])
        .args(["--llm-name", "fake", "--output-dir"])
        .arg(out.path())
        .spawn()
        .expect("run");
    // Once the command is running (the first model call answered, a little later).
    let asked = eventually(WATCH, || !model.requests().is_empty()).await;
    assert!(asked, "the model was never asked");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let at = Instant::now();
    sigint(&child);
    let (o, took) = exit_of(child, at);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!(
        "run stopped {:.1} ms after Ctrl-C ({:?})",
        took.as_secs_f64() * 1e3,
        o.status
    );
    assert!(took < BOUND, "run took {took:?} to stop: {err}");
    assert!(err.contains("interrupted"), "{err}");
    assert_eq!(o.status.code(), Some(130), "{err}");
    let run_dir = only_dir(out.path());
    let t: Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir.join("trajectory.json")).expect("trajectory.json"),
    )
    .expect("JSON");
    assert!(t.to_string().contains("interrupted"), "{t}");
}

/// A server that ends while a `pip install` runs does not leave pip behind: killed outright
/// (SIGKILL) or stopped (SIGTERM, its grace running out while the call still runs).
#[tokio::test(flavor = "multi_thread")]
async fn a_pip_running_when_its_server_ends_ends_too() {
    let index = hanging_index();
    for signal in [libc::SIGKILL, libc::SIGTERM] {
        let mut serve = Serve::start(
            &["--pip", "on", "--timeout", "120", "--grace", "1"],
            &[("LLM_IN_SANDBOX_PIP_INDEX_URL", &index)],
        );
        let id = marked_session(&serve.base, 120).await;
        let conn = post_unread(
            &serve.base,
            &format!("/v1/sandboxes/{id}/exec"),
            &json!({"command": format!("pip install {}", serve.pip_tag)}),
        );
        let mut pips = Vec::new();
        assert!(
            eventually(Duration::from_secs(30), || {
                pips = pips_named(&serve.pip_tag);
                !pips.is_empty()
            })
            .await,
            "pip never started"
        );
        // SAFETY: a signal to our own child process, by its id.
        let r = unsafe { libc::kill(serve.child.id() as libc::pid_t, signal) };
        assert_eq!(r, 0);
        let _ = serve.child.wait();
        let at = Instant::now();
        let gone = eventually(WATCH, || pips_named(&serve.pip_tag).is_empty()).await;
        eprintln!(
            "signal {signal}: pip {pips:?} gone {:.1} ms after its server ended",
            at.elapsed().as_secs_f64() * 1e3
        );
        drop(conn);
        assert!(
            gone && at.elapsed() < BOUND,
            "signal {signal}: pip {pips:?} outlived its server"
        );
    }
}
