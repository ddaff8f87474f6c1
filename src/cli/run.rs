//! `llm-in-sandbox run`: one task, end to end, with the reference system's flags.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Map, Value, json};

use llm_in_sandbox::agent::{
    EpisodeSettings, EpisodeSpec, Prompts, SandboxSettings, StopReason, setup,
};
use llm_in_sandbox::config::{self, FileConfig};
use llm_in_sandbox::llm::{Client, LlmConfig};
use llm_in_sandbox::sandbox::{GUEST_WORKSPACE, NetworkPolicy};

use super::{GlobalArgs, tokio_runtime};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The task for the model.
    #[arg(long, short = 'q')]
    query: String,
    /// Files to give the model, copied to /testbed/input/.
    #[arg(long, alias = "input_dir", value_name = "DIR")]
    input_dir: Option<PathBuf>,
    /// Where results go: a new <timestamp>/ folder with trajectory.json, events.jsonl and the
    /// files the model left in /testbed/output/.
    #[arg(
        long,
        alias = "output_dir",
        default_value = "output",
        value_name = "DIR"
    )]
    output_dir: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
}

/// Model, episode and sandbox flags shared by `run` and `benchmark`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Model name (config: llm_name).
    #[arg(long, alias = "llm_name", value_name = "MODEL")]
    llm_name: Option<String>,
    /// OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (config: llm_base_url;
    /// env: OPENAI_BASE_URL).
    #[arg(long, alias = "llm_base_url", value_name = "URL")]
    llm_base_url: Option<String>,
    /// API key (config: api_key; env: OPENAI_API_KEY).
    #[arg(long, alias = "api_key", value_name = "KEY")]
    api_key: Option<String>,
    /// Sampling temperature.
    #[arg(long)]
    temperature: Option<f64>,
    /// Model turns before stopping (default 100).
    #[arg(long, alias = "max_steps", value_name = "N")]
    max_steps: Option<u32>,
    /// Stop when a call's total tokens reach this (default 65536).
    #[arg(long, alias = "max_token_limit", value_name = "N")]
    max_token_limit: Option<u64>,
    /// `max_tokens` per call (default: the server's).
    #[arg(long, alias = "max_tokens", value_name = "N")]
    max_tokens: Option<u32>,
    /// JSON object merged into every request, e.g. '{"top_p": 0.95}'.
    #[arg(long, alias = "extra_body", value_name = "JSON")]
    extra_body: Option<String>,
    /// Config file (default search: $LLM_IN_SANDBOX_CONFIG, ./llm-in-sandbox.yaml,
    /// ~/.llm-in-sandbox/config.yaml).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Prompt file (YAML with system_prompt / instance_prompt).
    #[arg(long, alias = "prompt_config", value_name = "FILE")]
    prompt_config: Option<PathBuf>,
    /// Time limit per tool command, in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    command_timeout: f64,
    /// Hosts the sandbox may reach (curl/wget; comma-separated host or host:port).
    /// Default: no network.
    #[arg(long, value_delimiter = ',', value_name = "HOST,...")]
    allow_net: Vec<String>,
    /// Disk quota of each sandbox's /testbed and /tmp together, in MiB (shell, editor and
    /// Python writes alike).
    #[arg(long, default_value_t = 1024, value_name = "MB")]
    disk_quota: u64,
    /// Seconds allowed for one HTTP request to the model.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    request_timeout: f64,
    /// Retries of a failing model request (429, 5xx, timeouts) before giving up.
    #[arg(long, default_value_t = 5, value_name = "N")]
    max_retries: u32,
}

/// Settings resolved from flags, the config file and the environment.
pub struct Resolved {
    pub llm: LlmConfig,
    pub episode: EpisodeSettings,
    pub prompt_config: Option<PathBuf>,
    pub sandbox: SandboxSettings,
}

impl ModelArgs {
    /// Flags win over the config file, which wins over OPENAI_* variables.
    pub fn resolve(&self) -> anyhow::Result<Resolved> {
        let file = config::load(self.config.as_deref())?;
        let FileConfig {
            llm_name,
            llm_base_url,
            api_key,
            prompt_config,
            temperature,
            max_steps,
            max_token_limit,
            max_tokens,
            extra_body,
        } = file.map(|(_, c)| c).unwrap_or_default();
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let base_url = self
            .llm_base_url
            .clone()
            .or(llm_base_url)
            .or_else(|| env("OPENAI_BASE_URL"));
        let (Some(base_url), Some(model)) = (base_url, self.llm_name.clone().or(llm_name)) else {
            bail!("{NO_ENDPOINT}");
        };
        let mut llm = LlmConfig::new(base_url, model);
        llm.api_key = self
            .api_key
            .clone()
            .or(api_key)
            .or_else(|| env("OPENAI_API_KEY"));
        llm.temperature = self.temperature.or(temperature);
        llm.request_timeout = Duration::from_secs_f64(self.request_timeout.max(1.0));
        llm.max_retries = self.max_retries;
        let extra: Option<Value> = match &self.extra_body {
            Some(text) => {
                Some(serde_json::from_str(text).context("--extra-body is not valid JSON")?)
            }
            None => extra_body,
        };
        match extra {
            Some(Value::Object(map)) => llm.extra_body = map,
            Some(_) => bail!("--extra-body must be a JSON object, e.g. '{{\"top_p\": 0.95}}'"),
            None => llm.extra_body = Map::new(),
        }
        Ok(Resolved {
            llm,
            episode: EpisodeSettings {
                max_steps: self.max_steps.or(max_steps).unwrap_or(100),
                max_token_limit: self.max_token_limit.or(max_token_limit).unwrap_or(65_536),
                max_tokens: self.max_tokens.or(max_tokens),
                ..EpisodeSettings::default()
            },
            prompt_config: self.prompt_config.clone().or(prompt_config),
            sandbox: SandboxSettings {
                command_timeout: Duration::from_secs_f64(self.command_timeout.max(0.1)),
                disk_quota: self.disk_quota.saturating_mul(1 << 20),
                network: NetworkPolicy::allow(&self.allow_net)?,
                ..SandboxSettings::default()
            },
        })
    }
}

