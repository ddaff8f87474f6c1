//! Differential test against the reference's own code: its `Agent` (from its published wheel,
//! imported by the host's python3 with stand-ins for litellm, rich, pydantic and docker, and a
//! runtime that runs `bash -c` in a temporary folder standing for /testbed) and our `run`, both
//! driven by the same scripted model turns (`tests/fixtures/reference_agent/scenarios/`). Every
//! request each sends to the model must be the same, message by message, with the tool
//! definitions byte for byte (key order included); so must the trajectory steps and the files
//! left in the output folder. Scenarios 13-15 send every kind of malformed argument (missing,
//! null, empty, of the wrong type, extra) to each tool: where the reference's own tool code
//! raises, the driver gives its agent the exception's text (`TypeError: ...`) as the
//! observation, which is what we show the model, so those steps are compared too.

use std::path::{Path, PathBuf};
use std::process::Command;

use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference_agent")
}

/// The reference package, unpacked in the shared cache (fetched with pip on first use).
fn reference_root() -> PathBuf {
    let cache = crate::common::cache_root();
    llm_in_sandbox::reference::Reference::ensure(&cache, None, &|m| eprintln!("setup: {m}"))
        .unwrap_or_else(|e| panic!("cannot get the reference package: {e}"))
        .root()
        .to_path_buf()
}

/// The scenario's replies for our fake server: what its stand-in litellm returns, as HTTP.
fn replies(scenario: &Value) -> Vec<Reply> {
    let mut out = Vec::new();
    for (i, r) in scenario["responses"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(e) = r["error"].as_str() {
            let lower = e.to_lowercase();
            // The reference tells a context-length error by its words; a server says it with 400.
            let status = if lower.contains("maximum context") || lower.contains("context length") {
                400
            } else {
                500
            };
            out.push(Reply::status(
                status,
                &json!({"error": {"message": e}}).to_string(),
            ));
            continue;
        }
        let mut message = json!({"role": "assistant", "content": r["content"]});
        if let Some(rc) = r["reasoning_content"].as_str() {
            message["reasoning_content"] = json!(rc);
        }
        // What litellm files under provider_specific_fields came as the message's own fields.
        for (k, v) in r["provider_specific_fields"]
            .as_object()
            .into_iter()
            .flatten()
        {
            message[k] = v.clone();
        }
        let calls: Vec<Value> = r["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                json!({"id": c["id"], "type": "function",
                       "function": {"name": c["name"], "arguments": c["arguments"]}})
            })
            .collect();
        if !calls.is_empty() {
            message["tool_calls"] = json!(calls);
        }
        out.push(Reply {
            status: 200,
            headers: Vec::new(),
            body: json!({
                "id": format!("r{i}"), "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
            })
            .to_string(),
            delay: std::time::Duration::ZERO,
        });
    }
    out
}

/// What the reference did: (request bodies, trajectory, output files).
fn run_reference(scenario_file: &Path, root: &Path, out: &Path) -> Value {
    let python = std::env::var("LLM_IN_SANDBOX_REFERENCE_PYTHON").unwrap_or("python3".into());
    let status = Command::new(python)
        .arg(fixtures().join("drive_reference.py"))
        .arg("--package")
        .arg(root)
        .arg("--scenario")
        .arg(scenario_file)
        .arg("--out")
        .arg(out)
        .status()
        .expect("run the host's python3");
    assert!(
        status.success(),
        "the reference driver failed on {scenario_file:?}"
    );
    serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap()
}

/// What we did, through the real binary: (request bodies, trajectory, output files).
fn run_ours(scenario: &Value, dir: &Path) -> (Vec<Value>, Value, Value) {
    let server = FakeServer::scripted(replies(scenario), None).unwrap();
    let num = |k: &str, d: f64| scenario[k].as_f64().unwrap_or(d);
    let mut cmd = crate::cli::bin();
    for k in [
        "LLM_NAME",
        "LLM_BASE_URL",
        "LLM_API_KEY",
        "LLM_TEMPERATURE",
        "OPENAI_BASE_URL",
    ] {
        cmd.env_remove(k);
    }
    cmd.current_dir(dir)
        .args(["run", "--query"])
        .arg(scenario["problem_statement"].as_str().unwrap())
        .args([
            "--llm-name",
            scenario["llm_name"].as_str().unwrap_or("some-local-model"),
        ])
        .args(["--llm-base-url", &server.url])
        .args(["--max-steps", &num("max_steps", 100.0).to_string()])
        .args([
            "--max-token-limit",
            &num("max_token_limit", 65536.0).to_string(),
        ])
        .args([
            "--max-tokens",
            &num("max_tokens_per_call", 65536.0).to_string(),
        ])
        .args(["--temperature", &num("temperature", 1.0).to_string()])
        // The reference makes five attempts in all.
        .args(["--max-retries", "4"])
        // The driver's stand-in litellm cannot count, so the reference falls back to its
        // character estimate (litellm's own count is checked in `agent::budget`'s tests).
        .args(["--budget", "characters"])
        .args(["--output-dir", "out"]);
    if let Some(b) = scenario.get("extra_body").filter(|b| !b.is_null()) {
        cmd.args(["--extra-body", &b.to_string()]);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let run_dir = std::fs::read_dir(dir.join("out"))
        .unwrap_or_else(|e| panic!("no run folder ({e}); stderr:\n{stderr}"))
        .flatten()
        .next()
        .unwrap_or_else(|| panic!("no run folder; stderr:\n{stderr}"))
        .path();
    let trajectory: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("trajectory.json")).unwrap()).unwrap();
    let mut files = serde_json::Map::new();
    collect(&run_dir.join("files"), "", &mut files);
    (server.requests(), trajectory, Value::Object(files))
}

