//! The hostile corpus (issue 25, docs/security.md): what a guest or a client does on purpose to
//! take the host down or slip past a limit. Each test failed on the tree before its fix.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use llm_in_sandbox::shell::{Shell, ShellSettings};
use llm_in_sandbox::tools::{EditorMode, ShellMode, ToolModes, Toolbox};
use serde_json::json;

use crate::common::{bash, py, sandbox_in, shell_over, show, shown};

/// A terabyte, as a file's claimed size.
const TIB: u64 = 1 << 40;

#[tokio::test]
async fn a_guest_cannot_make_a_file_claim_more_than_the_quota() {
    let sb = sandbox_in(|b| b.disk_quota(8 << 20));
    for (how, src) in [
        ("truncate", "open('f', 'w').truncate(1 << 40)"),
        (
            "os.ftruncate",
            "import os\nfd = os.open('f', os.O_CREAT | os.O_WRONLY)\nos.ftruncate(fd, 1 << 40)",
        ),
        (
            "seek and write",
            "f = open('f', 'wb')\nf.seek(1 << 40)\nf.write(b'x')\nf.close()",
        ),
        (
            "pwrite",
            "import os\nfd = os.open('f', os.O_CREAT | os.O_WRONLY)\nos.pwrite(fd, b'x', 1 << 40)",
        ),
    ] {
        let r = py(&sb, &["-c", src]).await;
        assert_ne!(r.exit_code, 0, "{how}: {}", show(&r));
        let err = r.stderr_text();
        assert!(
            err.contains("File too large") || err.contains("No space left"),
            "{how}: {}",
            show(&r)
        );
        let size = std::fs::metadata(sb.workspace().host_path().join("f")).map_or(0, |m| m.len());
        assert!(size <= 8 << 20, "{how} left a file of {size} bytes");
        let _ = std::fs::remove_file(sb.workspace().host_path().join("f"));
    }
    // Within the quota, growing a file by truncate or a seek still works as on Linux.
    let r = py(
        &sb,
        &[
            "-c",
            "open('g', 'w').truncate(1000)\nf = open('h', 'wb'); f.seek(999); f.write(b'x'); f.close()\nimport os; print(os.path.getsize('g'), os.path.getsize('h'))",
        ],
    )
    .await;
    assert_eq!(r.stdout_text().trim(), "1000 1000", "{}", show(&r));
}

/// A file that claims a terabyte (made on the host side: a guest can no longer make one), read
/// by every host-side reader: each answers with an error, and the process is still here.
#[tokio::test]
async fn a_file_claiming_a_terabyte_is_read_by_no_one() {
    let sb = sandbox_in(|b| b.disk_quota(8 << 20));
    let host = sb.workspace().host_path().join("huge.py");
    std::fs::File::create(&host)
        .and_then(|f| f.set_len(TIB))
        .expect("a sparse file");
    assert!(sb.workspace().read("huge.py").is_err());
    assert!(sb.workspace().read_to_string("huge.py").is_err());
    let sb = Arc::new(sb);
    let mut shell = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
    for cmd in [
        "cat huge.py",
        "wc -c huge.py",
        "head -c 10 huge.py",
        "grep x huge.py",
    ] {
        let r = bash(&mut shell, cmd).await;
        assert_ne!(r.exit_code, 0, "{cmd}: {}", shown(&r));
    }
    let r = bash(&mut shell, "cat huge.py").await;
    assert!(r.stderr.contains("too large"), "{}", shown(&r));
    for editor in [EditorMode::Reference, EditorMode::Improved] {
        let shell = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
        let mut tools = Toolbox::with_modes(
            shell,
            ToolModes {
                shell: ShellMode::Persistent,
                editor,
            },
        );
        for args in [
            json!({"command": "view", "path": "/testbed/huge.py"}),
            json!({"command": "str_replace", "path": "/testbed/huge.py", "old_str": "a", "new_str": "b"}),
            json!({"command": "insert", "path": "/testbed/huge.py", "insert_line": 1, "new_str": "b"}),
        ] {
            let out = tools
                .call("str_replace_editor", &args.to_string())
                .await
                .expect("the tool call itself");
            assert!(
                out.observation.len() < 10_000,
                "{editor:?} {args}: {} bytes",
                out.observation.len()
            );
        }
    }
}

#[tokio::test]
async fn renaming_a_file_onto_itself_gives_nothing_back() {
    let sb = sandbox_in(|b| b.disk_quota(1 << 20));
    let host = sb.workspace().host_path().to_path_buf();
    let mut shell = shell_over(sb);
    let r = bash(
        &mut shell,
        "head -c 300000 /dev/zero > seed; for i in 1 2 3 4 5 6 7 8 9 10; do cp seed c$i && mv c$i c$i || exit 7; done",
    )
    .await;
    assert_ne!(r.exit_code, 0, "{}", shown(&r));
    let mut total = 0;
    for e in std::fs::read_dir(&host).unwrap().flatten() {
        total += e.metadata().map_or(0, |m| m.len());
    }
    assert!(
        total <= 1 << 20,
        "{total} bytes on disk under a 1 MiB quota"
    );
}

