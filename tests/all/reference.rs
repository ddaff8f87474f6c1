//! Drop-in for the reference package: its task-folder layout, environment variables, command
//! line spellings, prompt filling, scoring and output files, run through the real binary
//! against a fake model.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli::{run, text};

use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use serde_json::{Value, json};

/// The binary, with none of the variables that would configure it from the environment.
fn bin() -> Command {
    let mut c = crate::cli::bin();
    for k in [
        "LLM_NAME",
        "LLM_BASE_URL",
        "LLM_API_KEY",
        "LLM_TEMPERATURE",
        "LLM_NUM_WORKERS",
        "OPENAI_BASE_URL",
        "LLM_IN_SANDBOX_CONFIG",
    ] {
        c.env_remove(k);
    }
    c
}

/// The fake model: with tools, lists the input folder the prompt names (`INPUT=`) and writes
/// the text after `ANSWER=` to the path after `WRITE_TO=`, then submits; without tools,
/// replies with the answer on the last line.
fn model() -> FakeServer {
    FakeServer::start(Box::new(|req: &Value| {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        let all: String = msgs
            .iter()
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let after = |key: &str| {
            all.split(key)
                .nth(1)
                .and_then(|s| s.split_whitespace().next())
                .unwrap_or("none")
                .to_string()
        };
        let answer = after("ANSWER=");
        if req.get("tools").is_none() {
            return Reply::text(&format!("Thinking about it.\n{answer}"));
        }
        if msgs.iter().any(|m| m["role"] == "tool") {
            return Reply::calls(&[("submit", "{}")]);
        }
        let cmd = format!(
            "ls {} ; echo '{answer}' > {}",
            after("INPUT="),
            after("WRITE_TO=")
        );
        Reply::calls(&[("execute_bash", &json!({"command": cmd}).to_string())])
    }))
    .unwrap()
}

const CONFIG: &str = r#"# A task folder in the reference's layout.
dataset: "json"
data_files: "rt/data.json"
split: "train"
unused_setting: 3

system_prompt: |-
  You solve problems. Work in {working_dir}; inputs: INPUT={input_dir} ; outputs in {output_dir}.
  Answer format: {{"answer": "..."}}{command_docs}

instance_prompt: |-
  <problem>
  {problem_statement}
  </problem>
  Write the answer to WRITE_TO={output_dir}/answer.txt

input_dir: "/testbed/in"
output_dir: "/testbed/out2"
working_dir: "/testbed"
"#;

/// Prints (allowed: the score does not travel on stdout), sees every row field, raises for
/// one row (an error row, which must count as 0).
const REWARD: &str = r#"
def compute_score(agent_answer, ground_truth, **kwargs):
    print("scoring", kwargs.get("id"), "with fields", sorted(kwargs))
    assert "input_files" in kwargs and "problem_statement" in kwargs and "level" in kwargs
    if ground_truth == "RAISE":
        raise ValueError("cannot score this row")
    words = agent_answer.split()
    return 1.0 if words and words[-1] == ground_truth else 0.0
"#;

const VANILLA: &str = r#"
def create_prompt(problem_data):
    return "PLAIN PROMPT for " + problem_data["id"] + ": " + problem_data["problem_statement"]
"#;

/// `bench/rt/` with config.yaml, a JSON-array data file, reward.py, vanilla_llm_prompt.py.
fn task_folder(root: &Path) -> PathBuf {
    let dir = root.join("bench").join("rt");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.yaml"), CONFIG).unwrap();
    std::fs::write(dir.join("reward.py"), REWARD).unwrap();
    std::fs::write(dir.join("vanilla_llm_prompt.py"), VANILLA).unwrap();
    let rows = json!([
        {"id": "q1", "domain": "demo", "problem_statement": "Sum them. ANSWER=42", "ground_truth": "42",
         "input_files": {"numbers.txt": "17\n25"}, "level": 1},
        {"id": "q2", "domain": "demo", "problem_statement": "Capital? ANSWER=Paris", "ground_truth": "Paris",
         "input_files": "{\"notes.txt\": \"x\"}", "level": 2},
        {"id": "q3", "domain": "demo", "problem_statement": "Wrong {braces} kept ANSWER=7", "ground_truth": "8",
         "input_files": {}, "level": 3},
        {"id": "q4", "domain": "demo", "problem_statement": "Unscorable ANSWER=1", "ground_truth": "RAISE",
         "input_files": {}, "level": 4}
    ]);
    std::fs::write(
        dir.join("data.json"),
        serde_json::to_vec_pretty(&rows).unwrap(),
    )
    .unwrap();
    dir
}

