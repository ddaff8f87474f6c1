//! `benchmark`: many episodes at once against a fake model, scoring, resume, shards, modes.

use std::path::Path;
use std::time::Duration;

use llm_in_sandbox::agent::EpisodeSettings;
use llm_in_sandbox::agent::SandboxSettings;
use llm_in_sandbox::eval::runner::{self, BenchSettings, Mode, Shard};
use llm_in_sandbox::eval::{Scorer, TaskSpec, parse_jsonl, report};
use llm_in_sandbox::llm::LlmConfig;
use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::runtime;

mod rl;

/// The fake model: answers each task with the text after `ANSWER=` in its statement, writing
/// it to /testbed/answer.txt with bash, then submits.
fn model() -> FakeServer {
    FakeServer::start(Box::new(|req: &Value| {
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
        if req.get("tools").is_none() {
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

fn dataset(n: usize) -> String {
    let domains = ["math", "physics", "chemistry", "biomedicine"];
    (0..n)
        .map(|i| {
            let right = i % 4 != 3; // every 4th answer is wrong
            let truth = format!("{}", i * 7);
            let answer = if right { truth.clone() } else { "wrong".into() };
            json!({"id": format!("r{i:02}"), "domain": domains[i % 4],
                   "problem_statement": format!("Row {i}. ANSWER={answer} please"), "ground_truth": truth})
                .to_string() + "\n"
        })
        .collect()
}

fn settings(server: &FakeServer, dir: &Path, workers: usize) -> BenchSettings {
    let mut llm = LlmConfig::new(&server.url, "fake");
    llm.retry_base = Duration::from_millis(10);
    BenchSettings {
        workers,
        episode: EpisodeSettings {
            max_steps: 5,
            ..EpisodeSettings::default()
        },
        sandbox: SandboxSettings {
            command_timeout: Duration::from_secs(60),
            ..SandboxSettings::default()
        },
        ..BenchSettings::new(llm, dir.to_path_buf())
    }
}

fn task(data: String, scorer: Scorer) -> TaskSpec {
    TaskSpec::new("t", data, scorer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_rows_eight_workers_score_as_scripted() {
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    let t = task(dataset(20), Scorer::Numeric);
    let (rows, errors) = parse_jsonl(&t.data);
    assert!(errors.is_empty());
    let out = runner::run(runtime(), &t, rows, settings(&server, dir.path(), 8))
        .await
        .unwrap();
    assert_eq!(out.ran, 20);
    let s = &out.summary;
    assert_eq!(s["overall"]["rows"], 20);
    assert_eq!(s["overall"]["errors"], 0);
    assert_eq!(s["overall"]["mean_score"], 0.75);
    for d in ["math", "physics", "chemistry"] {
        assert_eq!(s["domains"][d]["mean_score"], 1.0, "{d}: {s}");
    }
    assert_eq!(s["domains"]["biomedicine"]["mean_score"], 0.0);
    let results = report::read_results(&dir.path().join("results.jsonl"));
    assert_eq!(results.len(), 20);
    assert!(
        results
            .iter()
            .all(|r| r.steps == 2 && r.stop == "submitted")
    );
    assert!(
        dir.path()
            .join("trajectories/r05_0/trajectory.json")
            .is_file()
    );
    let table = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(
        table.contains("biomedicine") && table.contains("75.0%"),
        "{table}"
    );
    assert!(
        std::fs::read_to_string(dir.path().join("results.svg"))
            .unwrap()
            .starts_with("<svg")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reward_py_runs_in_wasm_and_a_failing_one_is_an_error() {
    let server = model();
    let good = "def compute_score(agent_answer, ground_truth, **kwargs):\n    assert kwargs['domain'] == 'math' and 'extra_field' in kwargs\n    return 1.0 if agent_answer.strip() == ground_truth else 0.25\n";
    let data = "{\"id\": \"a\", \"domain\": \"math\", \"problem_statement\": \"ANSWER=5\", \"ground_truth\": \"5\", \"extra_field\": 1}\n{\"id\": \"b\", \"domain\": \"math\", \"problem_statement\": \"ANSWER=4\", \"ground_truth\": \"5\", \"extra_field\": 1}\n";
    let dir = tempfile::tempdir().unwrap();
    let t = task(
        data.into(),
        Scorer::Reward(llm_in_sandbox::eval::RewardScript {
            source: good.into(),
            path: None,
            host: false,
            requirements: Vec::new(),
            modules: Vec::new(),
        }),
    );
    let out = runner::run(
        runtime(),
        &t,
        parse_jsonl(data).0,
        settings(&server, dir.path(), 2),
    )
    .await
    .unwrap();
    assert_eq!(
        out.summary["overall"]["mean_score"], 0.625,
        "{}",
        out.summary
    );

    let bad = "def compute_score(agent_answer, ground_truth, **kwargs):\n    raise ValueError('cannot score this')\n";
    let dir = tempfile::tempdir().unwrap();
    let t = task(
        data.into(),
        Scorer::Reward(llm_in_sandbox::eval::RewardScript {
            source: bad.into(),
            path: None,
            host: false,
            requirements: Vec::new(),
            modules: Vec::new(),
        }),
    );
    let out = runner::run(
        runtime(),
        &t,
        parse_jsonl(data).0,
        settings(&server, dir.path(), 2),
    )
    .await
    .unwrap();
    assert_eq!(out.summary["overall"]["errors"], 2);
    // As the reference: error rows count as 0 in the mean; the mean over scored rows is
    // reported beside it (none here).
    assert_eq!(out.summary["overall"]["mean_score"], 0.0);
    assert_eq!(out.summary["mean_score"], 0.0);
    assert_eq!(out.summary["num_errors"], 2);
    assert_eq!(out.summary["overall"]["mean_score_scored"], Value::Null);
    let r = &report::read_results(&dir.path().join("results.jsonl"))[0];
    assert!(
        r.error
            .as_deref()
            .unwrap()
            .contains("ValueError: cannot score this"),
        "{r:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_mode_pastes_documents_and_scores_the_reply() {
    let server = model();
    let data = "{\"id\": \"d\", \"domain\": \"long\", \"problem_statement\": \"ANSWER=heron\", \"ground_truth\": \"Heron\", \"input_files\": {\"a.txt\": \"alpha\", \"b.txt\": \"beta\"}}\n";
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server, dir.path(), 1);
    s.mode = Mode::Llm;
    let out = runner::run(
        runtime(),
        &task(data.into(), Scorer::Exact),
        parse_jsonl(data).0,
        s,
    )
    .await
    .unwrap();
    assert_eq!(out.summary["overall"]["mean_score"], 1.0, "{}", out.summary);
    let req = &server.requests()[0];
    assert!(req.get("tools").is_none());
    let prompt = req["messages"][0]["content"].as_str().unwrap();
    assert!(
        prompt.contains("BEGIN DOCUMENT 1 (a.txt)\nalpha\nEND DOCUMENT 1\n"),
        "{prompt}"
    );
    assert!(
        prompt.contains("BEGIN DOCUMENT 2 (b.txt)\nbeta\nEND DOCUMENT 2\n"),
        "{prompt}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_a_kill_loses_and_repeats_nothing() {
    let server = model();
    let data = dataset(12);
    let t = task(data.clone(), Scorer::Numeric);
    let full = tempfile::tempdir().unwrap();
    let out = runner::run(
        runtime(),
        &t,
        parse_jsonl(&data).0,
        settings(&server, full.path(), 4),
    )
    .await
    .unwrap();
    // A run killed mid-way: 5 rows finished, one line torn by the kill.
    let lines: Vec<String> = std::fs::read_to_string(full.path().join("results.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let killed = tempfile::tempdir().unwrap();
    let partial = format!("{}\n{}", lines[..5].join("\n"), &lines[5][..20]);
    std::fs::write(killed.path().join("results.jsonl"), partial).unwrap();
    let before = server.requests().len();
    let resumed = runner::run(
        runtime(),
        &t,
        parse_jsonl(&data).0,
        settings(&server, killed.path(), 4),
    )
    .await
    .unwrap();
    assert_eq!((resumed.resumed, resumed.ran), (5, 7));
    assert_eq!(
        server.requests().len() - before,
        7 * 2,
        "only the missing rows ran"
    );
    let keys: Vec<String> = report::read_results(&killed.path().join("results.jsonl"))
        .into_iter()
        .map(|r| r.key)
        .collect();
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((keys.len(), unique.len()), (12, 12));
    assert_eq!(resumed.summary["overall"], out.summary["overall"]);
    assert_eq!(resumed.summary["domains"], out.summary["domains"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_shards_merged_equal_one_run() {
    let server = model();
    let data = dataset(10);
    let t = task(data.clone(), Scorer::Numeric);
    let one = tempfile::tempdir().unwrap();
    let mut s = settings(&server, one.path(), 4);
    s.repeat = 2;
    let single = runner::run(runtime(), &t, parse_jsonl(&data).0, s)
        .await
        .unwrap();
    let mut dirs = Vec::new();
    let mut ran = 0;
    for i in 0..3 {
        let d = tempfile::tempdir().unwrap();
        let mut s = settings(&server, d.path(), 4);
        s.repeat = 2;
        s.shard = Some(Shard { index: i, count: 3 });
        ran += runner::run(runtime(), &t, parse_jsonl(&data).0, s)
            .await
            .unwrap()
            .ran;
        dirs.push(d);
    }
    assert_eq!(ran, 20);
    let merged_dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = dirs.iter().map(|d| d.path().to_path_buf()).collect();
    let merged = llm_in_sandbox::eval::merge(&paths, merged_dir.path()).unwrap();
    for key in ["overall", "domains", "tokens"] {
        assert_eq!(merged[key], single.summary[key], "{key}");
    }
    assert_eq!(Shard::parse("2/3"), Some(Shard { index: 2, count: 3 }));
    assert_eq!(Shard::parse("3/3"), None);
}

#[tokio::test]
async fn math_answers_compare_symbolically_in_wasm() {
    use llm_in_sandbox::eval::{Row, Score};
    let row = |truth: &str| Row {
        id: "m".into(),
        domain: "math".into(),
        problem_statement: String::new(),
        ground_truth: truth.into(),
        input_files: Default::default(),
        scorer: None,
        extra: Default::default(),
    };
    let rt = runtime();
    let score = |answer: &'static str, truth: &'static str| {
        let rt = rt.clone();
        async move { Scorer::Math.score(Some(answer), &row(truth), &rt).await }
    };
    assert_eq!(
        score("so \\boxed{-2 + e}", "e - 2").await,
        Score::Value(1.0)
    );
    assert_eq!(
        score("\\boxed{\\frac{\\sqrt{2}}{2}}", "1/\\sqrt{2}").await,
        Score::Value(1.0)
    );
    assert_eq!(
        score("\\boxed{0.5}", "\\frac{1}{2}").await,
        Score::Value(1.0)
    );
    assert_eq!(score("\\boxed{e - 3}", "e - 2").await, Score::Value(0.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_that_cannot_be_recorded_stops_the_run() {
    let server = model();
    let data = dataset(6);
    let t = task(data.clone(), Scorer::Numeric);
    let dir = tempfile::tempdir().unwrap();
    // Every write to results.jsonl fails as on a full disk.
    std::os::unix::fs::symlink("/dev/full", dir.path().join("results.jsonl")).unwrap();
    let err = runner::run(
        runtime(),
        &t,
        parse_jsonl(&data).0,
        settings(&server, dir.path(), 1),
    )
    .await
    .expect_err("the run must stop");
    let msg = err.to_string();
    assert!(
        msg.contains("results.jsonl") && msg.contains("--resume"),
        "{msg}"
    );
    assert!(
        matches!(err, runner::RunError::Record { done: 0, .. }),
        "{err:?}"
    );
    // One worker: the first row ran, failed to record, and nothing after it was computed.
    assert_eq!(
        server.requests().len(),
        2,
        "only the first row's two model calls"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_refuses_a_folder_from_another_run_and_says_what_differs() {
    let server = model();
    let dir = tempfile::tempdir().unwrap();
    // One run into `dir` with this data, scorer and model.
    let into_dir = |rows: usize, scorer: Scorer, model: &str| {
        let data = dataset(rows);
        let mut s = settings(&server, dir.path(), 2);
        s.llm.model = model.into();
        async move {
            runner::run(
                runtime(),
                &task(data.clone(), scorer),
                parse_jsonl(&data).0,
                s,
            )
            .await
        }
    };
    into_dir(2, Scorer::Numeric, "fake").await.unwrap();
    for (rows, scorer, model, differs) in [
        (2, Scorer::Numeric, "another-model", "another-model"),
        (3, Scorer::Numeric, "fake", "data_sha256"),
        (2, Scorer::Exact, "fake", "scorer"),
    ] {
        let err = into_dir(rows, scorer, model)
            .await
            .expect_err("results of another run must not be mixed in");
        let msg = err.to_string();
        assert!(
            msg.contains(differs) && msg.contains("cannot resume"),
            "{msg}"
        );
    }
    // The same run resumes (nothing left to do).
    let same = into_dir(2, Scorer::Numeric, "fake").await.unwrap();
    assert_eq!((same.resumed, same.ran), (2, 0));
}