#[tokio::test]
async fn mkdir_p_is_charged_per_folder_and_bounded_in_depth() {
    let sb = sandbox_in(|b| b.max_files(40));
    let host = sb.workspace().host_path().to_path_buf();
    let mut shell = shell_over(sb);
    let r = bash(&mut shell, &format!("mkdir -p {}", "d/".repeat(60))).await;
    assert_ne!(r.exit_code, 0, "{}", shown(&r));
    let mut depth = 0;
    let mut at = host.clone();
    while at.join("d").is_dir() {
        at = at.join("d");
        depth += 1;
    }
    assert!(depth <= 40, "{depth} folders made under a 40-entry cap");

    let mut shell = shell_over(sandbox_in(|b| b));
    let deep = "d/".repeat(llm_in_sandbox::fsutil::MAX_PATH_DEPTH + 1);
    let r = bash(&mut shell, &format!("mkdir -p {deep}")).await;
    assert_ne!(r.exit_code, 0, "{}", shown(&r));
    assert!(r.stderr.contains("too deep"), "{}", shown(&r));
    let r = bash(&mut shell, &format!("mkdir -p {}", "d/".repeat(20))).await;
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
}

#[tokio::test]
async fn every_writer_refuses_paths_past_the_depth_bound() {
    let deep = format!(
        "/testbed/{}f.py",
        "d/".repeat(llm_in_sandbox::fsutil::MAX_PATH_DEPTH + 1)
    );
    let sb = Arc::new(sandbox_in(|b| b));
    assert!(sb.write_workspace_file(&deep, b"x").is_err());
    let shell = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
    let mut tools = Toolbox::new(shell);
    let out = tools
        .call(
            "str_replace_editor",
            &json!({"command": "create", "path": deep, "file_text": "x"}).to_string(),
        )
        .await
        .expect("the tool call itself");
    assert!(out.observation.contains("too deep"), "{}", out.observation);
    assert!(!sb.workspace().host_path().join("d").exists());
}

#[tokio::test]
async fn chmod_cannot_lock_the_host_out_or_set_special_bits() {
    let sb = sandbox_in(|b| b);
    let host = sb.workspace().host_path().to_path_buf();
    let mut shell = shell_over(sb);
    let r = bash(
        &mut shell,
        "echo hi > f; mkdir d; chmod 4755 f; chmod 0 d; chmod 0 /testbed; echo done",
    )
    .await;
    assert!(r.stdout.contains("done"), "{}", shown(&r));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&host.join("f")), 0o755);
    assert_eq!(mode(&host.join("d")) & 0o700, 0o700);
    assert_eq!(mode(&host) & 0o700, 0o700);
    let r = bash(&mut shell, "cat f").await;
    assert_eq!(r.stdout, "hi\n", "{}", shown(&r));
}

fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(120))
        .build()
        .expect("client")
}

/// POST `body` as JSON to `url`: the status and the answer (JSON, or the text as a string).
async fn post_json(url: &str, body: serde_json::Value) -> (reqwest::StatusCode, serde_json::Value) {
    let r = client()
        .post(url)
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = r.status();
    let text = r.text().await.unwrap_or_default();
    let v = serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text));
    (status, v)
}

/// A new session on `base`: its id.
async fn new_session(base: &str) -> String {
    let (st, v) = post_json(&format!("{base}/v1/sandboxes"), json!({})).await;
    assert!(st.is_success(), "{st}: {v}");
    v["id"].as_str().expect("id").to_string()
}

async fn server() -> crate::serve::Running {
    crate::serve::start(llm_in_sandbox::serve::ServeConfig {
        access_log: false,
        ..Default::default()
    })
    .await
}

/// DNS rebinding: a web page whose own name now resolves to 127.0.0.1 sends requests with its
/// own name in `Host`. Every endpoint refuses them; loopback names pass.
#[tokio::test]
async fn requests_for_another_host_name_are_refused_on_every_endpoint() {
    let srv = server().await;
    let c = client();
    let port = srv.base.rsplit(':').next().unwrap_or_default().to_string();
    for (method, path) in [
        ("POST", "/run_code"),
        ("POST", "/v1/sandboxes"),
        ("GET", "/v1/sandboxes"),
        ("GET", "/metrics"),
        ("POST", "/v1/episodes"),
    ] {
        let url = format!("{}{path}", srv.base);
        let req = |host: &str| {
            c.request(method.parse().expect("method"), &url)
                .header("host", host)
                .json(&json!({"code": "print(1)"}))
        };
        let r = req("evil.example").send().await.expect("request");
        assert_eq!(
            r.status(),
            reqwest::StatusCode::FORBIDDEN,
            "{method} {path}"
        );
        let r = req(&format!("evil.example:{port}"))
            .send()
            .await
            .expect("request");
        assert_eq!(
            r.status(),
            reqwest::StatusCode::FORBIDDEN,
            "{method} {path}"
        );
        for ok in [
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
        ] {
            let r = req(&ok).send().await.expect("request");
            assert_ne!(
                r.status(),
                reqwest::StatusCode::FORBIDDEN,
                "{method} {path} {ok}"
            );
        }
        // A page on another site, reaching the loopback server through the user's browser,
        // names its own origin: refused; a loopback origin passes.
        let from = |origin: &str| {
            c.request(method.parse().expect("method"), &url)
                .header("origin", origin)
                .json(&json!({"code": "print(1)"}))
        };
        for bad in ["https://evil.example", "null", "http://evil.example:8080"] {
            let r = from(bad).send().await.expect("request");
            assert_eq!(r.status(), reqwest::StatusCode::FORBIDDEN, "{path} {bad}");
        }
        let r = from(&format!("http://localhost:{port}"))
            .send()
            .await
            .expect("request");
        assert_ne!(r.status(), reqwest::StatusCode::FORBIDDEN, "{path}");
    }
}