/// `benchmark --task TASK --llm-name m --llm-base-url URL EXTRA... --output-dir OUT`.
fn bench(task: &Path, url: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    run(bin()
        .args(["benchmark", "--task"])
        .arg(task)
        .args(["--llm-name", "m", "--llm-base-url", url])
        .args(extra)
        .arg("--output-dir")
        .arg(out))
}

fn only_run_dir(out: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

fn json_file(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .unwrap()
}

#[test]
fn a_reference_task_folder_runs_unchanged_in_both_modes() {
    let server = model();
    let root = tempfile::tempdir().unwrap();
    let task = task_folder(root.path());
    let out = root.path().join("out");
    // Configuration from the environment only, the reference's spellings on the command line.
    let o = run(bin()
        .args(["benchmark", "--task"])
        .arg(&task)
        .args([
            "--mode",
            "llm-in-sandbox",
            "--num_workers",
            "2",
            "--extra_body",
            r#"{"chat_template_kwargs": {"thinking": True}, 'stop': None}"#,
            "--docker_image",
            "cdx123/llm-in-sandbox:v0.1",
        ])
        .arg("--output_dir")
        .arg(&out)
        .env("LLM_NAME", "openai/fake-model")
        .env("LLM_BASE_URL", &server.url)
        .env("LLM_API_KEY", "sk-test"));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("`unused_setting` is not used"), "{err}");
    assert!(err.contains("--docker_image"), "{err}");

    // What was sent: the reference's defaults and the Python-literal extra body.
    let reqs = server.requests();
    let first = &reqs[0];
    assert_eq!(first["model"], "fake-model");
    assert_eq!(first["temperature"], 1.0);
    assert_eq!(first["max_tokens"], 65536);
    assert_eq!(first["chat_template_kwargs"]["thinking"], true);
    assert_eq!(first["stop"], Value::Null);
    // As the reference's runner: a config with inline prompts gets the default folders,
    // whatever its input_dir/output_dir say (said on stderr).
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system
            .contains("Work in /testbed; inputs: INPUT=/testbed/documents ; outputs in /testbed.")
            && system.contains(r#"Answer format: {"answer": "..."}"#)
            && !system.contains("{command_docs}"),
        "{system}"
    );
    let user = first["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("WRITE_TO=/testbed/answer.txt"), "{user}");
    assert!(err.contains("--task-folders config"), "{err}");

    let run_dir = only_run_dir(&out);
    let name = run_dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.ends_with("_rt_openai_fake-model_LLMinSandbox"),
        "{name}"
    );
    let results = json_file(&run_dir.join("results.json"));
    assert_eq!(results["task"], "rt");
    assert_eq!(results["total"], 4);
    assert_eq!(results["num_errors"], 1);
    // q1, q2 right, q3 wrong, q4 an error counted as 0, as the reference counts it.
    assert_eq!(results["mean_score"], 0.5, "{results}");
    let scored = results["mean_score_scored"].as_f64().unwrap();
    assert!((scored - 2.0 / 3.0).abs() < 1e-9, "{results}");
    assert!(results["elapsed_time_seconds"].as_f64().unwrap() > 0.0);
    let config = &results["config"];
    assert_eq!(config["mode"], "llm-in-sandbox");
    assert_eq!(config["llm_name"], "openai/fake-model");
    assert_eq!(config["deviations"]["shell"], "reference");
    assert_eq!(config["deviations"]["editor"], "reference");
    assert_eq!(config["max_tokens_per_call"], 65536);
    assert_eq!(config["docker_image"], "cdx123/llm-in-sandbox:v0.1");

    // The combined trajectory.json a reference judge.py reads.
    let traj = json_file(&run_dir.join("trajectory.json"));
    let ids: Vec<&String> = traj.as_object().unwrap().keys().collect();
    assert_eq!(ids, ["q1", "q2", "q3", "q4"]);
    let q1 = &traj["q1"];
    assert_eq!(q1["problem_statement"], "Sum them. ANSWER=42");
    assert_eq!(q1["agent_answer"], "42");
    assert_eq!(q1["ground_truth"], "42");
    assert_eq!(q1["reward"], 1.0);
    assert_eq!(traj["q4"]["reward"], 0.0);
    // Input files went where input_dir says (the model listed that folder).
    let obs = q1["trajectory"][0]["observation"].as_str().unwrap();
    assert!(obs.contains("numbers.txt"), "{obs}");
    assert!(
        traj["q2"]["trajectory"][0]["observation"]
            .as_str()
            .unwrap()
            .contains("notes.txt")
    );
    let log = std::fs::read_to_string(run_dir.join("logs").join("q1.txt")).unwrap();
    assert!(
        log.contains("### Result ###")
            && log.contains("Agent Answer: 42")
            && log.contains("Score: 1.0000"),
        "{log}"
    );
    let log = std::fs::read_to_string(run_dir.join("logs").join("q4.txt")).unwrap();
    assert!(
        log.contains("ERROR:") && log.contains("cannot score this row"),
        "{log}"
    );

    // The same folder in plain-LLM mode: vanilla_llm_prompt.py builds the prompt, the whole
    // reply is the answer.
    let out_llm = root.path().join("out-llm");
    let o = run(bin()
        .args(["benchmark", "--task"])
        .arg(&task)
        .args(["--mode", "llm", "--llm_name", "hosted_vllm/fake-model"])
        .arg("--llm_base_url")
        .arg(&server.url)
        .arg("--output_dir")
        .arg(&out_llm));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let plain: Vec<Value> = server
        .requests()
        .into_iter()
        .filter(|r| r.get("tools").is_none())
        .collect();
    assert_eq!(plain.len(), 4);
    let prompt = plain
        .iter()
        .map(|r| r["messages"][0]["content"].as_str().unwrap().to_string())
        .find(|p| p.contains("q3"))
        .unwrap();
    assert_eq!(prompt, "PLAIN PROMPT for q3: Wrong {braces} kept ANSWER=7");
    let run_dir = only_run_dir(&out_llm);
    assert!(run_dir.to_string_lossy().ends_with("_vanillaLLM"));
    let results = json_file(&run_dir.join("results.json"));
    assert_eq!(results["mean_score"], 0.5, "{results}");
    assert_eq!(results["config"]["mode"], "llm");
    let traj = json_file(&run_dir.join("trajectory.json"));
    assert_eq!(traj["q1"]["agent_answer"], "Thinking about it.\n42");
}

