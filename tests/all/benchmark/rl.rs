//! The RL data of `llm-in-sandbox/llm-in-sandbox-rl`: the Hub dataset
//! `daixuancheng/llm-in-sandbox-rl` (flat rows with `qa_type`; the `instruct_pretrain` train
//! split and the `*_mini` test configs) and the verl files its converter writes (the row in
//! `extra_info`, as a JSON array or as Parquet with a struct column), scored with the reward its
//! training uses for every row: the reference's `instruct_pretrain/reward.py`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use llm_in_sandbox::eval::runner::{self, BenchSettings};
use llm_in_sandbox::eval::{RewardScript, Scorer, TaskSpec, parse_jsonl, report};
use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use serde_json::{Value, json};

use crate::cli::{bin, run, text};
use crate::common::runtime;
use crate::hub::{cache_dataset_file, set_dataset_ref};

const DATASET: &str = "daixuancheng/llm-in-sandbox-rl";
const COMMIT: &str = "fedcba9876543210fedcba9876543210fedcba98";

/// One row of the RL dataset, what the fake model answers, and the score the reference's
/// `instruct_pretrain/reward.py` gives that answer: computed with the reference's own file by
/// the host's CPython with math-verify 0.9.0 and rouge-score 0.1.2, as its training installs
/// them.
struct RlRow {
    id: &'static str,
    domain: &'static str,
    truth: &'static str,
    qa_type: Option<&'static str>,
    files: Option<&'static str>,
    answer: &'static str,
    score: f64,
}

impl RlRow {
    /// The problem statement: the fake model answers what follows `ANSWER=` on its line.
    fn problem(&self) -> String {
        format!(
            "Question {} (see the documents).\nANSWER={}\nEnd.",
            self.id, self.answer
        )
    }
}