/// Paths past the depth bound in every writer a client reaches: `files` of `/run_code` and of
/// a new session, `PUT ?path=`, a tar entry. Each is a 4xx; the server keeps answering.
#[tokio::test]
async fn deep_paths_from_clients_are_refused_and_the_server_goes_on() {
    use base64::Engine as _;
    let srv = server().await;
    let c = client();
    let deep = "d/".repeat(20_000) + "f";
    let data = base64::engine::general_purpose::STANDARD.encode(b"x");
    let (_, v) = post_json(
        &format!("{}/run_code", srv.base),
        json!({"code": "print(1)", "files": {deep.clone(): data.clone()}}),
    )
    .await;
    assert_ne!(v["status"], "Success", "{v}");
    let (st, _) = post_json(
        &format!("{}/v1/sandboxes", srv.base),
        json!({"files": {deep.clone(): data}}),
    )
    .await;
    assert!(st.is_client_error(), "{st}");
    let id = new_session(&srv.base).await;
    let sb = format!("{}/v1/sandboxes/{id}", srv.base);
    let r = c
        .put(format!("{sb}/files?path={}", "d/".repeat(300) + "f"))
        .body("x")
        .send()
        .await
        .expect("request");
    assert!(r.status().is_client_error(), "{}", r.status());
    let mut tar = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(1);
    h.set_mode(0o644);
    tar.append_data(&mut h, "d/".repeat(300) + "f", &b"x"[..])
        .expect("tar");
    let r = c
        .put(format!("{sb}/archive?path=up"))
        .body(tar.into_inner().expect("tar"))
        .send()
        .await
        .expect("request");
    assert!(r.status().is_client_error(), "{}", r.status());
    let (_, v) = post_json(
        &format!("{}/run_code", srv.base),
        json!({"code": "print(6 * 7)"}),
    )
    .await;
    assert_eq!(v["run_result"]["stdout"], "42\n", "{v}");
}

/// A JSON body nested 100,000 deep and a megabyte of headers: clear 4xx answers.
#[tokio::test]
async fn hostile_bodies_and_headers_get_client_errors() {
    let srv = server().await;
    let c = client();
    let nested = "[".repeat(100_000) + &"]".repeat(100_000);
    let r = c
        .post(format!("{}/run_code", srv.base))
        .header("content-type", "application/json")
        .body(nested)
        .send()
        .await
        .expect("request");
    assert!(r.status().is_client_error(), "{}", r.status());
    let r = c
        .get(format!("{}/v1/sandboxes", srv.base))
        .header("x-big", "a".repeat(1 << 20))
        .send()
        .await;
    if let Ok(r) = r {
        assert!(r.status().is_client_error(), "{}", r.status());
    }
    // Session keys that are huge or look like paths are refused or kept as opaque names.
    for key in [
        "k".repeat(10_000),
        "../../etc".to_string(),
        "a/b".to_string(),
    ] {
        let (st, v) = post_json(&format!("{}/v1/sandboxes", srv.base), json!({"key": key})).await;
        assert!(st.is_success() || st.is_client_error(), "{st}: {v}");
    }
    let r = c
        .get(format!("{}/healthz", srv.base))
        .send()
        .await
        .expect("still up");
    assert!(r.status().is_success());
}

