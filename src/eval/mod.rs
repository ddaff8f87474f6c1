//! `benchmark`: evaluate a model on a task set, many episodes at once, with scores per domain,
//! resumable runs and shards.

pub mod dataset;
pub mod gate;
pub mod hub;
pub mod judge;
pub mod package;
pub mod report;
pub mod rows;
pub mod runner;
pub mod score;
pub mod spec;
mod task_error;

pub use dataset::{RowError, TaskSpec, parse_jsonl};
pub use runner::{BenchOutcome, BenchSettings, Mode, ProgressOutput, Shard};
pub use score::Score;
pub use spec::{RewardScript, Row, Scorer};
pub use task_error::TaskError;

/// Task sets shipped with the project (`tasks/*.jsonl`): name, JSONL, default scorer.
pub const BUILTIN_TASKS: &[(&str, &str, &str)] = &[
    ("math", include_str!("../../tasks/math.jsonl"), "math"),
    (
        "physics",
        include_str!("../../tasks/physics.jsonl"),
        "numeric",
    ),
    (
        "chemistry",
        include_str!("../../tasks/chemistry.jsonl"),
        "numeric",
    ),
    (
        "biomedicine",
        include_str!("../../tasks/biomedicine.jsonl"),
        "numeric",
    ),
    (
        "long_context",
        include_str!("../../tasks/long_context.jsonl"),
        "exact",
    ),
    (
        "instruction_following",
        include_str!("../../tasks/instruction_following.jsonl"),
        "exact",
    ),
    (
        "demo",
        concat!(
            include_str!("../../tasks/math.jsonl"),
            include_str!("../../tasks/physics.jsonl"),
            include_str!("../../tasks/chemistry.jsonl"),
            include_str!("../../tasks/biomedicine.jsonl"),
            include_str!("../../tasks/long_context.jsonl"),
            include_str!("../../tasks/instruction_following.jsonl"),
        ),
        "exact",
    ),
];

/// Join the `results.jsonl` of several run folders (e.g. shards) into `out`, and write the same
/// `results.json` one unsharded run would have. Rows present twice are kept once.
///
/// # Errors
/// I/O errors.
pub fn merge(
    dirs: &[std::path::PathBuf],
    out: &std::path::Path,
) -> std::io::Result<serde_json::Value> {
    use std::io::Write;
    let mut all = Vec::new();
    let mut config = serde_json::Value::Null;
    // Shards run side by side: the merged run took as long as the longest.
    let mut elapsed = 0f64;
    for d in dirs {
        all.extend(report::read_results(&d.join("results.jsonl")));
        if let Some(e) = std::fs::read_to_string(d.join("results.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["elapsed_time_seconds"].as_f64())
        {
            elapsed = elapsed.max(e);
        }
        if config.is_null()
            && let Ok(text) = std::fs::read_to_string(d.join("config.json"))
        {
            config = serde_json::from_str(&text).unwrap_or_default();
        }
    }
    all.sort_by(|a, b| a.key.cmp(&b.key));
    all.dedup_by(|a, b| a.key == b.key);
    std::fs::create_dir_all(out)?;
    // Each file appears whole or not at all: a merge killed half-way leaves no torn file, and
    // running it again gives the same folder.
    let mut rows = Vec::new();
    for r in &all {
        writeln!(rows, "{}", serde_json::to_string(r).unwrap_or_default())?;
    }
    crate::fsutil::write_atomic(&out.join("results.jsonl"), &rows)?;
    crate::fsutil::write_atomic(
        &out.join("config.json"),
        &serde_json::to_vec_pretty(&config)?,
    )?;
    let sources: Vec<&std::path::Path> = dirs.iter().map(|d| d.as_path()).collect();
    report::finish_with(out, &config, elapsed, &sources)
}
