//! `llm-in-sandbox benchmark` and `merge`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use llm_in_sandbox::agent::Prompts;
use llm_in_sandbox::eval::{
    self, BenchSettings, Mode, ProgressOutput, Scorer, Shard, TaskSpec, parse_jsonl,
};

use super::run::{ModelArgs, Resolved};
use super::{GlobalArgs, tokio_runtime};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    /// The model works with tools in a sandbox (`sandbox` works too).
    #[value(name = "llm-in-sandbox", alias = "sandbox")]
    Sandbox,
    /// One plain completion, no tools.
    Llm,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RewardPython {
    /// In the sandbox; when the script's imports are missing there and the host's python3
    /// has them, with the host's python3 (said on stderr). The default.
    Auto,
    /// Inside the WebAssembly sandbox (nothing of the host is reachable).
    Sandbox,
    /// With the host's python3, as the reference does: trusted task code that may import what
    /// is installed on the host (math-verify, IFBench); the answer is passed as data.
    Host,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TaskFolders {
    Reference,
    Config,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum BadRows {
    /// Report bad rows with their line numbers and run the others.
    Skip,
    /// Report bad rows and stop before running anything.
    Stop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    /// For people: a live bar on a terminal, plain lines elsewhere, one summary line.
    Text,
    /// One JSON object per line on stderr: `{"event":"start",...}`, `{"event":"row",...}` per
    /// finished row, `{"event":"run",...}` with the summary, `{"event":"gate",...}`.
    Json,
}

/// The exit codes of `benchmark` and `merge` (in `--help` and the README).
pub const EXIT_CODES: &str = "Exit codes:
  0    the run finished (every gate passed, if any were given)
  1    a gate failed: --fail-under or --max-errors (the reason is one line on stderr)
  2    usage or setup error: bad flags, task or data, the runtime, the run folder
       (nothing was gated)
  130  (benchmark) interrupted (Ctrl-C): the finished rows are kept; continue with
       --resume DIR
A benchmark row whose model wrote no answer file is scored on the empty answer, as the
reference does, and gets a warning saying so in results.jsonl.";

/// CI: gates and reports, on `benchmark` and on `merge` (sharded jobs gate on the merged run).
#[derive(Debug, Args)]
pub struct CiArgs {
    /// Exit 1 when the overall mean score (error rows count as 0) is below SCORE, or with
    /// DOMAIN=SCORE when that domain's is. SCORE is a fraction (0.85) or a percentage (85%).
    /// Repeat the flag or give a comma list: --fail-under 0.8,math=0.9.
    #[arg(long, value_name = "[DOMAIN=]SCORE", value_delimiter = ',')]
    fail_under: Vec<eval::gate::ScoreGate>,
    /// Exit 1 when more than N rows have an error (no score).
    #[arg(long, value_name = "N")]
    max_errors: Option<u64>,
    /// Write JUnit XML here: a test suite per domain, a test case per row (a failure when it
    /// scored below 1, an error when it has no score), for CI test reports.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write one self-contained HTML report here (summary, chart, every row and its episode;
    /// no network needed to open it), e.g. for a CI job's artifacts. The page of `view`.
    #[arg(long, value_name = "FILE")]
    report_html: Option<PathBuf>,
}

/// Progress output of `benchmark`.
#[derive(Debug, Args)]
struct OutputArgs {
    /// No progress output (the summary table still goes to stdout).
    #[arg(long, short = 'q', conflicts_with = "log_format")]
    quiet: bool,
    /// Progress on stderr for people (text) or machines (json: one event per line).
    #[arg(long, value_enum, default_value = "text")]
    log_format: LogFormat,
    /// When stderr is not a terminal: a progress line at least this often (and every 5% of
    /// the rows).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    progress_every: f64,
}

#[derive(Debug, Args)]
pub struct BenchmarkArgs {
    /// A task folder (ours or the reference's: config.yaml, reward.py, vanilla_llm_prompt.py),
    /// or the name of one of the reference's own tasks (math, physics, chem, biomed,
    /// long_context, instruct_follow, instruct_pretrain, demo: its task folder and its Hub
    /// dataset, as `llm-in-sandbox benchmark --task NAME` runs it there), or one of our small
    /// offline sets (quick-math, quick-physics, quick-chemistry, quick-biomedicine,
    /// quick-long_context, quick-instruction_following, quick-demo). A folder of that name wins.
    #[arg(long, value_name = "NAME|DIR", required_unless_present = "data")]
    task: Option<String>,
    /// A data file (JSON lines, a JSON array or Parquet) of rows {id, domain,
    /// problem_statement, ground_truth, input_files}, or of the RL repository's verl rows (the
    /// row in `extra_info`). Alone: scored by --scorer; with --task: the task's prompts and
    /// reward on these rows instead of its own (e.g. --task instruct_pretrain --data
    /// train_verl.json).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Scorer for --data without --task: exact, numeric, choice or math (default exact).
    #[arg(long, conflicts_with = "task")]
    scorer: Option<String>,
    /// Another config of the task's Hub dataset, e.g. the RL dataset's test configs for
    /// --task instruct_pretrain: math_mini, physics_mini, chem_mini, biomed_mini,
    /// long_context_mini, instruct_follow_mini. Its split is `test` unless --split says.
    #[arg(
        long,
        alias = "dataset_config",
        value_name = "NAME",
        requires = "task",
        conflicts_with = "data"
    )]
    dataset_config: Option<String>,
    /// Another split of the task's Hub dataset (default: the task's own, or `test` with
    /// --dataset-config).
    #[arg(long, value_name = "NAME", requires = "task", conflicts_with = "data")]
    split: Option<String>,
    /// llm-in-sandbox: the model works with tools in a sandbox; llm: one plain completion
    /// (the task's vanilla_llm_prompt.py builds the prompt; else ours, with the documents
    /// pasted in).
    #[arg(long, value_enum, default_value = "llm-in-sandbox")]
    mode: ModeArg,
    /// Episodes at once (env: LLM_NUM_WORKERS).
    #[arg(
        long,
        alias = "num_workers",
        env = "LLM_NUM_WORKERS",
        default_value_t = 8,
        value_name = "N"
    )]
    num_workers: usize,
    /// Where the task's reward.py and vanilla_llm_prompt.py run.
    #[arg(long, alias = "reward_python", value_enum, default_value = "auto")]
    reward_python: RewardPython,
    /// Which folders a task config with inline prompts uses. `reference` (default): the
    /// reference runner's (/testbed, /testbed/documents, answer in /testbed/answer.txt),
    /// whatever its working_dir/input_dir/output_dir say, since the reference ignores them
    /// there; `config`: the config's own keys.
    #[arg(long, value_enum, default_value = "reference", value_name = "WHICH")]
    task_folders: TaskFolders,
    /// First row (0-based, inclusive).
    #[arg(long, alias = "start_id", default_value_t = 0, value_name = "N")]
    start_id: usize,
    /// Last row (exclusive).
    #[arg(long, alias = "end_id", value_name = "N")]
    end_id: Option<usize>,
    /// Attempts per row (e.g. 16 for AIME-style averaging).
    #[arg(long, default_value_t = 1, value_name = "K")]
    repeat: u32,
    /// Run only slice I of N (0-based). Default: from JOB_COMPLETION_INDEX/JOB_COMPLETIONS
    /// (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else all rows.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Continue the run in this folder, skipping rows already in its results.jsonl.
    #[arg(long, value_name = "DIR")]
    resume: Option<PathBuf>,
    /// Where runs go: <timestamp>_<task>_<model>_<LLMinSandbox|vanillaLLM>/.
    #[arg(
        long,
        alias = "output_dir",
        default_value = "output",
        value_name = "DIR"
    )]
    output_dir: PathBuf,
    /// What to do with malformed rows.
    #[arg(long, value_enum, default_value = "skip")]
    bad_rows: BadRows,
    /// Score with an LLM judge (the reference's judge.py protocol: CORRECT / INCORRECT per
    /// call, the row's score the mean over --judge-repeats calls), for tasks whose reward.py
    /// is a placeholder (physics, long_context) or that say `scorer: judge`. Judged as rows
    /// finish; the scorer's own score is kept in results.jsonl as `reward`.
    #[arg(long, alias = "judge_model", value_name = "MODEL")]
    judge_model: Option<String>,
    /// The judge's endpoint (default: the model's base URL).
    #[arg(
        long,
        alias = "judge_base_url",
        value_name = "URL",
        requires = "judge_model"
    )]
    judge_base_url: Option<String>,
    /// The judge endpoint's API key (default: the model's).
    #[arg(
        long,
        alias = "judge_api_key",
        value_name = "KEY",
        requires = "judge_model"
    )]
    judge_api_key: Option<String>,
    /// Judge calls per answer.
    #[arg(long, alias = "judge_repeats", default_value_t = eval::judge::DEFAULT_REPEATS, value_name = "N")]
    judge_repeats: u32,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    ci: CiArgs,
    #[command(flatten)]
    model: ModelArgs,
}

fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The prefix of our own small task sets (`quick-math`, ...); a plain name is the reference's
/// task of that name.
pub const QUICK_PREFIX: &str = "quick-";

pub fn run(global: &GlobalArgs, args: BenchmarkArgs) -> anyhow::Result<ExitCode> {
    let rt = tokio_runtime()?;
    let mut task = load_task(global, &args, &rt)?;
    let rows = usable_rows(&task, args.bad_rows)?;
    let Resolved {
        llm,
        episode,
        prompt_config,
        sandbox,
        max_response_len,
        extra_config,
        with,
    } = args.model.resolve()?;
    if task.prompts.is_none()
        && let Some(p) = prompt_config
    {
        task.prompts = Some(Prompts::default().load(&p)?);
    }
    let shard = shard_of(&args)?;
    let mode = match args.mode {
        ModeArg::Sandbox => Mode::Sandbox,
        ModeArg::Llm => Mode::Llm,
    };
    let run_dir = run_dir_of(&args, &task, &llm.model, mode, shard);
    let judge = judge_of(global, &args, &llm)?;
    let progress = progress_of(&args.output)?;
    let mut extra_config = extra_config;
    record_choices(&mut extra_config, &args);
    let runtime = global.load_runtime_using(args.num_workers, with.as_deref())?;
    let mut episode = episode;
    let mut llm = llm;
    if mode == Mode::Sandbox {
        let reference = global.reference()?;
        episode.tools = super::run::reference_tools(&rt, &reference, &runtime, &episode)?;
    } else if !args.model.request_timeout_given() {
        llm.request_timeout =
            std::time::Duration::from_secs_f64(super::run::REFERENCE_LLM_MODE_TIMEOUT);
    }
    announce(
        progress,
        &args,
        &task,
        rows.len(),
        &llm.model,
        mode,
        &run_dir,
    );
    let settings = BenchSettings {
        mode,
        workers: args.num_workers,
        start: args.start_id,
        end: args.end_id,
        repeat: args.repeat,
        shard,
        run_dir: run_dir.clone(),
        llm,
        episode,
        max_response_len: Some(max_response_len),
        judge,
        extra_config,
        sandbox,
        progress,
        reward_python_auto: matches!(args.reward_python, RewardPython::Auto),
    };
    // Ctrl-C stops the episodes in flight (their commands too) and keeps every finished row.
    let outcome = rt.block_on(async {
        tokio::select! {
            r = eval::runner::run(runtime, &task, rows, settings) => r.map(Some),
            _ = tokio::signal::ctrl_c() => Ok(None),
        }
    })?;
    let Some(outcome) = outcome else {
        return Ok(interrupted(&run_dir));
    };
    if outcome.resumed > 0 && matches!(progress, ProgressOutput::Human { .. }) {
        eprintln!(
            "llm-in-sandbox: {} rows were already done and skipped",
            outcome.resumed
        );
    }
    print!("{}", eval::report::table(&outcome.summary));
    println!("results: {}", run_dir.display());
    report_and_gate(
        &args.ci,
        &outcome.summary,
        &run_dir,
        args.output.log_format == LogFormat::Json && !args.output.quiet,
    )
}

