//! The `llm-in-sandbox` binary as a user runs it.

use std::process::{Command, Output, Stdio};

pub(crate) fn bin() -> Command {
    // Make sure the shared cache is ready, so the binary never races the tests to compile.
    crate::common::runtime();
    let mut c = Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"));
    c.stdin(Stdio::null());
    // Tests that change HOME must still use the tests' cache (common::cache_root), and the
    // user's own `--with` list must not reach them.
    c.env_remove("LLM_IN_SANDBOX_WITH");
    c.env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root());
    c
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(crate) fn run(c: &mut Command) -> Output {
    c.output().expect("spawn llm-in-sandbox")
}

#[test]
fn exec_prints_output_and_returns_the_exit_code() {
    let o = run(bin().args([
        "exec",
        "--",
        "python3",
        "-c",
        "import numpy, sympy; print(numpy.arange(4).sum(), sympy.factorint(360))",
    ]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "6 {2: 3, 3: 2, 5: 1}\n");
    let o = run(bin().args([
        "exec",
        "--",
        "python3",
        "-c",
        "import sys; print('e', file=sys.stderr); sys.exit(5)",
    ]));
    assert_eq!(o.status.code(), Some(5));
    assert_eq!(text(&o.stderr), "e\n");
}

#[test]
fn exec_runs_a_script_in_a_kept_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.py"),
        "import sys\nopen('out.txt', 'w').write(' '.join(sys.argv[1:]))\n",
    )
    .unwrap();
    let o = run(bin()
        .arg("exec")
        .arg("--workspace")
        .arg(dir.path())
        .args(["--", "python3", "s.py", "a", "b"]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "a b"
    );
}