fn collect(dir: &Path, prefix: &str, out: &mut serde_json::Map<String, Value>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = format!("{prefix}{}", e.file_name().to_string_lossy());
        if e.path().is_dir() {
            collect(&e.path(), &format!("{name}/"), out);
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            out.insert(name, json!(text));
        }
    }
}

/// A step without its timings (wall-clock on both sides), with our extra fields dropped.
fn step(s: &Value) -> Value {
    json!({
        "thought": s["thought"], "action": s["action"], "observation": s["observation"],
        "step": s["metadata"]["step"],
    })
}

/// Compare one scenario; the differences found, as lines.
fn compare(name: &str, reference: &Value, ours: &(Vec<Value>, Value, Value)) -> Vec<String> {
    let (requests, trajectory, files) = ours;
    let mut diffs = Vec::new();
    let theirs = reference["http_bodies"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if theirs.len() != requests.len() {
        diffs.push(format!(
            "{name}: {} requests by the reference, {} by us",
            theirs.len(),
            requests.len()
        ));
    }
    for (i, (a, b)) in theirs.iter().zip(requests).enumerate() {
        // Tool definitions byte for byte, key order included.
        // As bytes: `Value`'s own equality ignores key order.
        let bytes = |v: &Value| serde_json::to_vec(v).unwrap_or_default();
        if bytes(&a["tools"]) != bytes(&b["tools"]) {
            diffs.push(format!(
                "{name}: request {i}: tools differ:\n  reference {}\n  ours      {}",
                a["tools"], b["tools"]
            ));
        }
        for key in ["model", "temperature", "max_tokens"] {
            if a[key] != b[key] {
                diffs.push(format!(
                    "{name}: request {i}: {key}: reference {} ours {}",
                    a[key], b[key]
                ));
            }
        }
        let (ma, mb) = (
            a["messages"].as_array().cloned().unwrap_or_default(),
            b["messages"].as_array().cloned().unwrap_or_default(),
        );
        if ma.len() != mb.len() {
            diffs.push(format!(
                "{name}: request {i}: {} messages by the reference, {} by us",
                ma.len(),
                mb.len()
            ));
        }
        for (j, (x, y)) in ma.iter().zip(&mb).enumerate() {
            if x != y {
                diffs.push(format!(
                    "{name}: request {i} message {j}:\n  reference {x}\n  ours      {y}"
                ));
            }
        }
        let extra = |v: &Value| {
            let mut o = v.as_object().cloned().unwrap_or_default();
            for k in ["model", "messages", "tools", "temperature", "max_tokens"] {
                o.remove(k);
            }
            Value::Object(o)
        };
        if extra(a) != extra(b) {
            diffs.push(format!(
                "{name}: request {i}: other body fields: reference {} ours {}",
                extra(a),
                extra(b)
            ));
        }
    }
    let steps = |t: &Value| -> Vec<Value> {
        t["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .map(step)
            .collect()
    };
    let (sa, sb) = (steps(&reference["trajectory"]), steps(trajectory));
    if sa != sb {
        diffs.push(format!(
            "{name}: trajectory steps differ:\n  reference {}\n  ours      {}",
            json!(sa),
            json!(sb)
        ));
    }
    let total = &reference["trajectory"]["metadata"]["total_steps"];
    if total != &trajectory["metadata"]["total_steps"] {
        diffs.push(format!(
            "{name}: total_steps: reference {total} ours {}",
            trajectory["metadata"]["total_steps"]
        ));
    }
    // No parser's or Rust's wording ever reaches the model.
    for s in trajectory["steps"].as_array().into_iter().flatten() {
        let o = s["observation"].as_str().unwrap_or_default();
        for phrase in [
            "invalid type",
            "expected i64",
            "missing field",
            "bad arguments",
            "serde",
        ] {
            if o.contains(phrase) {
                diffs.push(format!(
                    "{name}: step {}: {phrase:?} in {o:?}",
                    s["metadata"]["step"]
                ));
            }
        }
    }
    if &reference["files"] != files {
        diffs.push(format!(
            "{name}: output files: reference {} ours {files}",
            reference["files"]
        ));
    }
    diffs
}

#[test]
fn our_run_sends_what_the_reference_agent_sends() {
    if Command::new("python3").arg("--version").output().is_err() {
        panic!("the differential test needs the host's python3");
    }
    let root = reference_root();
    let mut names: Vec<PathBuf> = std::fs::read_dir(fixtures().join("scenarios"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    assert!(names.len() >= 15, "expected at least fifteen scenarios");
    let mut diffs = Vec::new();
    let (mut identical, mut requests, mut raised) = (0, 0, 0);
    for file in &names {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let scenario: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let reference = run_reference(file, &root, &tmp.path().join("reference.json"));
        let ours = run_ours(&scenario, tmp.path());
        let found = compare(&name, &reference, &ours);
        raised += reference["raised"].as_array().map_or(0, Vec::len);
        eprintln!(
            "{name}: {} requests, {}",
            ours.0.len(),
            if found.is_empty() {
                "identical"
            } else {
                "DIFFERENT"
            }
        );
        identical += usize::from(found.is_empty());
        requests += ours.0.len();
        diffs.extend(found);
    }
    eprintln!(
        "differential: {identical} of {} scenarios identical to the reference's own Agent ({requests} requests; {raised} calls on which its tool code raised)",
        names.len()
    );
    assert!(
        raised >= 15,
        "the argument-kind scenarios should make the reference's tool code raise ({raised} times)"
    );
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}