/// Deleting a session whose guest left many files hands its folders to a blocking thread:
/// the delete answers, other calls go on, and the folders are gone afterwards.
#[tokio::test]
async fn a_deleted_session_with_many_files_is_removed_off_the_request_path() {
    let srv = server().await;
    let c = client();
    let id = new_session(&srv.base).await;
    let host = srv
        .server
        .sessions
        .get(&id)
        .expect("session")
        .sandbox
        .workspace()
        .host_path()
        .to_path_buf();
    let (_, v) = post_json(
        &format!("{}/v1/sandboxes/{id}/python", srv.base),
        json!({"code": "import os\nfor i in range(20):\n    os.mkdir(f'd{i}')\n    for j in range(500): open(f'd{i}/{j}', 'w').close()\nprint('ok')"}),
    )
    .await;
    assert!(v.to_string().contains("ok"), "{v}");
    assert!(host.join("d19/499").exists());
    let r = c
        .delete(format!("{}/v1/sandboxes/{id}", srv.base))
        .send()
        .await
        .expect("request");
    assert!(r.status().is_success(), "{}", r.status());
    let mut gone = false;
    for _ in 0..600 {
        if !host.exists() {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(gone, "{} is still there", host.display());
}

/// A raw HTTP server on loopback that answers every request with `response` and counts them.
async fn raw_server(response: String) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let hits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let response = response.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = s.read(&mut buf).await;
                let _ = s.write_all(response.as_bytes()).await;
            });
        }
    });
    (format!("http://{addr}"), hits)
}

/// `/v1/episodes` calls only loopback model endpoints and those the operator named, and
/// follows no redirect (a loopback endpoint that redirects elsewhere is not followed).
#[tokio::test]
async fn episodes_call_only_allowed_model_endpoints_and_follow_no_redirect() {
    let srv = server().await;
    for url in [
        "http://10.0.0.1:8000/v1",
        "http://169.254.169.254/latest",
        "http://internal.example/v1",
    ] {
        let (status, body) = post_json(
            &format!("{}/v1/episodes", srv.base),
            json!({"problem_statement": "x", "llm": {"base_url": url, "model": "m"}, "max_steps": 1}),
        )
        .await;
        assert_eq!(status, reqwest::StatusCode::FORBIDDEN, "{url}: {body}");
        assert!(body.to_string().contains("--model-host"), "{body}");
    }
    let (target, target_hits) =
        raw_server("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}".into())
            .await;
    let (redirector, _) = raw_server(format!(
        "HTTP/1.1 307 Temporary Redirect\r\nlocation: {target}/v1/chat/completions\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    ))
    .await;
    let _ = post_json(
        &format!("{}/v1/episodes", srv.base),
        json!({"problem_statement": "x", "llm": {"base_url": format!("{redirector}/v1"), "model": "m"}, "max_steps": 1}),
    )
    .await;
    assert_eq!(
        target_hits.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the redirect was followed"
    );
}

/// Slowloris and idle connections: with a connection cap and a header timeout, clients that
/// open connections and never finish their headers are cut off, and a normal client keeps
/// getting answers meanwhile.
#[tokio::test]
async fn idle_and_slow_connections_do_not_starve_other_clients() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let srv = crate::serve::start(llm_in_sandbox::serve::ServeConfig {
        access_log: false,
        max_connections: 32,
        header_timeout: std::time::Duration::from_secs(1),
        ..Default::default()
    })
    .await;
    let addr = srv.base.trim_start_matches("http://").to_string();
    let mut idle = Vec::new();
    for _ in 0..100 {
        if let Ok(s) = tokio::net::TcpStream::connect(&addr).await {
            idle.push(s);
        }
    }
    let mut slow = Vec::new();
    for _ in 0..50 {
        let Ok(mut s) = tokio::net::TcpStream::connect(&addr).await else {
            continue;
        };
        let _ = s
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            .await;
        slow.push(s);
    }
    let trickle = tokio::spawn(async move {
        for _ in 0..20 {
            for s in &mut slow {
                let _ = s.write_all(b"a").await;
            }
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        }
        slow
    });
    for _ in 0..5 {
        let (_, v) = post_json(
            &format!("{}/run_code", srv.base),
            json!({"code": "print(6 * 7)"}),
        )
        .await;
        assert_eq!(v["run_result"]["stdout"], "42\n", "{v}");
    }
    // The idle connections were closed by the server (EOF), not left open.
    let mut closed = 0;
    for s in &mut idle {
        let mut b = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(std::time::Duration::from_secs(30), s.read(&mut b)).await
        {
            closed += 1;
        }
    }
    assert_eq!(closed, idle.len(), "idle connections left open");
    let slow = trickle.await.expect("trickle");
    assert!(!slow.is_empty());
}

/// The kill loop: `benchmark` SIGKILLed ten times at different moments (during start-up,
/// mid-row, mid-append), resumed each time, then run to its end. Every row is there exactly
/// once, every line of `results.jsonl` parses, every trajectory parses, and the scores equal
/// an unkilled run's.
#[test]
fn benchmark_killed_ten_times_ends_as_an_unkilled_run() {
    use std::process::Stdio;
    use std::time::Duration;
    let server = crate::common::answering_model(Duration::from_millis(250));
    let dir = tempfile::tempdir().expect("temp");
    let data = dir.path().join("d.jsonl");
    const ROWS: usize = 40;
    let rows: String = (1..=ROWS)
        .map(|i| {
            let truth = if i % 3 == 0 { "41" } else { "42" };
            format!(
                "{{\"id\": {i}, \"domain\": \"math\", \"problem_statement\": \"row-{i}\", \
                 \"ground_truth\": \"{truth}\"}}\n"
            )
        })
        .collect();
    std::fs::write(&data, rows).expect("data");
    let benchmark = |out: &std::path::Path, resume: Option<&std::path::Path>| {
        let mut c = crate::cli::bin();
        c.args(["benchmark", "--scorer", "numeric", "--num_workers", "2"])
            .args(["--llm-base-url", &server.url, "--llm-name", "m"])
            .arg("--data")
            .arg(&data)
            .arg("--output-dir")
            .arg(out)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(r) = resume {
            c.arg("--resume").arg(r);
        }
        c
    };
    let run_dir_in = |out: &std::path::Path| {
        std::fs::read_dir(out)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(Result::ok)
            .map(|e| e.path())
    };
    let killed = dir.path().join("killed");
    let mut kills = 0;
    for i in 0..10u64 {
        let resume = run_dir_in(&killed);
        let mut child = benchmark(&killed, resume.as_deref())
            .spawn()
            .expect("spawn");
        // Moments spread over start-up and the rows: 150 ms .. 1.5 s after the start.
        std::thread::sleep(Duration::from_millis(150 + (i * 373) % 1400));
        if child.try_wait().ok().flatten().is_none() {
            let _ = child.kill();
            kills += 1;
        }
        let _ = child.wait();
    }
    // Each row takes two 250 ms model calls: 40 rows on 2 workers are about 10 s of work,
    // more than the ten attempts together run, so most attempts are cut mid-run.
    eprintln!("kill loop: {kills} of 10 attempts killed mid-run, then resumed");
    assert!(kills >= 5, "only {kills} runs were still going when killed");
    let run_dir = run_dir_in(&killed).expect("the killed run's folder");
    let o = crate::cli::run(benchmark(&killed, Some(&run_dir)).stderr(Stdio::piped()));
    assert_eq!(o.status.code(), Some(0), "{}", crate::cli::text(&o.stderr));
    let clean = dir.path().join("clean");
    let o = crate::cli::run(benchmark(&clean, None).stderr(Stdio::piped()));
    assert_eq!(o.status.code(), Some(0), "{}", crate::cli::text(&o.stderr));
    let clean_dir = run_dir_in(&clean).expect("the clean run's folder");

    let scores = |run: &std::path::Path| {
        let text = std::fs::read_to_string(run.join("results.jsonl")).expect("results.jsonl");
        let mut out = std::collections::BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("line {n} of {} is torn: {e}: {line}", run.display()));
            let id = v["id"].to_string();
            assert!(
                out.insert(id.clone(), v["score"].clone()).is_none(),
                "row {id} twice"
            );
        }
        out
    };
    let a = scores(&run_dir);
    assert_eq!(a.len(), ROWS, "every row exactly once");
    assert_eq!(a, scores(&clean_dir), "scores differ from an unkilled run");
    let mut trajectories = 0;
    for e in std::fs::read_dir(run_dir.join("trajectories"))
        .expect("trajectories")
        .flatten()
    {
        let t = e.path().join("trajectory.json");
        if t.exists() {
            let text = std::fs::read_to_string(&t).expect("read");
            serde_json::from_str::<serde_json::Value>(&text)
                .unwrap_or_else(|e| panic!("{} does not parse: {e}", t.display()));
            trajectories += 1;
        }
    }
    assert!(trajectories >= ROWS, "{trajectories} trajectories");
    let summary = |run: &std::path::Path| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(run.join("results.json")).expect("results.json"),
        )
        .expect("results.json parses");
        v
    };
    let (sa, sb) = (summary(&run_dir), summary(&clean_dir));
    for key in ["total", "mean_score", "num_errors", "domains"] {
        assert_eq!(sa[key], sb[key], "summary.{key}: {sa} vs {sb}");
    }
}

