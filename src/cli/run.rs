//! `llm-in-sandbox run`: one task, end to end, with the reference system's flags.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Map, Value, json};

use llm_in_sandbox::agent::{
    Budget, Deviations, EpisodeResult, EpisodeSettings, EpisodeSpec, SandboxSettings, StopReason,
    setup,
};
use llm_in_sandbox::config::{self, FileConfig};
use llm_in_sandbox::llm::{Client, LlmConfig};
use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::sandbox::{GUEST_WORKSPACE, NetworkPolicy};
use llm_in_sandbox::tools::{EditorMode, ShellMode, ToolModes};

use super::watch::Watch;
use super::{GlobalArgs, tokio_runtime};

/// The exit codes of `run` (in `--help` and docs/coming-from-the-reference.md).
pub const EXIT_CODES: &str = "Exit codes:
  0    the model submitted and the answer file exists (its text is printed on stdout)
  1    the episode stopped before the model submitted: the step limit, the token limit, or
       a conversation too long for the model's context
  2    usage or setup error: bad flags, no model named, the runtime
  3    the model's endpoint failed (past retries) or the sandbox failed on the host
  4    the model submitted without writing the answer file
  130  interrupted (Ctrl-C); the partial trajectory is kept";

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The task for the model.
    #[arg(long, short = 'q')]
    query: String,
    /// Files to give the model, copied to /testbed/input/.
    #[arg(long, alias = "input_dir", value_name = "DIR")]
    input_dir: Option<PathBuf>,
    /// Where results go: a new <timestamp>/ folder with trajectory.json, events.jsonl and
    /// files/ (what the model left in its output folder, /testbed/output/ by default).
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
    /// Model name (env: LLM_NAME; settings: llm_name). A provider prefix (`openai/`,
    /// `hosted_vllm/`) is dropped: every endpoint here is OpenAI-compatible.
    #[arg(long, alias = "llm_name", value_name = "MODEL")]
    llm_name: Option<String>,
    /// OpenAI-compatible base URL (env: LLM_BASE_URL; settings: llm_base_url; then
    /// OPENAI_BASE_URL; default http://localhost:8000/v1, as the reference).
    #[arg(long, alias = "llm_base_url", value_name = "URL")]
    llm_base_url: Option<String>,
    /// API key (env: LLM_API_KEY; settings: api_key; then OPENAI_API_KEY).
    #[arg(long, alias = "api_key", value_name = "KEY")]
    api_key: Option<String>,
    /// Sampling temperature sent with every call (env: LLM_TEMPERATURE; default 1.0, the
    /// reference's; the paper uses 0.7 for Qwen3 models).
    #[arg(long)]
    temperature: Option<f64>,
    /// Model turns before stopping (default 100).
    #[arg(long, alias = "max_steps", value_name = "N")]
    max_steps: Option<u32>,
    /// Stop when a call's total tokens reach this (default 65536).
    #[arg(long, alias = "max_token_limit", value_name = "N")]
    max_token_limit: Option<u64>,
    /// `max_tokens` sent with every agent call (default 65536, the reference's; on a
    /// context-length error it is lowered to what fits).
    #[arg(
        long,
        alias = "max_tokens",
        alias = "max-tokens-per-call",
        alias = "max_tokens_per_call",
        value_name = "N"
    )]
    max_tokens: Option<u32>,
    /// `max_tokens` of the one call in `--mode llm` (default 65536).
    #[arg(long, alias = "max_response_len", value_name = "N")]
    max_response_len: Option<u32>,
    /// Object merged into every request: JSON, or a Python dict literal as the reference
    /// takes it, e.g. '{"chat_template_kwargs": {"thinking": True}}'.
    #[arg(long, alias = "extra_body", value_name = "JSON")]
    extra_body: Option<String>,
    /// Settings file (default search: $LLM_IN_SANDBOX_CONFIG, ./llm-in-sandbox.yaml,
    /// ./llm_in_sandbox.yaml, ~/.llm-in-sandbox/config.yaml, ~/.llm-in-sandbox.yaml).
    #[arg(long, alias = "settings", value_name = "FILE")]
    config: Option<PathBuf>,
    /// Prompt file (YAML with system_prompt / instance_prompt and optional working_dir,
    /// input_dir, output_dir).
    #[arg(long, alias = "prompt_config", value_name = "FILE")]
    prompt_config: Option<PathBuf>,
    /// Time limit per tool command, in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    command_timeout: f64,
    /// Hosts the sandbox may reach (curl/wget and Python's urllib/http.client; comma-separated
    /// host or host:port). Default: no network.
    #[arg(long, value_delimiter = ',', value_name = "HOST,...")]
    allow_net: Vec<String>,
    /// Whether `pip install` in an episode may fetch pure-Python packages through the host's
    /// pip (`on` or `off`).
    #[arg(long, default_value = "on", value_parser = crate::cli::on_off, action = clap::ArgAction::Set, value_name = "on|off")]
    pip: bool,
    /// Disk quota of each sandbox's /testbed and /tmp together, in MiB (shell, editor and
    /// Python writes alike).
    #[arg(long, default_value_t = 1024, value_name = "MB")]
    disk_quota: u64,
    /// Seconds allowed for one HTTP request to the model (default 1200, the reference's; 1800
    /// for the one call of `--mode llm`).
    #[arg(long, value_name = "SECONDS")]
    request_timeout: Option<f64>,
    /// How `execute_bash` runs. `reference` (default): every call is a fresh shell in
    /// /testbed, as the reference's `bash -c` (cd and variables do not carry over), and a
    /// command's own exit code 124 reads as the 120 s timeout, as there. `persistent`: one
    /// shell per episode whose state carries over, exit 124 shown as itself.
    #[arg(long, value_enum, default_value = "reference", value_name = "MODE")]
    shell: ShellArg,
    /// Which str_replace_editor. `reference` (default): view shows and lists only .py/.rst
    /// files, create overwrites, each write adds a newline, tabs are expanded on edits.
    /// `improved`: any text file, create never overwrites, files kept byte for byte, and
    /// `undo_edit` (added to the tool definition sent to the model).
    #[arg(long, value_enum, default_value = "reference", value_name = "MODE")]
    editor: EditorArg,
    /// Run tool calls the model wrote in its text (`<tool_call>{...}</tool_call>`) when the
    /// server did not parse them. The reference answers such a turn with its "use a function
    /// call" nudge; this helps models served without a tool-call parser.
    #[arg(long)]
    text_tool_calls: bool,
    /// How --max-token-limit is counted. `reference` (default): before each call, over the
    /// messages, as the reference's litellm counts (tiktoken cl100k_base); `characters`: a
    /// quarter of the messages' characters, the reference's estimate when litellm cannot
    /// count; `server-usage`: the tokens the server reports after each call.
    #[arg(long, value_enum, default_value = "reference", value_name = "MODE")]
    budget: BudgetArg,
    /// Make a row whose model call failed an error row (scored 0, in num_errors). By default,
    /// as the reference, the episode ends and its answer file is scored.
    #[arg(long)]
    llm_error_rows: bool,
    /// Retries of a failing model request (429, 5xx, timeouts) before giving up.
    #[arg(long, default_value_t = 5, value_name = "N")]
    max_retries: u32,
    /// The reference's Docker image: accepted and ignored (every episode runs in the built-in
    /// WebAssembly sandbox).
    #[arg(long, alias = "docker_image", value_name = "IMAGE")]
    docker_image: Option<String>,
    /// The reference's switch to keep raw model responses: accepted; every request and
    /// response is always recorded in each episode's events.jsonl.
    #[arg(
        long,
        alias = "save_litellm_response",
        value_name = "BOOL",
        num_args = 0..=1,
        default_missing_value = "true"
    )]
    save_litellm_response: Option<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ShellArg {
    Reference,
    Persistent,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum EditorArg {
    Reference,
    Improved,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum BudgetArg {
    Reference,
    Characters,
    ServerUsage,
}

/// Settings resolved from flags, the environment and the settings file.
pub struct Resolved {
    pub llm: LlmConfig,
    pub episode: EpisodeSettings,
    pub prompt_config: Option<PathBuf>,
    pub sandbox: SandboxSettings,
    /// `max_tokens` of the plain-LLM call.
    pub max_response_len: u32,
    /// The reference-only settings as given, for `results.json`'s `config`.
    pub extra_config: Map<String, Value>,
    /// The config file's `with:` (extra pure-Python packages), if any.
    pub with: Option<String>,
}

/// The reference's default endpoint, used when nothing names one.
const DEFAULT_BASE_URL: &str = "http://localhost:8000/v1";

/// `openai/Qwen3-8B` -> `Qwen3-8B` (the reference adds such prefixes for its router).
pub fn strip_provider(model: &str) -> &str {
    ["openai/", "hosted_vllm/"]
        .iter()
        .find_map(|p| model.strip_prefix(p))
        .unwrap_or(model)
}

/// The reference's HTTP timeout of an agent call, in seconds (1800 in its LLM-only mode).
pub const REFERENCE_REQUEST_TIMEOUT: f64 = 1200.0;
/// The reference's HTTP timeout of the one call of `--mode llm`, in seconds.
pub const REFERENCE_LLM_MODE_TIMEOUT: f64 = 1800.0;

impl ModelArgs {
    /// Where the episode differs from the reference's agent, from the flags.
    pub fn deviations(&self) -> Deviations {
        Deviations {
            tools: ToolModes {
                shell: match self.shell {
                    ShellArg::Reference => ShellMode::Reference,
                    ShellArg::Persistent => ShellMode::Persistent,
                },
                editor: match self.editor {
                    EditorArg::Reference => EditorMode::Reference,
                    EditorArg::Improved => EditorMode::Improved,
                },
            },
            text_tool_calls: self.text_tool_calls,
            budget: match self.budget {
                BudgetArg::Reference => Budget::Reference,
                BudgetArg::Characters => Budget::Characters,
                BudgetArg::ServerUsage => Budget::ServerUsage,
            },
            llm_error_rows: self.llm_error_rows,
        }
    }

    /// Whether `--request-timeout` was given.
    pub fn request_timeout_given(&self) -> bool {
        self.request_timeout.is_some()
    }

    /// Flags win over `LLM_*` variables, which win over the settings file, which wins over
    /// OPENAI_* variables and the reference's defaults.
    pub fn resolve(&self) -> anyhow::Result<Resolved> {
        let file = self.file_config()?;
        let llm = self.llm_config(&file)?;
        let extra_config = self.reference_only();
        let FileConfig {
            prompt_config,
            max_steps,
            max_token_limit,
            max_tokens,
            with,
            ..
        } = file;
        Ok(Resolved {
            llm,
            episode: EpisodeSettings {
                max_steps: self.max_steps.or(max_steps).unwrap_or(100),
                max_token_limit: self.max_token_limit.or(max_token_limit).unwrap_or(65_536),
                max_tokens: Some(self.max_tokens.or(max_tokens).unwrap_or(65_536)),
                deviations: self.deviations(),
                ..EpisodeSettings::default()
            },
            prompt_config: self.prompt_config.clone().or(prompt_config),
            sandbox: SandboxSettings {
                command_timeout: Duration::from_secs_f64(self.command_timeout.max(0.1)),
                disk_quota: self.disk_quota.saturating_mul(1 << 20),
                network: NetworkPolicy::allow(&self.allow_net)?.with_pip(self.pip),
                ..SandboxSettings::default()
            },
            max_response_len: self.max_response_len.unwrap_or(65_536),
            extra_config,
            with,
        })
    }

    /// The settings file (`--config`, else the default places), its unused keys shown; the
    /// empty settings when there is none.
    fn file_config(&self) -> anyhow::Result<FileConfig> {
        let loaded = config::load(self.config.as_deref())?;
        if let Some(l) = &loaded {
            for k in &l.unused_keys {
                eprintln!(
                    "llm-in-sandbox: warning: {}: setting `{k}` is not used here",
                    l.path.display()
                );
            }
        }
        Ok(loaded.map(|l| l.config).unwrap_or_default())
    }

    /// The model's endpoint settings: flags, then `LLM_*` variables, then the settings file,
    /// then `OPENAI_*` variables and the reference's defaults.
    fn llm_config(&self, file: &FileConfig) -> anyhow::Result<LlmConfig> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let Some(model) = self
            .llm_name
            .clone()
            .or_else(|| env("LLM_NAME"))
            .or(file.llm_name.clone())
        else {
            bail!("{NO_MODEL}");
        };
        let base_url = match self
            .llm_base_url
            .clone()
            .or_else(|| env("LLM_BASE_URL"))
            .or(file.llm_base_url.clone())
            .or_else(|| env("OPENAI_BASE_URL"))
        {
            Some(u) => u,
            None => {
                eprintln!(
                    "llm-in-sandbox: no base URL given (--llm-base-url, LLM_BASE_URL); using {DEFAULT_BASE_URL}"
                );
                DEFAULT_BASE_URL.to_string()
            }
        };
        let mut llm = LlmConfig::new(base_url, strip_provider(&model));
        llm.api_key = self
            .api_key
            .clone()
            .or_else(|| env("LLM_API_KEY"))
            .or(file.api_key.clone())
            .or_else(|| env("OPENAI_API_KEY"));
        let env_temperature = match env("LLM_TEMPERATURE") {
            Some(t) => Some(
                t.trim()
                    .parse::<f64>()
                    .with_context(|| format!("LLM_TEMPERATURE={t:?} is not a number"))?,
            ),
            None => None,
        };
        llm.temperature = Some(
            self.temperature
                .or(env_temperature)
                .or(file.temperature)
                .unwrap_or(1.0),
        );
        llm.request_timeout = Duration::from_secs_f64(
            self.request_timeout
                .unwrap_or(REFERENCE_REQUEST_TIMEOUT)
                .max(1.0),
        );
        llm.max_retries = self.max_retries;
        llm.extra_body = match &self.extra_body {
            Some(text) => {
                config::parse_extra_body(text).map_err(|e| anyhow::anyhow!("--extra-body: {e}"))?
            }
            None => match &file.extra_body {
                Some(Value::Object(map)) => map.clone(),
                _ => Map::new(),
            },
        };
        Ok(llm)
    }

    /// The reference's flags that have no effect here, noted on stderr and kept as given for
    /// `results.json`'s `config`.
    fn reference_only(&self) -> Map<String, Value> {
        let mut extra_config = Map::new();
        if let Some(image) = &self.docker_image {
            eprintln!(
                "llm-in-sandbox: note: --docker_image {image} is not used: every episode runs in the built-in WebAssembly sandbox (CPython 3.15 with numpy, scipy, sympy, pandas, ...)"
            );
            extra_config.insert("docker_image".into(), Value::from(image.clone()));
        }
        if let Some(v) = &self.save_litellm_response {
            eprintln!(
                "llm-in-sandbox: note: --save_litellm_response: every request and response is always in each episode's events.jsonl"
            );
            let on = !matches!(v.to_ascii_lowercase().as_str(), "false" | "0" | "no");
            extra_config.insert("save_litellm_response".into(), Value::from(on));
        }
        extra_config
    }
}

const NO_MODEL: &str = "no model named. Give one with\n  \
    --llm-name MODEL [--llm-base-url http://HOST:PORT/v1] [--api-key KEY]\n\
    or set LLM_NAME (and LLM_BASE_URL, LLM_API_KEY), or write llm_name and llm_base_url into \
    ./llm-in-sandbox.yaml or ~/.llm-in-sandbox/config.yaml";

/// The local time as `YYYYmmdd_HHMMSS`, as the reference names its output folders.
pub fn timestamp() -> String {
    chrono::Local::now().format("%Y%m%d_%H%M%S").to_string()
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

/// The `tools` the reference sends (read from its package), with `undo_edit` when the
/// improved editor is on.
pub fn reference_tools(
    rt: &tokio::runtime::Runtime,
    reference: &llm_in_sandbox::reference::Reference,
    runtime: &std::sync::Arc<llm_in_sandbox::runtime::Runtime>,
    episode: &EpisodeSettings,
) -> anyhow::Result<Value> {
    let tools = rt
        .block_on(reference.tools(runtime))
        .context("cannot read the reference's tool definitions")?;
    Ok(match episode.deviations.tools.editor {
        EditorMode::Reference => tools,
        _ => llm_in_sandbox::tools::with_undo_edit(&tools),
    })
}

pub fn run(global: &GlobalArgs, args: RunArgs) -> anyhow::Result<ExitCode> {
    let Resolved {
        llm,
        episode,
        prompt_config,
        sandbox,
        with,
        ..
    } = args.model.resolve()?;
    // The reference's `run` prompts and folders (config/general.yaml: input in
    // /testbed/input, everything the model makes, and the answer, in /testbed/output); a
    // prompt file may say otherwise.
    let reference = global.reference()?;
    let mut prompts = reference.run_prompts()?;
    if let Some(p) = prompt_config {
        prompts = prompts.load(&p)?;
    }
    let answer_file = prompts.answer_file.clone();
    let (max_steps, max_token_limit) = (episode.max_steps, episode.max_token_limit);
    let runtime = global.load_runtime_using(0, with.as_deref())?;
    let rt = tokio_runtime()?;
    let tools = reference_tools(&rt, &reference, &runtime, &episode)?;
    let settings = EpisodeSettings {
        prompts,
        tools,
        ..episode
    };
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
    let client = Client::new(llm.clone())?;
    let query = args.query.clone();
    let spec = EpisodeSpec {
        sandbox,
        episode: settings,
        workspace: None,
        input_files,
        record_dir: run_dir.clone(),
        header: json!({"problem_statement": query, "model": llm.model, "base_url": llm.base_url}),
    };
    let Some(result) = rt.block_on(run_episode(&runtime, client, spec, &query, &run_dir))? else {
        eprintln!(
            "llm-in-sandbox: interrupted; the partial trajectory is in {}",
            run_dir.display()
        );
        return Ok(ExitCode::from(130));
    };
    let limits = (max_steps, max_token_limit);
    Ok(report(&result, &run_dir, &answer_file, limits))
}

/// Set up and run the episode, recorded into `run_dir`, each step shown as it happens; then
/// what the model left in its output folder is copied to `run_dir/files`. `None`: Ctrl-C
/// stopped it (the partial trajectory is kept).
async fn run_episode(
    runtime: &Arc<Runtime>,
    client: Client,
    spec: EpisodeSpec,
    query: &str,
    run_dir: &Path,
) -> anyhow::Result<Option<EpisodeResult>> {
    let episode = setup(runtime, client, spec).await?;
    eprintln!("llm-in-sandbox: recording to {}", run_dir.display());
    let recorder = episode.recorder().clone();
    let sandbox = episode.sandbox().clone();
    let output_dir = episode.settings().prompts.output_dir.clone();
    let watch = Watch::new();
    let reports = watch.clone();
    let episode = episode.on_progress(Box::new(move |r| reports.report(r)));
    let ticks = watch.clone();
    let ticker = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            ticks.tick();
        }
    });
    let result = tokio::select! {
        r = episode.run(query) => Some(r),
        _ = tokio::signal::ctrl_c() => None,
    };
    ticker.abort();
    watch.finish();
    let Some(result) = result else {
        let _ = recorder.finish(json!({"status": "interrupted"})).await;
        return Ok(None);
    };
    let rel = output_dir
        .strip_prefix(GUEST_WORKSPACE)
        .unwrap_or("output")
        .trim_start_matches('/');
    copy_out(
        sandbox.workspace().dir(),
        if rel.is_empty() { "." } else { rel },
        &run_dir.join("files"),
    )?;
    Ok(Some(result))
}

