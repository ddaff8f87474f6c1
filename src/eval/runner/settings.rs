//! What a run is asked to do ([`BenchSettings`], [`Mode`], [`Shard`]) and what it did
//! ([`BenchOutcome`]).

use std::path::PathBuf;

use serde_json::Value;

use super::progress::ProgressOutput;
use crate::agent::{EpisodeSettings, SandboxSettings};
use crate::llm::LlmConfig;

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
    pub judge: Option<crate::eval::judge::Judge>,
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
