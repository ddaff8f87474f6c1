//! The image on a real engine (issue 47; docs/deploy.md): the image `.ci/run` builds from the
//! root Dockerfile (`deploy/docker/ci-image.sh`), run as docs/deploy.md says: a one-shot
//! `exec`, and `serve` under a read-only root, no capabilities, no new privileges and memory
//! and CPU limits, answering `/run_code` and a session's calls; then two `serve` replicas
//! behind Debian's nginx with the recipe in `deploy/nginx/`, keeping each session on its
//! replica, spreading `/run_code`, and failing a killed replica's sessions with a clear,
//! retryable error while the other's carry on.
//!
//! Needs Debian's docker.io and nginx and the image (`LLM_IN_SANDBOX_TEST_IMAGE`, default
//! `llm-in-sandbox:ci`); skipped with a loud line outside CI when they are absent.

use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};

const DOCKER: &str = "/usr/bin/docker";
const TOKEN: &str = "deploy-test-token";

fn image() -> String {
    std::env::var("LLM_IN_SANDBOX_TEST_IMAGE").unwrap_or_else(|_| "llm-in-sandbox:ci".into())
}

fn docker(args: &[&str]) -> Output {
    Command::new(DOCKER)
        .args(args)
        .output()
        .expect("run docker")
}

/// Whether the engine answers and the image is there; otherwise skip (or fail under CI).
fn ready(test: &str) -> bool {
    let have = std::path::Path::new(DOCKER).exists()
        && docker(&["image", "inspect", &image()]).status.success();
    if !have {
        crate::common::skip_unless_ci(
            test,
            &format!(
                "no docker engine or no image {} (deploy/docker/ci-image.sh builds it)",
                image()
            ),
        );
    }
    have
}

/// The hardening every container of these tests runs under (docs/deploy.md).
const HARDENED: &[&str] = &[
    "--read-only",
    "--tmpfs",
    "/tmp:rw,size=1g",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--memory",
    "4g",
    "--cpus",
    "1",
];

/// Containers removed when the test ends, however it ends.
struct Containers(Vec<String>);

impl Drop for Containers {
    fn drop(&mut self) {
        for name in &self.0 {
            let _ = docker(&["rm", "-f", name]);
        }
    }
}

fn unique(stem: &str) -> String {
    format!("lis-{stem}-{}", std::process::id())
}

/// Start `serve` in a container published on `host_port` (0: any); answers its host port.
fn start_serve(name: &str, host_port: u16, token_dir: &std::path::Path) -> u16 {
    let publish = if host_port == 0 {
        "127.0.0.1::8080".to_string()
    } else {
        format!("127.0.0.1:{host_port}:8080")
    };
    let volume = format!("{}:/secrets:ro", token_dir.display());
    let image = image();
    let mut args = vec!["run", "-d", "--name", name, "-p", &publish, "-v", &volume];
    args.extend_from_slice(HARDENED);
    args.extend_from_slice(&[
        &image,
        "serve",
        "--bind",
        "0.0.0.0:8080",
        "--token-file",
        "/secrets/token",
    ]);
    let out = docker(&args);
    assert!(out.status.success(), "docker run: {out:?}");
    let port = docker(&["port", name, "8080/tcp"]);
    let text = String::from_utf8_lossy(&port.stdout);
    text.lines()
        .find_map(|l| l.rsplit(':').next()?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no published port: {text:?}"))
}

fn token_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("token"), TOKEN).expect("token");
    // The container's user (uid 10001) reads it through the read-only mount.
    use std::os::unix::fs::PermissionsExt;
    for (path, mode) in [
        (dir.path().to_path_buf(), 0o755),
        (dir.path().join("token"), 0o644),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    dir
}

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client")
}

/// POST with the token (and a session key header when given): status, body, upstream.
async fn post(url: &str, key: Option<&str>, body: Value) -> (u16, Value, String) {
    let mut req = http().post(url).bearer_auth(TOKEN).json(&body);
    if let Some(key) = key {
        req = req.header("X-Session-Key", key);
    }
    let r = req.send().await.expect("request");
    let status = r.status().as_u16();
    let upstream = r
        .headers()
        .get("x-upstream")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let text = r.text().await.expect("body");
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, v, upstream)
}

