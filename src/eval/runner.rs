//! Running a benchmark: rows × repeats, sharded and resumable, many episodes at once.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::Digest;
use tokio::task::JoinSet;

use super::dataset::{Row, TaskSpec};
use super::report::{RowResult, read_results, safe};
// Re-exported so the paths `eval::runner::{finish, trajectory_dir, ...}` keep working.
pub use super::report::{finish, finish_with, log_stem, trajectory_dir};
use super::score::{Score, extract};
use super::spec::{RewardScript, Scorer};
use crate::agent::{EpisodeSettings, EpisodeSpec, SandboxSettings, setup};
use crate::llm::{Client, LlmConfig, Message};
use crate::runtime::Runtime;

/// Sandbox (tools) or plain LLM (documents pasted into the prompt, no tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The model works in a sandbox.
    Sandbox,
    /// One plain chat completion.
    Llm,
}

impl Mode {
    /// The reference's names: `llm-in-sandbox` or `llm`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sandbox => "llm-in-sandbox",
            Mode::Llm => "llm",
        }
    }

    /// The end of a run folder's name, as the reference names it: `LLMinSandbox` or
    /// `vanillaLLM`.
    pub fn folder_suffix(self) -> &'static str {
        match self {
            Mode::Sandbox => "LLMinSandbox",
            Mode::Llm => "vanillaLLM",
        }
    }
}

/// A deterministic slice of the jobs: job `j` belongs to shard `j % count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 0-based index.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// Parse `I/N`.
    pub fn parse(s: &str) -> Option<Shard> {
        let (i, n) = s.split_once('/')?;
        let (index, count) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
        (count > 0 && index < count).then_some(Shard { index, count })
    }

    /// From a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX` + `JOB_COMPLETIONS`) or a Slurm
    /// array (`SLURM_ARRAY_TASK_ID` + `SLURM_ARRAY_TASK_COUNT`).
    pub fn from_env() -> Option<Shard> {
        let get = |k: &str| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.trim().parse::<u32>().ok())
        };
        let (index, count) = match (get("JOB_COMPLETION_INDEX"), get("JOB_COMPLETIONS")) {
            (Some(i), Some(n)) => (i, n),
            _ => (
                get("SLURM_ARRAY_TASK_ID")? - get("SLURM_ARRAY_TASK_MIN").unwrap_or(0),
                get("SLURM_ARRAY_TASK_COUNT")?,
            ),
        };
        (count > 0 && index < count).then_some(Shard { index, count })
    }
}

/// Settings of a benchmark run.
#[derive(Debug, Clone)]
pub struct BenchSettings {
    /// Mode.
    pub mode: Mode,
    /// Episodes at once.
    pub workers: usize,
    /// First row index (0-based, inclusive).
    pub start: usize,
    /// Last row index (exclusive); `None` = to the end.
    pub end: Option<usize>,
    /// Attempts per row.
    pub repeat: u32,
    /// Only this slice of the jobs.
    pub shard: Option<Shard>,
    /// The run folder (created; existing results in it are resumed).
    pub run_dir: PathBuf,
    /// Model endpoint.
    pub llm: LlmConfig,
    /// Episode template (the task's prompts, when it has them, replace these).
    pub episode: EpisodeSettings,
    /// `max_tokens` of the one call in plain-LLM mode (the reference's `max_response_len`).
    pub max_response_len: Option<u32>,
    /// An LLM judge: when set, its score (mean over its repeats) is each answered row's score,
    /// the scorer's kept as `reward`; required by a task whose scorer is `judge`.
    pub judge: Option<super::judge::Judge>,
    /// Settings of the reference's kind recorded in `results.json`'s `config` as given
    /// (e.g. `docker_image`, `save_litellm_response`); ours are added beside them.
    pub extra_config: serde_json::Map<String, Value>,
    /// Each episode's sandbox: command timeout, quota, network policy.
    pub sandbox: SandboxSettings,
    /// Progress on stderr.
    pub progress: ProgressOutput,
    /// When `reward.py`'s imports fail in the sandbox, run it with the host's python3 if that
    /// has them (`--reward-python auto`, the command's default). Default `false`.
    pub reward_python_auto: bool,
}

