//! Running a benchmark: rows × repeats, sharded and resumable, many episodes at once.
//!
//! [`run`] is the whole run, one file a step: the task made ready (`prepare`, `reward_check`),
//! the run folder opened or resumed (`folder`), the jobs planned and driven (`jobs`), each
//! job's row made (`row`: a sandbox `episode` whose files are kept (`keep`), or one
//! `plain_llm` call; then scored and judged), the progress shown (`progress`). What a run is
//! asked and what it returns: `settings`.

mod episode;
mod folder;
mod jobs;
mod keep;
mod plain_llm;
mod prepare;
mod progress;
mod reward_check;
mod row;
mod settings;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

// Re-exported so the paths `eval::runner::{finish, trajectory_dir, ...}` keep working.
pub use super::report::{finish, finish_with, log_stem, trajectory_dir};
pub use folder::reference_llm_name;
pub use plain_llm::llm_prompt;
pub use progress::ProgressOutput;
pub use settings::{BenchOutcome, BenchSettings, Mode, Shard};

use super::dataset::{Row, TaskSpec};
use super::report::RowResult;
use crate::llm::Client;
use crate::runtime::Runtime;
use folder::{identity, open_folder, run_config, start_writing};
use jobs::{plan, record_jobs};
use prepare::prepare_task;
use progress::Progress;

/// Errors that stop a benchmark run (per-row failures are rows with an error instead).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The run folder could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A finished row could not be appended to `results.jsonl`: the run stopped, so no row
    /// is computed that cannot be recorded.
    #[error(
        "cannot append a result to {path}: {source}; the run stopped ({done} rows recorded, \
         {pending} not); fix the cause and continue with --resume {dir}"
    )]
    Record {
        /// `results.jsonl`.
        path: PathBuf,
        /// The run folder.
        dir: String,
        /// Rows recorded before the failure (this run).
        done: usize,
        /// Rows not recorded.
        pending: usize,
        /// The OS error.
        source: std::io::Error,
    },
    /// The task's prompt file cannot be used.
    #[error(transparent)]
    Prompts(#[from] crate::agent::prompt::PromptError),
    /// The model client cannot be built.
    #[error(transparent)]
    Client(#[from] crate::llm::LlmError),
    /// The task's `reward.py` cannot run at all (a missing package): checked before any row.
    #[error("{0}")]
    Reward(String),
    /// The task's `requirements.txt` cannot be installed (pip off, no pure-Python wheel, the
    /// index unreachable): checked before any row.
    #[error("task {task}: its requirements.txt cannot be installed: {detail}")]
    Requirements {
        /// The task's name.
        task: String,
        /// Why.
        detail: String,
    },
    /// `--resume` into a folder made by a different run.
    #[error(
        "cannot resume {dir}: it was made by a different run ({differences}); start a new run \
         folder, or resume with the same task, data, model, mode, prompts and scorer"
    )]
    Mismatch {
        /// The run folder.
        dir: String,
        /// `key: recorded -> now`, comma-separated.
        differences: String,
    },
}

/// A [`RunError::Io`] of `action` on `path`, for `map_err`.
fn io_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> RunError + 'a {
    move |source| RunError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// One attempt at a row: the row, which repeat, and its key in `results.jsonl` (`id#repeat`).
struct Job {
    key: String,
    row: Arc<Row>,
    repeat: u32,
}

impl Job {
    /// A stand-in, for a finished task that is not among the jobs in flight.
    fn unknown() -> Job {
        Job {
            key: "unknown".into(),
            row: Arc::new(Row {
                id: "unknown".into(),
                domain: String::new(),
                problem_statement: String::new(),
                ground_truth: String::new(),
                input_files: Default::default(),
                scorer: None,
                extra: Default::default(),
            }),
            repeat: 0,
        }
    }
}

/// A row's result before anything ran (also what a panicked job reports).
fn blank_result(job: &Job) -> RowResult {
    let row = &job.row;
    RowResult {
        key: job.key.clone(),
        id: row.id.clone(),
        repeat: job.repeat,
        domain: row.domain.clone(),
        score: None,
        error: None,
        answer: None,
        ground_truth: row.ground_truth.clone(),
        stop: String::new(),
        steps: 0,
        tokens: 0,
        llm_seconds: 0.0,
        sandbox_seconds: 0.0,
        warning: None,
        problem_statement: Some(row.problem_statement.clone()),
        reward: None,
        judge: None,
        no_call_steps: 0,
    }
}

/// What every job of a run shares.
struct Shared {
    runtime: Arc<Runtime>,
    task: TaskSpec,
    settings: BenchSettings,
    client: Client,
    /// The rows in flight, which their episodes report into.
    live: Arc<progress::Live>,
}

/// Run `task` on `rows` (already parsed and filtered for errors): at most `workers` episodes
/// at once, each finished row appended to `results.jsonl` before the next one starts. A job
/// that panics becomes an error row with the panic's message.
///
/// # Errors
/// [`RunError`]: the run folder failed, a result could not be recorded (the run stops), or
/// `--resume` names a folder made by a different run.
pub async fn run(
    runtime: Arc<Runtime>,
    task: &TaskSpec,
    rows: Vec<Row>,
    settings: BenchSettings,
) -> Result<BenchOutcome, RunError> {
    let started = Instant::now();
    let mut settings = settings;
    let task = prepare_task(&runtime, task, &rows, &mut settings).await?;
    // One HTTP client (one connection pool) for every episode of the run.
    let client = Client::new(settings.llm.clone())?;
    let dir = settings.run_dir.clone();
    let identity = identity(&task, &settings);
    let finished = open_folder(&dir, &identity)?;
    let (jobs, resumed) = plan(rows, &settings, &finished);
    let config = run_config(&task, &settings, identity);
    let (before, sink) = start_writing(&dir, &config)?;
    let mut progress = Progress::new(jobs.len(), settings.progress);
    let ran = jobs.len();
    let shared = Arc::new(Shared {
        runtime,
        task,
        settings,
        client,
        live: progress.live(),
    });
    record_jobs(&shared, jobs, sink, &mut progress, &dir).await?;
    let elapsed = before + started.elapsed().as_secs_f64();
    let summary =
        finish_with(&dir, &config, elapsed, &[&dir]).map_err(io_err("write results in", &dir))?;
    progress.finish(&summary, &dir, resumed);
    Ok(BenchOutcome {
        summary,
        ran,
        resumed,
    })
}