#[test]
fn prompts_that_do_not_fill_are_refused_naming_the_placeholder_and_file() {
    let root = tempfile::tempdir().unwrap();
    let task = task_folder(root.path());
    let cfg = CONFIG.replace(
        "Write the answer",
        "Format: {answer_format}. Write the answer",
    );
    std::fs::write(task.join("config.yaml"), cfg).unwrap();
    let o = run(bin().args(["benchmark", "--task"]).arg(&task).args([
        "--llm-name",
        "m",
        "--llm-base-url",
        "http://127.0.0.1:9/v1",
    ]));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("{answer_format}")
            && err.contains("config.yaml")
            && err.contains("instance_prompt"),
        "{err}"
    );
}

#[test]
fn a_reward_that_needs_a_missing_package_stops_the_run_naming_it() {
    let server = model();
    let root = tempfile::tempdir().unwrap();
    let task = task_folder(root.path());
    std::fs::write(
        task.join("reward.py"),
        "from math_verify import parse\n\ndef compute_score(a, g, **k):\n    return 1.0\n",
    )
    .unwrap();
    let o = bench(&task, &server.url, &root.path().join("out"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("`math_verify`") && err.contains("--reward-python host"),
        "{err}"
    );
    assert!(server.requests().is_empty(), "no row may run");
}

#[test]
fn reward_python_host_runs_the_task_code_with_the_hosts_python() {
    let server = model();
    let root = tempfile::tempdir().unwrap();
    let task = task_folder(root.path());
    // A sibling module next to reward.py, importable as in the reference (it imports the
    // reward from its folder); the platform shows where it ran.
    std::fs::write(task.join("helper.py"), "GOOD = 1.0\n").unwrap();
    std::fs::write(
        task.join("reward.py"),
        "import sys\nfrom helper import GOOD\n\ndef compute_score(a, g, **k):\n    print('noise')\n    return GOOD if sys.platform != 'wasi' and a.split()[-1:] == [g] else 0.0\n",
    )
    .unwrap();
    let o = run(bin()
        .args(["benchmark", "--task"])
        .arg(&task)
        .args([
            "--reward-python",
            "host",
            "--llm-name",
            "m",
            "--llm-base-url",
            &server.url,
        ])
        .arg("--output-dir")
        .arg(root.path().join("out")));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let results = json_file(&only_run_dir(&root.path().join("out")).join("results.json"));
    // q1, q2 right; q3 wrong; q4 ("RAISE") is just wrong for this reward.
    assert_eq!(results["mean_score"], 0.5, "{results}");
    assert_eq!(results["num_errors"], 0);
}

#[test]
fn an_unknown_task_name_lists_the_references_tasks_and_ours() {
    let o = run(bin().args(["benchmark", "--task", "nonesuch", "--llm-name", "m"]));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("instruct_pretrain") && err.contains("quick-math") && err.contains("--data"),
        "{err}"
    );
    for (alias, ours) in [
        ("chem", "chemistry"),
        ("biomed", "biomedicine"),
        ("instruct_follow", "instruction_following"),
    ] {
        let t = llm_in_sandbox::eval::TaskSpec::builtin(alias).unwrap();
        assert_eq!(t.name, ours);
    }
}