/// `--shard I/N`, else the shard a Kubernetes Indexed Job or a Slurm array gives, if any.
fn shard_of(args: &BenchmarkArgs) -> anyhow::Result<Option<Shard>> {
    Ok(match &args.shard {
        Some(s) => Some(
            Shard::parse(s).with_context(|| format!("--shard {s:?}: give I/N with 0 <= I < N"))?,
        ),
        None => Shard::from_env(),
    })
}

/// After Ctrl-C: where the finished rows are and how to go on; exit code 130.
fn interrupted(run_dir: &std::path::Path) -> ExitCode {
    let kept = eval::report::read_results(&run_dir.join("results.jsonl")).len();
    eprintln!(
        "llm-in-sandbox: interrupted; the {kept} rows finished are kept in {}: continue \
         with --resume {}",
        run_dir.display(),
        run_dir.display()
    );
    ExitCode::from(130)
}

/// The task `--task` or `--data` names, its warnings shown, set up as the flags ask (where
/// its `reward.py` runs, which folders its prompts use).
fn load_task(
    global: &GlobalArgs,
    args: &BenchmarkArgs,
    rt: &tokio::runtime::Runtime,
) -> anyhow::Result<TaskSpec> {
    let choice = eval::dataset::DatasetChoice {
        config: args.dataset_config.clone(),
        split: args.split.clone(),
        data: args.data.clone(),
    };
    let mut task = match (&args.task, &args.data) {
        (None, Some(file)) => {
            let name = args.scorer.as_deref().unwrap_or("exact");
            let scorer = Scorer::by_name(name)
                .with_context(|| format!("unknown scorer {name:?}; use {}", Scorer::NAMES))?;
            TaskSpec::from_data(file, scorer)?
        }
        (Some(t), _) if std::path::Path::new(t).is_dir() => {
            rt.block_on(TaskSpec::from_dir_choosing(t.as_ref(), &choice))?
        }
        (Some(t), _) => named_task(global, t, &choice, rt)?,
        (None, None) => bail!("give --task NAME|DIR or --data FILE"),
    };
    reward_modules_from_reference(global, &mut task)?;
    for w in &task.warnings {
        eprintln!("llm-in-sandbox: warning: {w}");
    }
    if let Scorer::Reward(script) = &mut task.scorer {
        script.host = matches!(args.reward_python, RewardPython::Host);
    }
    if args.task_folders == TaskFolders::Reference && task.inline_folders {
        eprintln!(
            "llm-in-sandbox: note: task {}: its config's working_dir/input_dir/output_dir are \
             not used with inline prompts, as in the reference (--task-folders config uses them)",
            task.name
        );
        task.reference_folders();
    }
    Ok(task)
}