#[test]
fn exec_passes_stdin() {
    let mut child = bin()
        .args(["exec", "--", "python3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"print(sum(range(5)))\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(text(&o.stdout), "10\n");
}

#[test]
fn exec_deadline_exits_124_with_a_message() {
    let o = run(bin().args([
        "exec",
        "--timeout",
        "1",
        "--",
        "python3",
        "-c",
        "while True: pass",
    ]));
    assert_eq!(o.status.code(), Some(124));
    assert!(
        text(&o.stderr).contains("deadline passed"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn exec_refuses_other_programs_and_bad_limits_clearly() {
    let o = run(bin().args(["exec", "--", "ls", "-la"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("exec runs `python3 ...`"),
        "{}",
        text(&o.stderr)
    );
    let o = run(bin().args(["exec", "--memory", "9000", "--", "python3", "-c", "1"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--memory"), "{}", text(&o.stderr));
    // Preload names end up in guest code: anything but dotted names is refused, by name.
    let o = run(bin().args([
        "--preload",
        "numpy,os;print(2)",
        "exec",
        "--",
        "python3",
        "-c",
        "1",
    ]));
    assert_ne!(o.status.code(), Some(0));
    assert!(
        text(&o.stderr).contains("`os;print(2)` in the preload list is not a module name"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn help_explains_the_flags() {
    let o = run(bin().args(["exec", "--help"]));
    let help = text(&o.stdout);
    for flag in [
        "--workspace",
        "--timeout",
        "--memory",
        "--output-limit",
        "--cache-dir",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn exec_bash_keeps_state_in_the_workspace_and_prints_observations() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().to_str().unwrap();
    let o = run(bin().args([
        "exec",
        "--workspace",
        ws,
        "--bash",
        "echo 21 > n.txt; python3 -c \"print(int(open('n.txt').read()) * 2)\"",
    ]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "42\n");
    let o = run(bin().args([
        "exec",
        "--workspace",
        ws,
        "--",
        "bash",
        "-c",
        "cat n.txt; exit 3",
    ]));
    assert_eq!(
        (o.status.code(), text(&o.stdout)),
        (Some(3), "21\n".to_string())
    );
    let o = run(bin().args([
        "exec",
        "--workspace",
        ws,
        "--observation",
        "--bash",
        "ls; ls nope",
    ]));
    assert_eq!(
        text(&o.stdout),
        "Exit code: Error: Exit code 2\nExecution output of \\[execute_bash]:\n\\[STDOUT]\nn.txt\n\n\\[STDERR]\nls: cannot access 'nope': No such file or directory\n"
    );
}

#[test]
fn run_solves_a_task_against_a_fake_endpoint_and_saves_results() {
    use llm_in_sandbox::llm::fake::{FakeServer as FakeLlm, Reply};
    let server = FakeLlm::scripted(
        vec![
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "wc -l < /testbed/input/rows.txt > /testbed/output/answer.txt"}"#,
            )]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let input = tempfile::tempdir().unwrap();
    std::fs::write(input.path().join("rows.txt"), "a\nb\nc\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = run(bin()
        .args([
            "run",
            "--query",
            "How many rows?",
            "--llm-base-url",
            &server.url,
            "--llm_name",
            "m",
        ])
        .arg("--input-dir")
        .arg(input.path())
        .arg("--output_dir")
        .arg(out.path()));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "3\n");
    assert!(
        text(&o.stderr).contains("execute_bash"),
        "{}",
        text(&o.stderr)
    );
    let run_dir = std::fs::read_dir(out.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert_eq!(
        std::fs::read_to_string(run_dir.join("files/answer.txt")).unwrap(),
        "3\n"
    );
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("trajectory.json")).unwrap()).unwrap();
    assert_eq!(t["problem_statement"], "How many rows?");
    assert_eq!(t["steps"].as_array().unwrap().len(), 2);
}

#[test]
fn run_without_an_endpoint_says_how_to_give_one() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(bin()
        .args(["run", "--query", "x"])
        .current_dir(dir.path())
        .env_remove("OPENAI_BASE_URL")
        .env_remove("LLM_NAME")
        .env_remove("LLM_IN_SANDBOX_CONFIG")
        .env("HOME", dir.path()));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("--llm-name") && err.contains("LLM_NAME") && err.contains("LLM_BASE_URL"),
        "{err}"
    );
}

#[test]
fn run_reads_the_config_file() {
    use llm_in_sandbox::llm::fake::{FakeServer as FakeLlm, Reply};
    let server = FakeLlm::scripted(vec![Reply::calls(&[("submit", "{}")])], None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("llm-in-sandbox.yaml"),
        format!(
            "llm_name: from-config\nllm_base_url: {}\napi_key: sk-test\nmax_steps: 7\n",
            server.url
        ),
    )
    .unwrap();
    let o = run(bin()
        .args(["run", "--query", "x"])
        .current_dir(dir.path())
        .env("HOME", dir.path()));
    // The model submits without writing the answer file: exit 4, said on the last line.
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr)
            .trim_end()
            .ends_with("answer file missing: /testbed/output/answer.txt"),
        "{}",
        text(&o.stderr)
    );
    let reqs = server.requests();
    assert_eq!(reqs[0]["model"], "from-config");
    assert!(
        reqs[0]["messages"]
            .to_string()
            .contains("Steps Remaining: 7")
    );
    // An unknown key is a warning naming it (the reference ignores them), not an error; here
    // the typo leaves no model name, which is the error.
    std::fs::write(dir.path().join("bad.yaml"), "llm_nme: typo\n").unwrap();
    let o = run(bin()
        .args(["run", "--query", "x", "--settings", "bad.yaml"])
        .current_dir(dir.path())
        .env_remove("LLM_NAME"));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("setting `llm_nme` is not used") && err.contains("no model named"),
        "{err}"
    );
    std::fs::write(dir.path().join("bad.yaml"), "max_steps: [1\n").unwrap();
    let o = run(bin()
        .args(["run", "--query", "x", "--config", "bad.yaml"])
        .current_dir(dir.path()));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("bad.yaml is not valid"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn benchmark_reports_bad_rows_by_line_and_runs_the_rest() {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    let server = FakeServer::start(Box::new(|req: &serde_json::Value| {
        if req["messages"].to_string().contains("\"role\":\"tool\"") {
            Reply::calls(&[("submit", "{}")])
        } else {
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "echo 42 > /testbed/answer.txt"}"#,
            )])
        }
    }))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    std::fs::write(
        &data,
        "{\"id\": 1, \"domain\": \"math\", \"problem_statement\": \"6*7?\", \"ground_truth\": \"42\"}\n{\"id\": 2, \"problem_statement\": \"x\"}\n{oops\n{\"id\": 3, \"domain\": \"math\", \"problem_statement\": \"40+3?\", \"ground_truth\": \"43\"}\n",
    )
    .unwrap();
    let o = run(bin()
        .args([
            "benchmark",
            "--scorer",
            "numeric",
            "--num_workers",
            "64",
            "--llm-base-url",
            &server.url,
            "--llm-name",
            "m",
        ])
        .arg("--data")
        .arg(&data)
        .arg("--output-dir")
        .arg(dir.path().join("runs")));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("bad row at line 2: missing field `ground_truth`"),
        "{err}"
    );
    assert!(err.contains("bad row at line 3: not valid JSON"), "{err}");
    assert!(
        !err.contains("compiling"),
        "a bigger pool must not force a recompile: {err}"
    );
    let out = text(&o.stdout);
    assert!(out.contains("math") && out.contains("50.0%"), "{out}");
    let run_dir = std::fs::read_dir(dir.path().join("runs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(
        run_dir
            .to_string_lossy()
            .ends_with("_d_openai_m_LLMinSandbox"),
        "{}",
        run_dir.display()
    );
    let svg = dir.path().join("cmp.svg");
    let o = run(bin()
        .arg("plot")
        .arg(&run_dir)
        .arg(&run_dir)
        .arg("-o")
        .arg(&svg));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.matches("m llm-in-sandbox").count() == 2,
        "{svg}"
    );
    let o = run(bin()
        .args([
            "benchmark",
            "--bad-rows",
            "stop",
            "--llm-base-url",
            &server.url,
            "--llm-name",
            "m",
        ])
        .arg("--data")
        .arg(&data));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("2 bad rows"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn benchmark_killed_with_sigkill_resumes_without_losing_or_repeating_rows() {
    use llm_in_sandbox::eval::report;
    use std::time::{Duration, Instant};
    // Every reply takes 150 ms, so 24 rows on 2 workers take about 4 seconds.
    let server = crate::common::answering_model(Duration::from_millis(150));
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    const ROWS: usize = 24;
    let rows: String = (1..=ROWS)
        .map(|i| {
            format!(
                "{{\"id\": {i}, \"domain\": \"math\", \"problem_statement\": \"row-{i}: 6*7?\", \
                 \"ground_truth\": \"42\"}}\n"
            )
        })
        .collect();
    std::fs::write(&data, rows).unwrap();
    let benchmark = |extra: &[&std::ffi::OsStr]| {
        let mut c = bin();
        c.args(["benchmark", "--scorer", "numeric", "--num_workers", "2"])
            .args(["--llm-base-url", &server.url, "--llm-name", "m"])
            .arg("--data")
            .arg(&data)
            .arg("--output-dir")
            .arg(dir.path().join("runs"))
            .args(extra);
        c
    };
    let mut child = benchmark(&[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a few rows are on disk, then kill -9 mid-run.
    let deadline = Instant::now() + Duration::from_secs(120);
    let run_dir = loop {
        let found = std::fs::read_dir(dir.path().join("runs"))
            .ok()
            .and_then(|mut d| d.next())
            .and_then(Result::ok)
            .map(|e| e.path());
        if let Some(run_dir) = found {
            let done = std::fs::read_to_string(run_dir.join("results.jsonl"))
                .map_or(0, |s| s.lines().count());
            if done >= 3 {
                break run_dir;
            }
        }
        assert!(Instant::now() < deadline, "no rows finished in time");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended too soon"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done: Vec<String> = report::read_results(&run_dir.join("results.jsonl"))
        .into_iter()
        .map(|r| r.id)
        .collect();
    let kept = done.len();
    assert!((3..ROWS).contains(&kept), "{kept} rows survived the kill");
    let before = server.requests().len();
    let o = run(&mut benchmark(&["--resume".as_ref(), run_dir.as_os_str()]));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("{kept} rows were already done and skipped")),
        "{err}"
    );
    // Which rows the resumed run asked the model about (a request the killed run sent just
    // before dying may land here too, but only for a row that was not finished either).
    let mut asked: Vec<String> = server.requests()[before..]
        .iter()
        .filter_map(|r| {
            let text = r["messages"].to_string();
            let start = text.find("row-")? + 4;
            let digits: String = text[start..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            Some(digits)
        })
        .collect();
    asked.sort();
    asked.dedup();
    let mut missing: Vec<String> = (1..=ROWS)
        .map(|i| i.to_string())
        .filter(|i| !done.contains(i))
        .collect();
    missing.sort();
    assert_eq!(
        asked, missing,
        "exactly the rows missing after the kill ran again"
    );
    let mut keys: Vec<String> = report::read_results(&run_dir.join("results.jsonl"))
        .into_iter()
        .map(|r| r.key)
        .collect();
    assert_eq!(keys.len(), ROWS, "one result per row");
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), ROWS, "no row twice");
    // The rows in flight at the kill ran again in the same folder: their events.jsonl marks
    // each attempt, and the second says why the first ended.
    let mut twice = 0;
    for e in std::fs::read_dir(run_dir.join("trajectories"))
        .unwrap()
        .flatten()
    {
        let events = e.path().join("events.jsonl");
        let attempts = llm_in_sandbox::agent::attempts::read(&events);
        let numbers: Vec<u32> = attempts.iter().map(|a| a.number).collect();
        assert_eq!(numbers, (1..=attempts.len() as u32).collect::<Vec<_>>());
        if attempts.len() < 2 {
            continue;
        }
        assert!(
            attempts.last().is_some_and(|a| a.summary.is_some()),
            "a row's last attempt finished"
        );
        twice += 1;
        if attempts[0].summary.is_some() {
            // Its trajectory had finished just before the kill, its result line not yet
            // written: it rightly ran again.
            continue;
        }
        let starts: Vec<serde_json::Value> = std::fs::read_to_string(&events)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["type"] == "start")
            .collect();
        assert_eq!(starts[1]["attempt"], 2);
        let ended = starts[1]["previous"]["ended"].as_str().unwrap_or_default();
        assert!(ended.starts_with("stopped without finishing "), "{ended}");
    }
    assert!(twice >= 1, "no row in flight at the kill ran again");
}

#[test]
fn benchmark_allow_net_and_disk_quota_reach_every_episode() {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    // A data host on loopback, really there: only the policy decides whether curl reaches it.
    let data_host = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = data_host.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for s in data_host.incoming() {
            let Ok(mut s) = s else { continue };
            let mut buf = [0u8; 2048];
            let _ = s.read(&mut buf);
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\n42\n",
            );
        }
    });
    let cmd = serde_json::json!({"command": format!(
        "curl -s http://127.0.0.1:{port}/v > /testbed/answer.txt; head -c 2000000 /dev/zero > /testbed/pad.bin || echo quota-refused >> /testbed/answer.txt"
    )})
    .to_string();
    let server = FakeServer::start(Box::new(move |req: &serde_json::Value| {
        if req["messages"].to_string().contains("\"role\":\"tool\"") {
            Reply::calls(&[("submit", "{}")])
        } else {
            Reply::calls(&[("execute_bash", &cmd)])
        }
    }))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    std::fs::write(
        &data,
        "{\"id\": 1, \"domain\": \"net\", \"problem_statement\": \"fetch\", \"ground_truth\": \"42\"}\n",
    )
    .unwrap();
    let bench = |extra: &[&str], out: &str| {
        let o = run(bin()
            .args([
                "benchmark",
                "--scorer",
                "exact",
                "--llm-base-url",
                &server.url,
            ])
            .args(["--llm-name", "m"])
            .args(extra)
            .arg("--data")
            .arg(&data)
            .arg("--output-dir")
            .arg(dir.path().join(out)));
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let run_dir = std::fs::read_dir(dir.path().join(out))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let rows = llm_in_sandbox::eval::report::read_results(&run_dir.join("results.jsonl"));
        assert_eq!(rows.len(), 1);
        rows[0].answer.clone().unwrap_or_default()
    };
    // Default policy: no network, so the answer is empty; the 1 GiB quota takes the 2 MB pad.
    assert_eq!(bench(&[], "off").trim(), "");
    let allowed = format!("127.0.0.1:{port}");
    assert_eq!(bench(&["--allow-net", &allowed], "on").trim(), "42");
    // --disk-quota reaches the episode's sandbox too: 1 MiB refuses the pad.
    assert_eq!(
        bench(&["--allow-net", &allowed, "--disk-quota", "1"], "quota").trim(),
        "42\nquota-refused"
    );
}

#[test]
fn exec_disk_quota_holds_for_python_too() {
    let o = run(bin().args([
        "exec",
        "--disk-quota",
        "1",
        "--",
        "python3",
        "-c",
        "open('/tmp/big', 'wb').write(b'0' * (3 << 20))",
    ]));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("No space left on device"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn perf_episodes_reports_rate_and_cpu_for_each_worker_count() {
    let o = run(bin().args([
        "perf",
        "--episodes",
        "--episodes-only",
        "--episode-workers",
        "1,3",
    ]));
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", text(&o.stderr));
    assert!(out.contains("| episodes per CPU-second |"), "{out}");
    assert!(
        out.contains("| workers | sandbox | runtime | model |"),
        "{out}"
    );
    // One throughput row and one CPU row per worker count, every figure a number.
    for workers in ["1", "3"] {
        let rows: Vec<Vec<&str>> = out
            .lines()
            .filter(|l| l.starts_with(&format!("| {workers} |")))
            .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
            .collect();
        assert_eq!(rows.len(), 2, "{out}");
        assert_eq!(rows[0].len(), 9, "{out}");
        assert_eq!(rows[1].len(), 6, "{out}");
        for cell in rows.iter().flatten() {
            let figure = cell.trim_end_matches(" MiB").trim_end_matches('%');
            assert!(figure.parse::<f64>().is_ok(), "{cell:?} in\n{out}");
        }
    }
}

/// A native Python for `perf --compute` tests: a shell script in `dir` that runs the host's
/// `python3 -I -S` (no site-packages: no numpy, sympy, pandas or scipy on any machine) with
/// the arguments it gets, its output piped through `filter` (a shell command) when one is given.
fn bare_python(dir: &std::path::Path, filter: Option<&str>) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let python = if std::path::Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    let path = dir.join("bare-python");
    let body = match filter {
        None => format!("#!/bin/sh\nexec {python} -I -S \"$@\"\n"),
        Some(f) => format!("#!/bin/sh\n{python} -I -S \"$@\" | {f}\n"),
    };
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `perf --compute` at a twentieth of its sizes, against a native Python started without its
/// site-packages (`-S`), so it has no numpy, sympy, pandas or scipy on any machine: every
/// workload is named, the pure-Python rows have ratios, the others say they were skipped and
/// why, and the geometric mean says how many rows it covers. No timing is asserted.
#[test]
fn perf_compute_names_every_workload_and_labels_the_skipped_ones() {
    let dir = tempfile::tempdir().unwrap();
    let bare = bare_python(dir.path(), None);
    let o = run(bin()
        .args([
            "perf",
            "--compute",
            "--compute-runs",
            "1",
            "--compute-scale",
            "0.05",
        ])
        .arg("--native-python")
        .arg(&bare));
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", text(&o.stderr));
    let row = |name: &str| -> Vec<String> {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row {name:?} in\n{out}"));
        line.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    for name in [
        "arithmetic loop (pure Python)",
        "recursion (fib, Ackermann)",
        "dict, str and Counter (word counts)",
        "string building (f-strings, join, +=)",
        "sorting (ints, tuples, key=, str)",
        "regex (findall, finditer, sub)",
        "json (dumps, loads)",
        "big-int (pi digits, factorial, pow)",
        "primes by trial division",
        "objects (classes, methods, attributes)",
    ] {
        let cells = row(name);
        assert_eq!(cells.len(), 4, "{out}");
        for cell in &cells[1..3] {
            let ms = cell.strip_suffix(" ms").unwrap_or("not ms");
            assert!(ms.parse::<f64>().is_ok(), "{cell:?} in\n{out}");
        }
        let ratio = cells[3].strip_suffix('x').unwrap_or("not a ratio");
        assert!(ratio.parse::<f64>().is_ok(), "{:?} in\n{out}", cells[3]);
    }
    for (name, module) in [
        ("sympy (expand, factor, integrate, diff)", "sympy"),
        ("numpy (400x400 matmul loop)", "numpy"),
        ("pandas (groupby)", "numpy"),
        ("scipy (sparse solve, BFGS, quad)", "numpy"),
    ] {
        assert_eq!(
            row(name)[1],
            format!(
                "skipped: native python has no {module} (give --native-python a Python that \
                 has it)"
            ),
            "{out}"
        );
    }
    assert!(
        out.contains("geometric mean ") && out.contains("x over 10 of 14 workloads (4 skipped"),
        "{out}"
    );
    assert!(out.contains("pure-Python loop: "), "{out}");
}

/// A native Python whose results differ (its output edited on the way) makes `perf --compute`
/// fail and say which workloads differ.
#[test]
fn perf_compute_fails_when_results_differ() {
    let dir = tempfile::tempdir().unwrap();
    let edited = bare_python(
        dir.path(),
        Some("sed 's/^compute-result: /compute-result: x/'"),
    );
    let o = run(bin()
        .args([
            "perf",
            "--compute",
            "--compute-runs",
            "1",
            "--compute-scale",
            "0.01",
        ])
        .arg("--native-python")
        .arg(&edited));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("| arithmetic loop (pure Python) | results differ (see stderr) |"),
        "{out}"
    );
    assert!(
        err.contains("arithmetic loop (pure Python): results differ: native printed \"x"),
        "{err}"
    );
    assert!(out.contains("no workload measured"), "{out}");
}

#[test]
fn a_finished_command_leaves_no_sandbox_folder_in_the_temporary_folder() {
    let temp = tempfile::tempdir().unwrap();
    // Two calls: the folders of the first are kept for reuse, then must go at exit.
    let o = run(bin().env("TMPDIR", temp.path()).args([
        "exec",
        "--",
        "bash",
        "-c",
        "python3 -c 'print(1)'; python3 -c 'print(2)'",
    ]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "1\n2\n");
    let left: Vec<String> = std::fs::read_dir(temp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("llm-in-sandbox-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
