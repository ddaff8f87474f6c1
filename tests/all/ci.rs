//! `benchmark` and `merge` in CI: progress in a log, JSON events, gates and exit codes, JUnit
//! XML, the Markdown summary, and the sandbox-vs-llm chart. The binary runs against the fake
//! model, with stderr a pipe (not a terminal) as in a CI job. Also the repository's own checks
//! of its sources (`scripts/`), so that CI's `cargo test` runs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn run(c: &mut Command) -> Output {
    c.output().expect("spawn llm-in-sandbox")
}

/// The fake model. With tools (sandbox mode) it writes the text after `ANSWER=` to the answer
/// file and submits; without (llm mode) it replies `Answer: <that>`, except for statements
/// with `LLM_WRONG` (answered wrong) or `FAIL` (HTTP 400: an error row).
fn model() -> FakeServer {
    FakeServer::start(Box::new(|req: &Value| {
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
        let answer = task
            .split("ANSWER=")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("none")
            .to_string();
        if req.get("tools").is_none() {
            if task.contains("LLM_WRONG") {
                return Reply::text("Answer: <wrong> & \u{1}\u{7f} \"quoted\"");
            }
            return Reply::text(&format!("Reasoning...\nAnswer: {answer}"));
        }
        if msgs.iter().any(|m| m["role"] == "tool") {
            Reply::calls(&[("submit", "{}")])
        } else {
            let cmd =
                json!({"command": format!("echo '{answer}' > /testbed/answer.txt")}).to_string();
            Reply::calls(&[("execute_bash", &cmd)])
        }
    }))
    .unwrap()
}

/// `n` rows over math/physics; every row answers right except: physics rows with `wrong`
/// are wrong in both modes, and `llm_wrong` physics rows are wrong in llm mode only; `fail`
/// rows (ids listed) fail with an HTTP error.
fn write_data(path: &Path, n: usize, wrong: &[usize], llm_wrong: &[usize], fail: &[usize]) {
    let text: String = (0..n)
        .map(|i| {
            let domain = if i % 2 == 0 { "math" } else { "physics" };
            let truth = (i * 3).to_string();
            let answer = if wrong.contains(&i) {
                "nope".to_string()
            } else {
                truth.clone()
            };
            let mut statement = format!("Row {i}. ANSWER={answer} please");
            if llm_wrong.contains(&i) {
                statement.push_str(" LLM_WRONG");
            }
            if fail.contains(&i) {
                statement.push_str(" FAIL");
            }
            json!({"id": format!("r{i:03}"), "domain": domain,
                   "problem_statement": statement, "ground_truth": truth})
            .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

fn benchmark(server: &FakeServer, data: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args([
        "benchmark",
        "--scorer",
        "exact",
        "--llm-base-url",
        &server.url,
        "--llm-name",
        "fake",
        "--max-steps",
        "4",
        // The failing rows here are to be error rows (the reference would score their empty
        // answer instead).
        "--llm-error-rows",
    ])
    .env("LLM_NUM_WORKERS", "4")
    .arg("--data")
    .arg(data)
    .arg("--output-dir")
    .arg(out)
    .args(extra);
    c
}

fn only_dir(root: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

#[test]
fn plain_progress_of_300_rows_is_a_few_readable_lines() {
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    write_data(&data, 300, &[], &[], &[]);
    // The interval is long, so lines come only at 5% steps (and the interval is honoured).
    let o = run(&mut benchmark(
        &server,
        &data,
        &dir.path().join("runs"),
        &[
            "--mode",
            "llm",
            "--num-workers",
            "16",
            "--progress-every",
            "3600",
        ],
    ));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains('\r'), "no carriage returns in a log: {err:?}");
    let lines: Vec<&str> = err.lines().collect();
    let progress: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("llm-in-sandbox: progress "))
        .collect();
    // One per 5% of the rows: 20, the last at 300/300.
    assert_eq!(progress.len(), 20, "{err}");
    assert!(lines.len() <= 25, "{} lines: {err}", lines.len());
    for l in &lines {
        assert!(l.len() < 200, "a readable line, not a wall: {l}");
    }
    assert!(
        progress[0].starts_with("llm-in-sandbox: progress 15/300 (5%) score 100.0% errors 0"),
        "{}",
        progress[0]
    );
    assert!(progress[19].contains("300/300 (100%)"), "{}", progress[19]);
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("llm-in-sandbox: finished 300 rows in ")
            && last.contains("score 100.0% (scored 100.0%), 0 errors"),
        "{last}"
    );
    // --quiet: no progress at all.
    let o = run(&mut benchmark(
        &server,
        &data,
        &dir.path().join("quiet"),
        &["--mode", "llm", "--end-id", "40", "--quiet"],
    ));
    assert_eq!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(
        !err.contains("progress") && !err.contains("finished"),
        "{err}"
    );
    assert!(text(&o.stdout).contains("overall"), "the table still comes");
}

#[test]
fn json_log_lines_parse_into_row_and_run_events() {
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    write_data(&data, 12, &[3], &[], &[5]);
    let o = run(&mut benchmark(
        &server,
        &data,
        &dir.path().join("runs"),
        &["--log-format", "json", "--max-errors", "1"],
    ));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let events: Vec<Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"start"));
    assert_eq!(kinds.iter().filter(|k| **k == "row").count(), 12);
    assert_eq!(&kinds[kinds.len() - 2..], ["run", "gate"]);
    let rows: Vec<&Value> = events.iter().filter(|e| e["event"] == "row").collect();
    let failed = rows.iter().find(|e| e["id"] == "r005").unwrap();
    assert_eq!(failed["score"], Value::Null);
    assert!(
        failed["error"].as_str().unwrap().contains("LLM error"),
        "{failed}"
    );
    assert_eq!(failed["domain"], "physics");
    let wrong = rows.iter().find(|e| e["id"] == "r003").unwrap();
    assert_eq!(
        (wrong["score"].as_f64(), wrong["error"].is_null()),
        (Some(0.0), true)
    );
    assert!(
        rows.iter()
            .all(|e| e["seconds"].as_f64().is_some_and(|s| s >= 0.0))
    );
    let done: Vec<u64> = rows.iter().map(|e| e["done"].as_u64().unwrap()).collect();
    assert_eq!(done, (1..=12).collect::<Vec<_>>());
    let run_ev = &events[events.len() - 2];
    assert_eq!(run_ev["total"], 12);
    assert_eq!(run_ev["num_errors"], 1);
    assert_eq!(run_ev["mean_score"].as_f64(), Some(10.0 / 12.0));
    assert_eq!(run_ev["domains"]["physics"]["errors"], 1);
    assert_eq!(events.last().unwrap()["passed"], true);
}