/// How the episode ended and the answer file's state (on stderr), the answer (on stdout),
/// and the exit code ([`EXIT_CODES`]).
fn report(
    result: &EpisodeResult,
    run_dir: &Path,
    answer_file: &str,
    (max_steps, max_token_limit): (u32, u64),
) -> ExitCode {
    use llm_in_sandbox::agent::report::thousands;
    let mut line = format!(
        "llm-in-sandbox: {}",
        result.stop.phrase(result.steps, max_steps, max_token_limit)
    );
    if result.no_call_steps > 0 {
        line.push_str(&format!(
            "; {} of {} turns without a tool call",
            result.no_call_steps, result.steps
        ));
    }
    line.push_str(&format!(
        "; {} tokens, {:.1} s (model {:.1} s, tools {:.1} s); results in {}",
        thousands(result.usage.total_tokens),
        result.total_seconds,
        result.llm_seconds,
        result.tool_seconds,
        run_dir.display()
    ));
    eprintln!("{line}");
    match &result.answer {
        Some(a) if a.trim().is_empty() => {
            eprintln!("llm-in-sandbox: answer file empty: {answer_file}");
        }
        Some(a) => {
            eprintln!(
                "llm-in-sandbox: answer file: {answer_file} ({} bytes, printed on stdout)",
                a.len()
            );
            println!("{}", a.trim_end());
        }
        None => eprintln!("llm-in-sandbox: answer file missing: {answer_file}"),
    }
    match (&result.stop, &result.answer) {
        (StopReason::Submitted, Some(_)) => ExitCode::SUCCESS,
        (StopReason::Submitted, None) => ExitCode::from(4),
        (StopReason::LlmError(_) | StopReason::HostError(_), _) => ExitCode::from(3),
        _ => ExitCode::from(1),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_look_right() {
        let t = super::timestamp();
        assert_eq!(t.len(), 15);
        assert!(t.starts_with("20") && t.as_bytes()[8] == b'_', "{t}");
    }

    #[test]
    fn provider_prefixes_are_dropped() {
        assert_eq!(super::strip_provider("openai/Qwen3-8B"), "Qwen3-8B");
        assert_eq!(super::strip_provider("hosted_vllm/org/m"), "org/m");
        assert_eq!(super::strip_provider("org/m"), "org/m");
    }
}