/// The reference's task folder, from the wheel in the shared cache.
fn reference_task(name: &str) -> PathBuf {
    let cache = crate::common::cache_root();
    llm_in_sandbox::reference::Reference::ensure(&cache, None, &|_| {})
        .unwrap()
        .task_dir(name)
        .unwrap_or_else(|| panic!("the reference has no task {name}"))
}

#[test]
fn a_task_name_is_the_references_own_task_with_its_prompts_tools_and_folders() {
    // The model answers each row of the reference's demo data (read from its wheel) where the
    // prompt says to write it, then submits.
    let demo = reference_task("demo");
    let rows: Vec<Value> =
        serde_json::from_slice(&std::fs::read(demo.join("data.json")).unwrap()).unwrap();
    let answers: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["problem_statement"].as_str().unwrap().to_string(),
                r["ground_truth"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let server = FakeServer::start(Box::new(move |req: &Value| {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        if msgs.iter().any(|m| m["role"] == "tool") {
            return Reply::calls(&[("submit", "{}")]);
        }
        let user = msgs[1]["content"].as_str().unwrap_or_default();
        let path = user
            .split("write the final answer to ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("/nowhere");
        let answer = answers
            .iter()
            .find(|(p, _)| user.contains(p.as_str()))
            .map(|(_, a)| a.clone())
            .unwrap_or_default();
        let cmd = format!("printf '%s' '{answer}' > {path}");
        Reply::calls(&[("execute_bash", &json!({"command": cmd}).to_string())])
    }))
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let o = run(bin()
        .args([
            "benchmark",
            "--task",
            "demo",
            "--llm-name",
            "m",
            "--llm-base-url",
            &server.url,
        ])
        .arg("--output-dir")
        .arg(&out));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let run_dir = only_run_dir(&out);
    let results = json_file(&run_dir.join("results.json"));
    assert_eq!(results["task"], "demo");
    assert_eq!(results["total"], rows.len());
    // The answers were written where the reference's runner reads them (/testbed/answer.txt,
    // not the config's output_dir) and scored by the reference's own reward.py.
    assert_eq!(results["mean_score"], 1.0, "{results}");
    let first = &server.requests()[0];
    let user = first["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("write the final answer to /testbed/answer.txt")
            && user.contains("Input files (if any): /testbed/documents\n"),
        "{user}"
    );
    // The reference's tools, in its order, as evaluated from its tools.py.
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["str_replace_editor", "execute_bash", "submit"]);
    assert!(
        !first["tools"].to_string().contains("undo_edit"),
        "the reference's editor has no undo_edit"
    );
}

/// A task folder whose reward is the reference's own `instruct_follow/reward.py`.
fn instruct_follow_folder(root: &Path) -> PathBuf {
    let dir = root.join("bench").join("if");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        reference_task("instruct_follow").join("reward.py"),
        dir.join("reward.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("config.yaml"),
        "dataset: json\ndata_files: if/data.json\n",
    )
    .unwrap();
    let truth =
        json!({"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}).to_string();
    let rows: Vec<Value> = (1..=4)
        .map(|i| json!({"id": format!("r{i}"), "domain": "if", "problem_statement": "Write a sentence.", "ground_truth": truth}))
        .collect();
    std::fs::write(dir.join("data.json"), serde_json::to_vec(&rows).unwrap()).unwrap();
    dir
}

#[test]
fn a_reward_that_swallows_its_failed_import_stops_the_run_naming_it() {
    let server = model();
    let root = tempfile::tempdir().unwrap();
    let task = instruct_follow_folder(root.path());
    let o = run(bin()
        .args(["benchmark", "--task"])
        .arg(&task)
        .args(["--llm-name", "m", "--llm-base-url", &server.url])
        .env("IFBENCH_PATH", root.path().join("no-ifbench-here"))
        .arg("--output-dir")
        .arg(root.path().join("out")));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`instructions_registry`") && err.contains("ground truth"),
        "{err}"
    );
    assert!(server.requests().is_empty(), "no row may run");
}

#[test]
fn reward_python_auto_moves_a_reward_to_the_host_when_only_the_host_has_its_imports() {
    let server = model();
    let root = tempfile::tempdir().unwrap();
    let task = task_folder(root.path());
    // curses exists in the host's CPython, not in the WebAssembly one.
    std::fs::write(
        task.join("reward.py"),
        "import sys, curses\n\ndef compute_score(a, g, **k):\n    return 1.0 if sys.platform != 'wasi' and a.split()[-1:] == [g] else 0.0\n",
    )
    .unwrap();
    let o = bench(&task, &server.url, &root.path().join("out"), &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("runs with the host's python3") && err.contains("curses"),
        "{err}"
    );
    let results = json_file(&only_run_dir(&root.path().join("out")).join("results.json"));
    assert_eq!(results["mean_score"], 0.5, "{results}");
    // Forced into the sandbox, it stops the run instead.
    let o = bench(
        &task,
        &server.url,
        &root.path().join("out2"),
        &["--reward-python", "sandbox"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}

#[test]
fn a_judge_scored_task_is_judged_as_rows_finish() {
    // One server for the agent and the judge; the judge says CORRECT (after some thinking)
    // only for the Paris row.
    let server = FakeServer::start(Box::new(|req: &Value| {
        if req["model"] == "judge-m" {
            let prompt = req["messages"][0]["content"].as_str().unwrap_or("");
            return Reply::text(if prompt.contains("Paris") {
                "<think>looks INCORRECT at first</think> CORRECT"
            } else {
                "INCORRECT"
            });
        }
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        if msgs.iter().any(|m| m["role"] == "tool") {
            return Reply::calls(&[("submit", "{}")]);
        }
        let all = msgs[1]["content"].as_str().unwrap_or("").to_string();
        let answer = all
            .split("ANSWER=")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("x");
        let cmd = format!("echo {answer} > /testbed/out2/answer.txt");
        Reply::calls(&[("execute_bash", &json!({"command": cmd}).to_string())])
    }))
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    let task = task_folder(root.path());
    let cfg = CONFIG.replace("unused_setting: 3", "scorer: judge");
    std::fs::write(task.join("config.yaml"), cfg).unwrap();
    let o = run(bin()
        .args(["benchmark", "--task"])
        .arg(&task)
        .args(["--llm-name", "m", "--llm-base-url", &server.url])
        .arg("--output-dir")
        .arg(root.path().join("out")));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--judge-model"),
        "{}",
        text(&o.stderr)
    );
    let o = run(bin()
        .args(["benchmark", "--task"])
        .arg(&task)
        .args(["--llm-name", "m", "--llm-base-url", &server.url])
        .args(["--judge-model", "judge-m", "--judge-repeats", "2"])
        .arg("--output-dir")
        .arg(root.path().join("out")));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let judge_calls: Vec<Value> = server
        .requests()
        .into_iter()
        .filter(|r| r["model"] == "judge-m")
        .collect();
    assert_eq!(judge_calls.len(), 8, "4 rows x 2 repeats");
    assert!(
        judge_calls
            .iter()
            .all(|r| r["temperature"] == 0.7 && r["max_tokens"] == 16384)
    );
    let run_dir = only_run_dir(&root.path().join("out"));
    let results = json_file(&run_dir.join("results.json"));
    assert_eq!(results["mean_score"], 0.25, "{results}");
    assert_eq!(results["config"]["judge"]["model"], "judge-m");
    let rows = llm_in_sandbox::eval::report::read_results(&run_dir.join("results.jsonl"));
    let q2 = rows.iter().find(|r| r.id == "q2").unwrap();
    assert_eq!(q2.score, Some(1.0));
    assert_eq!(
        q2.judge.as_ref().unwrap()["verdicts"],
        json!(["CORRECT", "CORRECT"])
    );
    let traj = json_file(&run_dir.join("trajectory.json"));
    assert_eq!(traj["q2"]["reward"], 1.0);
    assert_eq!(traj["q1"]["reward"], 0.0);
}

#[test]
fn a_hub_dataset_loads_from_the_hub_cache_by_name() {
    use crate::hub::{COMMIT, cache_file, parquet_bytes, set_ref, tasks};
    let server = model();
    let root = tempfile::tempdir().unwrap();
    // HF_HOME/hub laid out as `huggingface-cli download` leaves it (push_to_hub file names).
    let hub = root.path().join("hf").join("hub");
    let rows = tasks("hubrow", 3, false);
    cache_file(
        &hub,
        COMMIT,
        "math/test-00000-of-00001.parquet",
        &parquet_bytes(&rows, parquet::basic::Compression::SNAPPY),
    );
    set_ref(&hub, "main", COMMIT);
    let task = root.path().join("hubtask");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::write(
        task.join("config.yaml"),
        "dataset: \"owner/bench\"\nconfig: \"math\"\nsplit: \"test\"\n",
    )
    .unwrap();
    let bench = |extra: &[&str], hf_home: &Path| {
        run(bin()
            .args(["benchmark", "--task"])
            .arg(&task)
            .args([
                "--mode",
                "llm",
                "--llm-name",
                "m",
                "--llm-base-url",
                &server.url,
            ])
            .args(extra)
            .arg("--output-dir")
            .arg(root.path().join("out"))
            .env("HF_HOME", hf_home)
            .env_remove("HF_HUB_CACHE")
            .env("HF_HUB_OFFLINE", "1"))
    };
    let o = bench(&[], &root.path().join("hf"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let run_dir = only_run_dir(&root.path().join("out"));
    let results = json_file(&run_dir.join("results.json"));
    assert_eq!(results["total"], 3, "{results}");
    let traj = json_file(&run_dir.join("trajectory.json"));
    assert_eq!(
        traj["hubrow-2"]["problem_statement"],
        "hubrow problem 2: what is 2 + 2?"
    );
    assert_eq!(traj["hubrow-2"]["ground_truth"], "4");
    // Not cached and offline: the error says how to fetch it.
    let o = bench(&[], &root.path().join("empty"));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("huggingface-cli download owner/bench"),
        "{err}"
    );
}

#[test]
fn plain_llm_mode_fits_max_tokens_to_a_small_context_as_the_reference() {
    // A 20k-context server: the reference's 65536 default does not fit; vLLM says how much
    // does, and the retry asks for exactly that.
    let server = FakeServer::start(Box::new(|req: &Value| {
        if req["max_tokens"].as_u64().unwrap_or(0) > 9900 {
            return Reply::status(
                400,
                r#"{"error": {"message": "This model's maximum context length is 20000 tokens. However, you requested 75536 tokens (10000 tokens from the input messages and 65536 tokens for the completion)."}}"#,
            );
        }
        Reply::text("Thinking about it.\n42")
    }))
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    let task = task_folder(root.path());
    let o = run(bin()
        .args(["benchmark", "--task"])
        .arg(&task)
        .args([
            "--mode",
            "llm",
            "--end_id",
            "1",
            "--llm-name",
            "m",
            "--llm-base-url",
            &server.url,
        ])
        .arg("--output-dir")
        .arg(root.path().join("out")));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let sent: Vec<u64> = server
        .requests()
        .iter()
        .map(|r| r["max_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(sent, [65536, 9900]);
    let results = json_file(&only_run_dir(&root.path().join("out")).join("results.json"));
    assert_eq!(results["mean_score"], 1.0, "{results}");
}
