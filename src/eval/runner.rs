//! Running a benchmark: rows × repeats, sharded and resumable, many episodes at once.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use sha2::Digest;
use tokio::task::JoinSet;

use super::dataset::{Row, TaskSpec};
use super::report::{RowResult, read_results, summarize, svg, table};
use super::score::{Score, extract};
use crate::agent::{EpisodeSettings, EpisodeSpec, Prompts, SandboxSettings, setup};
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
    /// `sandbox` or `llm`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sandbox => "sandbox",
            Mode::Llm => "llm",
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
    /// Episode template (prompts are adjusted per task).
    pub episode: EpisodeSettings,
    /// Each episode's sandbox: command timeout, quota, network policy.
    pub sandbox: SandboxSettings,
    /// Print a progress line on stderr.
    pub progress: bool,
}

impl BenchSettings {
    /// Sandbox mode, 8 workers, every row once, no shard, default episode and sandbox settings
    /// (120 s per command, 1 GiB quota, no network), no progress line.
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
            sandbox: SandboxSettings::default(),
            progress: false,
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
    }
}

struct Progress {
    started: Instant,
    total: usize,
    done: usize,
    errors: usize,
    score_sum: f64,
    scored: usize,
    tokens: u64,
    enabled: bool,
    /// A live bar on a terminal; plain lines otherwise (a CI log must not get one `\r` line
    /// per row).
    terminal: bool,
    /// When the last plain line was printed, and at which 5% step.
    last_line: Instant,
    last_step: usize,
}

/// Plain progress lines (not a terminal): at most one per this interval, or per 5% done.
const LINE_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

impl Progress {
    fn new(total: usize, enabled: bool) -> Progress {
        use std::io::IsTerminal;
        Progress {
            started: Instant::now(),
            total,
            done: 0,
            errors: 0,
            score_sum: 0.0,
            scored: 0,
            tokens: 0,
            enabled,
            terminal: std::io::stderr().is_terminal(),
            last_line: Instant::now(),
            last_step: 0,
        }
    }

    /// Whether a plain line is due now (every 5% or every `LINE_EVERY`, and at the end).
    fn line_due(&mut self) -> bool {
        let step = 20 * self.done / self.total.max(1);
        let due = self.done == self.total
            || step > self.last_step
            || self.last_line.elapsed() >= LINE_EVERY;
        if due {
            self.last_step = step;
            self.last_line = Instant::now();
        }
        due
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
        if !self.enabled {
            return;
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = elapsed / self.done as f64 * (self.total - self.done) as f64;
        let score = if self.scored > 0 {
            100.0 * self.score_sum / self.scored as f64
        } else {
            0.0
        };
        let counts = format!(
            "{}/{} score {score:.1}% errors {} tokens {} eta {eta:.0}s",
            self.done, self.total, self.errors, self.tokens
        );
        if !self.terminal {
            if self.line_due() {
                eprintln!("llm-in-sandbox: progress {counts} (elapsed {elapsed:.0}s)");
            }
            return;
        }
        let width = 24;
        let filled = width * self.done / self.total.max(1);
        eprint!(
            "\r[{}{}] {counts}   ",
            "#".repeat(filled),
            "-".repeat(width - filled),
        );
        if self.done == self.total {
            eprintln!();
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
        "llm_prompt_sha256": hash(task.llm_prompt.as_deref().unwrap_or("")),
        "scorer": task.scorer.name(),
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
    let mut settings = settings;
    // The task's prompt file, read once for the run (and part of its identity).
    if let Some(p) = &task.prompt_config {
        settings.episode.prompts = Prompts::default().load(p)?;
    }
    // One HTTP client (one connection pool) for every episode of the run.
    let client = Client::new(settings.llm.clone())?;
    let dir = settings.run_dir.clone();
    let identity = identity(task, &settings);
    check_resume(&dir, &identity)?;
    let trajectories = dir.join("trajectories");
    std::fs::create_dir_all(&trajectories).map_err(io_err("create", &trajectories))?;
    let results_path = dir.join("results.jsonl");
    let finished: HashSet<String> = read_results(&results_path)
        .into_iter()
        .map(|r| r.key)
        .collect();
    let (jobs, resumed) = plan(rows, &settings, &finished);
    let config = json!({
        "task": task.name, "model": settings.llm.model, "mode": settings.mode.name(),
        "repeat": settings.repeat, "start_id": settings.start, "end_id": settings.end,
        "max_steps": settings.episode.max_steps, "max_token_limit": settings.episode.max_token_limit,
        "identity": identity,
    });
    let config_path = dir.join("config.json");
    let config_text = serde_json::to_vec_pretty(&config).unwrap_or_default();
    crate::fsutil::write_atomic(&config_path, &config_text)
        .map_err(io_err("write", &config_path))?;
    drop_torn_tail(&results_path).map_err(io_err("repair", &results_path))?;
    let mut sink = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results_path)
        .map_err(io_err("open", &results_path))?;
    let mut progress = Progress::new(jobs.len(), settings.progress && !jobs.is_empty());
    let ran = jobs.len();
    let shared = Arc::new(Shared {
        runtime,
        task: task.clone(),
        settings,
        client,
    });
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
            path: results_path,
            dir: dir.display().to_string(),
            done,
            pending: ran - done,
            source,
        });
    }
    let summary = finish(&dir, &config).map_err(io_err("write results in", &dir))?;
    Ok(BenchOutcome {
        summary,
        ran,
        resumed,
    })
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

