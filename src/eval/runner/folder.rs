//! The run folder: the identity a resumed run must match, `config.json`, `results.jsonl` and
//! `logs/`.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use sha2::Digest;

use super::settings::BenchSettings;
use super::{RunError, io_err};
use crate::eval::dataset::TaskSpec;
use crate::eval::report::{RowResult, read_results, safe, trajectory_dir};

/// What identifies a run's results: resuming into a folder is allowed only when these match.
pub(super) fn identity(task: &TaskSpec, settings: &BenchSettings) -> Value {
    let hash = |s: &str| hex::encode(&sha2::Sha256::digest(s.as_bytes())[..8]);
    let prompts = &settings.episode.prompts;
    json!({
        "task": task.name,
        "data_sha256": hash(&task.data),
        "model": settings.llm.model,
        "mode": settings.mode.name(),
        "prompts_sha256": hash(&format!(
            "{}\0{}\0{}\0{}\0{}\0{}",
            prompts.system, prompts.instance, prompts.working_dir, prompts.input_dir,
            prompts.output_dir, prompts.answer_file,
        )),
        "llm_prompt_sha256": hash(&format!(
            "{}\0{}",
            task.llm_prompt.as_deref().unwrap_or(""),
            task.llm_prompt_py.as_deref().unwrap_or("")
        )),
        "scorer": task.scorer.name(),
        "judge": settings.judge.as_ref().map(|j| j.model().to_string()),
        "scorer_sha256": hash(&format!("{:?}", task.scorer)),
    })
}

/// Refuse to resume into a folder whose recorded identity differs from this run's.
fn check_resume(dir: &Path, identity: &Value) -> Result<(), RunError> {
    let Ok(text) = std::fs::read_to_string(dir.join("config.json")) else {
        return Ok(()); // a new folder (or one from before identities were recorded)
    };
    let recorded: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let Some(recorded) = recorded.get("identity").and_then(Value::as_object) else {
        return Ok(());
    };
    let mut differences = Vec::new();
    if let Some(now) = identity.as_object() {
        for (k, v) in now {
            match recorded.get(k) {
                // Runs from before the reference's mode names were used.
                Some(old) if k == "mode" && old == "sandbox" && v == "llm-in-sandbox" => {}
                Some(old) if old != v => differences.push(format!("{k}: {old} -> {v}")),
                _ => {}
            }
        }
    }
    if differences.is_empty() {
        return Ok(());
    }
    Err(RunError::Mismatch {
        dir: dir.display().to_string(),
        differences: differences.join(", "),
    })
}

/// Make the run folder (or check that a resumed one was made by this run); the keys of the
/// rows already in its `results.jsonl`.
pub(super) fn open_folder(dir: &Path, identity: &Value) -> Result<HashSet<String>, RunError> {
    check_resume(dir, identity)?;
    let trajectories = dir.join("trajectories");
    std::fs::create_dir_all(&trajectories).map_err(io_err("create", &trajectories))?;
    Ok(read_results(&dir.join("results.jsonl"))
        .into_iter()
        .map(|r| r.key)
        .collect())
}

/// Write `config.json` and open `results.jsonl` for appending (a torn last line from a kill
/// removed first); the seconds already spent in this folder (a resumed run adds to them).
pub(super) fn start_writing(dir: &Path, config: &Value) -> Result<(f64, std::fs::File), RunError> {
    let results_path = dir.join("results.jsonl");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(io_err("create", &logs))?;
    let before = std::fs::read_to_string(dir.join("results.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["elapsed_time_seconds"].as_f64())
        .unwrap_or(0.0);
    let config_path = dir.join("config.json");
    let config_text = serde_json::to_vec_pretty(config).unwrap_or_default();
    crate::fsutil::write_atomic(&config_path, &config_text)
        .map_err(io_err("write", &config_path))?;
    crate::fsutil::drop_torn_tail(&results_path).map_err(io_err("repair", &results_path))?;
    let sink = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results_path)
        .map_err(io_err("open", &results_path))?;
    Ok((before, sink))
}

/// A model name as the reference records it: with the `openai/` prefix its command line adds
/// to a name that has no provider prefix.
pub fn reference_llm_name(model: &str) -> String {
    if ["openai/", "anthropic/", "azure/", "hosted_vllm/"]
        .iter()
        .any(|p| model.starts_with(p))
    {
        model.to_string()
    } else {
        format!("openai/{model}")
    }
}

/// The run's `config` in `results.json`: the reference's keys (`mode`, `llm_name`,
/// `llm_base_url`, `max_steps`, `temperature`, `max_token_limit`, `max_tokens_per_call`,
/// `max_response_len`, `extra_body`, and what the caller adds) beside ours.
pub(super) fn run_config(task: &TaskSpec, settings: &BenchSettings, identity: Value) -> Value {
    let mut config = settings.extra_config.clone();
    let ours = json!({
        "mode": settings.mode.name(),
        "llm_name": reference_llm_name(&settings.llm.model),
        "llm_base_url": settings.llm.base_url,
        "max_steps": settings.episode.max_steps,
        "temperature": settings.llm.temperature,
        "max_token_limit": settings.episode.max_token_limit,
        "max_tokens_per_call": settings.episode.max_tokens,
        "max_response_len": settings.max_response_len,
        // The reference records `null` when no extra body was given.
        "extra_body": (!settings.llm.extra_body.is_empty()).then_some(&settings.llm.extra_body),
        "deviations": settings.episode.deviations,
        "sandbox": "wasm (in-process)",
        "judge": settings.judge.as_ref().map(|j| json!({"model": j.model(), "repeats": j.repeats()})),
        "task": task.name, "model": settings.llm.model, "scorer": task.scorer.name(),
        "repeat": settings.repeat, "start_id": settings.start, "end_id": settings.end,
        "identity": identity,
    });
    if let Value::Object(ours) = ours {
        config.extend(ours);
    }
    Value::Object(config)
}

pub(super) fn append(sink: &mut std::fs::File, result: &RowResult) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(result)?;
    line.push(b'\n');
    // Flushed to the kernel: a killed process loses nothing written. (No fsync per row: it
    // would hold the thread that drives every episode's HTTP for milliseconds per row.)
    sink.write_all(&line)?;
    sink.flush()
}

/// The row's console text and result block, as the reference's `logs/<id>.txt`.
pub(super) fn write_log(settings: &BenchSettings, console: &str, r: &RowResult) {
    let name = if settings.repeat > 1 {
        format!("{}.txt", trajectory_dir(&r.id, r.repeat))
    } else {
        format!("{}.txt", safe(&r.id))
    };
    let bar = "=".repeat(80);
    let text = match (&r.error, r.score) {
        (Some(e), _) => format!(
            "{console}\n{bar}\nProblem ID: {}\nERROR: {e}\nGround Truth: {}\n",
            r.id, r.ground_truth
        ),
        (None, score) => format!(
            "{console}\n{bar}\n### Result ###\nProblem ID: {}\nAgent Answer: {}\nGround Truth: {}\nScore: {:.4}\n{bar}\n",
            r.id,
            r.answer.as_deref().unwrap_or(""),
            r.ground_truth,
            score.unwrap_or(0.0)
        ),
    };
    // A log is a convenience: the row is in results.jsonl either way.
    let _ = std::fs::write(settings.run_dir.join("logs").join(name), text);
}