/// Run 8 rows once (r003 wrong, r005 an error: math 100%, physics 50%, overall 75%), then
/// check the gates on `benchmark` and on `merge` of the same folder.
#[test]
fn gates_set_the_exit_code_with_a_one_line_reason() {
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    write_data(&data, 8, &[3], &[], &[5]);
    let summary_file = dir.path().join("step_summary.md");
    std::fs::write(&summary_file, "earlier step\n").unwrap();
    let o = run(benchmark(
        &server,
        &data,
        &dir.path().join("runs"),
        &["--fail-under", "0.8"],
    )
    .env("GITHUB_STEP_SUMMARY", &summary_file));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let reasons: Vec<&str> = err.lines().filter(|l| l.contains("gate failed")).collect();
    assert_eq!(
        reasons,
        ["llm-in-sandbox: gate failed: overall score 75.0% < 80.0%"],
        "{err}"
    );
    assert!(
        text(&o.stdout).contains("75.0%"),
        "the table is printed too"
    );
    let run_dir = only_dir(&dir.path().join("runs"));
    let md = std::fs::read_to_string(run_dir.join("summary.md")).unwrap();
    assert!(md.contains("| physics | 4 | 1 | 50.0% | 66.7% |"), "{md}");
    assert!(
        md.contains("| **overall** | 8 | 1 | **75.0%** | 85.7% |"),
        "{md}"
    );
    let step = std::fs::read_to_string(&summary_file).unwrap();
    assert!(
        step.starts_with("earlier step\n") && step.contains(&md),
        "{step}"
    );

    let merged = dir.path().join("merged");
    let gate = |flags: &[&str]| {
        let o = run(bin()
            .arg("merge")
            .arg(&run_dir)
            .arg("-o")
            .arg(&merged)
            .args(flags));
        (o.status.code(), text(&o.stderr))
    };
    let pass = |flags: &[&str]| {
        let (code, err) = gate(flags);
        assert_eq!(code, Some(0), "{flags:?}: {err}");
    };
    let fail = |flags: &[&str], reason: &str| {
        let (code, err) = gate(flags);
        assert_eq!(code, Some(1), "{flags:?}: {err}");
        assert_eq!(
            err.lines()
                .filter(|l| l.contains("gate failed"))
                .collect::<Vec<_>>(),
            [format!("llm-in-sandbox: gate failed: {reason}")],
            "{flags:?}"
        );
    };
    pass(&["--fail-under", "75%"]);
    pass(&[
        "--fail-under",
        "0.7,math=1,physics=0.5",
        "--max-errors",
        "1",
    ]);
    pass(&["--fail-under", "math=100%", "--fail-under", "physics=50%"]);
    fail(
        &["--fail-under", "physics=0.6"],
        "physics score 50.0% < 60.0%",
    );
    fail(&["--max-errors", "0"], "1 error rows > --max-errors 0");
    fail(
        &[
            "--fail-under",
            "0.9,math=1,physics=51%",
            "--max-errors",
            "0",
        ],
        "overall score 75.0% < 90.0%; physics score 50.0% < 51.0%; 1 error rows > --max-errors 0",
    );
    fail(
        &["--fail-under", "chem=0.1"],
        "domain \"chem\" has no rows (domains: math, physics)",
    );
    // A malformed gate is a usage error, before anything runs.
    let (code, err) = gate(&["--fail-under", "1.5"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("outside 0-1"), "{err}");
    let o = run(bin().args(["benchmark", "--help"]));
    let help = text(&o.stdout);
    assert!(
        help.contains("Exit codes:") && help.contains("1    a gate failed"),
        "{help}"
    );
}

#[test]
fn junit_has_a_testcase_per_row_with_failures_and_errors_counted() {
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    // llm mode: r001 and r003 are answered with markup and control characters (wrong), r004
    // fails; two repeats each.
    write_data(&data, 6, &[], &[1, 3], &[4]);
    let junit = dir.path().join("reports/junit.xml");
    let o = run(benchmark(
        &server,
        &data,
        &dir.path().join("runs"),
        &["--mode", "llm", "--repeat", "2"],
    )
    .arg("--junit")
    .arg(&junit));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    fn attr<'a>(n: roxmltree::Node<'a, '_>, a: &str) -> &'a str {
        n.attribute(a).unwrap_or("")
    }
    assert_eq!(
        (
            attr(root, "tests"),
            attr(root, "failures"),
            attr(root, "errors")
        ),
        ("12", "4", "2")
    );
    let suites: Vec<roxmltree::Node> = root.children().filter(|n| n.is_element()).collect();
    let names: Vec<&str> = suites.iter().map(|s| attr(*s, "name")).collect();
    assert_eq!(names, ["math", "physics"]);
    let counts: Vec<(&str, &str, &str)> = suites
        .iter()
        .map(|s| (attr(*s, "tests"), attr(*s, "failures"), attr(*s, "errors")))
        .collect();
    assert_eq!(counts, [("6", "0", "2"), ("6", "4", "0")]);
    let cases: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 12);
    for c in &cases {
        assert!(attr(*c, "time").parse::<f64>().is_ok_and(|t| t >= 0.0));
        let suite = attr(c.parent().unwrap(), "name");
        assert_eq!(attr(*c, "classname"), suite);
    }
    let case = |name: &str| {
        *cases
            .iter()
            .find(|c| c.attribute("name") == Some(name))
            .unwrap_or_else(|| panic!("no testcase {name}: {xml}"))
    };
    let wrong = case("r003#1");
    let failure = wrong
        .children()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    // The answer's markup survives escaping; the control characters XML cannot carry are gone.
    assert_eq!(
        failure.attribute("message"),
        Some(r#"score 0.00: answer "<wrong> & \u{1}\u{7f} \"quoted\"" vs ground truth "9""#)
    );
    assert!(
        failure
            .text()
            .unwrap()
            .contains("answer: <wrong> & \u{7f} \"quoted\"\nground truth: 9"),
        "{:?}",
        failure.text()
    );
    let error = case("r004#0")
        .children()
        .find(|n| n.has_tag_name("error"))
        .unwrap();
    assert!(
        error.attribute("message").unwrap().contains("LLM error"),
        "{error:?}"
    );
    assert_eq!(
        case("r000#0").children().count(),
        0,
        "a passing row is empty"
    );
}

#[test]
fn plot_of_a_sandbox_run_and_an_llm_run_shows_both_bars_and_the_delta() {
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    // physics: 4 rows, 2 answered wrong by the plain LLM only; math right in both modes.
    write_data(&data, 8, &[], &[1, 5], &[]);
    let sandbox = dir.path().join("sandbox");
    let llm = dir.path().join("llm");
    for (out, mode) in [(&sandbox, "llm-in-sandbox"), (&llm, "llm")] {
        let o = run(&mut benchmark(
            &server,
            &data,
            out,
            &["--mode", mode, "--quiet"],
        ));
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    }
    let svg_path = dir.path().join("cmp.svg");
    // Given sandbox first: the chart still puts the plain LLM first, as the paper does.
    let o = run(bin()
        .arg("plot")
        .arg(only_dir(&sandbox))
        .arg(only_dir(&llm))
        .arg("-o")
        .arg(&svg_path));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
    assert!(svg.contains("LLM vs LLM-in-Sandbox"), "{svg}");
    let texts = |class: &str| -> Vec<String> {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .map(|n| n.text().unwrap_or("").to_string())
            .collect()
    };
    // math, physics, overall: (llm, sandbox) each.
    assert_eq!(
        texts("value"),
        ["100.0", "100.0", "50.0", "100.0", "75.0", "100.0"],
        "{svg}"
    );
    assert_eq!(texts("delta"), ["+0.0", "+50.0", "+25.0"], "{svg}");
    let legend: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .filter(|t| t.ends_with("errors)"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        legend,
        [
            "fake llm (8 rows, 0 errors)",
            "fake llm-in-sandbox (8 rows, 0 errors)"
        ]
    );
    let bars: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.children().any(|c| c.has_tag_name("title")))
        .map(|n| n.attribute("fill").unwrap())
        .collect();
    assert_eq!(bars.len(), 6);
    assert_eq!(bars[0], bars[2]);
    assert_ne!(bars[0], bars[1]);
}

#[test]
fn repeats_draw_the_spread_over_repeats_as_whiskers() {
    // (The min-max values themselves are checked in `report`'s unit tests; the fake model
    // answers every repeat alike, so here min = max.)
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    write_data(&data, 4, &[], &[], &[]);
    let o = run(&mut benchmark(
        &server,
        &data,
        &dir.path().join("runs"),
        &["--mode", "llm", "--repeat", "3", "--quiet"],
    ));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let run_dir = only_dir(&dir.path().join("runs"));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("results.json")).unwrap())
            .unwrap();
    let spread = &summary["overall"]["spread"];
    assert_eq!(
        (&spread["repeats"], &spread["min"], &spread["max"]),
        (&json!(3), &json!(1.0), &json!(1.0)),
        "{summary}"
    );
    let svg = std::fs::read_to_string(run_dir.join("results.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let whiskers = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("spread"))
        .count();
    assert_eq!(whiskers, 3, "math, physics, overall: {svg}");
    assert!(svg.contains("n=6") && svg.contains("n=12"), "{svg}");
}

/// Runs `scripts/NAME` with python3 from the crate's root and fails with what it printed, less
/// the import graph (its headings and `  a -> b` lines) and the cycles it already knows.
fn source_check(name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("scripts").join(name))
        .current_dir(root)
        .output()
        .expect("run python3");
    let said: Vec<String> = text(&out.stdout)
        .lines()
        .filter(|l| {
            let edge = l.starts_with("  ") && l.contains(" -> ");
            !edge && !l.ends_with(':') && !l.starts_with("known, to break")
        })
        .map(str::to_string)
        .collect();
    assert!(
        out.status.success(),
        "scripts/{name} failed:\n{}\n{}",
        said.join("\n"),
        text(&out.stderr)
    );
}

/// No import cycle between the modules of `src/`, nor between the files of one folder (its
/// `mod.rs` among them): issue 49.
#[test]
fn sources_have_no_import_cycle() {
    source_check("import-cycles.py");
}

/// No function of `src/` over the line limit of `scripts/long-functions.py`.
#[test]
fn sources_have_no_overlong_function() {
    source_check("long-functions.py");
}
