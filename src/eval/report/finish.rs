//! The files a run folder gets once its rows are in `results.jsonl`: the summary
//! (`results.json`, `results.svg`, `summary.txt`, `summary.md`) and the reference's combined
//! `trajectory.json`. Written at the end of a run, after a merge of shards and after a re-judge.

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::{RowResult, markdown, read_results, summarize, svg, table};

/// Write `results.json`, `results.svg`, `summary.txt`, `summary.md` and the combined `trajectory.json` from
/// the folder's `results.jsonl`, keeping the `elapsed_time_seconds` already recorded there.
///
/// # Errors
/// I/O errors.
pub fn finish(run_dir: &Path, config: &Value) -> std::io::Result<Value> {
    let elapsed = std::fs::read_to_string(run_dir.join("results.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["elapsed_time_seconds"].as_f64())
        .unwrap_or(0.0);
    finish_with(run_dir, config, elapsed, &[run_dir])
}

/// [`finish`] with the run's wall-clock seconds and the folders whose `trajectories/` hold
/// the rows' episodes (several for a merge of shards).
///
/// # Errors
/// I/O errors.
pub fn finish_with(
    run_dir: &Path,
    config: &Value,
    elapsed: f64,
    sources: &[&Path],
) -> std::io::Result<Value> {
    let results = read_results(&run_dir.join("results.jsonl"));
    let summary = summarize(&results, config, elapsed);
    crate::fsutil::write_atomic(
        &run_dir.join("results.json"),
        &serde_json::to_vec_pretty(&summary)?,
    )?;
    let label = format!(
        "{} {}",
        config["model"].as_str().unwrap_or("?"),
        config["mode"].as_str().unwrap_or("run")
    );
    let write = crate::fsutil::write_atomic;
    write(
        &run_dir.join("results.svg"),
        svg(&[(&label, &summary)]).as_bytes(),
    )?;
    write(&run_dir.join("summary.txt"), table(&summary).as_bytes())?;
    write(&run_dir.join("summary.md"), markdown(&summary).as_bytes())?;
    write_combined(run_dir, &results, sources)?;
    Ok(summary)
}

/// The row's folder under `trajectories/`.
pub fn trajectory_dir(id: &str, repeat: u32) -> String {
    safe(&format!("{id}_{repeat}"))
}

/// The reference's combined `trajectory.json`: id -> `{problem_statement, trajectory, reward,
/// agent_answer, ground_truth}` (keys `id#k` when a row ran more than once), so its
/// `judge.py` reads our runs unchanged. `reward` is the row's score, 0 for an error row.
fn write_combined(run_dir: &Path, results: &[RowResult], sources: &[&Path]) -> std::io::Result<()> {
    let mut sorted: Vec<&RowResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    sorted.dedup_by(|a, b| a.key == b.key);
    let repeated = sorted.iter().any(|r| r.repeat > 0);
    let path = run_dir.join("trajectory.json");
    let tmp = run_dir.join(".trajectory.json.tmp");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    out.write_all(b"{")?;
    for (i, r) in sorted.iter().enumerate() {
        let episode = sources
            .iter()
            .map(|d| d.join("trajectories").join(trajectory_dir(&r.id, r.repeat)))
            .find(|d| d.join("trajectory.json").is_file() || d.join("events.jsonl").is_file())
            .and_then(|d| crate::agent::trajectory::read(&d).ok());
        let statement = r.problem_statement.clone().or_else(|| {
            episode
                .as_ref()
                .and_then(|e| e["problem_statement"].as_str().map(str::to_string))
        });
        let steps = episode
            .as_ref()
            .map(|e| e["steps"].clone())
            .filter(Value::is_array)
            .unwrap_or_else(|| json!([]));
        let key = if repeated {
            r.key.clone()
        } else {
            r.id.clone()
        };
        let entry = json!({
            "problem_statement": statement.unwrap_or_default(),
            "trajectory": steps,
            "reward": r.score.unwrap_or(0.0),
            "agent_answer": r.answer.clone().unwrap_or_default(),
            "ground_truth": r.ground_truth,
        });
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"\n  ")?;
        serde_json::to_writer(&mut out, &key)?;
        out.write_all(b": ")?;
        serde_json::to_writer(&mut out, &entry)?;
    }
    out.write_all(b"\n}\n")?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&tmp, &path)
}

/// The name (without `.txt`) of a row's console log under `logs/` when rows ran once.
pub fn log_stem(id: &str) -> String {
    safe(id)
}

/// `s` with every character but ASCII letters, digits, `-`, `_` and `.` turned into `_`.
pub(crate) fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