/// `serve` killed with SIGKILL while sessions are alive leaves their folders; the next start
/// removes them, and a clean stop leaves nothing.
#[test]
fn a_killed_servers_session_folders_are_removed_by_the_next_start() {
    let tmp = tempfile::tempdir().expect("temp");
    let start = || {
        let (child, base) = crate::common::spawn_serve(&["--no-token", "--access-log=off"], |c| {
            c.env("TMPDIR", tmp.path());
        });
        (child, base)
    };
    let (mut first, base) = start();
    let own = tmp
        .path()
        .join(format!("llm-in-sandbox-pid-{}", first.id()));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let r = client()
            .post(format!("{base}/v1/sandboxes"))
            .json(&json!({"files": {"kept.txt": "aGk="}}))
            .send()
            .await
            .expect("create");
        assert!(r.status().is_success(), "{}", r.status());
    });
    let sessions: Vec<_> = std::fs::read_dir(&own)
        .map(|d| d.flatten().collect())
        .unwrap_or_default();
    assert!(
        !sessions.is_empty(),
        "no session folder under {}",
        own.display()
    );
    first.kill().expect("SIGKILL");
    first.wait().expect("wait");
    assert!(own.exists(), "a killed server cannot clean up after itself");
    let (mut second, _) = start();
    assert!(
        !own.exists(),
        "{} is still there after a restart",
        own.display()
    );
    let pid = libc::pid_t::try_from(second.id()).expect("pid");
    // SAFETY: a plain kill(2) of the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = second.wait().expect("wait");
    assert!(status.success(), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("tmp")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The process's peak resident memory (VmHWM) and current (VmRSS), bytes.
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb << 10)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// 64 sandboxes at once, each past every limit: memory (256 MiB in 4 MiB pieces under a
/// 224 MiB cap), disk (16 MB under an 8 MiB quota) and subshell recursion; one in eight also
/// past open files (a loop of opens; all 64 would take the whole process's share of guest
/// files from the other tests running beside this one).
/// Each gets its own clear error; a sandbox beside them keeps answering; the host can still
/// open files; and the process's resident memory grows by less than the limits promise
/// (64 x 224 MiB). Prints the figures.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_sandboxes_past_every_limit_at_once() {
    use llm_in_sandbox::runtime::Limits;
    const N: usize = 64;
    // The snapshot's linear memory alone is about 146 MiB: the cap leaves some 78 MiB to fill.
    const MEMORY: u64 = 224 << 20;
    let _ = crate::common::runtime();
    let (_, rss_before) = rss();
    let script = r#"python3 -c "
