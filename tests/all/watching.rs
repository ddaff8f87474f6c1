//! What a person watching `run` and `benchmark` sees (issue 50): progress that keeps its
//! promise with a slow model, why a model's tool calls are not seen, words instead of internal
//! names, and exit codes. Every test drives the real binary against the fake model server;
//! where timing matters the model is slow and the run lasts more than 10 s, and the tests
//! check the lines' content and count, never their times.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use serde_json::Value;

use crate::cli::{bin, text};

fn run(server: &FakeServer, out: &Path, extra: &[&str]) -> Output {
    let mut c = bin();
    c.args([
        "run",
        "--query",
        "What is 6*7?",
        "--llm-base-url",
        &server.url,
    ])
    .args(["--llm-name", "slow-model", "--output-dir"])
    .arg(out)
    .args(extra);
    c.output().expect("spawn llm-in-sandbox")
}

fn benchmark(server: &FakeServer, dir: &Path, rows: usize, extra: &[&str]) -> (Output, PathBuf) {
    let data = dir.join("rows.jsonl");
    let lines: String = (1..=rows)
        .map(|i| {
            format!(
                "{{\"id\": \"r{i}\", \"domain\": \"math\", \"problem_statement\": \"row {i}: 6*7?\", \
                 \"ground_truth\": \"42\"}}\n"
            )
        })
        .collect();
    std::fs::write(&data, lines).unwrap();
    let runs = dir.join("runs");
    let o = bin()
        .args([
            "benchmark",
            "--scorer",
            "numeric",
            "--llm-base-url",
            &server.url,
        ])
        .args(["--llm-name", "slow-model", "--data"])
        .arg(&data)
        .arg("--output-dir")
        .arg(&runs)
        .args(extra)
        .output()
        .expect("spawn llm-in-sandbox");
    let run_dir = std::fs::read_dir(&runs)
        .ok()
        .and_then(|mut d| d.next())
        .and_then(Result::ok)
        .map(|e| e.path())
        .unwrap_or_else(|| panic!("no run folder; stderr:\n{}", text(&o.stderr)));
    (o, run_dir)
}

/// The `elapsed 1m 05s` of a progress line, in seconds.
fn elapsed_of(line: &str) -> u64 {
    let rest = &line[line.find(" elapsed ").expect("an elapsed time") + 9..];
    let mut seconds = 0;
    for part in rest.split(' ') {
        let (n, unit) = part.split_at(part.find(|c: char| !c.is_ascii_digit()).unwrap_or(0));
        match (n.parse::<u64>(), unit) {
            (Ok(n), "h") => seconds += n * 3600,
            (Ok(n), "m") => seconds += n * 60,
            (Ok(n), "s") => {
                seconds += n;
                break;
            }
            _ => break,
        }
    }
    seconds
}

/// No line a person reads names an internal type or variant.
fn no_internal_names(err: &str) {
    for name in [
        "MaxSteps",
        "TokenLimit",
        "ContextLength",
        "LlmError",
        "HostError",
        "Submitted after",
        "max_steps",
        "0.00 rows/s",
        "invalid type",
    ] {
        assert!(!err.contains(name), "{name:?} in:\n{err}");
    }
}

#[test]
fn run_shows_each_step_as_it_happens_and_a_line_every_ten_seconds() {
    // A slow model: 12 s for the first turn (longer than the 10 s promise), then quick.
    let server = FakeServer::scripted(
        vec![
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "echo 42 > /testbed/output/answer.txt"}"#,
            )])
            .delayed(Duration::from_secs(12)),
            Reply::text("Let me check the answer file once more before I submit it.")
                .delayed(Duration::from_millis(500)),
            Reply::calls(&[(
                "str_replace_editor",
                r#"{"command": "view", "path": "/testbed/output"}"#,
            )]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let o = run(&server, out.path(), &[]);
    let took = started.elapsed();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(took > Duration::from_secs(12), "{took:?}");
    let lines: Vec<&str> = err.lines().map(str::trim).collect();
    let has = |prefix: &str| lines.iter().filter(|l| l.starts_with(prefix)).count();
    // Each step as it happens: the tool and an excerpt of what it was asked, its outcome; the
    // model's text when it made no call.
    assert_eq!(
        has("step 1: execute_bash: echo 42 > /testbed/output/answer.txt (model "),
        1,
        "{err}"
    );
    assert_eq!(has("step 1: exit 0 in "), 1, "{err}");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("step 2: no tool call (model ")
                && l.ends_with(
                    "; the model wrote: \"Let me check the answer file once more before I submit it.\""
                ))
            .count(),
        1,
        "{err}"
    );
    assert_eq!(
        has("step 3: str_replace_editor: view /testbed/output (model "),
        1,
        "{err}"
    );
    assert_eq!(has("step 3: done in "), 1, "{err}");
    assert_eq!(has("step 4: submit (model "), 1, "{err}");
    // The 12 s wait for the first reply got a line of its own (one, as the next line came
    // before another 10 s passed).
    let waits: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("step 1: still waiting for the model ("))
        .collect();
    assert_eq!(waits.len(), 1, "{err}");
    // The end in words, with the turn without a call counted, and the answer file's state.
    let end = lines
        .iter()
        .find(|l| {
            l.starts_with(
                "llm-in-sandbox: submitted after 4 steps; 1 of 4 turns without a tool call; ",
            )
        })
        .unwrap_or_else(|| panic!("no end line:\n{err}"));
    assert!(
        end.contains(" tokens, ") && end.contains("results in "),
        "{end}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(
            "llm-in-sandbox: answer file: /testbed/output/answer.txt (3 bytes, printed on stdout)"
        )
    );
    assert_eq!(text(&o.stdout), "42\n");
    // One line was enough for one turn without a call: no hint yet.
    assert!(!err.contains("note:"), "{err}");
    no_internal_names(&err);
}