const NO_ENDPOINT: &str = "no LLM endpoint configured. Give one with\n  \
    --llm-base-url http://HOST:PORT/v1 --llm-name MODEL [--api-key KEY]\n\
    or set OPENAI_BASE_URL (and OPENAI_API_KEY), or write llm_base_url and llm_name into \
    ./llm-in-sandbox.yaml or ~/.llm-in-sandbox/config.yaml";

/// Seconds since the epoch as `YYYYMMDD-HHMMSS` (UTC), for folder names.
pub fn timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The files under `from`, with paths relative to it, for the episode's input folder.
fn read_inputs(from: &Path) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    fn walk(from: &Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) -> anyhow::Result<()> {
        for entry in
            std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
        {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let ty = entry.file_type()?;
            if ty.is_dir() {
                walk(&path, &format!("{prefix}{name}/"), out)?;
            } else if ty.is_file() {
                let bytes = std::fs::read(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                out.push((format!("{prefix}{name}"), bytes));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(from, "", &mut out)?;
    Ok(out)
}

fn copy_out(dir: &cap_std::fs::Dir, rel: &str, to: &Path) -> anyhow::Result<()> {
    let Ok(entries) = dir.read_dir(rel) else {
        return Ok(());
    };
    std::fs::create_dir_all(to)?;
    for e in entries.flatten() {
        let name = e.file_name();
        let child = format!("{rel}/{}", name.to_string_lossy());
        let ty = e.file_type()?;
        if ty.is_dir() {
            copy_out(dir, &child, &to.join(&name))?;
        } else if ty.is_file() {
            std::fs::write(to.join(&name), dir.read(&child)?)?;
        }
    }
    Ok(())
}

pub fn run(global: &GlobalArgs, args: RunArgs) -> anyhow::Result<ExitCode> {
    let Resolved {
        llm,
        episode,
        prompt_config,
        sandbox,
    } = args.model.resolve()?;
    let mut prompts = Prompts {
        input_dir: "/testbed/input".into(),
        output_dir: "/testbed/output".into(),
        answer_file: "/testbed/output/answer.txt".into(),
        ..Prompts::default()
    };
    if let Some(p) = prompt_config {
        prompts = prompts.load(&p)?;
    }
    let settings = EpisodeSettings { prompts, ..episode };
    let run_dir = args.output_dir.join(timestamp());
    let input_files = match &args.input_dir {
        Some(dir) => read_inputs(dir)?,
        None => Vec::new(),
    };
    if !input_files.is_empty() {
        eprintln!(
            "llm-in-sandbox: {} input files go to {}/",
            input_files.len(),
            settings.prompts.input_dir
        );
    }
    let runtime = global.load_runtime()?;
    let client = Client::new(llm.clone())?;
    let rt = tokio_runtime()?;
    let query = args.query.clone();
    let result = rt.block_on(async move {
        let spec = EpisodeSpec {
            sandbox,
            episode: settings,
            workspace: None,
            input_files,
            record_dir: run_dir.clone(),
            header: json!({"problem_statement": query, "model": llm.model, "base_url": llm.base_url}),
        };
        let episode = setup(&runtime, client, spec).await?;
        eprintln!("llm-in-sandbox: recording to {}", run_dir.display());
        let recorder = episode.recorder().clone();
        let sandbox = episode.sandbox().clone();
        let output_dir = episode.settings().prompts.output_dir.clone();
        let episode = episode.on_progress(Box::new(|line| eprintln!("  {line}")));
        let result = tokio::select! {
            r = episode.run(&query) => r,
            _ = tokio::signal::ctrl_c() => {
                let _ = recorder.finish(json!({"status": "interrupted"})).await;
                bail!("interrupted; the partial trajectory is in {}", run_dir.display());
            }
        };
        let rel = output_dir
            .strip_prefix(GUEST_WORKSPACE)
            .unwrap_or("output")
            .trim_start_matches('/');
        copy_out(sandbox.workspace().dir(), if rel.is_empty() { "." } else { rel }, &run_dir.join("output"))?;
        anyhow::Ok((result, run_dir))
    })?;
    let (result, run_dir) = result;
    eprintln!(
        "llm-in-sandbox: {:?} after {} steps, {} tokens, {:.1} s (model {:.1} s, tools {:.1} s); results in {}",
        result.stop,
        result.steps,
        result.usage.total_tokens,
        result.total_seconds,
        result.llm_seconds,
        result.tool_seconds,
        run_dir.display()
    );
    match &result.answer {
        Some(a) => println!("{}", a.trim_end()),
        None => {
            eprintln!("llm-in-sandbox: no answer file was written (/testbed/output/answer.txt)")
        }
    }
    Ok(match result.stop {
        StopReason::Submitted => ExitCode::SUCCESS,
        StopReason::LlmError(_) | StopReason::HostError(_) => ExitCode::from(3),
        _ => ExitCode::from(1),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_look_right() {
        let t = super::timestamp();
        assert_eq!(t.len(), 15);
        assert!(t.starts_with("20"));
    }
}