chunks = []
while len(chunks) < 64:
    chunks.append(b'x' * (4 << 20))
print('allocated')
"; echo "memory rc=$?"
[ -e /testbed/no-files ] || python3 -c "
keep = open('/tmp/held', 'w')
files = []
try:
    while len(files) < 100000:
        files.append(open('/tmp/held', 'rb', buffering=0))
    print('files unbounded')
except OSError as e:
    print('files', len(files), e.strerror)
"
python3 -c "
f = open('/testbed/big', 'wb')
for _ in range(16):
    f.write(b'x' * (1 << 20))
print('wrote 16 MiB')
"; echo "disk rc=$?"
f() { ( f ); }; f
"#;
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for i in 0..N {
        tasks.push(tokio::spawn(async move {
            let sb = sandbox_in(|b| {
                b.limits(Limits {
                    memory_bytes: MEMORY,
                    timeout: std::time::Duration::from_secs(60),
                    ..Limits::default()
                })
                .disk_quota(8 << 20)
            });
            if i % 8 != 0 {
                sb.workspace().write("no-files", "").expect("mark");
            }
            let mut shell = Shell::new(
                Arc::new(sb),
                ShellSettings {
                    timeout: std::time::Duration::from_secs(60),
                    ..ShellSettings::default()
                },
            )
            .expect("shell");
            shell.exec(script).await
        }));
    }
    // A sandbox beside them keeps answering while they run.
    let mut beside = 0;
    while tasks.iter().any(|t| !t.is_finished()) && beside < 20 {
        let r = py(&sandbox_in(|b| b), &["-c", "print(6 * 7)"]).await;
        assert_eq!(String::from_utf8_lossy(&r.stdout), "42\n", "{r:?}");
        beside += 1;
    }
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.push(t.await.expect("task").expect("shell"));
    }
    let (peak, rss_after) = rss();
    for (i, r) in outcomes.iter().enumerate() {
        let out = shown(r);
        assert!(!out.contains("allocated"), "{out}");
        assert!(out.contains("MemoryError"), "{out}");
        assert!(out.contains("memory rc=1"), "{out}");
        // EMFILE, as the guest's C library words it.
        assert_eq!(
            out.contains("No file descriptors available"),
            i % 8 == 0,
            "{out}"
        );
        assert!(!out.contains("files unbounded"), "{out}");
        assert!(
            !out.contains("wrote 16 MiB") && !out.contains("disk rc=0"),
            "{out}"
        );
        // Nesting ends the script with the memory error: the subshells' saved call stacks
        // are charged to the memory limit, and the nesting depth follows it.
        assert!(out.contains("the sandbox's memory limit allows"), "{out}");
    }
    // Their files were given back: a new call opens a thousand.
    let r = py(
        &sandbox_in(|b| b),
        &[
            "-c",
            "open('/tmp/h', 'w').close(); fs = [open('/tmp/h') for _ in range(1000)]; print(len(fs))",
        ],
    )
    .await;
    assert_eq!(String::from_utf8_lossy(&r.stdout), "1000\n", "{r:?}");
    // The host can still open files.
    let _f = std::fs::File::open("/proc/self/status").expect("the host can open files");
    let promised = N as u64 * MEMORY;
    let grew = peak.saturating_sub(rss_before);
    eprintln!(
        "64 sandboxes past every limit: {:.1} s; resident before {} MiB, peak {} MiB (+{} MiB; \
         the limits promise at most {} MiB), after {} MiB; {beside} calls answered beside them",
        started.elapsed().as_secs_f64(),
        rss_before >> 20,
        peak >> 20,
        grew >> 20,
        promised >> 20,
        rss_after >> 20
    );
    assert!(
        grew < promised,
        "resident memory grew by {} MiB, more than 64 calls at their cap ({} MiB)",
        grew >> 20,
        promised >> 20
    );
}

