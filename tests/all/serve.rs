//! `serve` over real sockets and real sandboxes: the session API, SandboxFusion's protocol,
//! auth, admission, body caps, reaping, path escapes, tar, metrics. Each test starts its own
//! server on a loopback port; the Python clients' own suite is in `python_client.rs`.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use llm_in_sandbox::serve::{ServeConfig, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common;

/// A running server: its base URL; dropping the handle stops it.
pub(crate) struct Running {
    pub base: String,
    pub server: Arc<Server>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

pub(crate) async fn start(config: ServeConfig) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = Server::new(common::runtime(), config);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let s = server.clone();
    tokio::spawn(async move {
        let _ = s
            .serve(listener, async move {
                let _ = rx.await;
            })
            .await;
    });
    Running {
        base: format!("http://{addr}"),
        server,
        stop: Some(tx),
    }
}

pub(crate) fn quiet() -> ServeConfig {
    ServeConfig {
        access_log: false,
        ..ServeConfig::default()
    }
}

fn http() -> reqwest::Client {
    // reqwest is built without a default TLS provider; building a client needs one set.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

pub(crate) async fn post(url: &str, body: Value) -> (StatusCode, Value) {
    let r = http().post(url).json(&body).send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, v)
}

fn b64(s: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

async fn new_session(base: &str, body: Value) -> String {
    let (st, v) = post(&format!("{base}/v1/sandboxes"), body).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    v["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn session_shell_state_python_files_and_tools() {
    let srv = start(quiet()).await;
    let b = &srv.base;
    let id = new_session(
        b,
        json!({"files": {"data/in.txt": b64(b"3 4\n")}, "env": {"GREETING": "hi"}}),
    )
    .await;
    let sb = format!("{b}/v1/sandboxes/{id}");
    // The shell persists cwd and exported variables between calls.
    let (st, v) = post(
        &format!("{sb}/exec"),
        json!({"command": "cd data && export N=7 && cat in.txt"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["stdout"], "3 4\n");
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["cwd"], "/testbed/data");
    let (_, v) = post(
        &format!("{sb}/exec"),
        json!({"command": "echo $N $GREETING; pwd; exit 3"}),
    )
    .await;
    assert_eq!(v["stdout"], "7 hi\n/testbed/data\n", "{v}");
    assert_eq!(v["exit_code"], 3);
    // Python sees the same workspace; a traceback is a result, not an HTTP error.
    let (st, v) = post(
        &format!("{sb}/python"),
        json!({"code": "import numpy as np; print(np.array(open('data/in.txt').read().split(), int).sum())"}),
    )
    .await;
    assert_eq!(
        (st, v["stdout"].as_str()),
        (StatusCode::OK, Some("7\n")),
        "{v}"
    );
    let (st, v) = post(&format!("{sb}/python"), json!({"code": "1/0"})).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["exit_code"], 1);
    assert!(
        v["stderr"].as_str().unwrap().contains("ZeroDivisionError"),
        "{v}"
    );
    let (_, v) = post(
        &format!("{sb}/python"),
        json!({"code": "while True: pass", "timeout_s": 1}),
    )
    .await;
    assert_eq!(
        (v["timed_out"].as_bool(), v["exit_code"].as_i64()),
        (Some(true), Some(-1)),
        "{v}"
    );
    // Files: put, get, list.
    let c = http();
    let r = c
        .put(format!("{sb}/files?path=/testbed/out/a.bin"))
        .body(vec![0u8, 1, 2, 255])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let got = c
        .get(format!("{sb}/files?path=out/a.bin"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(&got[..], &[0u8, 1, 2, 255]);
    let v: Value = c
        .get(format!("{sb}/list?path=out"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        v["entries"],
        json!([{"name": "a.bin", "type": "file", "size": 4}])
    );
    let r = c
        .get(format!("{sb}/files?path=nope.txt"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // Tool calls answer exactly what the model would see.
    let (_, v) = post(
        &format!("{sb}/tools"),
        json!({"name": "execute_bash", "arguments": {"command": "echo tool"}}),
    )
    .await;
    let out = v["output"].as_str().unwrap();
    assert!(
        out.starts_with("Exit code: 0\nExecution output of \\[execute_bash]:\n"),
        "{out}"
    );
    assert!(out.contains("tool\n"), "{out}");
    let (_, v) = post(
        &format!("{sb}/tools"),
        json!({"name": "str_replace_editor", "arguments": "{\"command\": \"create\", \"path\": \"/testbed/e.txt\", \"file_text\": \"x\\n\"}"}),
    )
    .await;
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .starts_with("Execution output of \\[str_replace_editor]:"),
        "{v}"
    );
    assert_eq!(
        c.get(format!("{sb}/files?path=e.txt"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "x\n"
    );
    let (_, v) = post(
        &format!("{sb}/tools"),
        json!({"name": "submit", "arguments": {}}),
    )
    .await;
    assert_eq!(
        (v["output"].as_str(), v["done"].as_bool()),
        (Some("<<< Finished >>>"), Some(true))
    );
    // Delete, then it is gone.
    let r = c.delete(&sb).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let (st, v) = post(&format!("{sb}/exec"), json!({"command": "true"})).await;
    assert_eq!(st, StatusCode::NOT_FOUND, "{v}");
    assert_eq!(v["error"]["code"], "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn get_or_create_by_key_list_and_bulk_delete() {
    let srv = start(quiet()).await;
    let b = &srv.base;
    let (st, a) = post(&format!("{b}/v1/sandboxes"), json!({"key": "episode-1"})).await;
    assert_eq!(st, StatusCode::CREATED);
    let (st, again) = post(&format!("{b}/v1/sandboxes"), json!({"key": "episode-1"})).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        (a["id"].clone(), again["created"].clone()),
        (again["id"].clone(), json!(false))
    );
    new_session(b, json!({"key": "episode-2"})).await;
    new_session(b, json!({})).await;
    let v: Value = http()
        .get(format!("{b}/v1/sandboxes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["sandboxes"].as_array().unwrap().len(), 3);
    let (_, v) = post(
        &format!("{b}/v1/sandboxes/delete"),
        json!({"keys": ["episode-1", "episode-2", "missing"]}),
    )
    .await;
    assert_eq!(v["deleted"], 2);
    let (_, v) = post(&format!("{b}/v1/sandboxes/delete"), json!({"all": true})).await;
    assert_eq!(v["deleted"], 1);
    assert!(srv.server.sessions.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn paths_that_leave_the_sandbox_are_refused() {
    let srv = start(quiet()).await;
    let id = new_session(&srv.base, json!({})).await;
    let sb = format!("{}/v1/sandboxes/{id}", srv.base);
    let c = http();
    // A symlink made inside the sandbox that points out of it.
    let (_, v) = post(
        &format!("{sb}/exec"),
        json!({"command": "ln -s /etc/passwd link; ls"}),
    )
    .await;
    let _ = v;
    for p in [
        "../../etc/passwd",
        "/etc/passwd",
        "/testbed/../../etc/passwd",
        "%2E%2E/x",
        "/proc/self/environ",
    ] {
        let r = c.get(format!("{sb}/files?path={p}")).send().await.unwrap();
        assert!(r.status().is_client_error(), "{p}: {}", r.status());
        let r = c
            .put(format!("{sb}/files?path={p}"))
            .body("x")
            .send()
            .await
            .unwrap();
        assert!(r.status().is_client_error(), "{p}: {}", r.status());
    }
    let r = c.get(format!("{sb}/files?path=link")).send().await.unwrap();
    let st = r.status();
    let body = r.text().await.unwrap();
    assert!(
        !body.contains("root:"),
        "read through a symlink out: {body}"
    );
    assert!(st.is_client_error() || st.is_server_error(), "{st}");
    // A tar whose entries climb out or link out is refused; nothing lands outside.
    for evil in [
        tar_with_name("../escape.txt"),
        tar_with_link("l", "/etc/passwd"),
        tar_with_link("l", "../../x"),
    ] {
        let r = c
            .put(format!("{sb}/archive?path=up"))
            .body(evil)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    }
    // Files in the request body of create are checked the same way.
    let (st, _) = post(
        &format!("{}/v1/sandboxes", srv.base),
        json!({"files": {"/etc/x": b64(b"x")}}),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
}

fn tar_with_name(name: &str) -> Vec<u8> {
    // The tar crate refuses `..` when writing, so write the header's name bytes directly.
    let mut h = tar::Header::new_old();
    h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    h.set_size(1);
    h.set_mode(0o644);
    h.set_entry_type(tar::EntryType::Regular);
    h.set_cksum();
    let mut b = tar::Builder::new(Vec::new());
    b.append(&h, &b"x"[..]).unwrap();
    b.into_inner().unwrap()
}

fn tar_with_link(name: &str, target: &str) -> Vec<u8> {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    let mut b = tar::Builder::new(Vec::new());
    b.append_link(&mut h, name, target).unwrap();
    b.into_inner().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn folder_tar_round_trip() {
    let srv = start(quiet()).await;
    let id = new_session(&srv.base, json!({})).await;
    let sb = format!("{}/v1/sandboxes/{id}", srv.base);
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in [
        ("a.txt", &b"alpha"[..]),
        ("sub/deep/b.txt", b"beta"),
        ("sub/c.bin", &[0u8, 7]),
    ] {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        b.append_data(&mut h, name, data).unwrap();
    }
    let c = http();
    let r = c
        .put(format!("{sb}/archive?path=proj"))
        .body(b.into_inner().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (v["files"].as_u64(), v["bytes"].as_u64()),
        (Some(3), Some(11))
    );
    let (_, v) = post(
        &format!("{sb}/exec"),
        json!({"command": "cat proj/sub/deep/b.txt; ln -s deep/b.txt proj/sub/ln"}),
    )
    .await;
    assert_eq!(v["stdout"], "beta");
    let bytes = c
        .get(format!("{sb}/archive?path=proj"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let mut names = Vec::new();
    for e in tar::Archive::new(&bytes[..]).entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path().unwrap().to_string_lossy().into_owned();
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut s).unwrap();
        names.push((name, e.header().entry_type().is_symlink(), s));
    }
    names.sort();
    let want: Vec<(String, bool, Vec<u8>)> = vec![
        ("a.txt".into(), false, b"alpha".to_vec()),
        ("sub".into(), false, vec![]),
        ("sub/c.bin".into(), false, vec![0, 7]),
        ("sub/deep".into(), false, vec![]),
        ("sub/deep/b.txt".into(), false, b"beta".to_vec()),
        ("sub/ln".into(), true, vec![]),
    ];
    assert_eq!(names, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn token_body_cap_and_admission() {
    let srv = start(ServeConfig {
        token: Some("s3cret".into()),
        max_sandboxes: 2,
        max_body_bytes: 1 << 20,
        ..quiet()
    })
    .await;
    let b = &srv.base;
    let c = http();
    assert_eq!(
        c.get(format!("{b}/healthz")).send().await.unwrap().status(),
        StatusCode::OK
    );
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Bearer s3cre"),
        Some("s3cret"),
    ] {
        let mut r = c.post(format!("{b}/v1/sandboxes")).json(&json!({}));
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{auth:?}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "unauthorized");
    }
    let authed = |r: reqwest::RequestBuilder| r.bearer_auth("s3cret");
    let r = authed(c.post(format!("{b}/run_code")))
        .json(&json!({"code": "print(1)"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // Two sessions fit, the third is refused with Retry-After.
    let mut ids = Vec::new();
    for _ in 0..2 {
        let r = authed(c.post(format!("{b}/v1/sandboxes")))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        ids.push(
            r.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let r = authed(c.post(format!("{b}/v1/sandboxes")))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.headers()["retry-after"], "1");
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (
            v["error"]["code"].as_str(),
            v["error"]["retryable"].as_bool()
        ),
        (Some("too_many_requests"), Some(true))
    );
    // Over the body cap: 413 with our error body.
    let big = vec![b'x'; (1 << 20) + 10];
    let r = authed(c.put(format!("{b}/v1/sandboxes/{}/files?path=big", ids[0])))
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "payload_too_large");
    // Metrics count what happened.
    let m = authed(c.get(format!("{b}/metrics")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(m.contains("llm_in_sandbox_sessions 2\n"), "{m}");
    assert!(m.contains("llm_in_sandbox_rejected_total 1\n"), "{m}");
    assert!(m.contains("llm_in_sandbox_call_seconds_count"), "{m}");
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_sessions_are_reaped() {
    let srv = start(quiet()).await;
    let id = new_session(&srv.base, json!({"idle_ttl_s": 1})).await;
    let kept = new_session(&srv.base, json!({})).await;
    tokio::time::sleep(Duration::from_millis(2600)).await;
    let c = http();
    let r = c
        .get(format!("{}/v1/sandboxes/{id}", srv.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = c
        .get(format!("{}/v1/sandboxes/{kept}", srv.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let m = c
        .get(format!("{}/metrics", srv.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(m.contains("llm_in_sandbox_reaped_total 1\n"), "{m}");
}

#[tokio::test(flavor = "multi_thread")]
async fn run_code_as_sandbox_fusion_answers() {
    let srv = start(quiet()).await;
    let url = format!("{}/run_code", srv.base);
    let (st, v) = post(&url, json!({"code": "import sys; print(sys.stdin.read().upper())", "language": "python", "stdin": "abc"})).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["status"], "Success", "{v}");
    assert_eq!(v["run_result"]["stdout"], "ABC\n");
    assert_eq!(v["run_result"]["return_code"], 0);
    assert_eq!(v["run_result"]["status"], "Finished");
    assert_eq!(v["compile_result"], Value::Null);
    let (_, v) = post(&url, json!({"code": "raise SystemExit(3)"})).await;
    assert_eq!(
        (
            v["status"].as_str(),
            v["run_result"]["return_code"].as_i64()
        ),
        (Some("Failed"), Some(3)),
        "{v}"
    );
    let (_, v) = post(&url, json!({"code": "while True: pass", "run_timeout": 1})).await;
    assert_eq!(v["status"], "Failed");
    assert_eq!(v["run_result"]["status"], "TimeLimitExceeded");
    assert_eq!(v["run_result"]["return_code"], Value::Null);
    let (_, v) = post(
        &url,
        json!({"code": "open('out.txt','w').write(open('in/data.txt').read()*2)", "files": {"in/data.txt": b64(b"ab")}, "fetch_files": ["out.txt", "missing.txt"]}),
    )
    .await;
    assert_eq!(v["status"], "Success", "{v}");
    assert_eq!(v["files"], json!({"out.txt": b64(b"abab")}));
    let (_, v) = post(
        &url,
        json!({"code": "x = bytearray(300 * 2**20); print(len(x))", "memory_limit_MB": 64}),
    )
    .await;
    assert_eq!(v["status"], "Failed", "{v}");
    assert!(
        v["run_result"]["stderr"]
            .as_str()
            .unwrap()
            .contains("MemoryError"),
        "{v}"
    );
    let (_, v) = post(&url, json!({"code": "read x; echo \"got $x\"; ls", "language": "bash", "stdin": "42\n", "files": {"f.txt": b64(b"")}})).await;
    assert_eq!(v["status"], "Success", "{v}");
    assert_eq!(v["run_result"]["stdout"], "got 42\nf.txt\n");
    let (st, v) = post(&url, json!({"code": "int main(){}", "language": "cpp"})).await;
    assert_eq!(
        (st, v["status"].as_str()),
        (StatusCode::OK, Some("SandboxError"))
    );
    assert!(v["message"].as_str().unwrap().contains("cpp"), "{v}");
    let v: Value = http()
        .get(format!("{}/v1/ping", srv.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v, json!("pong"));
}

/// What one `/run_code` call leaves must never reach the next, whichever sandbox folders,
/// instance slot or recycled empty folder the next one gets: files in /testbed, /tmp and
/// /root, a folder emptied again, changed modes, globals, modules, cwd, environment, threads
/// and random state. Many rounds, one at a time and then concurrently, so calls land on
/// slots and folders earlier calls used.
#[tokio::test(flavor = "multi_thread")]
async fn run_code_calls_leave_nothing_for_the_next() {
    let srv = start(quiet()).await;
    let url = format!("{}/run_code", srv.base);
    let dirty = r#"
import builtins, os, sys, threading, time, random, types
for d in ("/testbed", "/tmp", "/root"):
    open(os.path.join(d, "left.txt"), "w").write("x")
os.mkdir("/tmp/made"); os.rmdir("/tmp/made")
open("/root/gone", "w").close(); os.remove("/root/gone")
os.chmod("/root", 0o755)
builtins.LEFT = 1
sys.modules["left_module"] = types.ModuleType("left_module")
os.environ["LEFT"] = "1"
os.chdir("/tmp")
random.seed(7)
threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
print("dirty")
"#;
    let look = r#"
import builtins, os, stat, sys, threading, random
print(sorted(os.listdir("/testbed")), sorted(os.listdir("/tmp")), sorted(os.listdir("/root")))
print(oct(stat.S_IMODE(os.stat("/root").st_mode)), oct(stat.S_IMODE(os.stat("/tmp").st_mode)))
print(hasattr(builtins, "LEFT"), "left_module" in sys.modules, "LEFT" in os.environ)
print(os.getcwd(), threading.active_count())
print(random.random())
"#;
    let clean = |v: &Value| -> Vec<String> {
        let out = v["run_result"]["stdout"].as_str().unwrap_or_default();
        out.lines().take(4).map(str::to_string).collect()
    };
    let (_, first) = post(&url, json!({ "code": look })).await;
    assert_eq!(first["status"], "Success", "{first}");
    let expected = clean(&first);
    assert_eq!(expected[0], "[] [] []", "{first}");
    assert_eq!(expected[2], "False False False", "{first}");
    assert_eq!(expected[3], "/testbed 1", "{first}");
    let mut randoms = std::collections::HashSet::new();
    for round in 0..12 {
        let (_, v) = post(&url, json!({ "code": dirty })).await;
        assert_eq!(v["run_result"]["stdout"], "dirty\n", "round {round}: {v}");
        // A bash call that writes and removes again leaves its folders empty: recycled.
        let (_, v) = post(
            &url,
            json!({ "code": "touch /testbed/a /tmp/b; rm /testbed/a /tmp/b; chmod 755 /root /tmp; echo ok", "language": "bash" }),
        )
        .await;
        assert_eq!(v["run_result"]["stdout"], "ok\n", "round {round}: {v}");
        let (_, v) = post(&url, json!({ "code": look })).await;
        assert_eq!(clean(&v), expected, "round {round}: {v}");
        randoms.insert(
            v["run_result"]["stdout"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    // Concurrently: dirty and looking calls interleaved on the pool's slots.
    let calls: Vec<_> = (0..24)
        .map(|i| {
            let (url, code) = (url.clone(), if i % 2 == 0 { dirty } else { look });
            tokio::spawn(async move { (i, post(&url, json!({ "code": code })).await.1) })
        })
        .collect();
    for c in calls {
        let (i, v) = c.await.unwrap();
        if i % 2 == 1 {
            assert_eq!(clean(&v), expected, "concurrent call {i}: {v}");
            randoms.insert(
                v["run_result"]["stdout"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    // The seed a dirty call set never carries over: every look drew its own number.
    assert_eq!(randoms.len(), 24, "random state crossed calls: {randoms:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn run_jupyter_keeps_state_and_goes_on_after_an_error() {
    let srv = start(quiet()).await;
    let (st, v) = post(
        &format!("{}/run_jupyter", srv.base),
        json!({"cells": ["x = 20\nprint('set')", "1/0", "x + 22", "import sys; print('e', file=sys.stderr)"]}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["status"], "Success", "{v}");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    assert_eq!(cells[0]["stdout"], "set\n");
    assert_eq!(cells[1]["error"][0]["ename"], "ZeroDivisionError");
    assert_eq!(cells[2]["display"][0]["text/plain"], "42");
    assert_eq!(cells[3]["stderr"], "e\n");
    let (_, v) = post(
        &format!("{}/run_jupyter", srv.base),
        json!({"cells": ["print(1)", "while True: pass", "print(3)"], "total_timeout": 1}),
    )
    .await;
    assert_eq!(v["status"], "Failed", "{v}");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells[0]["stdout"], "1\n");
    assert!(v["message"].as_str().unwrap().contains("cell 2"), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn streamed_exec_sends_output_then_exit() {
    let srv = start(quiet()).await;
    let id = new_session(&srv.base, json!({})).await;
    let r = http()
        .post(format!("{}/v1/sandboxes/{id}/exec", srv.base))
        .json(&json!({"command": "echo one; echo two >&2; exit 4", "stream": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "application/x-ndjson");
    let text = r.text().await.unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let out: String = lines
        .iter()
        .filter(|l| l["type"] == "stdout")
        .map(|l| l["data"].as_str().unwrap())
        .collect();
    let err: String = lines
        .iter()
        .filter(|l| l["type"] == "stderr")
        .map(|l| l["data"].as_str().unwrap())
        .collect();
    assert_eq!((out.as_str(), err.as_str()), ("one\n", "two\n"), "{text}");
    let last = lines.last().unwrap();
    assert_eq!(
        (last["type"].as_str(), last["exit_code"].as_i64()),
        (Some("exit"), Some(4)),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_timeout_s_cuts_one_call_and_the_shell_goes_on() {
    let srv = start(quiet()).await;
    // The session's own limit is 60 s: only the per-call 1 s can end these calls early.
    let id = new_session(&srv.base, json!({"limits": {"timeout_s": 60}})).await;
    let url = format!("{}/v1/sandboxes/{id}/exec", srv.base);
    for command in [
        "echo before; while true; do :; done",
        "echo before; python3 -c 'while True: pass'; echo after",
        // `sleep` is not cut, but the call still reports the timeout and runs nothing after.
        "echo before; sleep 2; echo after",
    ] {
        let (st, v) = post(&url, json!({"command": command, "timeout_s": 1})).await;
        assert_eq!(st, StatusCode::OK, "{v}");
        assert_eq!(v["timed_out"], true, "{command}: {v}");
        assert!(v["stdout"].as_str().unwrap().starts_with("before\n"), "{v}");
        assert!(!v["stdout"].as_str().unwrap().contains("after"), "{v}");
        assert!(v["duration_s"].as_f64().unwrap() < 30.0, "{command}: {v}");
    }
    // The same shell answers the next call, with the session's limit back.
    let (st, v) = post(&url, json!({"command": "sleep 1.5; echo still here"})).await;
    assert_eq!(
        (st, v["stdout"].as_str()),
        (StatusCode::OK, Some("still here\n")),
        "{v}"
    );
    assert_eq!(v["timed_out"], false, "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn http2_prior_knowledge_works() {
    let srv = start(quiet()).await;
    // curl speaks HTTP/2 without TLS (h2c) when told to; our reqwest build has no HTTP/2.
    let out = tokio::process::Command::new("curl")
        .args([
            "-sS",
            "--http2-prior-knowledge",
            "-w",
            "\n%{http_version}",
            "-H",
            "content-type: application/json",
        ])
        .args(["-d", r#"{"code": "print(6*7)"}"#])
        .arg(format!("{}/run_code", srv.base))
        .output()
        .await
        .expect("curl is needed for this test");
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, version) = text.rsplit_once('\n').unwrap_or_default();
    assert_eq!(
        version,
        "2",
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["run_result"]["stdout"], "42\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_json_errors_not_panics() {
    let srv = start(quiet()).await;
    let c = http();
    let b = &srv.base;
    for (path, body) in [
        ("/v1/sandboxes", "not json"),
        ("/v1/sandboxes", "{\"limits\": {\"timeout_s\": -1}}"),
        ("/v1/sandboxes", "{\"unknown_field\": 1}"),
        ("/v1/sandboxes", "{\"env\": {\"A B\": \"x\"}}"),
        ("/v1/sandboxes", "{\"files\": {\"a\": \"%%%\"}}"),
        ("/run_code", "{\"language\": \"python\"}"),
        (
            "/v1/episodes",
            "{\"problem_statement\": \"x\", \"llm\": {\"base_url\": \"file:///etc\", \"model\": \"m\"}}",
        ),
    ] {
        let r = c
            .post(format!("{b}{path}"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_client_error(),
            "{path} {body}: {}",
            r.status()
        );
        let v: Value = r.json().await.unwrap();
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{v}"
        );
    }
    let r = c.get(format!("{b}/nope")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_from_a_request_only_tighten() {
    let srv = start(ServeConfig {
        sandbox: llm_in_sandbox::agent::SandboxSettings {
            command_timeout: Duration::from_secs(5),
            ..Default::default()
        },
        ..quiet()
    })
    .await;
    let (_, v) = post(
        &format!("{}/v1/sandboxes", srv.base),
        json!({"limits": {"timeout_s": 999, "memory_mb": 100000}, "idle_ttl_s": 1e9}),
    )
    .await;
    assert_eq!(v["limits"]["timeout_s"], 5.0, "{v}");
    assert_eq!(v["limits"]["memory_mb"], 2048, "{v}");
    assert_eq!(v["idle_ttl_s"], 600.0, "{v}");
    let (_, v) = post(
        &format!("{}/run_code", srv.base),
        json!({"code": "while True: pass", "run_timeout": 999}),
    )
    .await;
    let t = v["run_result"]["execution_time"].as_f64().unwrap();
    assert!(t < 60.0, "ran {t} s past the server's 5 s limit");
    assert_eq!(v["run_result"]["status"], "TimeLimitExceeded");
}

/// The sessions of a server share its disk budget: one may use most of it, the next then
/// gets a full disk (a non-zero exit and the reason, from the shell and from Python alike),
/// and the space comes back when files or whole sessions are deleted.
#[tokio::test(flavor = "multi_thread")]
async fn sessions_share_the_servers_disk_budget() {
    let pool = llm_in_sandbox::sandbox::DiskPool::new(3 << 20);
    let srv = start(ServeConfig {
        sandbox: llm_in_sandbox::agent::SandboxSettings {
            disk_pool: Some(pool.clone()),
            ..Default::default()
        },
        ..quiet()
    })
    .await;
    let b = &srv.base;
    let (first, second) = (
        new_session(b, json!({})).await,
        new_session(b, json!({})).await,
    );
    let exec = |id: &str, command: &str| {
        let url = format!("{b}/v1/sandboxes/{id}/exec");
        let body = json!({ "command": command });
        async move { post(&url, body).await.1 }
    };
    let v = exec(&first, "head -c 2000000 /dev/zero > big && wc -c < big").await;
    assert_eq!(
        (v["exit_code"].as_i64(), v["stdout"].as_str()),
        (Some(0), Some("2000000\n")),
        "{v}"
    );
    assert!(
        pool.used() >= 2_000_000,
        "the pool counts the first session's file"
    );
    let m = metrics(b).await;
    assert!(
        m.contains(&format!("llm_in_sandbox_disk_budget_bytes {}\n", 3 << 20))
            && m.contains(&format!("llm_in_sandbox_disk_used_bytes {}\n", pool.used())),
        "{m}"
    );
    // Each session's own quota (1 GiB) would allow it; the shared budget does not.
    let v = exec(&second, "head -c 2000000 /dev/zero > big").await;
    assert_ne!(v["exit_code"].as_i64(), Some(0), "{v}");
    assert!(
        v["stderr"].as_str().unwrap_or("").contains("no space left"),
        "{v}"
    );
    let v = exec(
        &second,
        "python3 -c 'open(\"p.bin\", \"wb\").write(bytes(2000000))'",
    )
    .await;
    assert_ne!(v["exit_code"].as_i64(), Some(0), "{v}");
    assert!(
        v["stderr"].as_str().unwrap_or("").contains("OSError"),
        "{v}"
    );
    // Deleting the first session's file, then the session, gives the space back.
    let v = exec(&first, "rm big").await;
    assert_eq!(v["exit_code"].as_i64(), Some(0), "{v}");
    let v = exec(
        &second,
        "rm -f big p.bin; head -c 2000000 /dev/zero > big && wc -c < big",
    )
    .await;
    assert_eq!(v["stdout"].as_str(), Some("2000000\n"), "{v}");
    let gone = http()
        .delete(format!("{b}/v1/sandboxes/{second}"))
        .send()
        .await
        .unwrap();
    assert!(gone.status().is_success());
    // The session's folders go on a blocking thread once its last call ended (waited for,
    // up to a minute, however loaded the machine is).
    for _ in 0..2400 {
        if pool.used() < 1_000_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        pool.used() < 1_000_000,
        "a deleted session's bytes stay charged: {}",
        pool.used()
    );
}

/// This process's resident memory and proportional set size (PSS: each page counted once,
/// however many instance slots map it; RSS counts a snapshot page once per slot), MiB.
fn memory_mib() -> (f64, f64) {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("Rss:"), field("Pss:"))
}

/// Wait until the server has been quiet long enough to give its idle memory back (its
/// `release_idle_after` is 1 s here) and has done so.
async fn wait_for_release(base: &str) {
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let t0 = std::time::Instant::now();
    while !metrics(base)
        .await
        .contains("\nllm_in_sandbox_kept_bytes 0\n")
    {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{}",
            metrics(base).await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// 512 concurrent clients post `/run_code` back to back for `LLM_IN_SANDBOX_LOAD_SECS`
/// (default 60) seconds: every request gets an answer, none is a 5xx, every answer is a
/// Success with the right output, and memory returns near where it was once the load ends
/// and the server has given back what its idle slots kept.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a 60 s load test that saturates the machine; runs alone: cargo test --release -- --ignored"]
async fn load_512_clients_no_5xx_no_lost_response() {
    let secs: u64 = std::env::var("LLM_IN_SANDBOX_LOAD_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let srv = start(ServeConfig {
        release_idle_after: Some(Duration::from_secs(1)),
        ..quiet()
    })
    .await;
    // Warm up, then take the baseline memory.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .pool_max_idle_per_host(1024)
        .build()
        .unwrap();
    for _ in 0..8 {
        c.post(format!("{}/run_code", srv.base))
            .json(&json!({"code": "print(1)"}))
            .send()
            .await
            .unwrap();
    }
    wait_for_release(&srv.base).await;
    let before = memory_mib();
    let end = tokio::time::Instant::now() + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for i in 0..512u32 {
        let c = c.clone();
        let url = format!("{}/run_code", srv.base);
        tasks.push(tokio::spawn(async move {
            let (mut ok, mut bad) = (0u64, Vec::new());
            while tokio::time::Instant::now() < end {
                let want = format!("{i}\n");
                match c
                    .post(&url)
                    .json(&json!({"code": format!("print({i})")}))
                    .send()
                    .await
                {
                    Ok(r) => {
                        let st = r.status();
                        let v: Value = r.json().await.unwrap_or(Value::Null);
                        if st == StatusCode::OK
                            && v["status"] == "Success"
                            && v["run_result"]["stdout"] == want.as_str()
                        {
                            ok += 1;
                        } else {
                            bad.push(format!("{st} {v}"));
                        }
                    }
                    Err(e) => bad.push(format!("lost: {e}")),
                }
            }
            (ok, bad)
        }));
    }
    let (mut ok, mut bad) = (0u64, Vec::new());
    for t in tasks {
        let (o, b) = t.await.unwrap();
        ok += o;
        bad.extend(b);
    }
    let m = metrics(&srv.base).await;
    let loaded = memory_mib();
    let kept = m
        .lines()
        .find_map(|l| l.strip_prefix("llm_in_sandbox_kept_bytes "))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1048576.0;
    wait_for_release(&srv.base).await;
    let after = memory_mib();
    eprintln!(
        "load: {ok} answers in {secs} s ({:.0}/s), {} bad; RSS/PSS MiB: {:.0}/{:.0} before, \
         {:.0}/{:.0} at the end ({kept:.0} kept by idle slots), {:.0}/{:.0} after the release",
        ok as f64 / secs as f64,
        bad.len(),
        before.0,
        before.1,
        loaded.0,
        loaded.1,
        after.0,
        after.1,
    );
    assert!(
        bad.is_empty(),
        "{} bad answers, e.g. {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    assert!(ok >= 512, "only {ok} answers");
    assert!(
        m.contains("llm_in_sandbox_responses_total{class=\"5xx\"} 0\n"),
        "{m}"
    );
    assert!(m.contains("llm_in_sandbox_calls_in_flight 0\n"), "{m}");
    // Memory is back near idle: what the slots kept is released; what remains is the
    // allocator's arenas and the runtime's stacks, not growth per request.
    assert!(
        after.1 - before.1 < 160.0,
        "PSS grew from {:.0} to {:.0} MiB",
        before.1,
        after.1
    );
    assert!(
        after.0 - before.0 < 256.0,
        "RSS grew from {:.0} to {:.0} MiB",
        before.0,
        after.0
    );
}

/// `POST /v1/episodes` against a fake model: the agent reads the input file, answers and
/// submits; the trajectory, answer and the scorer's reward come back in one JSON answer.
#[tokio::test(flavor = "multi_thread")]
async fn an_episode_runs_over_http_and_is_scored() {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    let model = FakeServer::scripted(
        vec![
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "python3 -c \"print(int(open('/testbed/documents/n.txt').read()) * 7)\" > /testbed/answer.txt"}"#,
            )]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let srv = start(quiet()).await;
    let body = json!({
        "problem_statement": "Multiply the number in n.txt by 7.",
        "llm": {"base_url": model.url, "model": "fake-model", "api_key": "k"},
        "files": {"n.txt": b64(b"6")},
        "max_steps": 5,
        "ground_truth": "42",
        "scorer": "numeric",
    });
    let (st, v) = post(&format!("{}/v1/episodes", srv.base), body).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["stop_reason"]["reason"], "submitted", "{v}");
    assert_eq!(v["answer"], "42\n", "{v}");
    assert_eq!(v["steps"], 2, "{v}");
    assert_eq!(v["reward"], 1.0, "{v}");
    let steps = v["trajectory"]["steps"].as_array().map_or(0, Vec::len);
    assert_eq!(steps, 2, "{v}");
    assert_eq!(
        v["trajectory"]["problem_statement"],
        "Multiply the number in n.txt by 7."
    );
    let reqs = model.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["model"], "fake-model");
    // A wrong answer scores 0, still a 200.
    let model = FakeServer::scripted(
        vec![
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "echo 41 > /testbed/answer.txt"}"#,
            )]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let body = json!({
        "problem_statement": "x",
        "llm": {"base_url": model.url, "model": "m"},
        "ground_truth": "42",
        "scorer": "numeric",
    });
    let (st, v) = post(&format!("{}/v1/episodes", srv.base), body).await;
    assert_eq!((st, &v["reward"]), (StatusCode::OK, &json!(0.0)), "{v}");
}

/// The binary on SIGTERM: stops accepting, lets the call in flight finish and answer, exits 0.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_finishes_the_call_in_flight_then_exits() {
    let _ = common::runtime();
    let (mut child, base) =
        common::spawn_serve(&["--no-token", "--grace", "30", "--access-log=off"], |_| {});
    let url = format!("{base}/run_code");
    let call = tokio::spawn(async move {
        post(
            &url,
            json!({"code": "import time; time.sleep(2); print('finished')", "run_timeout": 20}),
        )
        .await
    });
    // Wait until the call is running in the server, then ask it to stop.
    let c = http();
    let mut running = false;
    for _ in 0..200 {
        if metrics(&base)
            .await
            .contains("llm_in_sandbox_calls_in_flight 1\n")
        {
            running = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(running, "the call never showed up in flight");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: a plain kill(2) of the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let (st, v) = call.await.unwrap();
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["run_result"]["stdout"], "finished\n", "{v}");
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
    // Gone: a new connection is refused.
    assert!(c.get(format!("{base}/healthz")).send().await.is_err());
}

/// Off loopback the binary refuses `--no-token`, and says how to give one.
#[test]
fn off_loopback_needs_a_token() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"))
        .env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root())
        .args(["serve", "--bind", "0.0.0.0:0", "--no-token"])
        .env_remove("LLM_IN_SANDBOX_TOKEN")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("--token"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("listening"));
}

/// Given no token, even on loopback, the server makes one and prints it on stderr: a request
/// without it gets 401, with it as a bearer token or as the URL's password 200. /healthz stays
/// open.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_given_no_token_makes_one_and_prints_it() {
    use std::io::BufRead as _;
    let _ = common::runtime();
    let (mut child, base) = common::spawn_serve(&["--access-log=off"], |c| {
        c.env_remove("LLM_IN_SANDBOX_TOKEN")
            .stderr(std::process::Stdio::piped());
    });
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    let token = loop {
        let mut l = String::new();
        if stderr.read_line(&mut l).unwrap() == 0 {
            panic!("no token on stderr: {said}");
        }
        said.push_str(&l);
        if let Some(rest) = l.split("token is ").nth(1) {
            let mut next = String::new();
            stderr.read_line(&mut next).unwrap();
            said.push_str(&next);
            break rest.trim().to_string();
        }
    };
    assert_eq!(token.len(), 32, "{said}");
    assert!(said.contains(&format!("http://:{token}@")), "{said}");
    let c = http();
    let code = json!({"code": "print(2+3)", "language": "python"});
    let plain = c
        .post(format!("{base}/run_code"))
        .json(&code)
        .send()
        .await
        .unwrap();
    assert_eq!(plain.status(), StatusCode::UNAUTHORIZED);
    let bearer = c
        .post(format!("{base}/run_code"))
        .bearer_auth(&token)
        .json(&code)
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), StatusCode::OK);
    let in_url = base.replacen("http://", &format!("http://:{token}@"), 1);
    let basic = c
        .post(format!("{in_url}/run_code"))
        .json(&code)
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status(), StatusCode::OK);
    let v: serde_json::Value = basic.json().await.unwrap();
    assert_eq!(v["run_result"]["stdout"], "5\n", "{v}");
    let health = c.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let _ = child.kill();
    let _ = child.wait();
}

/// A client that stops waiting for an `exec` (its HTTP timeout) does not break the session:
/// the running call is interrupted (a `python3` in it at once), and the next call gets the
/// same shell, state included, long before the session's own 60 s limit.
#[tokio::test(flavor = "multi_thread")]
async fn an_abandoned_exec_is_interrupted_and_the_shell_survives() {
    let srv = start(quiet()).await;
    let id = new_session(&srv.base, json!({"limits": {"timeout_s": 60}})).await;
    let url = format!("{}/v1/sandboxes/{id}/exec", srv.base);
    let (st, v) = post(
        &url,
        json!({"command": "mkdir -p kept && cd kept && export MARK=1"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    for command in [
        "python3 -c 'while True: pass'",
        "while true; do :; done",
        "echo x; python3 -c 'while True: pass'; while true; do :; done",
    ] {
        let impatient = reqwest::Client::builder()
            .timeout(Duration::from_millis(1500))
            .build()
            .unwrap();
        let r = impatient
            .post(&url)
            .json(&json!({"command": command}))
            .send()
            .await;
        assert!(r.is_err(), "{command}: the call should still be running");
        let started = std::time::Instant::now();
        let (st, v) = post(&url, json!({"command": "pwd; echo $MARK"})).await;
        assert_eq!(st, StatusCode::OK, "{command}: {v}");
        assert_eq!(v["stdout"], "/testbed/kept\n1\n", "{command}: {v}");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{command}: the abandoned call was not interrupted ({:?})",
            started.elapsed()
        );
    }
    let m = metrics(&srv.base).await;
    assert!(m.contains("llm_in_sandbox_calls_in_flight 0\n"), "{m}");
}

/// A streamed exec whose reader goes away is interrupted like an abandoned plain one: the
/// loop stops, the next call on the session runs in the same shell, and the slot is free.
#[tokio::test(flavor = "multi_thread")]
async fn a_streamed_exec_whose_reader_leaves_is_interrupted() {
    let srv = start(quiet()).await;
    let id = new_session(&srv.base, json!({"limits": {"timeout_s": 120}})).await;
    let url = format!("{}/v1/sandboxes/{id}/exec", srv.base);
    let mut resp = http()
        .post(&url)
        .json(&json!({
            "command": "cd /tmp; i=0; while true; do i=$((i+1)); echo $i > count; echo $i; sleep 0.05; done",
            "stream": true,
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let first = resp.chunk().await.unwrap().unwrap_or_default();
    assert!(
        String::from_utf8_lossy(&first).contains("stdout"),
        "{first:?}"
    );
    drop(resp);
    let started = std::time::Instant::now();
    let (st, v) = post(
        &url,
        json!({"command": "a=$(cat count); sleep 1; b=$(cat count); echo $a $b; pwd"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let out = v["stdout"].as_str().unwrap_or_default().to_string();
    let words: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(words.len(), 3, "{v}");
    assert_eq!(
        words[0], words[1],
        "the loop still ran after its reader left: {v}"
    );
    assert_eq!(words[2], "/tmp", "the same shell goes on: {v}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the abandoned stream was not interrupted ({:?})",
        started.elapsed()
    );
    let m = metrics(&srv.base).await;
    assert!(m.contains("llm_in_sandbox_calls_in_flight 0\n"), "{m}");
}

async fn metrics(base: &str) -> String {
    http()
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}
