//! Running a benchmark: rows × repeats, sharded and resumable, many episodes at once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::dataset::{Row, TaskSpec};
use super::report::{RowResult, read_results, summarize, svg, table};
use super::score::{Score, extract};
use crate::agent::trajectory::Recorder;
use crate::agent::{Episode, EpisodeSettings, Prompts};
use crate::llm::{Client, LlmConfig, Message};
use crate::runtime::{Limits, Runtime};
use crate::sandbox::Sandbox;
use crate::shell::{Shell, ShellSettings};
use crate::tools::Toolbox;

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
    /// Time limit per tool command.
    pub command_timeout: Duration,
    /// Print a progress line on stderr.
    pub progress: bool,
}

impl BenchSettings {
    /// Sandbox mode, 8 workers, every row once, no shard, default episode settings, 120 s per
    /// command, no progress line.
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
            command_timeout: Duration::from_secs(120),
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

struct Progress {
    started: Instant,
    total: usize,
    done: usize,
    errors: usize,
    score_sum: f64,
    scored: usize,
    tokens: u64,
    enabled: bool,
}

impl Progress {
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
        let width = 24;
        let filled = width * self.done / self.total.max(1);
        eprint!(
            "\r[{}{}] {}/{} score {:.1}% errors {} tokens {} eta {:.0}s   ",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.done,
            self.total,
            if self.scored > 0 {
                100.0 * self.score_sum / self.scored as f64
            } else {
                0.0
            },
            self.errors,
            self.tokens,
            eta
        );
        if self.done == self.total {
            eprintln!();
        }
    }
}

/// Run `task` on `rows` (already parsed and filtered for errors).
///
/// # Errors
/// I/O errors on the run folder; per-row failures are rows with an error, not errors here.
pub async fn run(
    runtime: Arc<Runtime>,
    task: &TaskSpec,
    rows: Vec<Row>,
    settings: BenchSettings,
) -> std::io::Result<BenchOutcome> {
    std::fs::create_dir_all(settings.run_dir.join("trajectories"))?;
    let results_path = settings.run_dir.join("results.jsonl");
    let finished: std::collections::HashSet<String> = read_results(&results_path)
        .into_iter()
        .map(|r| r.key)
        .collect();
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
    let config = json!({
        "task": task.name, "model": settings.llm.model, "mode": settings.mode.name(),
        "repeat": settings.repeat, "start_id": settings.start, "end_id": settings.end,
        "max_steps": settings.episode.max_steps, "max_token_limit": settings.episode.max_token_limit,
    });
    std::fs::write(
        settings.run_dir.join("config.json"),
        serde_json::to_vec_pretty(&config)?,
    )?;
    drop_torn_tail(&results_path)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results_path)?;
    let sink = Arc::new(Mutex::new(file));
    let progress = Arc::new(Mutex::new(Progress {
        started: Instant::now(),
        total: jobs.len(),
        done: 0,
        errors: 0,
        score_sum: 0.0,
        scored: 0,
        tokens: 0,
        enabled: settings.progress && !jobs.is_empty(),
    }));
    let ran = jobs.len();
    let gate = Arc::new(Semaphore::new(settings.workers.max(1)));
    let settings = Arc::new(settings);
    let task = Arc::new(task.clone());
    let mut handles = Vec::new();
    for job in jobs {
        let permit = gate
            .clone()
            .acquire_owned()
            .await
            .map_err(std::io::Error::other)?;
        let (runtime, settings, task) = (runtime.clone(), settings.clone(), task.clone());
        let (sink, progress) = (sink.clone(), progress.clone());
        handles.push(tokio::spawn(async move {
            let result = run_job(&runtime, &task, &settings, &job).await;
            // One line per finished row, flushed at once: a kill loses only rows in flight.
            if let Ok(line) = serde_json::to_string(&result) {
                let mut f = sink.lock().unwrap_or_else(PoisonError::into_inner);
                let _ = writeln!(f, "{line}").and_then(|_| f.flush());
            }
            progress
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .update(&result);
            drop(permit);
        }));
    }
    for h in handles {
        let _ = h.await;
    }
    let summary = finish(&settings.run_dir, &config)?;
    Ok(BenchOutcome {
        summary,
        ran,
        resumed,
    })
}

/// A kill can leave half a line at the end of `results.jsonl`: cut it so appends start clean.
fn drop_torn_tail(path: &Path) -> std::io::Result<()> {
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

async fn run_job(
    runtime: &Arc<Runtime>,
    task: &TaskSpec,
    settings: &BenchSettings,
    job: &Job,
) -> RowResult {
    let row = &job.row;
    let mut result = RowResult {
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
    };
    let answer = match settings.mode {
        Mode::Sandbox => sandbox_episode(runtime, task, settings, job, &mut result).await,
        Mode::Llm => plain_llm(task, settings, row, &mut result).await,
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
    runtime: &Arc<Runtime>,
    task: &TaskSpec,
    settings: &BenchSettings,
    job: &Job,
    result: &mut RowResult,
) -> Result<Option<String>, String> {
    let row = &job.row;
    let sandbox = Sandbox::builder(runtime.clone())
        .limits(Limits {
            timeout: settings.command_timeout,
            ..Limits::default()
        })
        .build()
        .map_err(|e| e.to_string())?;
    for (name, content) in &row.input_files {
        sandbox
            .workspace()
            .write(&format!("documents/{name}"), content)
            .map_err(|e| e.to_string())?;
    }
    let shell = Shell::new(
        Arc::new(sandbox),
        ShellSettings {
            timeout: settings.command_timeout,
            ..ShellSettings::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let mut episode = settings.episode.clone();
    let mut prompts = Prompts::default();
    if let Some(p) = &task.prompt_config {
        prompts = prompts.load(p).map_err(|e| e.to_string())?;
    }
    episode.answer_file = prompts.answer_file.clone();
    episode.prompts = prompts;
    let dir = settings
        .run_dir
        .join("trajectories")
        .join(safe(&format!("{}_{}", row.id, job.repeat)));
    let recorder = Recorder::start(
        &dir,
        json!({"problem_statement": row.problem_statement, "id": row.id, "domain": row.domain, "repeat": job.repeat}),
    )
    .map_err(|e| format!("cannot write the trajectory: {e}"))?;
    let client = Client::new(settings.llm.clone()).map_err(|e| e.to_string())?;
    let r = Episode::new(client, Toolbox::new(shell), episode, recorder)
        .run(&row.problem_statement)
        .await;
    result.stop = serde_json::to_value(&r.stop)
        .ok()
        .and_then(|v| v["reason"].as_str().map(str::to_string))
        .unwrap_or_default();
    result.steps = r.steps;
    result.tokens = r.usage.total_tokens;
    result.llm_seconds = r.llm_seconds;
    result.sandbox_seconds = r.tool_seconds;
    result.warning = r.record_error;
    if let crate::agent::StopReason::LlmError(e) = &r.stop {
        return Err(format!("LLM error: {e}"));
    }
    Ok(r.answer)
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
    row: &Row,
    result: &mut RowResult,
) -> Result<Option<String>, String> {
    let client = Client::new(settings.llm.clone()).map_err(|e| e.to_string())?;
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
