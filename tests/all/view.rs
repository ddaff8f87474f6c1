//! `view`: the viewer's JSON endpoints over plain HTTP (the real binary, over runs that the
//! real `benchmark` made against the fake model), its guards (paths, Host, token), the
//! exported report, and the page in a real browser: Debian's chromium driven by Selenium
//! (tests/view/test_page.py, run here with pytest).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use serde_json::{Value, json};

fn bin() -> Command {
    crate::common::runtime();
    let mut c = Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"));
    c.stdin(Stdio::null());
    c.env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root());
    c.env_remove("GITHUB_STEP_SUMMARY");
    c
}

/// The fake model. Run `b` answers row r02 wrong and r03 right (run A the other way round).
/// Each episode: a bash call with coloured output and markup, writing the answer; an editor
/// call creating `notes.py`; for a `PLOT` row a matplotlib figure; then submit. `FAIL` rows
/// get HTTP 400 (error rows).
fn model(b: bool) -> FakeServer {
    FakeServer::start(Box::new(move |req: &Value| {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        let task = msgs
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
            .to_string();
        if task.contains("FAIL") {
            return Reply::status(400, r#"{"error": {"message": "invalid request"}}"#);
        }
        let id = task
            .split("ID=")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("?")
            .to_string();
        let mut answer = task
            .split("ANSWER=")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("none")
            .to_string();
        if b && id == "r02" {
            answer = "wrong".into();
        }
        if b && id == "r03" {
            answer = "21".into();
        }
        if req.get("tools").is_none() {
            // Plain-LLM mode: one reply.
            return Reply::text(&format!("Reasoning about {id}...\nAnswer: {answer}"));
        }
        let tools = msgs.iter().filter(|m| m["role"] == "tool").count();
        let call = match tools {
            0 => Some((
                "execute_bash",
                json!({"command": format!(
                    "python3 -c \"print('\\x1b[38:5:34mgreen {id}\\x1b[0m <b>not bold</b>')\"; echo '{answer}' > /testbed/answer.txt"
                )}),
            )),
            1 => Some((
                "str_replace_editor",
                json!({"command": "create", "path": "/testbed/notes.py",
                       "file_text": format!("print('notes of {id}')\n# <script>alert(1)</script>\n")}),
            )),
            2 if task.contains("PLOT") => Some((
                "execute_bash",
                json!({"command": "python3 -c \"import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt; plt.plot([1, 3, 2]); plt.savefig('/testbed/plot.png')\""}),
            )),
            _ => None,
        };
        let mut reply = match &call {
            Some((name, args)) => Reply::calls(&[(name, &args.to_string())]),
            None => Reply::calls(&[("submit", "{}")]),
        };
        // The model's thought carries markup too.
        if let Ok(mut body) = serde_json::from_str::<Value>(&reply.body) {
            body["choices"][0]["message"]["content"] =
                json!(format!("Thinking about {id} <i>carefully</i>, step {}", tools + 1));
            reply.body = body.to_string();
        }
        reply
    }))
    .unwrap()
}

/// Six rows over three domains: r03 is wrong in A, r02 in B, r05 fails (an error row), r00
/// draws a plot, r01's task text carries a script element.
fn write_data(path: &Path) {
    let domains = [
        "math",
        "math",
        "physics",
        "physics",
        "chemistry",
        "chemistry",
    ];
    let text: String = (0..6)
        .map(|i| {
            let truth = (i * 7).to_string();
            let answer = if i == 3 {
                "wrong".into()
            } else {
                truth.clone()
            };
            let mut statement = format!("Row {i}. ID=r{i:02} ANSWER={answer} .");
            if i == 0 {
                statement.push_str(" PLOT");
            }
            if i == 1 {
                statement.push_str(" <script>window.__xss=1</script>");
            }
            if i == 5 {
                statement.push_str(" FAIL");
            }
            json!({"id": format!("r{i:02}"), "domain": domains[i],
                   "problem_statement": statement, "ground_truth": truth})
            .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

/// The runs every test here reads (made once): A and B by `benchmark`, A's report.html, and
/// a plain-LLM run of A's model.
struct Runs {
    _root: tempfile::TempDir,
    a: PathBuf,
    b: PathBuf,
    llm: PathBuf,
    report: PathBuf,
}

fn run_benchmark(server: &FakeServer, data: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let o = bin()
        .args([
            "benchmark",
            "--scorer",
            "exact",
            "--llm-base-url",
            &server.url,
        ])
        .args([
            "--llm-name",
            "fake",
            "--max-steps",
            "6",
            "--llm-error-rows",
            "-q",
        ])
        .env("LLM_NUM_WORKERS", "3")
        .arg("--data")
        .arg(data)
        .arg("--output-dir")
        .arg(out)
        .args(extra)
        .output()
        .expect("spawn benchmark");
    assert!(
        o.status.success(),
        "benchmark failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

fn runs() -> &'static Runs {
    static RUNS: OnceLock<Runs> = OnceLock::new();
    RUNS.get_or_init(|| {
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("d.jsonl");
        write_data(&data);
        let report = root.path().join("report/report.html");
        let a = run_benchmark(
            &model(false),
            &data,
            &root.path().join("a"),
            &["--report-html", report.to_str().unwrap()],
        );
        let b = run_benchmark(&model(true), &data, &root.path().join("b"), &[]);
        let llm = run_benchmark(
            &model(false),
            &data,
            &root.path().join("llm"),
            &["--mode", "llm"],
        );
        Runs {
            _root: root,
            a,
            b,
            llm,
            report,
        }
    })
}

/// A `view` process, stopped when dropped.
struct Viewer {
    child: Child,
    addr: SocketAddr,
}

impl Viewer {
    fn start(dirs: &[&Path], extra: &[&str]) -> Viewer {
        let mut child = bin()
            .arg("view")
            .args(dirs)
            .args(["--bind", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn view");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .parse()
            .unwrap();
        Viewer { child, addr }
    }

    fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    fn get(&self, path: &str) -> (u16, String, Vec<u8>) {
        http_get(self.addr, path, &self.addr.to_string(), None)
    }

    fn json(&self, path: &str) -> Value {
        let (status, _, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A GET with this `Host` header (and bearer token): status, headers, body.
fn http_get(
    addr: SocketAddr,
    path: &str,
    host: &str,
    token: Option<&str>,
) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = unchunk(&body);
    }
    (status, head, body)
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..i]).trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + n]);
        b = &b[i + 2 + n + 2..];
    }
    out
}

fn keys(page: &Value) -> Vec<String> {
    page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn view_endpoints_answer_summary_rows_episodes_and_files() {
    let r = runs();
    let v = Viewer::start(&[&r.a], &[]);
    let s = v.json("/api/summary");
    let sum = &s["runs"][0]["summary"];
    assert_eq!(sum["overall"]["rows"], 6, "{s}");
    assert_eq!(sum["overall"]["errors"], 1, "{s}");
    assert!(s["svg"].as_str().unwrap().starts_with("<svg"), "{s}");
    assert_eq!(s["domains"], json!(["chemistry", "math", "physics"]));

    let page = v.json("/api/rows?limit=2");
    assert_eq!(
        (page["total"].as_u64(), page["matched"].as_u64()),
        (Some(6), Some(6))
    );
    assert_eq!(keys(&page), ["r00#0", "r01#0"]);
    let page = v.json("/api/rows?offset=4&limit=2");
    assert_eq!(keys(&page), ["r04#0", "r05#0"]);
    assert_eq!(
        keys(&v.json("/api/rows?domain=physics")),
        ["r02#0", "r03#0"]
    );
    assert_eq!(keys(&v.json("/api/rows?error=yes")), ["r05#0"]);
    assert_eq!(keys(&v.json("/api/rows?score=failed")), ["r03#0"]);
    assert_eq!(keys(&v.json("/api/rows?q=WINDOW.__xss")), ["r01#0"]);
    let stop = v.json("/api/rows?stop=submitted");
    assert_eq!(stop["matched"], 5, "{stop}");
    let sorted = v.json("/api/rows?sort=score&desc=true&limit=1");
    assert_eq!(sorted["rows"][0]["a"]["score"], 1.0, "{sorted}");
    assert_eq!(v.get("/api/rows?limit=x").0, 400);

    let e = v.json("/api/episode?run=0&key=r00%230");
    let steps = e["trajectory"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "{e}");
    assert_eq!(steps[1]["action"]["function"], "str_replace_editor");
    let obs = steps[0]["observation"].as_str().unwrap();
    // Plain colour codes are stripped from observations (as the reference does); the
    // colon form is kept, and the page colours it.
    assert!(obs.contains("\u{1b}[38:5:34mgreen r00"), "{obs:?}");
    assert!(
        e["trajectory"]["system_prompt"]
            .as_str()
            .is_some_and(|p| !p.is_empty()),
        "{e}"
    );
    assert!(
        e["usage"]["1"]["usage"]["total_tokens"].as_u64().is_some(),
        "{e}"
    );
    let files: Vec<&str> = e["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["answer.txt", "notes.py", "plot.png"], "{e}");
    let (status, head, body) = v.get("/api/file?run=0&key=r00%230&path=notes.py");
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain"),
        "{head}"
    );
    assert_eq!(
        String::from_utf8_lossy(&body),
        // The reference's editor adds a newline to what it writes.
        "print('notes of r00')\n# <script>alert(1)</script>\n\n"
    );
    let (status, head, body) = v.get("/api/file?run=0&key=r00%230&path=plot.png");
    assert_eq!(status, 200);
    assert!(
        head.contains("image/png") && body.starts_with(b"\x89PNG"),
        "{head}"
    );
    // The error row: its episode ended at the first model call.
    let e = v.json("/api/episode?run=0&key=r05%230");
    assert_eq!(e["trajectory"]["steps"], json!([]), "{e}");
    assert!(
        e["row"]["error"].as_str().unwrap().contains("LLM error"),
        "{e}"
    );
    assert_eq!(v.get("/api/episode?run=0&key=nope").0, 404);
    assert_eq!(v.get("/api/episode?run=3&key=r00%230").0, 404);

    // A plain-LLM run beside the sandbox run: the chart is the paper's Figure 1, and a row
    // (no episode recorded) shows its console log.
    let both = Viewer::start(&[&r.a, &r.llm], &[]);
    let s = both.json("/api/summary");
    assert!(
        s["svg"].as_str().unwrap().contains("LLM vs LLM-in-Sandbox"),
        "{s}"
    );
    let e = both.json("/api/episode?run=1&key=r00%230");
    assert!(e["note"].as_str().unwrap().contains("console log"), "{e}");
    assert!(e["log"].as_str().unwrap().contains("Answer: 0"), "{e}");

    // A merged folder has no trajectories/ of its own: episodes come from its combined
    // trajectory.json.
    let merged = r.a.parent().unwrap().join("merged");
    let o = bin()
        .arg("merge")
        .arg(&r.a)
        .arg("-o")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = Viewer::start(&[&merged], &[]);
    assert_eq!(m.json("/api/rows")["matched"], 6);
    let e = m.json("/api/episode?run=0&key=r00%230");
    assert_eq!(e["source"], "trajectory.json (combined)", "{e}");
    assert_eq!(e["trajectory"]["steps"].as_array().unwrap().len(), 4, "{e}");

    // The page itself: our script allowed by hash, nothing else.
    let (status, head, body) = v.get("/");
    assert_eq!(status, 200);
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("content-security-policy: default-src 'none'; script-src 'sha256-"),
        "{head}"
    );
    assert!(String::from_utf8_lossy(&body).contains("id=\"rows\""));
}

#[test]
fn view_refuses_path_escapes_wrong_hosts_and_missing_tokens() {
    let r = runs();
    // A symlink out of the run folder, planted among the row's files.
    let files = r.a.join("trajectories/r04_0/files");
    let secret = r.a.parent().unwrap().join("secret.txt");
    std::fs::write(&secret, "outside the run").unwrap();
    let link = files.join("leak.txt");
    if !link.exists() {
        std::os::unix::fs::symlink(&secret, &link).unwrap();
    }
    let v = Viewer::start(&[&r.a], &[]);
    for path in [
        "..%2F..%2Fresults.jsonl",
        "../../config.json",
        "%2Fetc%2Fpasswd",
        "a/../../../results.jsonl",
        "./notes.py",
        "",
    ] {
        let (status, _, body) = v.get(&format!("/api/file?run=0&key=r04%230&path={path}"));
        assert_eq!(status, 400, "{path}: {}", String::from_utf8_lossy(&body));
    }
    let (status, _, body) = v.get("/api/file?run=0&key=r04%230&path=leak.txt");
    assert_eq!(status, 404, "{}", String::from_utf8_lossy(&body));
    assert!(!String::from_utf8_lossy(&body).contains("outside the run"));
    assert_eq!(v.get("/api/file?run=0&key=r04%230&path=notes.py").0, 200);

    // DNS rebinding: a name that is not the address served is refused.
    for host in [
        "evil.example:80",
        &format!("evil.example:{}", v.addr.port()),
        "127.0.0.1:1",
    ] {
        let (status, _, body) = http_get(v.addr, "/api/summary", host, None);
        assert_eq!(status, 403, "{host}: {}", String::from_utf8_lossy(&body));
    }
    for host in [format!("localhost:{}", v.addr.port()), v.addr.to_string()] {
        assert_eq!(
            http_get(v.addr, "/api/summary", &host, None).0,
            200,
            "{host}"
        );
    }

    // With a token: nothing without it; the page link (?token=) and a bearer header work.
    let t = Viewer::start(&[&r.a], &["--token", "s3cret"]);
    let host = t.addr.to_string();
    assert_eq!(http_get(t.addr, "/api/summary", &host, None).0, 401);
    assert_eq!(
        http_get(t.addr, "/api/summary", &host, Some("wrong")).0,
        401
    );
    assert_eq!(
        http_get(t.addr, "/api/summary", &host, Some("s3cret")).0,
        200
    );
    assert_eq!(http_get(t.addr, "/?token=s3cret", &host, None).0, 200);
    // Off loopback without a token it does not start.
    let o = bin()
        .arg("view")
        .arg(&r.a)
        .args(["--bind", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("without a token"));
}

#[test]
fn a_torn_line_and_a_missing_trajectory_are_notes_not_failures() {
    let r = runs();
    let dir = tempfile::tempdir().unwrap();
    let lines = std::fs::read_to_string(r.a.join("results.jsonl")).unwrap();
    let first: Vec<&str> = lines.lines().take(2).collect();
    // Two whole rows (no trajectories copied), then half a line.
    std::fs::write(
        dir.path().join("results.jsonl"),
        format!("{}\n{}\n{}", first[0], first[1], &first[1][..30]),
    )
    .unwrap();
    let v = Viewer::start(&[dir.path()], &[]);
    let s = v.json("/api/summary");
    assert_eq!(s["runs"][0]["summary"]["overall"]["rows"], 2);
    let notes = s["runs"][0]["summary"]["notes"].to_string();
    assert!(notes.contains("incomplete"), "{notes}");
    let key = v.json("/api/rows")["rows"][0]["key"]
        .as_str()
        .unwrap()
        .to_string();
    let e = v.json(&format!(
        "/api/episode?run=0&key={}",
        key.replace('#', "%23")
    ));
    assert!(e["note"].as_str().unwrap().contains("no trajectory"), "{e}");
    // A folder that is no run is refused with a message.
    let empty = tempfile::tempdir().unwrap();
    let o = bin()
        .arg("view")
        .arg(empty.path())
        .arg("--export")
        .arg(empty.path().join("x.html"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a run folder"));
}

#[test]
fn the_exported_report_is_one_file_without_network() {
    let r = runs();
    let html = std::fs::read_to_string(&r.report).unwrap();
    assert!(html.contains("<script type=\"application/json\" id=\"embedded\">"));
    // No address to fetch anything from: everything is in the file.
    for needle in ["src=\"http", "href=\"http", "@import", "url(http"] {
        assert!(!html.contains(needle), "{needle}");
    }
    // The run's markup is data, never markup: no raw script element from the run.
    assert!(!html.contains("<script>window.__xss"));
    assert!(html.contains("\\u003cscript\\u003ewindow.__xss"));
    // `view --export` of two runs.
    let out = r.report.with_file_name("two.html");
    let o = bin()
        .arg("view")
        .arg(&r.a)
        .arg(&r.b)
        .arg("--export")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("(6 rows"));
}

#[test]
fn a_run_output_folder_is_one_row() {
    let dir = tempfile::tempdir().unwrap();
    let step = json!({"thought": "look", "reasoning_content": "",
        "action": {"function": "execute_bash", "parameters": {"command": "ls"}},
        "observation": "Exit code: 0\n", "metadata": {"step": 1, "exec_time": 0.2, "llm_time": 0.2, "tool_time": 0.01}});
    std::fs::write(
        dir.path().join("trajectory.json"),
        json!({"problem_statement": "What is 6*7?", "model": "m", "steps": [step],
               "status": "finished", "stop": {"reason": "submitted"}, "answer": "42",
               "num_steps": 1, "usage": {"total_tokens": 12}})
        .to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("files")).unwrap();
    std::fs::write(dir.path().join("files/answer.txt"), "42\n").unwrap();
    let v = Viewer::start(&[dir.path()], &[]);
    let page = v.json("/api/rows");
    assert_eq!(keys(&page), ["run#0"]);
    assert_eq!(page["rows"][0]["a"]["answer"], "42");
    assert_eq!(page["rows"][0]["a"]["stop"], "submitted");
    let e = v.json("/api/episode?run=0&key=run%230");
    assert_eq!(e["trajectory"]["steps"][0]["thought"], "look");
    let (status, _, body) = v.get("/api/file?run=0&key=run%230&path=answer.txt");
    assert_eq!((status, body.as_slice()), (200, b"42\n".as_slice()));
}

/// A run folder with one row, `a1#0`, run twice: the first attempt was killed after two steps
/// (no finish), the second finished in one, as a resumed benchmark leaves it.
fn run_with_two_attempts() -> tempfile::TempDir {
    use llm_in_sandbox::agent::trajectory::{Action, Recorder, Step, StepMeta};
    let dir = tempfile::tempdir().unwrap();
    let row = json!({"key": "a1#0", "id": "a1", "repeat": 0, "domain": "math", "score": 1.0,
        "error": null, "answer": "42", "ground_truth": "42", "stop": "max_steps", "steps": 1,
        "tokens": 10, "llm_seconds": 0.1, "sandbox_seconds": 0.1});
    std::fs::write(dir.path().join("results.jsonl"), format!("{row}\n")).unwrap();
    let episode = dir
        .path()
        .join("trajectories")
        .join(llm_in_sandbox::eval::runner::trajectory_dir("a1", 0));
    let step = |n: u32, what: &str| Step {
        thought: format!("{what}, step {n}"),
        reasoning_content: String::new(),
        action: Action {
            function: "execute_bash".into(),
            parameters: json!({"command": format!("echo {what} {n}")}),
        },
        observation: format!("{what} {n}"),
        metadata: StepMeta {
            step: n,
            exec_time: 0.1,
            llm_time: 0.1,
            tool_time: 0.0,
            exit_code: Some(0),
        },
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let header = json!({"problem_statement": "6*7?", "id": "a1"});
        let first = Recorder::start(&episode, header.clone()).unwrap();
        first.step(step(1, "killed"));
        first.step(step(2, "killed"));
        first.flush().await;
        drop(first);
        let second = Recorder::start(&episode, header).unwrap();
        second.step(step(1, "kept"));
        second
            .finish(json!({"status": "finished", "stop": {"reason": "max_steps"}, "answer": "42"}))
            .await
            .unwrap();
    });
    dir
}

#[test]
fn a_row_run_again_shows_its_earlier_attempts_apart() {
    let dir = run_with_two_attempts();
    let v = Viewer::start(&[dir.path()], &[]);
    let e = v.json("/api/episode?run=0&key=a1%230");
    assert_eq!(e["trajectory"]["attempt"], 2, "{e}");
    assert_eq!(e["trajectory"]["steps"].as_array().unwrap().len(), 1);
    assert_eq!(e["trajectory"]["steps"][0]["thought"], "kept, step 1");
    let earlier = e["attempts"].as_array().unwrap();
    assert_eq!(earlier.len(), 1, "{e}");
    assert_eq!(earlier[0]["attempt"], 1);
    assert_eq!(
        earlier[0]["ended"],
        "stopped without finishing after step 2: the run was interrupted, killed or crashed"
    );
    assert_eq!(earlier[0]["steps"][1]["thought"], "killed, step 2");
}

/// Rows as `benchmark` writes them, for a large synthetic run.
fn synthetic_row(i: usize) -> String {
    let domains = [
        "math",
        "physics",
        "chemistry",
        "biomedicine",
        "long_context",
    ];
    json!({"key": format!("row{i}#0"), "id": format!("row{i}"), "repeat": 0,
           "domain": domains[i % 5], "score": if i.is_multiple_of(7) { Value::Null } else { json!((i % 3) as f64 / 2.0) },
           "error": if i.is_multiple_of(7) { json!("LLM error: timeout") } else { Value::Null },
           "answer": format!("answer {i} ").repeat(20), "ground_truth": format!("{i}"),
           "stop": if i.is_multiple_of(11) { "max_steps" } else { "submitted" }, "steps": i % 100,
           "tokens": i * 37, "llm_seconds": (i % 13) as f64, "sandbox_seconds": (i % 5) as f64,
           "problem_statement": format!("Problem {i}: ").repeat(30)})
    .to_string()
}

#[test]
fn ten_thousand_rows_are_paged_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..10_000).map(|i| synthetic_row(i) + "\n").collect();
    std::fs::write(dir.path().join("results.jsonl"), text).unwrap();
    let v = Viewer::start(&[dir.path()], &[]);
    let time = |path: &str| {
        let t = Instant::now();
        let (status, _, body) = v.get(path);
        assert_eq!(status, 200);
        (
            t.elapsed(),
            body.len(),
            serde_json::from_slice::<Value>(&body).unwrap(),
        )
    };
    let (first, bytes, page) = time("/api/rows?limit=100");
    assert_eq!(page["matched"], 10_000);
    assert_eq!(page["rows"].as_array().unwrap().len(), 100);
    let (sorted, _, page) = time("/api/rows?limit=100&sort=tokens&desc=true&q=answer%209");
    assert!(page["matched"].as_u64().unwrap() > 0);
    let (filtered, _, _) = time("/api/rows?limit=100&domain=physics&error=no&score=solved");
    let (summary, sbytes, _) = time("/api/summary");
    // One episode of 100 steps with 64 KB observations, loaded on its own.
    let steps: Vec<Value> = (1..=100)
        .map(|n| {
            json!({"thought": format!("step {n}"), "reasoning_content": "",
                   "action": {"function": "execute_bash", "parameters": {"command": "seq 10000"}},
                   "observation": "0123456789abcde\n".repeat(4096),
                   "metadata": {"step": n, "exec_time": 0.5, "llm_time": 0.5, "tool_time": 0.1}})
        })
        .collect();
    let big = dir.path().join("trajectories/row1_0");
    std::fs::create_dir_all(&big).unwrap();
    std::fs::write(
        big.join("trajectory.json"),
        json!({"problem_statement": "big", "steps": steps}).to_string(),
    )
    .unwrap();
    let (episode, ebytes, e) = time("/api/episode?run=0&key=row1%230");
    assert_eq!(e["trajectory"]["steps"].as_array().unwrap().len(), 100);
    eprintln!(
        "10,000 rows: first page {:.1} ms ({bytes} bytes), sorted + text filter {:.1} ms, \
         filtered {:.1} ms, summary {:.1} ms ({sbytes} bytes); a 100-step episode with 64 KB \
         observations {:.1} ms ({ebytes} bytes)",
        first.as_secs_f64() * 1e3,
        sorted.as_secs_f64() * 1e3,
        filtered.as_secs_f64() * 1e3,
        summary.as_secs_f64() * 1e3,
        episode.as_secs_f64() * 1e3,
    );
}

/// The Python with Selenium, and the browser and its driver. `None` when the browser or its
/// driver is missing outside CI (said loudly on stderr, naming what to install); a failure
/// under `CI` (see [`crate::common::skip_unless_ci`]). A Python without Selenium or pytest is
/// a failure: the tests make that venv themselves.
fn browser_setup(test: &str) -> Option<(String, String, String)> {
    let chromium =
        std::env::var("LLM_IN_SANDBOX_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let driver = std::env::var("LLM_IN_SANDBOX_CHROMEDRIVER")
        .unwrap_or_else(|_| "/usr/bin/chromedriver".into());
    let install = "the browser tests need Debian's chromium and chromium-driver \
        (`apt-get install -y chromium chromium-driver`), and Selenium and pytest, which the \
        tests' own venv has (or the Python in LLM_IN_SANDBOX_TEST_PYTHON: \
        `python3 -m pip install selenium pytest`); \
        LLM_IN_SANDBOX_CHROMIUM / LLM_IN_SANDBOX_CHROMEDRIVER point at other binaries";
    let missing: Vec<&str> = [&chromium, &driver]
        .into_iter()
        .filter(|p| !Path::new(p).is_file())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        crate::common::skip_unless_ci(
            test,
            &format!(
                "{} {} missing; install Debian's chromium and chromium-driver \
                 (`apt-get install -y chromium chromium-driver`) or point \
                 LLM_IN_SANDBOX_CHROMIUM / LLM_IN_SANDBOX_CHROMEDRIVER at them",
                missing.join(" and "),
                if missing.len() == 1 { "is" } else { "are" }
            ),
        );
        return None;
    }
    // The clients' venv (made on first use) has Selenium and pytest.
    let python = crate::common::venv::client_python();
    let probe = Command::new(&python)
        .args(["-c", "import selenium, pytest"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}; {install}"));
    assert!(
        probe.status.success(),
        "{python} lacks selenium or pytest: {install}\n{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    Some((python, chromium, driver))
}

#[test]
fn view_page_in_a_real_browser() {
    let Some((python, chromium, driver)) = browser_setup("view_page_in_a_real_browser") else {
        return;
    };
    let r = runs();
    // The live folder: A's config and first three rows (with their episodes); the test appends
    // the fourth row as `benchmark` would.
    let live = tempfile::tempdir().unwrap();
    std::fs::copy(r.a.join("config.json"), live.path().join("config.json")).unwrap();
    let text = std::fs::read_to_string(r.a.join("results.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_by_key(|l| {
        serde_json::from_str::<Value>(l).unwrap()["key"]
            .as_str()
            .unwrap()
            .to_string()
    });
    std::fs::write(
        live.path().join("results.jsonl"),
        lines[..3]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let one = Viewer::start(&[&r.a], &[]);
    let two = Viewer::start(&[&r.a, &r.b], &[]);
    let watch = Viewer::start(&[live.path()], &[]);
    let twice = run_with_two_attempts();
    let attempts = Viewer::start(&[twice.path()], &[]);
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"])
        .arg(format!("{root}/tests/view/test_page.py"))
        .env("VIEW_ONE", one.url())
        .env("VIEW_TWO", two.url())
        .env("VIEW_LIVE", watch.url())
        .env("VIEW_ATTEMPTS", attempts.url())
        .env("LIVE_RESULTS", live.path().join("results.jsonl"))
        .env("LIVE_LINE", format!("{}\n", lines[3]))
        .env("EXPORT_HTML", &r.report)
        .env("CHROMIUM", &chromium)
        .env("CHROMEDRIVER", &driver)
        .output()
        .unwrap_or_else(|e| panic!("cannot run pytest: {e}"));
    assert!(
        out.status.success(),
        "the browser tests failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", String::from_utf8_lossy(&out.stdout));
}