/// A link made through a linked folder, whose target reads as inside but climbs out from the
/// folder the link really lands in, is refused by the shell's `ln -s` and by Python's
/// `os.symlink` alike; a plain climbing link over real folders is still made.
#[tokio::test]
async fn links_made_through_linked_folders_cannot_climb_out() {
    let sb = sandbox_in(|b| b);
    let host = sb.workspace().host_path().to_path_buf();
    let mut shell = shell_over(sb);
    let r = bash(
        &mut shell,
        "mkdir -p /testbed/x/y && ln -s .. /testbed/x/y/up && echo made-up; \
         ln -s ../../../x /testbed/x/y/up/l; echo rc=$?; \
         ln -s ../../x /testbed/x/y/fine && echo made-fine; \
         python3 -c \"import os
try:
    os.symlink('../../../x', '/testbed/x/y/up/p'); print('python made it')
except OSError as e:
    print('python refused', e.strerror)\"",
    )
    .await;
    let out = shown(&r);
    assert!(
        out.contains("made-up") && out.contains("made-fine"),
        "{out}"
    );
    assert!(!out.contains("rc=0"), "{out}");
    assert!(out.contains("refusing a symbolic link"), "{out}");
    assert!(out.contains("python refused"), "{out}");
    // On the host: no link in the workspace points above it.
    let mut escaping = Vec::new();
    llm_in_sandbox::fsutil::walk(&host, &mut |p, _| {
        if let Ok(t) = std::fs::read_link(p) {
            let resolved = p.parent().unwrap_or(&host).join(&t);
            let mut depth = 0i32;
            for c in resolved
                .strip_prefix(&host)
                .map(|r| r.components().collect::<Vec<_>>())
                .unwrap_or_default()
            {
                match c {
                    std::path::Component::ParentDir => depth -= 1,
                    std::path::Component::Normal(_) => depth += 1,
                    _ => {}
                }
                if depth < 0 {
                    escaping.push(p.to_path_buf());
                    break;
                }
            }
        }
    });
    assert!(escaping.is_empty(), "{escaping:?}");
}