/// The `instruct_pretrain` train split: single and multiple choice, free-form (ROUGE-L, or
/// math-verify when it is a number), a missing `qa_type`, an empty answer.
const TRAIN: &[RlRow] = &[
    RlRow {
        id: "ip-mc1",
        domain: "instruct_pretrain",
        truth: "B",
        qa_type: Some("Multiple Choice"),
        files: Some(r#"{"doc1.txt": "The first document."}"#),
        answer: "B",
        score: 1.0,
    },
    RlRow {
        id: "ip-mc2",
        domain: "instruct_pretrain",
        truth: "A, C",
        qa_type: Some("Multiple Choice"),
        files: Some(r#"{"doc1.txt": "x", "doc2.txt": "y"}"#),
        answer: "A, B",
        score: 0.5,
    },
    RlRow {
        id: "ip-ff1",
        domain: "instruct_pretrain",
        truth: "The cat sat on the mat",
        qa_type: Some("Free-form"),
        files: Some(r#"{"story.txt": "A cat sat on a mat."}"#),
        answer: "a cat sat on a mat",
        score: 0.666_666_666_666_666_6,
    },
    RlRow {
        id: "ip-ff2",
        domain: "instruct_pretrain",
        truth: "42",
        qa_type: Some("Free-form"),
        files: None,
        answer: "42.0",
        score: 1.0,
    },
    RlRow {
        id: "ip-none",
        domain: "instruct_pretrain",
        truth: "Paris",
        qa_type: None,
        files: None,
        answer: "paris",
        score: 1.0,
    },
    RlRow {
        id: "ip-mc3",
        domain: "instruct_pretrain",
        truth: "D",
        qa_type: Some("Multiple Choice"),
        files: None,
        answer: "C",
        score: 0.0,
    },
    RlRow {
        id: "ip-empty",
        domain: "instruct_pretrain",
        truth: "B",
        qa_type: Some("Multiple Choice"),
        files: None,
        answer: "",
        score: 0.0,
    },
];

/// Rows of the `math_mini`, `biomed_mini` and `long_context_mini` test configs (routed by
/// domain: math-verify, the multiple-choice reward, ROUGE-L).
const MATH_MINI: &[RlRow] = &[
    RlRow {
        id: "m1",
        domain: "math",
        truth: r"\frac{1}{2}",
        qa_type: None,
        files: None,
        answer: r"\boxed{0.5}",
        score: 1.0,
    },
    RlRow {
        id: "m2",
        domain: "math",
        truth: r"\frac{1}{2}",
        qa_type: None,
        files: None,
        answer: r"\boxed{3}",
        score: 0.0,
    },
    RlRow {
        id: "m3",
        domain: "math_mini",
        truth: "2",
        qa_type: None,
        files: None,
        answer: "x = 2",
        score: 1.0,
    },
];
const BIOMED_MINI: &[RlRow] = &[RlRow {
    id: "b1",
    domain: "biomed",
    truth: "C",
    qa_type: None,
    files: None,
    answer: "The answer is C",
    score: 1.0,
}];
const LONG_CONTEXT_MINI: &[RlRow] = &[RlRow {
    id: "l1",
    domain: "long_context",
    truth: "Blue whales",
    qa_type: None,
    files: Some(r#"{"whales.txt": "The blue whale is the largest animal."}"#),
    answer: "the blue whale is largest",
    score: 0.571_428_571_428_571_5,
}];

/// The fake model: with tools, lists the input folder, writes what follows `ANSWER=` on its
/// line to `/testbed/answer.txt` (the instruct_pretrain task's answer file), then submits.
fn model() -> FakeServer {
    FakeServer::start(Box::new(|req: &Value| {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        if msgs.iter().any(|m| m["role"] == "tool") {
            return Reply::calls(&[("submit", "{}")]);
        }
        let task = msgs
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or("");
        let answer = task
            .split("ANSWER=")
            .nth(1)
            .and_then(|s| s.lines().next())
            .unwrap_or("");
        let quoted = answer.replace('\'', r"'\''");
        let cmd = format!("ls /testbed/documents; printf '%s' '{quoted}' > /testbed/answer.txt");
        Reply::calls(&[("execute_bash", &json!({"command": cmd}).to_string())])
    }))
    .unwrap()
}

/// A Parquet file of optional text columns (the Hub's RL rows: `id`, `domain`,
/// `problem_statement`, `ground_truth`, `input_files` as a JSON string, `qa_type`).
fn flat_parquet(columns: &[&str], rows: &[Vec<Option<String>>]) -> Vec<u8> {
    let fields: String = columns
        .iter()
        .map(|c| format!("OPTIONAL BINARY {c} (UTF8); "))
        .collect();
    write_parquet(&format!("message rl {{ {fields}}}"), |i| {
        let values: Vec<Option<String>> = rows.iter().map(|r| r[i].clone()).collect();
        (values, 1, false)
    })
}

/// Write a file of `schema` whose leaf column `i` is `column(i)`: its values (`None` is null
/// at the leaf), its leaf's definition level, and whether it sits in a one-element list.
fn write_parquet(
    schema: &str,
    column: impl Fn(usize) -> (Vec<Option<String>>, i16, bool),
) -> Vec<u8> {
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let props = Arc::new(WriterProperties::builder().build());
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    let mut rg = w.next_row_group().unwrap();
    let mut i = 0;
    while let Some(mut col) = rg.next_column().unwrap() {
        let (values, max_def, in_list) = column(i);
        let present: Vec<ByteArray> = values
            .iter()
            .filter_map(|v| v.as_deref().map(ByteArray::from))
            .collect();
        let defs: Vec<i16> = values
            .iter()
            .map(|v| if v.is_some() { max_def } else { max_def - 1 })
            .collect();
        let reps = vec![0i16; values.len()];
        col.typed::<ByteArrayType>()
            .write_batch(&present, Some(&defs), in_list.then_some(&reps[..]))
            .unwrap();
        col.close().unwrap();
        i += 1;
    }
    rg.close().unwrap();
    w.close().unwrap();
    out
}

fn hub_rows(rows: &[RlRow]) -> Vec<u8> {
    let table: Vec<Vec<Option<String>>> = rows
        .iter()
        .map(|r| {
            vec![
                Some(r.id.into()),
                Some(r.domain.into()),
                Some(r.problem()),
                Some(r.truth.into()),
                r.files.map(str::to_string),
                r.qa_type.map(str::to_string),
            ]
        })
        .collect();
    flat_parquet(
        &[
            "id",
            "domain",
            "problem_statement",
            "ground_truth",
            "input_files",
            "qa_type",
        ],
        &table,
    )
}

/// A row as `convert_llm_sandbox_dataset.py` converts it (`input_files` and `qa_type` only when
/// set; `data_source` the domain).
fn verl_row(r: &RlRow) -> Value {
    let mut info = json!({"id": r.id, "domain": r.domain, "problem_statement": r.problem(),
                          "ground_truth": r.truth});
    if let Some(f) = r.files {
        info["input_files"] = json!(f);
    }
    if let Some(q) = r.qa_type {
        info["qa_type"] = json!(q);
    }
    json!({
        "prompt": [{"content": "placeholder", "role": "user"}],
        "reward_model": {"ground_truth": r.truth, "style": "llm_in_sandbox"},
        "data_source": r.domain,
        "extra_info": info,
    })
}

/// The same rows as Parquet: `extra_info` and `reward_model` struct columns, `prompt` a list
/// of structs, as pyarrow writes the converted JSON.
fn verl_parquet(rows: &[RlRow]) -> Vec<u8> {
    let schema = "message verl {
        OPTIONAL group prompt (LIST) { REPEATED group list { OPTIONAL group element {
            OPTIONAL BINARY content (UTF8); OPTIONAL BINARY role (UTF8); } } }
        OPTIONAL group reward_model { OPTIONAL BINARY ground_truth (UTF8);
            OPTIONAL BINARY style (UTF8); }
        OPTIONAL BINARY data_source (UTF8);
        OPTIONAL group extra_info { OPTIONAL BINARY id (UTF8); OPTIONAL BINARY domain (UTF8);
            OPTIONAL BINARY problem_statement (UTF8); OPTIONAL BINARY ground_truth (UTF8);
            OPTIONAL BINARY input_files (UTF8); OPTIONAL BINARY qa_type (UTF8); }
    }";
    let each = |f: &dyn Fn(&RlRow) -> Option<String>| rows.iter().map(f).collect::<Vec<_>>();
    write_parquet(schema, |i| match i {
        0 => (each(&|_| Some("placeholder".into())), 4, true),
        1 => (each(&|_| Some("user".into())), 4, true),
        2 => (each(&|r| Some(r.truth.into())), 2, false),
        3 => (each(&|_| Some("llm_in_sandbox".into())), 2, false),
        4 => (each(&|r| Some(r.domain.into())), 1, false),
        5 => (each(&|r| Some(r.id.into())), 2, false),
        6 => (each(&|r| Some(r.domain.into())), 2, false),
        7 => (each(&|r| Some(r.problem())), 2, false),
        8 => (each(&|r| Some(r.truth.into())), 2, false),
        9 => (each(&|r| r.files.map(str::to_string)), 2, false),
        _ => (each(&|r| r.qa_type.map(str::to_string)), 2, false),
    })
}

fn settings(server: &FakeServer, dir: &Path) -> BenchSettings {
    super::settings(server, dir, 2)
}

/// What the training environment gives the reward: the fields of `extra_info` but the truth,
/// never the verl columns; it checks them and scores an exact match.
const KWARGS_CHECK: &str = r#"
def compute_score(agent_answer, ground_truth, **kwargs):
    for outer in ("prompt", "reward_model", "data_source", "extra_info"):
        assert outer not in kwargs, "verl column %s reached the reward" % outer
    assert kwargs["id"] in kwargs["problem_statement"], kwargs
    assert kwargs["domain"] in ("instruct_pretrain", "math", "math_mini"), kwargs
    if kwargs["id"].startswith("ip-mc"):
        assert kwargs["qa_type"] == "Multiple Choice", kwargs
    if kwargs["id"] == "ip-mc2":
        files = kwargs["input_files"]
        assert isinstance(files, str) and "doc2.txt" in files, files
    return 1.0 if agent_answer == ground_truth else 0.0
"#;

/// A row's id, score and error.
type Scored = (String, Option<f64>, Option<String>);

/// Scores by row id, from a run folder's `results.jsonl`.
fn scores(dir: &Path) -> Vec<Scored> {
    let mut rows: Vec<_> = report::read_results(&dir.join("results.jsonl"))
        .into_iter()
        .map(|r| (r.id, r.score, r.error))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

/// The rows as the reward of their training gives them, by id.
fn expected(rows: &[&[RlRow]]) -> Vec<Scored> {
    let mut out: Vec<_> = rows
        .iter()
        .flat_map(|rs| rs.iter())
        .map(|r| (r.id.to_string(), Some(r.score), None))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn assert_scores(got: &[Scored], want: &[Scored]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((&g.0, &g.2), (&w.0, &w.2), "{got:?}");
        let (g1, w1) = (g.1.unwrap_or(f64::NAN), w.1.unwrap_or(f64::NAN));
        assert!((g1 - w1).abs() < 1e-9, "{}: {g1} != {w1}", g.0);
    }
}

/// Every layout of the RL rows (the Hub's flat Parquet, the converter's JSON array, the same
/// as Parquet with struct columns) reads as the same rows, and the reward gets each row's
/// fields as the training environment passes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rl_rows_in_every_layout_reach_the_reward_as_in_training() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<&RlRow> = TRAIN.iter().chain(&MATH_MINI[..1]).collect();
    let files: [(&str, Vec<u8>); 3] = [
        ("hub.parquet", hub_rows(TRAIN)),
        (
            "train_verl.json",
            serde_json::to_vec_pretty(&rows.iter().map(|r| verl_row(r)).collect::<Vec<_>>())
                .unwrap(),
        ),
        ("verl.parquet", verl_parquet(TRAIN)),
    ];
    let server = model();
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let task = TaskSpec::from_data(&path, Scorer::Reward(RewardScript::new(KWARGS_CHECK)))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (parsed, errors) = parse_jsonl(&task.data);
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let ip = parsed.iter().find(|r| r.id == "ip-mc2").unwrap();
        assert_eq!(
            ip.input_files.keys().collect::<Vec<_>>(),
            ["doc1.txt", "doc2.txt"],
            "{name}"
        );
        let out_dir = dir.path().join(format!("out-{name}"));
        let out = runner::run(runtime(), &task, parsed, settings(&server, &out_dir))
            .await
            .unwrap();
        assert_eq!(
            out.summary["overall"]["errors"], 0,
            "{name}: {}",
            out.summary
        );
        for (id, score, _) in scores(&out_dir) {
            let want = rows.iter().find(|r| r.id == id).unwrap();
            assert_eq!(
                score,
                Some(if want.answer == want.truth { 1.0 } else { 0.0 }),
                "{name}: {id}"
            );
        }
    }
    // The input files reached the episode's input folder.
    let listed = server.requests().iter().any(|r| {
        r["messages"].as_array().is_some_and(|m| {
            m.iter().any(|m| {
                m["role"] == "tool"
                    && m["content"]
                        .as_str()
                        .is_some_and(|c| c.contains("doc1.txt\ndoc2.txt"))
            })
        })
    });
    assert!(listed, "no episode listed ip-mc2's documents");
}

/// The Hub cache with the RL dataset in the `push_to_hub` layout.
fn rl_hub(root: &Path) -> PathBuf {
    let cache = root.join("hf-hub");
    for (path, rows) in [
        ("instruct_pretrain/train-00000-of-00001.parquet", TRAIN),
        ("math_mini/test-00000-of-00001.parquet", MATH_MINI),
        ("biomed_mini/test-00000-of-00001.parquet", BIOMED_MINI),
        (
            "long_context_mini/test-00000-of-00001.parquet",
            LONG_CONTEXT_MINI,
        ),
    ] {
        cache_dataset_file(&cache, DATASET, COMMIT, path, &hub_rows(rows));
    }
    set_dataset_ref(&cache, DATASET, "main", COMMIT);
    cache
}

fn bench(
    server: &FakeServer,
    hub: &Path,
    out: &Path,
    extra: &[&str],
    path: &str,
) -> std::process::Output {
    let mut c = bin();
    for k in ["LLM_NAME", "LLM_BASE_URL", "LLM_API_KEY", "LLM_NUM_WORKERS"] {
        c.env_remove(k);
    }
    run(c
        .args([
            "benchmark",
            "-q",
            "--llm-name",
            "m",
            "--llm-base-url",
            &server.url,
        ])
        .args(["--num-workers", "2", "--output-dir"])
        .arg(out)
        .args(extra)
        .env("HF_HUB_CACHE", hub)
        .env("HF_HUB_OFFLINE", "1")
        .env("PATH", path))
}

fn only_run_dir(out: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.into_iter().next().unwrap()
}

/// `target/tmp/rl-reward-venv`: a host Python with what the RL training installs for its
/// reward (math-verify, and rouge-score built from its source as pip does), made once.
fn training_reward_python() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(tmp).unwrap();
    let dir = tmp.join("rl-reward-venv");
    let lock = std::fs::File::create(tmp.join("rl-reward-venv.lock")).unwrap();
    lock.lock().unwrap();
    let stamp = dir.join(".ready");
    if stamp.is_file() {
        return dir.join("bin");
    }
    let _ = std::fs::remove_dir_all(&dir);
    crate::common::venv::say("tests: making target/tmp/rl-reward-venv (once)");
    let ok = |c: &mut std::process::Command| {
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    ok(std::process::Command::new("python3")
        .args(["-m", "venv"])
        .arg(&dir));
    ok(std::process::Command::new(dir.join("bin/python")).args([
        "-m",
        "pip",
        "install",
        "-q",
        "math-verify",
        "rouge-score",
    ]));
    std::fs::write(&stamp, "").unwrap();
    dir.join("bin")
}

/// The reference's `instruct_pretrain` task scores the RL data as its training does, in the
/// sandbox and with the host's Python: the RL dataset's train split, its `*_mini` test configs
/// (`--dataset-config`) and the converter's verl file (`--data`); every row scores what the
/// reference's `instruct_pretrain/reward.py` gives it, run unchanged with the other tasks'
/// rewards it imports from the reference package. Needs pip's configured index (math-verify and
/// rouge-score): set `LLM_IN_SANDBOX_SKIP_INDEX_TESTS=1` where there is none.
#[test]
fn instruct_pretrain_scores_the_rl_data_with_the_training_reward() {
    if std::env::var_os("LLM_IN_SANDBOX_SKIP_INDEX_TESTS").is_some() {
        eprintln!("skipped: LLM_IN_SANDBOX_SKIP_INDEX_TESTS is set");
        return;
    }
    let server = model();
    let root = tempfile::tempdir().unwrap();
    let hub = rl_hub(root.path());
    let verl = root.path().join("test_verl.json");
    let mini: Vec<&RlRow> = MATH_MINI
        .iter()
        .chain(BIOMED_MINI)
        .chain(LONG_CONTEXT_MINI)
        .collect();
    std::fs::write(
        &verl,
        serde_json::to_vec_pretty(&mini.iter().map(|r| verl_row(r)).collect::<Vec<_>>()).unwrap(),
    )
    .unwrap();
    let verl_arg = verl.to_string_lossy().into_owned();
    // In the sandbox: the task folder copied with a requirements.txt naming the reward's
    // packages (its sibling rewards still come from the reference package).
    let reference = crate::common::cache_root()
        .join("reference/llm-in-sandbox-0.2.0/llm_in_sandbox/benchmark/instruct_pretrain");
    let copy = root.path().join("tasks/instruct_pretrain");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["config.yaml", "reward.py", "vanilla_llm_prompt.py"] {
        std::fs::copy(reference.join(f), copy.join(f)).unwrap();
    }
    std::fs::write(copy.join("requirements.txt"), "math-verify\nrouge-score\n").unwrap();
    let copy_arg = copy.to_string_lossy().into_owned();
    let sandbox = ["--task", &copy_arg, "--reward-python", "sandbox"];
    // With the host's Python, as the RL training runs it: the reference's own task folder.
    let host = ["--task", "instruct_pretrain", "--reward-python", "host"];
    let path = format!(
        "{}:{}",
        training_reward_python().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    /// One run: its name, how the reward runs, more flags, the rows, the run folder's name.
    struct Run<'a> {
        name: &'a str,
        how: &'a [&'a str],
        extra: Vec<&'a str>,
        rows: Vec<&'a [RlRow]>,
        folder: &'a str,
    }
    let runs = [
        Run {
            name: "sandbox-train",
            how: &sandbox,
            extra: vec![],
            rows: vec![TRAIN],
            folder: "_instruct_pretrain_openai_m_",
        },
        Run {
            name: "sandbox-math",
            how: &sandbox,
            extra: vec!["--dataset-config", "math_mini"],
            rows: vec![MATH_MINI],
            folder: "_instruct_pretrain_math_mini_openai_m_",
        },
        Run {
            name: "sandbox-verl",
            how: &sandbox,
            extra: vec!["--data", &verl_arg],
            rows: vec![MATH_MINI, BIOMED_MINI, LONG_CONTEXT_MINI],
            folder: "_instruct_pretrain_test_verl_openai_m_",
        },
        Run {
            name: "host-train",
            how: &host,
            extra: vec![],
            rows: vec![TRAIN],
            folder: "_instruct_pretrain_openai_m_",
        },
        Run {
            name: "host-long",
            how: &host,
            extra: vec!["--dataset-config", "long_context_mini", "--split", "test"],
            rows: vec![LONG_CONTEXT_MINI],
            folder: "_instruct_pretrain_long_context_mini_test_openai_m_",
        },
    ];
    for Run {
        name,
        how,
        extra,
        rows,
        folder,
    } in runs
    {
        let out = root.path().join(format!("out-{name}"));
        let args: Vec<&str> = how.iter().chain(&extra).copied().collect();
        let o = bench(&server, &hub, &out, &args, &path);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o.stderr));
        let run_dir = only_run_dir(&out);
        let dir_name = run_dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(dir_name.contains(folder), "{name}: {dir_name}");
        assert_scores(&scores(&run_dir), &expected(&rows));
    }
    // The model was prompted by the task folder's own prompts.
    let first = &server.requests()[0];
    let user = first["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("using the provided documents in /testbed/documents/ directory"),
        "{user}"
    );
}