/// A kill can leave half a line at the end of `results.jsonl`: cut it so appends start clean.
fn drop_torn_tail(path: &Path) -> std::io::Result<()> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(());
    };
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(());
    }
    let keep = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .set_len(keep as u64)
}

/// Write `results.json` and `results.svg` from the folder's `results.jsonl`.
///
/// # Errors
/// I/O errors.
pub fn finish(run_dir: &Path, config: &Value) -> std::io::Result<Value> {
    let results = read_results(&run_dir.join("results.jsonl"));
    let summary = summarize(&results, config);
    std::fs::write(
        run_dir.join("results.json"),
        serde_json::to_vec_pretty(&summary)?,
    )?;
    let label = config["mode"].as_str().unwrap_or("run");
    std::fs::write(run_dir.join("results.svg"), svg(&[(label, &summary)]))?;
    std::fs::write(run_dir.join("summary.txt"), table(&summary))?;
    Ok(summary)
}

fn safe(s: &str) -> String {
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

async fn run_job(shared: &Shared, job: &Job) -> RowResult {
    let (runtime, task, settings) = (&shared.runtime, &shared.task, &shared.settings);
    let row = &job.row;
    let mut result = blank_result(job);
    let client = shared.client.clone();
    let answer = match settings.mode {
        Mode::Sandbox => sandbox_episode(shared, client, job, &mut result).await,
        Mode::Llm => plain_llm(task, settings, client, row, &mut result).await,
    };
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            result.error = Some(e);
            return result;
        }
    };
    result.answer = answer.clone();
    let scorer = row
        .scorer
        .as_deref()
        .and_then(super::score::Scorer::by_name)
        .unwrap_or_else(|| task.scorer.clone());
    let t = Instant::now();
    match scorer.score(answer.as_deref(), row, runtime).await {
        Score::Value(s) => result.score = Some(s),
        Score::Error(e) => result.error = Some(e),
    }
    result.sandbox_seconds += t.elapsed().as_secs_f64();
    result
}

async fn sandbox_episode(
    shared: &Shared,
    client: Client,
    job: &Job,
    result: &mut RowResult,
) -> Result<Option<String>, String> {
    let settings = &shared.settings;
    let row = &job.row;
    let spec = EpisodeSpec {
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
            .join(safe(&format!("{}_{}", row.id, job.repeat))),
        header: json!({"problem_statement": row.problem_statement, "id": row.id, "domain": row.domain, "repeat": job.repeat}),
    };
    let episode = setup(&shared.runtime, client, spec)
        .await
        .map_err(|e| e.to_string())?;
    let r = episode.run(&row.problem_statement).await;
    result.stop = serde_json::to_value(&r.stop)
        .ok()
        .and_then(|v| v["reason"].as_str().map(str::to_string))
        .unwrap_or_default();
    result.steps = r.steps;
    result.tokens = r.usage.total_tokens;
    result.llm_seconds = r.llm_seconds;
    result.sandbox_seconds = r.tool_seconds;
    result.warning = r.record_error;
    match &r.stop {
        crate::agent::StopReason::LlmError(e) => Err(format!("LLM error: {e}")),
        crate::agent::StopReason::HostError(e) => Err(format!("sandbox host error: {e}")),
        _ => Ok(r.answer),
    }
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
    task: &TaskSpec,
    settings: &BenchSettings,
    client: Client,
    row: &Row,
    result: &mut RowResult,
) -> Result<Option<String>, String> {
    let t = Instant::now();
    let reply = client
        .chat(
            &[Message::text("user", llm_prompt(task, row))],
            None,
            settings.episode.max_tokens,
        )
        .await;
    result.llm_seconds = t.elapsed().as_secs_f64();
    let reply = reply.map_err(|e| format!("LLM error: {e}"))?;
    result.stop = "answered".into();
    result.steps = 1;
    result.tokens = reply.usage.total_tokens;
    Ok(reply.message.content.map(|c| extract(&c)))
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
        let mut p = Progress::new(1000, true);
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