/// `merge` SIGKILLed at ten moments: whatever it left in the output folder parses (no torn
/// `results.jsonl`, `results.json` or `trajectory.json`), and running it again gives the
/// same results as a merge never killed.
#[test]
fn merge_killed_ten_times_leaves_no_torn_file() {
    use std::time::Duration;
    let dir = tempfile::tempdir().expect("temp");
    let mut shards = Vec::new();
    for shard in 0..2 {
        let d = dir.path().join(format!("shard{shard}"));
        std::fs::create_dir_all(&d).expect("shard");
        let mut rows = String::new();
        for i in 0..30_000 {
            let id = format!("{shard}-{i}");
            let row = json!({
                "key": format!("{id}#0"), "id": id, "repeat": 0, "domain": "math",
                "score": f64::from(i % 2), "error": null, "answer": "42",
                "ground_truth": "42", "stop": "submit", "steps": 2, "tokens": 100,
                "llm_seconds": 0.5, "sandbox_seconds": 0.1,
                "problem_statement": "what is six times seven, and why is it the answer?",
            });
            rows.push_str(&row.to_string());
            rows.push('\n');
        }
        std::fs::write(d.join("results.jsonl"), rows).expect("rows");
        std::fs::write(d.join("config.json"), r#"{"model": "m", "mode": "run"}"#).expect("cfg");
        shards.push(d);
    }
    let merge = |out: &std::path::Path| {
        let mut c = crate::cli::bin();
        c.arg("merge")
            .args(&shards)
            .arg("-o")
            .arg(out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c
    };
    let parses = |out: &std::path::Path| {
        if let Ok(text) = std::fs::read_to_string(out.join("results.jsonl")) {
            for (n, line) in text.lines().enumerate() {
                serde_json::from_str::<serde_json::Value>(line)
                    .unwrap_or_else(|e| panic!("line {n} of results.jsonl is torn: {e}"));
            }
            assert!(
                text.is_empty() || text.ends_with('\n'),
                "results.jsonl is cut"
            );
        }
        for f in ["results.json", "trajectory.json", "config.json"] {
            if let Ok(text) = std::fs::read_to_string(out.join(f)) {
                serde_json::from_str::<serde_json::Value>(&text)
                    .unwrap_or_else(|e| panic!("{f} is torn: {e}"));
            }
        }
    };
    let killed = dir.path().join("killed");
    let mut kills = 0;
    for i in 0..10u64 {
        let mut child = merge(&killed).spawn().expect("spawn");
        std::thread::sleep(Duration::from_millis(20 + i * 37));
        if child.try_wait().ok().flatten().is_none() {
            let _ = child.kill();
            kills += 1;
        }
        let _ = child.wait();
        parses(&killed);
    }
    eprintln!("merge: {kills} of 10 attempts killed mid-run");
    let o = crate::cli::run(&mut merge(&killed));
    assert!(o.status.success());
    let clean = dir.path().join("clean");
    let o = crate::cli::run(&mut merge(&clean));
    assert!(o.status.success());
    parses(&killed);
    let read = |p: &std::path::Path| std::fs::read(p).expect("read");
    assert_eq!(
        read(&killed.join("results.jsonl")),
        read(&clean.join("results.jsonl"))
    );
    let summary = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_slice(&read(&p.join("results.json"))).expect("results.json")
    };
    let (a, b) = (summary(&killed), summary(&clean));
    for key in ["total", "mean_score", "num_errors", "domains"] {
        assert_eq!(a[key], b[key], "{key}");
    }
}

/// Folders nested 30,000 deep through folder handles (`os.mkdir(..., dir_fd=)`, where no path
/// is ever long) are removed by the shell's `rm -r` and by the end of the sandbox without
/// recursion on a host stack (a recursive removal overflowed the 2 MiB stack of a server
/// thread and aborted the process).
#[tokio::test(flavor = "multi_thread")]
async fn folders_nested_deeper_than_a_stack_are_removed_safely() {
    let deep = "import os
fd = os.open('/testbed', os.O_RDONLY | os.O_DIRECTORY)
for i in range(30000):
    os.mkdir('d', dir_fd=fd)
    nfd = os.open('d', os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
print('made')
";
    // A runtime of the test's own, so that it can wait for its calls' instances to be dropped
    // (just after each call answered): a folder they still held when its sandbox went would
    // be removed only once let go, when some later sandbox (of any test) takes a folder.
    let rt = crate::common::own_runtime(2).await;
    for remove_with_rm in [true, false] {
        let sb = llm_in_sandbox::sandbox::Sandbox::builder(rt.clone())
            .build()
            .expect("sandbox");
        let host = sb.workspace().host_path().to_path_buf();
        let mut shell = shell_over(sb);
        let script = format!("cat > /tmp/deep.py <<'EOF'\n{deep}EOF\npython3 /tmp/deep.py");
        let r = bash(&mut shell, &script).await;
        assert!(r.stdout.contains("made"), "{}", shown(&r));
        if remove_with_rm {
            let r = bash(&mut shell, "rm -rf /testbed/d; echo rc=$?; ls /testbed").await;
            assert!(r.stdout.starts_with("rc=0\n"), "{}", shown(&r));
            assert!(!host.join("d").exists());
        }
        // The sandbox's end removes its folders, deep or not; one left empty (after `rm`) may
        // instead be kept, empty, for the next sandbox (recycled folders, workspace.rs).
        crate::common::settled(&rt).await;
        drop(shell);
        let done = |p: &std::path::Path| {
            !p.exists()
                || (remove_with_rm && std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_none()))
        };
        for _ in 0..100 {
            if done(&host) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(done(&host), "{} was left", host.display());
    }
}

/// A zip bomb (200 MB of zeros in a 200 KB archive) handed in as a file and unpacked by the
/// guest stops at the disk quota; the host folder stays under it. (Tar uploads take plain tar
/// only, so a gzip bomb there is refused as a bad tar: see the fuzz tests.)
#[tokio::test]
async fn a_zip_bomb_stops_at_the_quota() {
    use std::io::Write as _;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("zeros.bin", zip::write::SimpleFileOptions::default())
        .expect("zip entry");
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..200 {
        zip.write_all(&chunk).expect("zip write");
    }
    let bytes = zip.finish().expect("zip").into_inner();
    assert!(bytes.len() < 1 << 20, "{} bytes", bytes.len());
    let sb = sandbox_in(|b| b.disk_quota(8 << 20));
    sb.workspace().write("bomb.zip", &bytes).expect("write");
    let host = sb.workspace().host_path().to_path_buf();
    let r = py(
        &sb,
        &[
            "-c",
            "import zipfile\ntry:\n    zipfile.ZipFile('bomb.zip').extractall('out')\n    print('unpacked')\nexcept OSError as e:\n    print('stopped', e.strerror)",
        ],
    )
    .await;
    let out = String::from_utf8_lossy(&r.stdout).to_string();
    assert!(
        out.starts_with("stopped"),
        "{out} {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let mut size = 0u64;
    llm_in_sandbox::fsutil::walk(&host, &mut |p, is_dir| {
        if !is_dir {
            size += std::fs::symlink_metadata(p).map_or(0, |m| m.len());
        }
    });
    // The quota's 8 MiB for what the guest wrote, and the archive the host put there.
    let bound = (8u64 << 20) + bytes.len() as u64;
    assert!(
        size <= bound,
        "the host folder holds {size} bytes, over {bound}"
    );
}