#[test]
fn benchmark_progress_comes_every_ten_seconds_with_rows_in_flight_and_their_step() {
    // Every reply takes 7 s: each row's two turns take 14 s, so for the first 14 s nothing
    // finishes and only the promise of a line every 10 s says what happens.
    let server = crate::common::answering_model(Duration::from_secs(7));
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let (o, _) = benchmark(&server, dir.path(), 2, &["--num-workers", "2"]);
    let took = started.elapsed().as_secs_f64();
    assert!(took > 14.0, "{took}");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let progress: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("llm-in-sandbox: progress "))
        .collect();
    // Before any row finished: a line with both rows in flight and their step.
    let first = progress
        .first()
        .unwrap_or_else(|| panic!("no progress line:\n{err}"));
    assert!(
        first.starts_with("llm-in-sandbox: progress 0/2 (0%) score - errors 0 tokens ")
            && first.contains(" rate -; 2 running: r1#0 step ")
            && first.contains("r2#0 step "),
        "{first}"
    );
    assert!(
        first.contains("waiting for the model") || first.contains("execute_bash: echo 42"),
        "{first}"
    );
    // At least a line per 10 s while rows ran (the last line says how long that was), the
    // rows' own lines at 50% and 100%, and no more.
    let last = progress.last().unwrap();
    let ran = elapsed_of(last);
    assert!(
        progress.len() > (ran / 10).max(1) as usize,
        "{} lines over {ran} s:\n{err}",
        progress.len()
    );
    assert!(progress.len() <= (ran / 10) as usize + 2, "{err}");
    assert!(
        last.starts_with("llm-in-sandbox: progress 2/2 (100%) score 100.0%"),
        "{last}"
    );
    assert!(
        last.contains(" rows/min") || last.contains(" s/row"),
        "a slow run's rate reads in rows/min or s/row: {last}"
    );
    let end = err
        .lines()
        .find(|l| l.starts_with("llm-in-sandbox: finished 2 rows in "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(end.contains("rows/min") || end.contains("s/row"), "{end}");
    no_internal_names(&err);
}

/// A model served without a tool-call parser writes its calls into the text. `run` says once
/// what it wrote, that it looks like a call written as text, and names `--text-tool-calls`;
/// the reference's nudge stays what the model gets.
#[test]
fn run_explains_once_why_calls_written_as_text_are_not_seen() {
    let written = r#"<tool_call>{"name": "execute_bash", "arguments": {"command": "echo 42 > /testbed/output/answer.txt"}}</tool_call>"#;
    let server = FakeServer::scripted(vec![], Some(Reply::text(written))).unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = run(&server, out.path(), &["--max-steps", "3"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(
        notes[0].starts_with("llm-in-sandbox: note: 1 turn of this episode so far without a tool call (step 1). The model wrote: \"<tool_call>{\"name\": \"execute_bash\""),
        "{}",
        notes[0]
    );
    assert!(
        err.contains("That looks like a tool call written as text")
            && err.contains("--text-tool-calls runs such calls"),
        "{err}"
    );
    assert_eq!(
        err.lines()
            .filter(|l| l.trim_start().starts_with("step ") && l.contains(": no tool call"))
            .count(),
        3,
        "{err}"
    );
    assert!(
        err.contains(
            "llm-in-sandbox: stopped after the step limit (3); 3 of 3 turns without a tool call; "
        ),
        "{err}"
    );
    assert!(
        err.trim_end()
            .ends_with("llm-in-sandbox: answer file missing: /testbed/output/answer.txt"),
        "{err}"
    );
    // The model got the reference's nudge each time, nothing of ours.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests[1..] {
        let last = r["messages"].as_array().unwrap().last().unwrap();
        assert_eq!(last["role"], "user");
        assert!(
            last["content"]
                .as_str()
                .unwrap()
                .starts_with("\nYou forgot to use a function call"),
            "{last}"
        );
    }
    no_internal_names(&err);

    // With --text-tool-calls the same replies run.
    let server = FakeServer::scripted(
        vec![Reply::text(written), Reply::calls(&[("submit", "{}")])],
        None,
    )
    .unwrap();
    let o = run(&server, out.path(), &["--text-tool-calls"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        !err.contains("note:") && !err.contains("no tool call"),
        "{err}"
    );
    assert_eq!(text(&o.stdout), "42\n");
}

/// Plain text that is no call: the hint comes at the second such turn and says it does not
/// look like a call written as text.
#[test]
fn run_says_when_the_text_is_not_a_call_either() {
    let server = FakeServer::scripted(
        vec![
            Reply::text("I think the answer is 42."),
            Reply::text("The answer is 42, I am sure."),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = run(&server, out.path(), &[]);
    let err = text(&o.stderr);
    // Submitted without writing the answer file: its own exit code and line.
    assert_eq!(o.status.code(), Some(4), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(
        notes[0].contains("2 turns of this episode so far without a tool call (step 2). The model wrote: \"The answer is 42, I am sure.\""),
        "{}",
        notes[0]
    );
    assert!(
        err.contains("does not look like a tool call written as text either")
            && err.contains("--text-tool-calls would not find one"),
        "{err}"
    );
    assert!(
        err.contains("llm-in-sandbox: submitted after 3 steps; 2 of 3 turns without a tool call; "),
        "{err}"
    );
    assert!(
        err.trim_end()
            .ends_with("llm-in-sandbox: answer file missing: /testbed/output/answer.txt"),
        "{err}"
    );
    assert_eq!(text(&o.stdout), "");
    no_internal_names(&err);
}

/// In a benchmark the hint comes once for the whole run, the rows' turns without a call are
/// counted in results.json and the summary, and a row without an answer file says so.
#[test]
fn benchmark_explains_once_and_counts_turns_without_a_call() {
    let written = r#"```json
{"name": "execute_bash", "arguments": {"command": "echo 42 > /testbed/answer.txt"}}
```"#;
    let server = FakeServer::scripted(vec![], Some(Reply::text(written))).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (o, run_dir) = benchmark(
        &server,
        dir.path(),
        3,
        &["--num-workers", "3", "--max-steps", "2"],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(notes.len(), 1, "once for the run:\n{err}");
    assert!(
        notes[0].starts_with("llm-in-sandbox: row r")
            && notes[0].contains("```json {\"name\": \"execute_bash\""),
        "{}",
        notes[0]
    );
    assert!(err.contains("--text-tool-calls runs such calls"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("llm-in-sandbox: finished 3 rows in ")
                && l.ends_with(", 6 turns without a tool call")),
        "{err}"
    );
    assert!(
        text(&o.stdout).contains("turns without a tool call: 6"),
        "{}",
        text(&o.stdout)
    );
    let summary: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(summary["turns_without_tool_call"], 6);
    for r in llm_in_sandbox::eval::report::read_results(&run_dir.join("results.jsonl")) {
        assert_eq!((r.no_call_steps, r.stop.as_str()), (2, "max_steps"));
        assert!(
            r.warning.as_deref().is_some_and(|w| w.starts_with(
                "answer file missing: /testbed/answer.txt (scored as the empty answer"
            )),
            "{r:?}"
        );
    }
    no_internal_names(&err);
}

#[test]
fn help_lists_the_exit_codes() {
    let o = bin().args(["run", "--help"]).output().unwrap();
    let help = text(&o.stdout);
    assert!(help.contains("Exit codes:"), "{help}");
    for line in [
        "0    the model submitted and the answer file exists",
        "1    the episode stopped before the model submitted",
        "2    usage or setup error",
        "3    the model's endpoint failed",
        "4    the model submitted without writing the answer file",
        "130  interrupted",
    ] {
        assert!(help.contains(line), "{line:?} in:\n{help}");
    }
    let o = bin().args(["benchmark", "--help"]).output().unwrap();
    let help = text(&o.stdout);
    for line in [
        "Exit codes:",
        "0    the run finished",
        "1    a gate failed",
        "2    usage or setup error",
        "130  (benchmark) interrupted",
        "answer file",
    ] {
        assert!(help.contains(line), "{line:?} in:\n{help}");
    }
}
