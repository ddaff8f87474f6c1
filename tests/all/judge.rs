//! LLM-as-judge: verdict parsing, the judge's requests against a fake judge model, re-judging a
//! run folder (resumable), and the `judge` command.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use llm_in_sandbox::eval::judge::{
    self, Judge, JudgeError, JudgeSettings, Verdict, problem_statements, rejudge_run,
    strip_thinking, verdict,
};
use llm_in_sandbox::eval::report::{RowResult, read_results};
use llm_in_sandbox::llm::LlmConfig;
use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use serde_json::{Value, json};

#[test]
fn verdicts_follow_the_last_word() {
    assert_eq!(verdict("CORRECT"), Verdict::Correct);
    assert_eq!(verdict("INCORRECT"), Verdict::Incorrect);
    assert_eq!(
        verdict("At first INCORRECT, but on reflection it is actually CORRECT."),
        Verdict::Correct
    );
    assert_eq!(
        verdict("It looks CORRECT, but the units differ: INCORRECT"),
        Verdict::Incorrect
    );
    // The reply is compared upper-cased, as the reference does.
    assert_eq!(verdict("correct"), Verdict::Correct);
    assert_eq!(verdict("Incorrect."), Verdict::Incorrect);
    assert_eq!(verdict("I cannot tell."), Verdict::Unknown);
    assert_eq!(verdict(""), Verdict::Unknown);
    assert_eq!(Verdict::Unknown.as_str(), "UNKNOWN");
    assert_eq!(
        (Verdict::Correct.score(), Verdict::Incorrect.score()),
        (1.0, 0.0)
    );
}

#[test]
fn thinking_before_the_first_close_tag_is_dropped() {
    assert_eq!(
        strip_thinking("<think>maybe 41</think>\n  42 \n"),
        "42",
        "what follows the tag, trimmed"
    );
    assert_eq!(strip_thinking("a</think>b</think>c"), "b</think>c");
    assert_eq!(strip_thinking("  42 "), "  42 ", "no tag: unchanged");
}

/// The candidate answer in a judge prompt (its `CANDIDATE ANSWER:` line).
fn candidate_of(req: &Value) -> String {
    let prompt = req["messages"][0]["content"].as_str().unwrap_or("");
    prompt
        .lines()
        .find_map(|l| {
            l.strip_prefix("CANDIDATE ANSWER TO ASSESS:")
                .or_else(|| l.strip_prefix("CANDIDATE ANSWER:"))
        })
        .unwrap_or("")
        .trim()
        .to_string()
}

/// A fake judge that answers by what the candidate says: `right` -> CORRECT, `wrong` ->
/// INCORRECT, `babble` -> neither word, `crash` -> HTTP 500, `mixed` -> CORRECT for three calls
/// out of every four.
fn fake_judge() -> FakeServer {
    let mixed = AtomicUsize::new(0);
    FakeServer::start(Box::new(move |req: &Value| {
        let c = candidate_of(req);
        if c.contains("crash") {
            Reply::status(500, "{\"error\": \"judge down\"}")
        } else if c.contains("mixed") {
            if mixed.fetch_add(1, Ordering::SeqCst) % 4 == 3 {
                Reply::text("The candidate is INCORRECT.")
            } else {
                Reply::text("<think>compare the numbers</think>CORRECT")
            }
        } else if c.contains("right") {
            Reply::text("CORRECT")
        } else if c.contains("wrong") {
            Reply::text("Verdict: incorrect")
        } else {
            Reply::text("Hmm, hard to say.")
        }
    }))
    .unwrap()
}