/// Wait (bounded) until `url` answers 200.
async fn until_healthy(url: &str) {
    for _ in 0..600 {
        if let Ok(r) = http().get(url).send().await
            && r.status().is_success()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{url} never answered");
}

#[tokio::test]
async fn the_image_answers_exec_and_serve_under_limits() {
    if !ready("the_image_answers_exec_and_serve_under_limits") {
        return;
    }
    let image = image();
    let mut args = vec!["run", "--rm"];
    args.extend_from_slice(HARDENED);
    args.extend_from_slice(&[
        &image,
        "exec",
        "--",
        "python3",
        "-c",
        "import numpy, os; print(int(numpy.arange(7).sum()) * 2, os.getuid())",
    ]);
    let out = docker(&args);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "42 0\n",
        "docker run ... exec: {out:?}"
    );

    let tokens = token_dir();
    let name = unique("serve");
    let _gone = Containers(vec![name.clone()]);
    let port = start_serve(&name, 0, tokens.path());
    let base = format!("http://127.0.0.1:{port}");
    until_healthy(&format!("{base}/healthz")).await;
    let (status, _, _) = {
        let r = http()
            .post(format!("{base}/run_code"))
            .json(&json!({"code": "print(1)", "language": "python"}))
            .send()
            .await
            .expect("request");
        (r.status().as_u16(), (), ())
    };
    assert_eq!(status, 401, "a call without the token is refused");
    let (status, v, _) = post(
        &format!("{base}/run_code"),
        None,
        json!({"code": "import sympy\nprint(sympy.factorint(2**20 - 1))", "language": "python"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["run_result"]["stdout"], "{3: 1, 5: 2, 11: 1, 31: 1, 41: 1}\n",
        "{v}"
    );
    let (status, created, _) = post(&format!("{base}/v1/sandboxes"), None, json!({})).await;
    assert!(status == 201, "{created}");
    let id = created["id"].as_str().expect("session id").to_string();
    let exec = format!("{base}/v1/sandboxes/{id}/exec");
    let (_, r, _) = post(&exec, None, json!({"command": "echo kept > f.txt; id -u"})).await;
    assert_eq!(r["stdout"], "0\n", "{r}");
    let (_, r, _) = post(
        &exec,
        None,
        json!({"command": "cat f.txt; python3 -c 'print(2**10)'"}),
    )
    .await;
    assert_eq!(r["stdout"], "kept\n1024\n", "{r}");
    // The image's health check runs against the same port and turns healthy.
    let mut health = String::new();
    for _ in 0..300 {
        let out = docker(&["inspect", "-f", "{{.State.Health.Status}}", &name]);
        health = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if health == "healthy" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(health, "healthy");
}

/// A free port on the host's loopback now.
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// nginx with the recipe in deploy/nginx/ in front of `upstreams`, listening on `port`.
struct Nginx {
    dir: tempfile::TempDir,
}

impl Nginx {
    fn start(port: u16, upstreams: &[u16]) -> Nginx {
        let dir = tempfile::tempdir().expect("temp dir");
        let recipe = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("deploy/nginx/llm-in-sandbox.conf"),
        )
        .expect("deploy/nginx/llm-in-sandbox.conf");
        let servers: String = upstreams
            .iter()
            .map(|p| format!("    server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;\n"))
            .collect();
        let site = recipe
            .replace(
                "    server replica-1:8080 max_fails=1 fail_timeout=30s;\n",
                &servers,
            )
            .replace(
                "    server replica-2:8080 max_fails=1 fail_timeout=30s;\n",
                "",
            )
            .replace("listen 8080;", &format!("listen 127.0.0.1:{port};"));
        let d = dir.path().display();
        let conf = format!(
            "daemon on;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\nevents {{}}\nhttp {{\n\
             access_log off;\nclient_body_temp_path {d}/body;\nproxy_temp_path {d}/proxy;\n\
             fastcgi_temp_path {d}/fastcgi;\nuwsgi_temp_path {d}/uwsgi;\nscgi_temp_path {d}/scgi;\n\
             {site}\n}}\n"
        );
        let path = dir.path().join("nginx.conf");
        std::fs::write(&path, conf).expect("nginx.conf");
        let out = Command::new("/usr/sbin/nginx")
            .args(["-c", &path.display().to_string()])
            .output()
            .expect("nginx (Debian's nginx package)");
        assert!(out.status.success(), "nginx: {out:?}");
        Nginx { dir }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let conf = self.dir.path().join("nginx.conf");
        let _ = Command::new("/usr/sbin/nginx")
            .args(["-c", &conf.display().to_string(), "-s", "stop"])
            .output();
    }
}

#[tokio::test]
async fn replicas_behind_nginx_keep_sessions_and_fail_a_lost_ones_clearly() {
    if !ready("replicas_behind_nginx_keep_sessions_and_fail_a_lost_ones_clearly") {
        return;
    }
    assert!(
        std::path::Path::new("/usr/sbin/nginx").exists(),
        "Debian's nginx is needed (deploy/docker/ci-image.sh installs it)"
    );
    let tokens = token_dir();
    let names = [unique("replica-1"), unique("replica-2")];
    let _gone = Containers(names.to_vec());
    let ports = [free_port(), free_port()];
    for (name, port) in names.iter().zip(ports) {
        start_serve(name, port, tokens.path());
    }
    for port in ports {
        until_healthy(&format!("http://127.0.0.1:{port}/healthz")).await;
    }
    let front = free_port();
    let _nginx = Nginx::start(front, &ports);
    let base = format!("http://127.0.0.1:{front}");
    until_healthy(&format!("{base}/healthz")).await;

    // /run_code spreads over the replicas.
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..8 {
        let (status, v, upstream) = post(
            &format!("{base}/run_code"),
            None,
            json!({"code": format!("print({i} * 2)"), "language": "python"}),
        )
        .await;
        assert_eq!(
            (status, v["run_result"]["stdout"].clone()),
            (200, json!(format!("{}\n", i * 2)))
        );
        seen.insert(upstream);
    }
    assert_eq!(seen.len(), 2, "run_code went to {seen:?}");

    // Sessions made with a key stay on one replica for every call.
    let mut sessions = Vec::new();
    for k in 0..8 {
        let key = format!("episode-{k}");
        let (status, v, upstream) = post(
            &format!("{base}/v1/sandboxes"),
            Some(&key),
            json!({"key": key}),
        )
        .await;
        assert_eq!(status, 201, "{v}");
        let id = v["id"].as_str().expect("id").to_string();
        for n in 0..3 {
            let (status, r, again) = post(
                &format!("{base}/v1/sandboxes/{id}/exec"),
                Some(&key),
                json!({"command": format!("echo {n} >> log; wc -l < log")}),
            )
            .await;
            assert_eq!(
                (status, r["stdout"].clone()),
                (200, json!(format!("{}\n", n + 1))),
                "{r}"
            );
            assert_eq!(again, upstream, "a call of {key} left its replica");
        }
        sessions.push((key, id, upstream));
    }
    let homes: std::collections::BTreeSet<_> = sessions.iter().map(|s| s.2.clone()).collect();
    assert_eq!(homes.len(), 2, "all sessions on one replica: {homes:?}");

    // Kill the replica of the first session: its sessions fail clearly (retryable), the
    // other replica's go on with their state.
    let lost = sessions[0].2.clone();
    let lost_port = lost.rsplit(':').next().and_then(|p| p.parse::<u16>().ok());
    let victim = ports
        .iter()
        .position(|p| Some(*p) == lost_port)
        .expect("the upstream is one of the replicas");
    let out = docker(&["kill", &names[victim]]);
    assert!(out.status.success(), "docker kill: {out:?}");
    for (key, id, home) in &sessions {
        let (status, r, _) = post(
            &format!("{base}/v1/sandboxes/{id}/exec"),
            Some(key),
            json!({"command": "wc -l < log"}),
        )
        .await;
        if *home == lost {
            assert!(
                (status == 503
                    && r["error"]["code"] == "replica_lost"
                    && r["error"]["retryable"] == true)
                    || status == 404,
                "a lost session's call: {status} {r}"
            );
        } else {
            assert_eq!(
                (status, r["stdout"].clone()),
                (200, json!("3\n")),
                "{key}: {r}"
            );
        }
    }
}

#[test]
fn kubernetes_manifests_validate_offline_against_the_api_schemas() {
    // scripts/validate-k8s.sh installs the pinned validator with pip (once), shows it rejects
    // two broken copies, then checks every deploy/k8s/*.yaml with --strict.
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/validate-k8s.sh");
    let out = Command::new("bash")
        .arg(&script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run scripts/validate-k8s.sh");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "{text}");
    assert!(text.contains("broken copy rejected"), "{text}");
    assert!(text.contains("0 failed"), "{text}");
}