/// What cannot work says so, before any row runs: a bad verl row (with `--bad-rows stop`),
/// a config the RL dataset lacks, a config chosen for a task of local files, rows chosen for
/// one of our own sets.
#[test]
fn bad_rl_rows_and_choices_are_refused_with_the_reason() {
    let server = model();
    let root = tempfile::tempdir().unwrap();
    let hub = rl_hub(root.path());
    let out = root.path().join("out");
    let path = std::env::var("PATH").unwrap_or_default();
    let bad = root.path().join("bad_verl.jsonl");
    let good = verl_row(&TRAIN[0]);
    let mut missing = verl_row(&TRAIN[1]);
    missing["extra_info"]
        .as_object_mut()
        .unwrap()
        .remove("problem_statement");
    let mut torn = verl_row(&TRAIN[2]);
    torn["extra_info"]["input_files"] = json!("{\"a.txt\": ");
    std::fs::write(&bad, format!("{good}\n{missing}\n{torn}\n")).unwrap();
    let bad_arg = bad.to_string_lossy().into_owned();
    let o = bench(
        &server,
        &hub,
        &out,
        &[
            "--task",
            "instruct_pretrain",
            "--bad-rows",
            "stop",
            "--data",
            &bad_arg,
        ],
        &path,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    for needle in [
        "bad row at line 2: missing field `problem_statement` (in `extra_info`)",
        "bad row at line 3: `input_files` is a string but not JSON",
        "2 bad rows",
    ] {
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
    let o = bench(
        &server,
        &hub,
        &out,
        &["--task", "instruct_pretrain", "--dataset-config", "chem"],
        &path,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("has no config \"chem\"")
            && err.contains("biomed_mini, instruct_pretrain, long_context_mini, math_mini"),
        "{err}"
    );
    let o = bench(
        &server,
        &hub,
        &out,
        &["--task", "demo", "--dataset-config", "math_mini"],
        &path,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("reads local files, not a Hub dataset"),
        "{}",
        text(&o.stderr)
    );
    let o = bench(
        &server,
        &hub,
        &out,
        &["--task", "quick-math", "--data", &bad_arg],
        &path,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not of our quick-math"),
        "{}",
        text(&o.stderr)
    );
    assert!(server.requests().is_empty(), "no row may run");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none());
}
