//! `llm-in-sandbox judge RUN_DIR`: re-score a finished benchmark run with an LLM judge.

use std::cell::Cell;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;

use llm_in_sandbox::eval::judge::{self, Judge, JudgeSettings};
use llm_in_sandbox::eval::report;
use llm_in_sandbox::llm::LlmConfig;

use super::tokio_runtime;

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// The benchmark run folder (with results.jsonl and config.json).
    #[arg(value_name = "RUN_DIR")]
    run_dir: PathBuf,
    /// The judge model's name.
    #[arg(long, alias = "judge_model", value_name = "MODEL")]
    judge_model: String,
    /// The judge's OpenAI-compatible endpoint, e.g. http://localhost:8000/v1.
    #[arg(long, alias = "judge_base_url", value_name = "URL")]
    judge_base_url: String,
    /// API key of the judge's endpoint (env: OPENAI_API_KEY).
    #[arg(
        long,
        alias = "api_key",
        env = "OPENAI_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    judge_api_key: Option<String>,
    /// Judge calls per answer; the row's score is the share that say CORRECT.
    #[arg(long, alias = "num_repeats", default_value_t = judge::DEFAULT_REPEATS, value_name = "N")]
    judge_repeats: u32,
    /// Sampling temperature of the judge.
    #[arg(long, default_value_t = judge::DEFAULT_TEMPERATURE, value_name = "T")]
    judge_temperature: f64,
    /// max_tokens of each judge call.
    #[arg(long, default_value_t = judge::DEFAULT_MAX_TOKENS, value_name = "N")]
    judge_max_tokens: u32,
    /// Rows judged at once (each sends its repeats at once).
    #[arg(long, alias = "num_workers", default_value_t = 8, value_name = "N")]
    num_workers: usize,
}

pub fn run(global: &super::GlobalArgs, args: JudgeArgs) -> anyhow::Result<ExitCode> {
    if args.judge_repeats == 0 {
        bail!("--judge-repeats must be at least 1");
    }
    if !(args.judge_temperature.is_finite() && args.judge_temperature >= 0.0) {
        bail!("--judge-temperature must be a number >= 0");
    }
    let dir = &args.run_dir;
    if !dir.join("results.jsonl").is_file() {
        bail!(
            "{} has no results.jsonl: give the folder of a benchmark run",
            dir.display()
        );
    }
    let mut llm = LlmConfig::new(&args.judge_base_url, &args.judge_model);
    llm.api_key = args.judge_api_key.filter(|k| !k.is_empty());
    llm.temperature = Some(args.judge_temperature);
    let mut settings = JudgeSettings::new(llm);
    settings.template = Some(global.reference()?.judge_template()?);
    settings.repeats = args.judge_repeats;
    settings.max_tokens = args.judge_max_tokens;
    let judge = Judge::new(settings).context("cannot set up the judge's client")?;
    eprintln!(
        "llm-in-sandbox: judging {} with {} ({} calls per answer, {} rows at once)",
        dir.display(),
        judge.model(),
        judge.repeats(),
        args.num_workers.max(1)
    );
    // A plain line every 5% (and at the end): readable in a terminal and in a CI log.
    let last_step = Cell::new(None::<usize>);
    let progress = |done: usize, total: usize| {
        let step = 20 * done / total.max(1);
        if done == total || last_step.get().is_none_or(|s| step > s) {
            last_step.set(Some(step));
            eprintln!(
                "llm-in-sandbox: judged {done}/{total} rows ({}%)",
                100 * done / total.max(1)
            );
        }
    };
    let summary = tokio_runtime()?
        .block_on(judge::rejudge_run(dir, &judge, args.num_workers, &progress))
        .with_context(|| format!("cannot judge {}", dir.display()))?;
    if last_step.get().is_none() {
        eprintln!(
            "llm-in-sandbox: every row was already judged by {}",
            judge.model()
        );
    }
    print!("{}", report::table(&summary));
    println!("judgments: {}", dir.join("judgments.jsonl").display());
    println!("results: {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
