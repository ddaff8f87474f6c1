//! `llm-in-sandbox benchmark` and `merge`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use llm_in_sandbox::agent::Prompts;
use llm_in_sandbox::eval::{self, BenchSettings, Mode, Scorer, Shard, TaskSpec, parse_jsonl};

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
    /// Inside the WebAssembly sandbox (nothing of the host is reachable).
    Sandbox,
    /// With the host's python3, as the reference does: trusted task code that may import what
    /// is installed on the host (math-verify, IFBench); the answer is passed as data.
    Host,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum BadRows {
    /// Report bad rows with their line numbers and run the others.
    Skip,
    /// Report bad rows and stop before running anything.
    Stop,
}

#[derive(Debug, Args)]
pub struct BenchmarkArgs {
    /// A task folder (ours or the reference's: config.yaml, reward.py, vanilla_llm_prompt.py)
    /// or a shipped set (math, physics, chemistry/chem, biomedicine/biomed, long_context,
    /// instruction_following/instruct_follow, demo). A folder of that name wins.
    #[arg(long, value_name = "NAME|DIR", required_unless_present = "data")]
    task: Option<String>,
    /// A bare data file (JSON lines, a JSON array or Parquet) of rows {id, domain,
    /// problem_statement, ground_truth, input_files}.
    #[arg(long, value_name = "FILE", conflicts_with = "task")]
    data: Option<PathBuf>,
    /// Scorer for --data: exact, numeric, choice or math.
    #[arg(long, default_value = "exact")]
    scorer: String,
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
    #[arg(long, alias = "reward_python", value_enum, default_value = "sandbox")]
    reward_python: RewardPython,
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

pub fn run(global: &GlobalArgs, args: BenchmarkArgs) -> anyhow::Result<ExitCode> {
    let rt = tokio_runtime()?;
    let mut task = match (&args.task, &args.data) {
        (_, Some(file)) => {
            let scorer = Scorer::by_name(&args.scorer).with_context(|| {
                format!("unknown scorer {:?}; use {}", args.scorer, Scorer::NAMES)
            })?;
            TaskSpec::from_data(file, scorer)?
        }
        (Some(t), None) if std::path::Path::new(t).is_dir() => {
            rt.block_on(TaskSpec::from_dir(t.as_ref()))?
        }
        (Some(t), None) => TaskSpec::builtin(t)?,
        (None, None) => bail!("give --task NAME|DIR or --data FILE"),
    };
    for w in &task.warnings {
        eprintln!("llm-in-sandbox: warning: {w}");
    }
    if let Scorer::Reward(script) = &mut task.scorer {
        script.host = matches!(args.reward_python, RewardPython::Host);
    }
    let (rows, errors) = parse_jsonl(&task.data);
    for e in &errors {
        eprintln!("llm-in-sandbox: bad row at line {}: {}", e.line, e.message);
    }
    if !errors.is_empty() && matches!(args.bad_rows, BadRows::Stop) {
        bail!(
            "{} bad rows; fix them or pass --bad-rows skip",
            errors.len()
        );
    }
    if rows.is_empty() {
        bail!("no usable rows in task {}", task.name);
    }
    let Resolved {
        llm,
        episode,
        prompt_config,
        sandbox,
        max_response_len,
        extra_config,
    } = args.model.resolve()?;
    if task.prompts.is_none()
        && let Some(p) = prompt_config
    {
        task.prompts = Some(Prompts::default().load(&p)?);
    }
    let shard = match &args.shard {
        Some(s) => Some(
            Shard::parse(s).with_context(|| format!("--shard {s:?}: give I/N with 0 <= I < N"))?,
        ),
        None => Shard::from_env(),
    };
    let mode = match args.mode {
        ModeArg::Sandbox => Mode::Sandbox,
        ModeArg::Llm => Mode::Llm,
    };
    let run_dir = match &args.resume {
        Some(d) => d.clone(),
        None => {
            let mut name = format!(
                "{}_{}_{}_{}",
                super::run::timestamp(),
                safe(&task.name),
                safe(&llm.model),
                mode.folder_suffix()
            );
            if let Some(s) = shard {
                name.push_str(&format!("_shard{}of{}", s.index, s.count));
            }
            args.output_dir.join(name)
        }
    };
    let judge = match &args.judge_model {
        Some(m) => {
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
            js.repeats = args.judge_repeats;
            Some(eval::judge::Judge::new(js).context("cannot set up the judge's client")?)
        }
        None => None,
    };
    let runtime = global.load_runtime_for(args.num_workers)?;
    eprintln!(
        "llm-in-sandbox: {} rows x {} from task {} with {} ({} mode, {} workers) -> {}",
        rows.len(),
        args.repeat,
        task.name,
        llm.model,
        mode.name(),
        args.num_workers,
        run_dir.display()
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
        progress: true,
    };
    let outcome = rt.block_on(eval::runner::run(runtime, &task, rows, settings))?;
    if outcome.resumed > 0 {
        eprintln!(
            "llm-in-sandbox: {} rows were already done and skipped",
            outcome.resumed
        );
    }
    print!("{}", eval::report::table(&outcome.summary));
    println!("results: {}", run_dir.display());
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Run folders to join (e.g. the shards of one run).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Folder for the merged results.
    #[arg(long, short = 'o', default_value = "merged", value_name = "DIR")]
    output: PathBuf,
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
    Ok(ExitCode::SUCCESS)
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