/// A reward that imports the reference's own task rewards (a copy of `instruct_pretrain`
/// outside the package) gets them from the reference package.
fn reward_modules_from_reference(global: &GlobalArgs, task: &mut TaskSpec) -> anyhow::Result<()> {
    if let Scorer::Reward(script) = &mut task.scorer
        && script.modules.is_empty()
        && eval::dataset::imports_package(&script.source)
    {
        let package = global.reference()?.file("benchmark");
        let package = package.parent().unwrap_or(&package);
        script.modules = eval::dataset::reference_modules(package)?;
    }
    Ok(())
}

/// A task by name: ours (`quick-NAME`) or the reference's.
fn named_task(
    global: &GlobalArgs,
    t: &str,
    choice: &eval::dataset::DatasetChoice,
    rt: &tokio::runtime::Runtime,
) -> anyhow::Result<TaskSpec> {
    if let Some(name) = t.strip_prefix(QUICK_PREFIX) {
        if choice != &eval::dataset::DatasetChoice::default() {
            bail!(
                "--data, --dataset-config and --split choose the rows of a task folder or of \
                 one of the reference's tasks, not of our {t}"
            );
        }
        let mut task = TaskSpec::builtin(name)?;
        task.name = t.to_string();
        return Ok(task);
    }
    let reference = global.reference()?;
    let Some(dir) = reference.task_dir(t) else {
        bail!(
            "no task named {t:?}: the reference's tasks are {}; ours, small and \
             offline, are {}; or give a task folder or --data FILE",
            reference.task_names().join(", "),
            eval::BUILTIN_TASKS
                .iter()
                .map(|(n, _, _)| format!("{QUICK_PREFIX}{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    // Named as the folder is (`t`), with the rows chosen (`instruct_pretrain_math_mini`).
    Ok(rt.block_on(TaskSpec::from_dir_choosing(&dir, choice))?)
}

/// The task's rows, each bad one shown; an error when there are bad rows and `--bad-rows
/// stop`, or no rows at all.
fn usable_rows(task: &TaskSpec, bad_rows: BadRows) -> anyhow::Result<Vec<eval::Row>> {
    let (rows, errors) = parse_jsonl(&task.data);
    for e in &errors {
        eprintln!("llm-in-sandbox: bad row at line {}: {}", e.line, e.message);
    }
    if !errors.is_empty() && matches!(bad_rows, BadRows::Stop) {
        bail!(
            "{} bad rows; fix them or pass --bad-rows skip",
            errors.len()
        );
    }
    if rows.is_empty() {
        bail!("no usable rows in task {}", task.name);
    }
    Ok(rows)
}

/// `--resume`'s folder, else a new one under `--output-dir` named by time, task, model, mode
/// and shard.
fn run_dir_of(
    args: &BenchmarkArgs,
    task: &TaskSpec,
    model: &str,
    mode: Mode,
    shard: Option<Shard>,
) -> PathBuf {
    if let Some(d) = &args.resume {
        return d.clone();
    }
    let mut name = format!(
        "{}_{}_{}_{}",
        super::run::timestamp(),
        safe(&task.name),
        safe(&eval::runner::reference_llm_name(model)),
        mode.folder_suffix()
    );
    if let Some(s) = shard {
        name.push_str(&format!("_shard{}of{}", s.index, s.count));
    }
    args.output_dir.join(name)
}

/// The LLM judge `--judge-model` asks for (on the model's endpoint and key unless given),
/// with the reference's judge prompt.
fn judge_of(
    global: &GlobalArgs,
    args: &BenchmarkArgs,
    llm: &llm_in_sandbox::llm::LlmConfig,
) -> anyhow::Result<Option<eval::judge::Judge>> {
    let Some(m) = &args.judge_model else {
        return Ok(None);
    };
    if args.judge_repeats == 0 {
        bail!("--judge-repeats must be at least 1");
    }
    let base = args
        .judge_base_url
        .clone()
        .unwrap_or_else(|| llm.base_url.clone());
    let mut cfg = llm_in_sandbox::llm::LlmConfig::new(base, super::run::strip_provider(m));
    cfg.api_key = args.judge_api_key.clone().or_else(|| llm.api_key.clone());
    let mut js = eval::judge::JudgeSettings::new(cfg);
    js.template = Some(global.reference()?.judge_template()?);
    js.repeats = args.judge_repeats;
    Ok(Some(
        eval::judge::Judge::new(js).context("cannot set up the judge's client")?,
    ))
}

/// How progress is shown: `--quiet`, `--log-format`, `--progress-every`.
fn progress_of(out: &OutputArgs) -> anyhow::Result<ProgressOutput> {
    if !(out.progress_every.is_finite() && out.progress_every > 0.0) {
        bail!("--progress-every must be a positive number of seconds");
    }
    Ok(match (out.quiet, out.log_format) {
        (true, _) => ProgressOutput::Off,
        (false, LogFormat::Json) => ProgressOutput::Json,
        (false, LogFormat::Text) => ProgressOutput::Human {
            every: std::time::Duration::from_secs_f64(out.progress_every),
        },
    })
}

/// `--task-folders` and `--reward-python` as given, for `results.json`'s `config`.
fn record_choices(
    extra_config: &mut serde_json::Map<String, serde_json::Value>,
    args: &BenchmarkArgs,
) {
    extra_config.insert(
        "task_folders".into(),
        serde_json::json!(match args.task_folders {
            TaskFolders::Reference => "reference",
            TaskFolders::Config => "config",
        }),
    );
    extra_config.insert(
        "reward_python".into(),
        serde_json::json!(match args.reward_python {
            RewardPython::Auto => "auto",
            RewardPython::Sandbox => "sandbox",
            RewardPython::Host => "host",
        }),
    );
}

/// The run's first line on stderr (a `start` event in JSON mode).
fn announce(
    progress: ProgressOutput,
    args: &BenchmarkArgs,
    task: &TaskSpec,
    rows: usize,
    model: &str,
    mode: Mode,
    run_dir: &std::path::Path,
) {
    match progress {
        ProgressOutput::Off => {}
        ProgressOutput::Json => eprintln!(
            "{}",
            serde_json::json!({"event": "start", "rows": rows, "repeat": args.repeat,
                "task": task.name, "model": model, "mode": mode.name(),
                "workers": args.num_workers, "run_dir": run_dir})
        ),
        ProgressOutput::Human { .. } => eprintln!(
            "llm-in-sandbox: {} rows x {} from task {} with {} ({} mode, {} workers) -> {}",
            rows,
            args.repeat,
            task.name,
            model,
            mode.name(),
            args.num_workers,
            run_dir.display()
        ),
    }
}

/// After a run or a merge: the JUnit file, the Markdown summary appended to
/// `$GITHUB_STEP_SUMMARY` (when set), then the gates. Exit 1 with a one-line reason when a
/// gate fails.
fn report_and_gate(
    ci: &CiArgs,
    summary: &serde_json::Value,
    run_dir: &std::path::Path,
    json_log: bool,
) -> anyhow::Result<ExitCode> {
    if let Some(path) = &ci.junit {
        let results = eval::report::read_results(&run_dir.join("results.jsonl"));
        let task = summary["task"].as_str().unwrap_or("benchmark");
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(path, eval::report::junit(&results, task))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &ci.report_html {
        let runs = llm_in_sandbox::view::Runs::open(&[run_dir.to_path_buf()])?;
        let limits = llm_in_sandbox::view::export::ExportLimits::default();
        llm_in_sandbox::view::export::export(&runs, path, &limits)
            .with_context(|| format!("cannot write the HTML report {}", path.display()))?;
    }
    if let Some(step_summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| !v.is_empty()) {
        use std::io::Write;
        let md = eval::report::markdown(summary);
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&step_summary)
            .and_then(|mut f| writeln!(f, "{md}"))
            .with_context(|| {
                format!(
                    "cannot append to $GITHUB_STEP_SUMMARY ({})",
                    std::path::Path::new(&step_summary).display()
                )
            })?;
    }
    let gates = eval::gate::Gates {
        scores: ci.fail_under.clone(),
        max_errors: ci.max_errors,
    };
    if gates.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let failed = gates.check(summary);
    if json_log {
        eprintln!(
            "{}",
            serde_json::json!({"event": "gate", "passed": failed.is_empty(), "failed": failed})
        );
    }
    if failed.is_empty() {
        if !json_log {
            eprintln!("llm-in-sandbox: gates passed");
        }
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("llm-in-sandbox: gate failed: {}", failed.join("; "));
    Ok(ExitCode::from(1))
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Run folders to join (e.g. the shards of one run).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Folder for the merged results.
    #[arg(long, short = 'o', default_value = "merged", value_name = "DIR")]
    output: PathBuf,
    #[command(flatten)]
    ci: CiArgs,
}

pub fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    for d in &args.dirs {
        if !d.join("results.jsonl").is_file() {
            bail!("{} has no results.jsonl", d.display());
        }
    }
    let summary = eval::merge(&args.dirs, &args.output)?;
    print!("{}", eval::report::table(&summary));
    println!("results: {}", args.output.display());
    report_and_gate(&args.ci, &summary, &args.output, false)
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Run folders to compare (e.g. a sandbox-mode run and an llm-mode run of the same task).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// The SVG file to write.
    #[arg(
        long,
        short = 'o',
        default_value = "comparison.svg",
        value_name = "FILE"
    )]
    output: PathBuf,
}

pub fn plot(args: PlotArgs) -> anyhow::Result<ExitCode> {
    let mut summaries = Vec::new();
    for d in &args.dirs {
        let text = std::fs::read_to_string(d.join("results.json")).with_context(|| {
            format!(
                "{} has no results.json (run or merge it first)",
                d.display()
            )
        })?;
        let summary: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{}/results.json is not valid JSON", d.display()))?;
        let c = &summary["config"];
        let label = format!(
            "{} {}",
            c["model"].as_str().unwrap_or("?"),
            c["mode"].as_str().unwrap_or("?")
        );
        summaries.push((label, summary));
    }
    let series: Vec<(&str, &serde_json::Value)> =
        summaries.iter().map(|(l, s)| (l.as_str(), s)).collect();
    std::fs::write(&args.output, eval::report::svg(&series))
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("wrote {}", args.output.display());
    Ok(ExitCode::SUCCESS)
}