impl BenchSettings {
    /// Sandbox mode, 8 workers, every row once, no shard, default episode and sandbox settings
    /// (120 s per command, 1 GiB quota, no network), no progress output.
    pub fn new(llm: LlmConfig, run_dir: PathBuf) -> Self {
        BenchSettings {
            mode: Mode::Sandbox,
            workers: 8,
            start: 0,
            end: None,
            repeat: 1,
            shard: None,
            run_dir,
            llm,
            episode: EpisodeSettings::default(),
            max_response_len: None,
            judge: None,
            extra_config: serde_json::Map::new(),
            sandbox: SandboxSettings::default(),
            progress: ProgressOutput::Off,
            reward_python_auto: false,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct BenchOutcome {
    /// `results.json` content.
    pub summary: Value,
    /// Rows run now (not resumed).
    pub ran: usize,
    /// Rows skipped because they were already in `results.jsonl`.
    pub resumed: usize,
}

struct Job {
    key: String,
    row: Arc<Row>,
    repeat: u32,
}

impl Job {
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
    }
}

/// How a run reports its progress on stderr.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProgressOutput {
    /// Nothing.
    Off,
    /// For people: on a terminal a live bar (done/total, rate, running score, errors, tokens,
    /// ETA); elsewhere (a CI log) a plain line every `every` or every 5% of the rows,
    /// whichever comes first. One summary line at the end either way.
    Human {
        /// The longest gap between plain lines.
        every: Duration,
    },
    /// For machines: one JSON object per line, `{"event":"row",...}` per finished row and
    /// `{"event":"run",...}` (the summary's fields) at the end.
    Json,
}

impl ProgressOutput {
    /// Plain lines at most every 10 s (and every 5%).
    pub const DEFAULT_EVERY: Duration = Duration::from_secs(10);
}

struct Progress {
    started: Instant,
    total: usize,
    done: usize,
    errors: usize,
    score_sum: f64,
    scored: usize,
    tokens: u64,
    output: ProgressOutput,
    /// The live bar, on a terminal only (a CI log must not get one `\r` line per row).
    bar: Option<indicatif::ProgressBar>,
    /// When the last plain line was printed, and at which 5% step.
    last_line: Instant,
    last_step: usize,
}

impl Progress {
    fn new(total: usize, output: ProgressOutput) -> Progress {
        use std::io::IsTerminal;
        let bar = match output {
            ProgressOutput::Human { .. } if total > 0 && std::io::stderr().is_terminal() => {
                let bar = indicatif::ProgressBar::with_draw_target(
                    Some(total as u64),
                    indicatif::ProgressDrawTarget::stderr(),
                );
                let style = indicatif::ProgressStyle::with_template(
                    "{pos}/{len} {wide_bar:.cyan/blue} {msg} eta {eta}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("##-");
                bar.set_style(style);
                bar.enable_steady_tick(Duration::from_secs(1));
                Some(bar)
            }
            _ => None,
        };
        Progress {
            started: Instant::now(),
            total,
            done: 0,
            errors: 0,
            score_sum: 0.0,
            scored: 0,
            tokens: 0,
            output,
            bar,
            last_line: Instant::now(),
            last_step: 0,
        }
    }

    /// Whether a plain line is due now (every 5% or every `every`, and at the end).
    fn line_due(&mut self) -> bool {
        let every = match self.output {
            ProgressOutput::Human { every } => every,
            _ => ProgressOutput::DEFAULT_EVERY,
        };
        let step = 20 * self.done / self.total.max(1);
        let due =
            self.done == self.total || step > self.last_step || self.last_line.elapsed() >= every;
        if due {
            self.last_step = step;
            self.last_line = Instant::now();
        }
        due
    }

    /// The running mean score, error rows as 0 (as the final `mean_score`).
    fn score(&self) -> f64 {
        100.0 * self.score_sum / self.done.max(1) as f64
    }

    fn update(&mut self, r: &RowResult) {
        self.done += 1;
        self.tokens += r.tokens;
        match r.score {
            Some(s) => {
                self.scored += 1;
                self.score_sum += s;
            }
            None => self.errors += 1,
        }
        match self.output {
            ProgressOutput::Off => {}
            ProgressOutput::Json => {
                let event = json!({
                    "event": "row", "key": r.key, "id": r.id, "repeat": r.repeat,
                    "domain": r.domain, "score": r.score, "error": r.error,
                    "seconds": r.llm_seconds + r.sandbox_seconds,
                    "done": self.done, "total": self.total,
                });
                eprintln!("{event}");
            }
            ProgressOutput::Human { .. } => {
                if let Some(bar) = &self.bar {
                    let rate = self.done as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
                    bar.set_message(format!(
                        "{rate:.1}/s score {:.1}% err {} tok {}",
                        self.score(),
                        self.errors,
                        indicatif::HumanCount(self.tokens)
                    ));
                    bar.inc(1);
                    return;
                }
                if self.line_due() {
                    let counts = format!(
                        "score {:.1}% errors {} tokens {}",
                        self.score(),
                        self.errors,
                        self.tokens
                    );
                    let elapsed = self.started.elapsed().as_secs_f64();
                    let rate = self.done as f64 / elapsed.max(1e-3);
                    let eta = (self.total - self.done) as f64 / rate.max(1e-9);
                    eprintln!(
                        "llm-in-sandbox: progress {}/{} ({:.0}%) {counts} {rate:.2} rows/s elapsed {elapsed:.0}s eta {eta:.0}s",
                        self.done,
                        self.total,
                        100.0 * self.done as f64 / self.total.max(1) as f64,
                    );
                }
            }
        }
    }

    /// The end of the run: the bar goes, one summary line (or the `run` event) comes.
    fn finish(&mut self, summary: &Value, run_dir: &Path, resumed: usize) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        let pct = |v: &Value| {
            v.as_f64()
                .map_or("-".to_string(), |s| format!("{:.1}%", s * 100.0))
        };
        match self.output {
            ProgressOutput::Off => {}
            ProgressOutput::Json => {
                let mut event = json!({"event": "run", "run_dir": run_dir, "ran": self.done,
                                       "resumed": resumed});
                for k in [
                    "task",
                    "total",
                    "mean_score",
                    "mean_score_scored",
                    "num_errors",
                    "elapsed_time_seconds",
                    "tokens",
                    "overall",
                    "domains",
                ] {
                    event[k] = summary[k].clone();
                }
                eprintln!("{event}");
            }
            ProgressOutput::Human { .. } => {
                let elapsed = self.started.elapsed().as_secs_f64();
                eprintln!(
                    "llm-in-sandbox: finished {} rows in {elapsed:.1}s ({:.2} rows/s): score {} (scored {}), {} errors, {} tokens",
                    self.done,
                    self.done as f64 / elapsed.max(1e-3),
                    pct(&summary["mean_score"]),
                    pct(&summary["mean_score_scored"]),
                    summary["num_errors"].as_u64().unwrap_or(0),
                    self.tokens
                );
            }
        }
    }
}

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

/// What identifies a run's results: resuming into a folder is allowed only when these match.
fn identity(task: &TaskSpec, settings: &BenchSettings) -> Value {
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

/// The jobs of this run (rows x repeats, in this shard), less those already recorded.
fn plan(rows: Vec<Row>, settings: &BenchSettings, finished: &HashSet<String>) -> (Vec<Job>, usize) {
    let end = settings.end.unwrap_or(rows.len()).min(rows.len());
    let mut jobs = Vec::new();
    let mut index = 0u32;
    for row in rows.into_iter().take(end).skip(settings.start) {
        let row = Arc::new(row);
        for repeat in 0..settings.repeat.max(1) {
            let j = index;
            index += 1;
            if settings.shard.is_some_and(|s| j % s.count != s.index) {
                continue;
            }
            jobs.push(Job {
                key: format!("{}#{repeat}", row.id),
                row: row.clone(),
                repeat,
            });
        }
    }
    let before = jobs.len();
    jobs.retain(|j| !finished.contains(&j.key));
    let resumed = before - jobs.len();
    (jobs, resumed)
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

/// Check the task against the run's settings and make it ready: its prompts replace the run's,
/// a judged task needs a judge, its packages are installed, its `reward.py` is tried on the
/// first rows' ground truth. The task as the run uses it.
async fn prepare_task(
    runtime: &Arc<Runtime>,
    task: &TaskSpec,
    rows: &[Row],
    settings: &mut BenchSettings,
) -> Result<TaskSpec, RunError> {
    // The task's prompts (checked when the task was loaded) replace the run's.
    if let Some(p) = &task.prompts {
        settings.episode.prompts = p.clone();
    }
    settings.episode.prompts.check("the prompts")?;
    if task.scorer == Scorer::Judge && settings.judge.is_none() {
        return Err(RunError::Reward(format!(
            "task {} is scored by an LLM judge (scorer: judge): give --judge-model (and \
             --judge-base-url when the judge is served elsewhere than the model)",
            task.name
        )));
    }
    // The task's packages go into each episode's sandbox and into the sandbox its reward.py
    // or vanilla_llm_prompt.py runs in.
    let in_wasm = |s: &Scorer| matches!(s, Scorer::Reward(r) if !r.host);
    if !task.requirements.is_empty()
        && (settings.mode == Mode::Sandbox || in_wasm(&task.scorer) || task.llm_prompt_py.is_some())
    {
        prepare_requirements(runtime, task, settings).await?;
    }
    let mut task = task.clone();
    if let Scorer::Reward(script) = &mut task.scorer {
        let judged = settings.judge.is_some()
            || task
                .dir
                .as_ref()
                .is_some_and(|d| d.join("judge.py").is_file());
        let sample = &rows[..rows.len().min(TRUTH_SAMPLE)];
        check_reward_script(script, &task.name, judged, sample, runtime, settings).await?;
    }
    Ok(task)
}

/// Make the run folder (or check that a resumed one was made by this run); the keys of the
/// rows already in its `results.jsonl`.
fn open_folder(dir: &Path, identity: &Value) -> Result<HashSet<String>, RunError> {
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
fn start_writing(dir: &Path, config: &Value) -> Result<(f64, std::fs::File), RunError> {
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

/// Run the jobs, each finished row appended to `sink` and shown on `progress`.
async fn record_jobs(
    shared: &Arc<Shared>,
    jobs: Vec<Job>,
    mut sink: std::fs::File,
    progress: &mut Progress,
    dir: &Path,
) -> Result<(), RunError> {
    let ran = jobs.len();
    let workers = shared.settings.workers.max(1);
    let recorded = drive(
        jobs,
        workers,
        |job| {
            let shared = shared.clone();
            async move { run_job(&shared, &job).await }
        },
        |result| {
            // One line per finished row, flushed at once: a kill loses only rows in flight.
            append(&mut sink, result)?;
            progress.update(result);
            Ok(())
        },
    )
    .await;
    if let Err((source, done)) = recorded {
        return Err(RunError::Record {
            path: dir.join("results.jsonl"),
            dir: dir.display().to_string(),
            done,
            pending: ran - done,
            source,
        });
    }
    Ok(())
}

/// Run `jobs` with at most `workers` at once, handing each finished row to `record` before
/// another job starts. A job that panics is recorded as an error row with the panic's message.
/// When `record` fails, every job still running is cancelled and no other starts: the error
/// comes back with the number of rows recorded before it.
async fn drive<F, Fut>(
    jobs: Vec<Job>,
    workers: usize,
    start: F,
    mut record: impl FnMut(&RowResult) -> std::io::Result<()>,
) -> Result<usize, (std::io::Error, usize)>
where
    F: Fn(Job) -> Fut,
    Fut: std::future::Future<Output = RowResult> + Send + 'static,
{
    let mut pending = jobs.into_iter();
    let mut running: JoinSet<RowResult> = JoinSet::new();
    let mut in_flight: HashMap<tokio::task::Id, RowResult> = HashMap::new();
    let mut done = 0;
    loop {
        while running.len() < workers
            && let Some(job) = pending.next()
        {
            let blank = blank_result(&job);
            let handle = running.spawn(start(job));
            in_flight.insert(handle.id(), blank);
        }
        let Some(joined) = running.join_next_with_id().await else {
            return Ok(done);
        };
        let result = match joined {
            Ok((id, result)) => {
                in_flight.remove(&id);
                result
            }
            Err(e) => {
                let mut result = in_flight
                    .remove(&e.id())
                    .unwrap_or_else(|| blank_result(&Job::unknown()));
                result.error = Some(panic_message(e));
                result
            }
        };
        if let Err(e) = record(&result) {
            running.abort_all();
            return Err((e, done));
        }
        done += 1;
    }
}

fn append(sink: &mut std::fs::File, result: &RowResult) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(result)?;
    line.push(b'\n');
    // Flushed to the kernel: a killed process loses nothing written. (No fsync per row: it
    // would hold the thread that drives every episode's HTTP for milliseconds per row.)
    sink.write_all(&line)?;
    sink.flush()
}

fn panic_message(e: tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return "the job was cancelled".into();
    }
    let p = e.into_panic();
    format!(
        "internal error: the job panicked: {}",
        crate::runtime::executor::panic_text(p.as_ref())
    )
}

/// What every job of a run shares.
struct Shared {
    runtime: Arc<Runtime>,
    task: TaskSpec,
    settings: BenchSettings,
    client: Client,
}

/// Rows whose ground truth the reward scores before a run.
const TRUTH_SAMPLE: usize = 3;

/// Before a run: `compute_score("test", "test")` once, as the reference, so a missing package
/// stops the run here; then the reward on the sampled rows' own ground truths, so a reward
/// that swallows its failed import (and would score every row 0 without an error) stops it
/// too. With [`BenchSettings::reward_python_auto`], a script whose imports fail in the sandbox
/// moves to the host's python3 when that has them (said on stderr).
async fn check_reward_script(
    script: &mut RewardScript,
    task: &str,
    judged: bool,
    sample: &[Row],
    runtime: &Arc<Runtime>,
    settings: &BenchSettings,
) -> Result<(), RunError> {
    use super::score::{check_reward, check_reward_on_truth};
    let broken = |check: &super::score::TruthCheck| {
        !judged && check.rows > 0 && check.all_zero && !check.failed_imports.is_empty()
    };
    let mut failure = check_reward(script, runtime).await.err();
    let mut truth = None;
    if failure.is_none() {
        let check = check_reward_on_truth(script, sample, runtime).await;
        if broken(&check) {
            failure = Some(format!(
                "reward.py of task {task} scores 0 on the ground truth of every sampled row \
                 ({} rows) because its own import of {} failed (it catches the error itself, \
                 so every row would score 0 without an error)",
                check.rows,
                check
                    .failed_imports
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        truth = Some(check);
    }
    let Some(why) = failure else {
        if let Some(check) = truth
            && check.all_zero
            && check.rows > 0
            && !judged
            && settings.progress != ProgressOutput::Off
        {
            eprintln!(
                "llm-in-sandbox: warning: reward.py of task {task} gives 0 to the ground truth of \
                 all {} sampled rows; check that it scores what you expect",
                check.rows
            );
        }
        return Ok(());
    };
    if !(settings.reward_python_auto && !script.host && script.path.is_some()) {
        return Err(RunError::Reward(why));
    }
    // Auto: the same checks with the host's python3.
    script.host = true;
    let host_failure = match check_reward(script, runtime).await {
        Err(e) => Some(e),
        Ok(()) => {
            let check = check_reward_on_truth(script, sample, runtime).await;
            broken(&check).then(|| {
                format!(
                    "the host's python3 lacks {} too: install what reward.py imports there \
                     (e.g. python3 -m pip install {}; IFBench needs IFBENCH_PATH)",
                    check.failed_imports.join(", "),
                    check.failed_imports.join(" ")
                )
            })
        }
    };
    match host_failure {
        None => {
            eprintln!(
                "llm-in-sandbox: reward.py of task {task} runs with the host's python3: in the \
                 sandbox, {why}"
            );
            Ok(())
        }
        Some(host) => Err(RunError::Reward(format!("{why}; {host}"))),
    }
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
fn run_config(task: &TaskSpec, settings: &BenchSettings, identity: Value) -> Value {
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

/// The row's console text and result block, as the reference's `logs/<id>.txt`.
fn write_log(settings: &BenchSettings, console: &str, r: &RowResult) {
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

async fn run_job(shared: &Shared, job: &Job) -> RowResult {
    let (runtime, task, settings) = (&shared.runtime, &shared.task, &shared.settings);
    let row = &job.row;
    let mut result = blank_result(job);
    let client = shared.client.clone();
    let console = Arc::new(std::sync::Mutex::new(String::new()));
    let answer = match settings.mode {
        Mode::Sandbox => sandbox_episode(shared, client, job, &mut result, console.clone()).await,
        Mode::Llm => plain_llm(shared, client, row, &mut result, &console).await,
    };
    let console = console.lock().map(|c| c.clone()).unwrap_or_default();
    match answer {
        Ok(answer) => {
            result.answer = answer.clone();
            let scorer = row
                .scorer
                .as_deref()
                .and_then(Scorer::by_name)
                .unwrap_or_else(|| task.scorer.clone());
            let t = Instant::now();
            if scorer != Scorer::Judge {
                match scorer.score(answer.as_deref(), row, runtime).await {
                    Score::Value(s) => result.score = Some(s),
                    Score::Error(e) => result.error = Some(e),
                }
            }
            result.sandbox_seconds += t.elapsed().as_secs_f64();
            if let Some(judge) = &settings.judge {
                // Judged here, while other episodes run; recorded with the row, so a resumed
                // run never judges a row twice.
                let t = Instant::now();
                let j = judge
                    .judge(
                        &row.problem_statement,
                        answer.as_deref().unwrap_or(""),
                        &row.ground_truth,
                    )
                    .await;
                result.llm_seconds += t.elapsed().as_secs_f64();
                result.reward = result.score;
                if let Some(e) = result.error.take() {
                    result.warning = Some(format!("scorer failed, judge decided: {e}"));
                }
                result.score = Some(j.score);
                result.judge = Some(json!({"model": judge.model(), "verdicts": j.verdicts}));
            }
        }
        Err(e) => result.error = Some(e),
    }
    write_log(settings, &console, &result);
    result
}

/// Resolve the task's `requirements.txt` once before any row (through the cache every sandbox
/// shares), so a package that cannot be installed stops the run here and each episode's
/// install is answered from the cache.
async fn prepare_requirements(
    runtime: &Arc<Runtime>,
    task: &TaskSpec,
    settings: &BenchSettings,
) -> Result<(), RunError> {
    let refuse = |detail: String| RunError::Requirements {
        task: task.name.clone(),
        detail,
    };
    if !settings.sandbox.network.pip() {
        return Err(refuse(
            "pip is off (--pip off); run with --pip on, or put the packages into the site layer \
             with `llm-in-sandbox setup --with ...`"
                .into(),
        ));
    }
    let (rt, reqs) = (runtime.clone(), task.requirements.clone());
    crate::runtime::executor::blocking(move || {
        crate::packages::resolve(rt.cache_root(), &reqs, rt.pip_settings()).map(drop)
    })
    .await
    .map_err(|e| refuse(e.to_string()))?
    .map_err(|e| refuse(e.to_string()))
}

async fn sandbox_episode(
    shared: &Shared,
    client: Client,
    job: &Job,
    result: &mut RowResult,
    console: Arc<std::sync::Mutex<String>>,
) -> Result<Option<String>, String> {
    let settings = &shared.settings;
    let row = &job.row;
    let spec = episode_spec(settings, row, job.repeat);
    let record_dir = spec.record_dir.clone();
    let episode = setup(&shared.runtime, client, spec)
        .await
        .map_err(|e| e.to_string())?;
    // Kept past the episode's end, so the files it wrote can be saved for `view`.
    let sandbox = episode.sandbox().clone();
    let input_dir = episode.settings().prompts.input_dir.clone();
    if !shared.task.requirements.is_empty() {
        // The task's own packages, before the model's first step (recorded as installs).
        let t = Instant::now();
        let installed = episode
            .sandbox()
            .pip_install(shared.task.requirements.clone(), Duration::MAX)
            .await;
        result.sandbox_seconds += t.elapsed().as_secs_f64();
        installed.map_err(|e| format!("cannot install the task's requirements.txt: {e}"))?;
    }
    if let Ok(mut c) = console.lock() {
        c.push_str(&format!(
            "Problem ID: {}\nSystem prompt:\n{}\n\nUser prompt:\n{}\n\n",
            row.id,
            episode.settings().prompts.system(),
            episode.settings().prompts.instance(&row.problem_statement)
        ));
    }
    let sink = console.clone();
    let episode = episode.on_progress(Box::new(move |line| {
        if let Ok(mut c) = sink.lock() {
            c.push_str(line);
            c.push('\n');
        }
    }));
    let r = episode.run(&row.problem_statement).await;
    let kept = crate::runtime::executor::blocking(move || {
        keep_files(
            sandbox.workspace().dir(),
            &input_dir,
            &record_dir.join("files"),
        )
    })
    .await;
    if let Ok(Err(e)) = kept {
        result.warning = Some(format!("the episode's files were not all saved: {e}"));
    }
    episode_answer(settings, r, result)
}

/// The episode of `row`: the run's sandbox and episode settings, the row's input files, its
/// trajectory folder, and the header its trajectory starts with.
fn episode_spec(settings: &BenchSettings, row: &Row, repeat: u32) -> EpisodeSpec {
    EpisodeSpec {
        sandbox: settings.sandbox.clone(),
        episode: settings.episode.clone(),
        workspace: None,
        input_files: row
            .input_files
            .iter()
            .map(|(name, content)| (name.clone(), content.clone().into_bytes()))
            .collect(),
        record_dir: settings
            .run_dir
            .join("trajectories")
            .join(trajectory_dir(&row.id, repeat)),
        header: json!({"problem_statement": row.problem_statement, "id": row.id, "domain": row.domain, "repeat": repeat,
                       "system_prompt": settings.episode.prompts.system(),
                       "user_prompt": settings.episode.prompts.instance(&row.problem_statement)}),
    }
}

/// The episode's figures into `result`, and the answer to score (stripped, missing = the
/// empty string, as the reference) or why the row is an error.
fn episode_answer(
    settings: &BenchSettings,
    r: crate::agent::EpisodeResult,
    result: &mut RowResult,
) -> Result<Option<String>, String> {
    result.stop = serde_json::to_value(&r.stop)
        .ok()
        .and_then(|v| v["reason"].as_str().map(str::to_string))
        .unwrap_or_default();
    result.steps = r.steps;
    result.tokens = r.usage.total_tokens;
    result.llm_seconds = r.llm_seconds;
    result.sandbox_seconds = r.tool_seconds;
    if r.record_error.is_some() {
        result.warning = r.record_error;
    }
    match &r.stop {
        crate::agent::StopReason::LlmError(e) if settings.episode.deviations.llm_error_rows => {
            Err(format!("LLM error: {e}"))
        }
        crate::agent::StopReason::LlmError(e) => {
            result.warning = Some(match result.warning.take() {
                Some(w) => format!("LLM error (the answer file was scored): {e}; {w}"),
                None => format!("LLM error (the answer file was scored): {e}"),
            });
            Ok(Some(
                r.answer.map(|a| a.trim().to_string()).unwrap_or_default(),
            ))
        }
        crate::agent::StopReason::HostError(e) => Err(format!("sandbox host error: {e}")),
        // As the reference: the answer file stripped, missing = the empty string.
        _ => Ok(Some(
            r.answer.map(|a| a.trim().to_string()).unwrap_or_default(),
        )),
    }
}

/// Files of an episode's workspace saved beside its trajectory (`files/`), for `view`.
const KEEP_FILES: usize = 200;
/// Bytes per saved file at most (larger files are listed in `files/.skipped.txt`).
const KEEP_FILE_BYTES: u64 = 1 << 20;
/// Bytes of saved files per episode at most.
const KEEP_TOTAL_BYTES: u64 = 8 << 20;

/// Save what the episode left in its workspace (not its input files, which the dataset has)
/// into `to`, up to [`KEEP_FILES`] files, [`KEEP_FILE_BYTES`] each and [`KEEP_TOTAL_BYTES`] in
/// all; what did not fit is named in `to/.skipped.txt`. Symlinks are not followed.
fn keep_files(dir: &cap_std::fs::Dir, input_dir: &str, to: &Path) -> std::io::Result<()> {
    let skip_prefix = input_dir
        .strip_prefix(crate::sandbox::GUEST_WORKSPACE)
        .unwrap_or("")
        .trim_matches('/')
        .to_string();
    let mut stack = vec![String::new()];
    let (mut files, mut bytes) = (0usize, 0u64);
    let mut skipped = Vec::new();
    while let Some(rel) = stack.pop() {
        let entries = if rel.is_empty() {
            dir.entries()?
        } else {
            dir.read_dir(&rel)?
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if (!skip_prefix.is_empty() && child == skip_prefix) || child == ".git" {
                continue;
            }
            let ty = e.file_type()?;
            if ty.is_dir() {
                stack.push(child);
            } else if ty.is_file() {
                let size = e.metadata()?.len();
                if files >= KEEP_FILES || size > KEEP_FILE_BYTES || bytes + size > KEEP_TOTAL_BYTES
                {
                    if skipped.len() < 1000 {
                        skipped.push(format!("{child}\t{size}"));
                    }
                    continue;
                }
                let target = to.join(&child);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let data = crate::fsutil::read_capped(dir, Path::new(&child), KEEP_FILE_BYTES)?;
                std::fs::write(&target, data)?;
                files += 1;
                bytes += size;
            }
        }
    }
    if !skipped.is_empty() {
        std::fs::create_dir_all(to)?;
        std::fs::write(
            to.join(".skipped.txt"),
            format!(
                "files not saved (limits: {KEEP_FILES} files, {KEEP_FILE_BYTES} bytes each, {KEEP_TOTAL_BYTES} in all; at most 1000 listed):\n{}\n",
                skipped.join("\n")
            ),
        )?;
    }
    Ok(())
}

const LLM_INSTRUCTION: &str = "Solve the task below. Think it through, then give the final \
answer on the last line as `Answer: <answer>` (for math, \\boxed{<answer>} also works).";

/// The plain-LLM prompt: instruction, documents between markers, then the task.
pub fn llm_prompt(task: &TaskSpec, row: &Row) -> String {
    let mut out = task
        .llm_prompt
        .clone()
        .unwrap_or_else(|| LLM_INSTRUCTION.to_string());
    out.push_str("\n\n");
    for (i, (name, content)) in row.input_files.iter().enumerate() {
        let i = i + 1;
        out.push_str(&format!(
            "BEGIN DOCUMENT {i} ({name})\n{content}\nEND DOCUMENT {i}\n\n"
        ));
    }
    out.push_str("Task:\n");
    out.push_str(&row.problem_statement);
    out
}

async fn plain_llm(
    shared: &Shared,
    client: Client,
    row: &Row,
    result: &mut RowResult,
    console: &std::sync::Mutex<String>,
) -> Result<Option<String>, String> {
    let (task, settings) = (&shared.task, &shared.settings);
    let prompt = match &task.llm_prompt_py {
        Some(source) => {
            let script = RewardScript {
                source: source.clone(),
                path: task.dir.as_ref().map(|d| d.join("vanilla_llm_prompt.py")),
                host: matches!(&task.scorer, Scorer::Reward(r) if r.host),
                requirements: task.requirements.clone(),
            };
            super::score::create_prompt(&script, row, &shared.runtime).await?
        }
        None => llm_prompt(task, row),
    };
    let t = Instant::now();
    let messages = [Message::text("user", prompt.clone())];
    let mut max_tokens = settings.max_response_len.or(settings.episode.max_tokens);
    // As the reference: a context-length error fits max_tokens to the context the server
    // names (or halves it), not below 8,192.
    let reply = loop {
        match client.chat(&messages, None, max_tokens).await {
            Err(crate::llm::LlmError::ContextLength(msg)) => {
                match crate::agent::context_retry_max_tokens(&msg, max_tokens) {
                    Some(m) => max_tokens = Some(m),
                    None => break Err(crate::llm::LlmError::ContextLength(msg)),
                }
            }
            other => break other,
        }
    };
    result.llm_seconds = t.elapsed().as_secs_f64();
    let reply = reply.map_err(|e| format!("LLM error: {e}"))?;
    result.stop = "answered".into();
    result.steps = 1;
    result.tokens = reply.usage.total_tokens;
    let content = reply.message.content.unwrap_or_default();
    if let Ok(mut c) = console.lock() {
        c.push_str(&format!("Query:\n{prompt}\n\nResponse:\n{content}\n"));
    }
    // With the task's own prompt (and reward.py) the whole reply is the answer, as in the
    // reference; with ours, the part after `Answer:` or in the last \boxed{}.
    Ok(Some(
        if task.llm_prompt_py.is_some() || matches!(task.scorer, Scorer::Reward(_)) {
            content
        } else {
            extract(&content)
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(n: usize) -> Vec<Job> {
        (0..n)
            .map(|i| Job {
                key: format!("r{i}#0"),
                row: Arc::new(Row {
                    id: format!("r{i}"),
                    domain: "math".into(),
                    problem_statement: String::new(),
                    ground_truth: "1".into(),
                    input_files: Default::default(),
                    scorer: None,
                    extra: Default::default(),
                }),
                repeat: 0,
            })
            .collect()
    }

    #[test]
    fn plain_progress_lines_come_every_five_percent_and_at_the_end() {
        let mut p = Progress::new(
            1000,
            ProgressOutput::Human {
                every: Duration::from_secs(3600),
            },
        );
        let lines = (0..1000)
            .filter(|_| {
                p.done += 1;
                p.line_due()
            })
            .count();
        assert_eq!(lines, 20, "one line per 5% (the last one at 100%)");
    }

    #[tokio::test]
    async fn a_panicking_job_becomes_an_error_row_with_its_message() {
        let mut rows = Vec::new();
        let done = drive(
            jobs(4),
            2,
            |job| async move {
                if job.key == "r2#0" {
                    panic!("boom in row two");
                }
                let mut r = blank_result(&job);
                r.score = Some(1.0);
                r
            },
            |r| {
                rows.push(r.clone());
                Ok(())
            },
        )
        .await
        .unwrap();
        assert_eq!(done, 4);
        rows.sort_by(|a, b| a.key.cmp(&b.key));
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["r0#0", "r1#0", "r2#0", "r3#0"]);
        let bad = &rows[2];
        assert_eq!((bad.id.as_str(), bad.domain.as_str()), ("r2", "math"));
        assert_eq!(bad.score, None);
        let msg = bad.error.as_deref().unwrap_or_default();
        assert!(
            msg.contains("panicked") && msg.contains("boom in row two"),
            "{msg}"
        );
    }

    #[tokio::test]
    async fn a_failed_record_stops_new_jobs() {
        let started = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = started.clone();
        let err = drive(
            jobs(10),
            1,
            move |job| {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async move { blank_result(&job) }
            },
            |_| Err(std::io::Error::other("disk full")),
        )
        .await
        .unwrap_err();
        assert_eq!(err.1, 0);
        assert_eq!(started.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