fn judge_for(server: &FakeServer, model: &str) -> Judge {
    let mut llm = LlmConfig::new(&server.url, model);
    llm.max_retries = 0;
    llm.retry_base = Duration::from_millis(1);
    Judge::new(JudgeSettings::new(llm)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeats_are_averaged_and_the_request_follows_the_protocol() {
    let server = fake_judge();
    let judge = judge_for(&server, "judge-m");
    assert_eq!(judge.repeats(), 4);
    let j = judge
        .judge(
            "What is 6*7?",
            "<think>secret reasoning</think> mixed 42",
            "forty-two",
        )
        .await;
    assert_eq!(j.score, 0.75);
    assert_eq!(j.verdicts.len(), 4);
    assert_eq!(j.verdicts.iter().filter(|v| *v == "CORRECT").count(), 3);
    assert_eq!(j.verdicts.iter().filter(|v| *v == "INCORRECT").count(), 1);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    for r in &reqs {
        assert_eq!(r["model"], "judge-m");
        assert_eq!(r["temperature"], 0.7);
        assert_eq!(r["max_tokens"], 16384);
        let msgs = r["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0]["role"], "user");
        let prompt = msgs[0]["content"].as_str().unwrap();
        assert!(prompt.contains("What is 6*7?"), "{prompt}");
        assert!(prompt.contains("forty-two"), "{prompt}");
        assert!(prompt.contains("mixed 42"), "{prompt}");
        assert!(
            prompt.contains("CORRECT") && prompt.contains("INCORRECT"),
            "{prompt}"
        );
        assert!(!prompt.contains("secret reasoning"), "{prompt}");
        assert!(!prompt.contains("</think>"), "{prompt}");
        assert_eq!(candidate_of(r), "mixed 42");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_failed_calls_score_zero() {
    let server = fake_judge();
    let mut llm = LlmConfig::new(&server.url, "j");
    llm.max_retries = 0;
    llm.temperature = Some(0.2);
    let mut settings = JudgeSettings::new(llm);
    settings.repeats = 2;
    settings.max_tokens = 100;
    let judge = Judge::new(settings).unwrap();
    let j = judge.judge("q", "babble", "t").await;
    assert_eq!(j.score, 0.0);
    assert_eq!(j.verdicts, ["UNKNOWN", "UNKNOWN"]);
    assert!(!j.has_error());
    let j = judge.judge("q", "crash", "t").await;
    assert_eq!(j.score, 0.0);
    assert!(
        j.verdicts
            .iter()
            .all(|v| v.starts_with("ERROR: ") && v.contains("500")),
        "{:?}",
        j.verdicts
    );
    assert!(j.has_error());
    let j = judge.judge("q", "wrong", "t").await;
    assert_eq!((j.score, j.verdicts.len()), (0.0, 2));
    // A temperature given by the caller is kept.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 6);
    assert!(
        reqs.iter()
            .all(|r| r["temperature"] == 0.2 && r["max_tokens"] == 100)
    );
}

fn row(key_id: &str, answer: Option<&str>, score: Option<f64>, error: Option<&str>) -> RowResult {
    RowResult {
        key: format!("{key_id}#0"),
        id: key_id.into(),
        repeat: 0,
        domain: "physics".into(),
        score,
        error: error.map(str::to_string),
        answer: answer.map(str::to_string),
        ground_truth: format!("truth of {key_id}"),
        stop: "submitted".into(),
        steps: 3,
        tokens: 100,
        llm_seconds: 1.0,
        sandbox_seconds: 0.5,
        warning: None,
        problem_statement: None,
        reward: None,
        judge: None,
        no_call_steps: 0,
    }
}

fn write_rows(dir: &Path, rows: &[RowResult]) {
    let text: String = rows
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    std::fs::write(dir.join("results.jsonl"), text).unwrap();
}

/// A finished run folder as the benchmark leaves it: three rows (one right, one wrong, one
/// whose episode failed) and the reference's combined trajectory.json.
fn run_folder(dir: &Path) {
    std::fs::write(
        dir.join("config.json"),
        json!({"task": "physics", "model": "agent-m", "mode": "sandbox", "repeat": 1}).to_string(),
    )
    .unwrap();
    write_rows(
        dir,
        &[
            row(
                "p1",
                Some("<think>hmm</think>right: 3 m/s"),
                Some(0.0),
                None,
            ),
            row("p2", Some("wrong: 5 m/s"), Some(1.0), None),
            row("p3", None, None, Some("LLM error: gave up")),
        ],
    );
    std::fs::write(
        dir.join("trajectory.json"),
        json!({
            "p1": {"problem_statement": "Speed of the first cart?", "trajectory": [], "reward": 0.0,
                   "agent_answer": "right: 3 m/s", "ground_truth": "truth of p1"},
            "p2": {"problem_statement": "Speed of the second cart?", "trajectory": [], "reward": 0.0,
                   "agent_answer": "wrong: 5 m/s", "ground_truth": "truth of p2"},
        })
        .to_string(),
    )
    .unwrap();
}

fn judgment_lines(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("judgments.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejudging_a_run_rewrites_scores_and_resumes_without_new_calls() {
    let server = fake_judge();
    let judge = judge_for(&server, "judge-m");
    let dir = tempfile::tempdir().unwrap();
    run_folder(dir.path());
    let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = calls.clone();
    let progress = move |done: usize, total: usize| seen.lock().unwrap().push((done, total));
    let summary = rejudge_run(dir.path(), &judge, 4, &progress).await.unwrap();

    // Two rows judged, four calls each; the failed episode is not judged.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 8);
    let mut seen_progress = calls.lock().unwrap().clone();
    seen_progress.sort();
    assert_eq!(seen_progress, [(1, 2), (2, 2)]);
    let prompts: Vec<String> = reqs
        .iter()
        .map(|r| r["messages"][0]["content"].as_str().unwrap().to_string())
        .collect();
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("Speed of the first cart?")
                && p.contains("truth of p1")
                && p.contains("right: 3 m/s")
                && !p.contains("hmm"))
    );
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("Speed of the second cart?") && p.contains("truth of p2"))
    );

    let rows = read_results(&dir.path().join("results.jsonl"));
    assert_eq!(rows.len(), 3);
    let by_id = |id: &str| rows.iter().find(|r| r.id == id).unwrap().clone();
    assert_eq!(by_id("p1").score, Some(1.0));
    assert_eq!(by_id("p2").score, Some(0.0));
    let failed = by_id("p3");
    assert_eq!(failed.score, None);
    assert_eq!(failed.error.as_deref(), Some("LLM error: gave up"));
    // Everything else in the rows is kept.
    assert_eq!(
        by_id("p1").answer.as_deref(),
        Some("<think>hmm</think>right: 3 m/s")
    );
    assert_eq!((by_id("p2").steps, by_id("p2").tokens), (3, 100));

    let lines = judgment_lines(dir.path());
    assert_eq!(lines.len(), 2);
    let p1 = lines.iter().find(|l| l["key"] == "p1#0").unwrap();
    assert_eq!(p1["id"], "p1");
    assert_eq!(p1["score"], 1.0);
    assert_eq!(p1["judge_model"], "judge-m");
    assert_eq!(p1["previous_score"], 0.0);
    assert_eq!(
        p1["verdicts"],
        json!(["CORRECT", "CORRECT", "CORRECT", "CORRECT"])
    );
    let p2 = lines.iter().find(|l| l["key"] == "p2#0").unwrap();
    assert_eq!(p2["previous_score"], 1.0);
    assert_eq!(p2["score"], 0.0);

    // results.json is regenerated from the judged rows, and returned.
    let on_disk: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
    assert_eq!(on_disk, summary);
    // The error row counts as 0 in mean_score (as the reference); 0.5 over the scored rows.
    assert!((summary["mean_score"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!(summary["overall"]["mean_score_scored"], 0.5);
    assert_eq!(summary["overall"]["errors"], 1);
    assert_eq!(summary["overall"]["rows"], 3);
    assert_eq!(summary["config"]["judge"]["model"], "judge-m");
    assert_eq!(summary["config"]["task"], "physics");

    // Again: nothing left to judge, no calls, the same results.
    let before = std::fs::read(dir.path().join("results.jsonl")).unwrap();
    let again = rejudge_run(dir.path(), &judge, 4, &|_, _| {
        panic!("no row should be judged again")
    })
    .await
    .unwrap();
    assert_eq!(server.requests().len(), 8);
    assert_eq!(again, summary);
    assert_eq!(
        std::fs::read(dir.path().join("results.jsonl")).unwrap(),
        before
    );
    assert_eq!(judgment_lines(dir.path()).len(), 2);

    // Another judge model judges every row again; the score before any judge stays recorded.
    let other = judge_for(&server, "judge-2");
    rejudge_run(dir.path(), &other, 1, &|_, _| {})
        .await
        .unwrap();
    assert_eq!(server.requests().len(), 16);
    let lines = judgment_lines(dir.path());
    assert_eq!(lines.len(), 4);
    let latest_p1 = lines.iter().rev().find(|l| l["key"] == "p1#0").unwrap();
    assert_eq!(latest_p1["judge_model"], "judge-2");
    assert_eq!(latest_p1["previous_score"], 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_rejudge_resumes_and_failed_judgments_are_retried() {
    let server = fake_judge();
    let judge = judge_for(&server, "judge-m");
    let dir = tempfile::tempdir().unwrap();
    run_folder(dir.path());
    let mut rows = read_results(&dir.path().join("results.jsonl"));
    // No answer (no answer.txt): judged as the empty answer. A scorer failure on an answer:
    // judged, and the judged score replaces the error.
    rows.push(row("p4", None, Some(0.0), None));
    rows.push(row("p5", Some("right"), None, Some("reward.py failed")));
    rows.push(row("p6", Some("crash"), Some(1.0), None));
    write_rows(dir.path(), &rows);
    // A kill left p1's judgment recorded and half of another line.
    std::fs::write(
        dir.path().join("judgments.jsonl"),
        "{\"key\":\"p1#0\",\"id\":\"p1\",\"score\":0.25,\"verdicts\":[\"CORRECT\",\"INCORRECT\",\"INCORRECT\",\"INCORRECT\"],\"judge_model\":\"judge-m\",\"previous_score\":0.0}\n{\"key\":\"p2#0\",\"id\"",
    )
    .unwrap();
    rejudge_run(dir.path(), &judge, 2, &|_, _| {})
        .await
        .unwrap();
    // p2, p4, p5, p6: four rows, four calls each.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 16);
    assert!(reqs.iter().all(|r| candidate_of(r) != "right: 3 m/s"));
    assert_eq!(
        reqs.iter().filter(|r| candidate_of(r).is_empty()).count(),
        4
    );
    let rows = read_results(&dir.path().join("results.jsonl"));
    let by_id = |id: &str| rows.iter().find(|r| r.id == id).unwrap().clone();
    assert_eq!(
        by_id("p1").score,
        Some(0.25),
        "the recorded judgment is used"
    );
    assert_eq!(by_id("p4").score, Some(0.0));
    let p5 = by_id("p5");
    assert_eq!((p5.score, p5.error), (Some(1.0), None));
    assert_eq!(by_id("p6").score, Some(0.0), "a failed call counts 0");
    let lines = judgment_lines(dir.path());
    assert_eq!(lines.len(), 5, "the torn line was cut, four appended");
    let p5 = lines.iter().find(|l| l["key"] == "p5#0").unwrap();
    assert_eq!(p5["previous_error"], "reward.py failed");
    assert!(p5["previous_score"].is_null());

    // The next re-judge retries only the judgment with failed calls.
    rejudge_run(dir.path(), &judge, 2, &|_, _| {})
        .await
        .unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 20);
    assert!(reqs[16..].iter().all(|r| candidate_of(r) == "crash"));
    let p6: Vec<Value> = judgment_lines(dir.path())
        .into_iter()
        .filter(|l| l["key"] == "p6#0")
        .collect();
    assert_eq!(p6.len(), 2);
    assert_eq!(p6[1]["previous_score"], 1.0, "the score before any judge");
}

#[test]
fn problem_statements_come_from_the_combined_file_or_each_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("trajectories");
    let write = |name: &str, doc: Value| {
        std::fs::create_dir_all(t.join(name)).unwrap();
        std::fs::write(t.join(name).join("trajectory.json"), doc.to_string()).unwrap();
    };
    // Folder names are `<id>_<repeat>`: `10_0` is not row 1, `a_1_0` is row `a_1`.
    write("10_0", json!({"problem_statement": "ten", "steps": []}));
    write("1_0", json!({"problem_statement": "one", "steps": []}));
    write("a_1_0", json!({"problem_statement": "a one", "steps": []}));
    write(
        "x_y_2",
        json!({"id": "x/y", "problem_statement": "slash", "steps": []}),
    );
    write("c_0", json!({"problem_statement": "from the folder"}));
    // A torn trajectory.json is rebuilt from events.jsonl.
    std::fs::create_dir_all(t.join("torn_0")).unwrap();
    std::fs::write(t.join("torn_0").join("trajectory.json"), "{\"problem_st").unwrap();
    std::fs::write(
        t.join("torn_0").join("events.jsonl"),
        json!({"type": "start", "header": {"problem_statement": "rebuilt", "id": "torn"}})
            .to_string()
            + "\n",
    )
    .unwrap();
    write("garbage_0", json!(["not", "an", "object"]));
    std::fs::write(
        dir.path().join("trajectory.json"),
        json!({"c": {"problem_statement": "from the combined file"}}).to_string(),
    )
    .unwrap();
    let ps = problem_statements(dir.path());
    assert_eq!(ps["1"], "one");
    assert_eq!(ps["10"], "ten");
    assert_eq!(ps["a_1"], "a one");
    assert_eq!(ps["x/y"], "slash");
    assert_eq!(ps["c"], "from the combined file");
    assert_eq!(ps["torn"], "rebuilt");
    assert_eq!(ps.len(), 6, "{ps:?}");
    // Nothing there: no statements, no panic.
    assert!(problem_statements(&dir.path().join("missing")).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_broken_run_folder_is_a_clear_error() {
    let server = fake_judge();
    let judge = judge_for(&server, "j");
    let dir = tempfile::tempdir().unwrap();
    let e = rejudge_run(dir.path(), &judge, 2, &|_, _| {})
        .await
        .unwrap_err();
    assert!(matches!(e, JudgeError::NoResults { .. }), "{e}");
    assert!(e.to_string().contains("results.jsonl"), "{e}");
    std::fs::write(dir.path().join("results.jsonl"), "not json\n").unwrap();
    let e = rejudge_run(dir.path(), &judge, 2, &|_, _| {})
        .await
        .unwrap_err();
    assert!(matches!(e, JudgeError::NoResults { .. }), "{e}");
    write_rows(dir.path(), &[row("p1", Some("right"), Some(0.0), None)]);
    let e = rejudge_run(dir.path(), &judge, 2, &|_, _| {})
        .await
        .unwrap_err();
    assert!(
        matches!(e, JudgeError::Config { .. }) && e.to_string().contains("config.json"),
        "{e}"
    );
    std::fs::write(dir.path().join("config.json"), "{oops").unwrap();
    let e = rejudge_run(dir.path(), &judge, 2, &|_, _| {})
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not valid JSON"), "{e}");
    assert!(server.requests().is_empty());
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"));
    c.stdin(Stdio::null())
        .env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root());
    c
}

#[test]
fn the_judge_command_rejudges_a_run_folder() {
    let server = fake_judge();
    let dir = tempfile::tempdir().unwrap();
    run_folder(dir.path());
    let o = bin()
        .arg("judge")
        .arg(dir.path())
        .args(["--judge-model", "judge-m", "--judge-base-url", &server.url])
        .args(["--judge-repeats", "2", "--num-workers", "2"])
        .env("OPENAI_API_KEY", "sk-test")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("judged 2/2 rows"), "{stderr}");
    // The reference's own judge prompt, read from its judge.py.
    let prompt = server.requests()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt
            .starts_with("Assess whether the following CANDIDATE ANSWER is CORRECT or INCORRECT.")
            && prompt.contains("\nThe OFFICIAL ANSWER: ")
            && prompt.ends_with("Reply only with CORRECT or INCORRECT."),
        "{prompt}"
    );
    assert!(
        stdout.contains("physics") && stdout.contains("50.0%"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&dir.path().display().to_string()),
        "{stdout}"
    );
    assert_eq!(server.requests().len(), 4);
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r["temperature"] == 0.7 && r["max_tokens"] == 16384)
    );
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
    assert_eq!(summary["overall"]["mean_score_scored"], 0.5);
    assert_eq!(summary["config"]["judge"]["repeats"], 2);

    // Run again: already judged, no calls.
    let o = bin()
        .arg("judge")
        .arg(dir.path())
        .args(["--judge-model", "judge-m", "--judge-base-url", &server.url])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("already judged"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(server.requests().len(), 4);
}

#[test]
fn the_judge_command_explains_a_bad_folder() {
    let dir = tempfile::tempdir().unwrap();
    let judge_args = [
        "--judge-model",
        "j",
        "--judge-base-url",
        "http://127.0.0.1:9/v1",
    ];
    let o = bin()
        .arg("judge")
        .arg(dir.path().join("nope"))
        .args(judge_args)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("has no results.jsonl"), "{err}");
    write_rows(dir.path(), &[row("p1", Some("right"), Some(0.0), None)]);
    std::fs::write(dir.path().join("config.json"), "[not json").unwrap();
    let o = bin()
        .arg("judge")
        .arg(dir.path())
        .args(judge_args)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("config.json") && err.contains("not valid JSON"),
        "{err}"
    );
    let o = bin()
        .arg("judge")
        .arg(dir.path())
        .args(judge_args)
        .args(["--judge-repeats", "0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let _ = judge::DEFAULT_REPEATS;
}
