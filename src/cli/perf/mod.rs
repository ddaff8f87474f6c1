//! `llm-in-sandbox perf` (alias `bench`): start-up and per-command costs, each against a
//! baseline measured in the same run (a native `python3` or `bash` subprocess), reported as
//! medians and ratios; episode throughput (`episodes.rs`); memory density.
//!
//! One file per measured thing: `python.rs` (Python calls, the stock snapshot and import
//! costs), `shell.rs`, `load.rs` (loading and compiling the runtime), `density.rs` (memory
//! with many live episodes), `episodes.rs`, `serve.rs`, `packages.rs`, `corpus.rs`; the
//! timing helpers they share are in `measure.rs`; `shell_data.rs` and `compute.rs` (compute-bound
//! Python, its workloads in `compute/`) are suites of their own.

#[cfg(feature = "testing")]
mod episodes;
#[cfg(not(feature = "testing"))]
mod episodes {
    //! Without the `testing` feature there is no fake model to run episodes against.
    use std::sync::Arc;

    use llm_in_sandbox::runtime::Runtime;

    const WHY: &str = "the episode measurements need the fake model server: build with \
        `cargo build --release --features testing`";

    pub fn episode_overhead(_: &Arc<Runtime>, _: &tokio::runtime::Runtime) -> anyhow::Result<()> {
        anyhow::bail!("{WHY}")
    }
    pub fn throughput(
        _: &Arc<Runtime>,
        _: &tokio::runtime::Runtime,
        _: &[usize],
    ) -> anyhow::Result<()> {
        anyhow::bail!("{WHY}")
    }
    pub fn latency_throughput(
        _: &Arc<Runtime>,
        _: &tokio::runtime::Runtime,
        _: f64,
        _: &[usize],
    ) -> anyhow::Result<()> {
        anyhow::bail!("{WHY}")
    }
}

mod serve;

use episodes::{episode_overhead, latency_throughput, throughput};

mod compute;
mod corpus;
mod density;
mod limits;
mod load;
mod measure;
mod packages;
mod phases;
mod python;
mod shell;
mod shell_data;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use llm_in_sandbox::runtime::Runtime;

use super::{GlobalArgs, tokio_runtime};
use density::{Memory, density};
use load::load_rows;
use measure::{NATIVE_PYTHON, Row, fresh_call, median, print_rows, repeat};
use python::{python_rows, stock_rows};
use shell::shell_rows;

#[derive(Debug, Args)]
pub struct PerfArgs {
    /// Repetitions per measurement (the median is reported).
    #[arg(long, default_value_t = 20)]
    iterations: usize,
    /// Also time a first-ever compile into a throwaway cache (~1 minute, ~2.2 GiB of memory).
    #[arg(long)]
    compile: bool,
    /// Also measure whole episodes against a zero-latency fake model: the overhead of a
    /// 10-step episode, and throughput, CPU and memory at each --episode-workers count.
    #[arg(long)]
    episodes: bool,
    /// Worker counts for --episodes' throughput rows.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,16,128,512",
        value_name = "N,..."
    )]
    episode_workers: Vec<usize>,
    /// Only the --episodes rows (skip the start-up and per-command measurements).
    #[arg(long, requires = "episodes")]
    episodes_only: bool,
    /// Also load the stock snapshot (no pre-imported modules; compiled once if missing) and
    /// compare imports against the preloaded one.
    #[arg(long)]
    stock: bool,
    /// Also measure physical memory, open files and memory maps with this many sandboxes
    /// alive at once, each inside a numpy call (a 100x100 solve, then `time.sleep`). A limit
    /// of the machine that stops it (open files, memory maps, memory) is named in the error.
    #[arg(long, value_name = "N")]
    density: Option<usize>,
    /// Also measure throughput against a fake model that answers each call after this many
    /// seconds (a remote model's latency): 5-step episodes (3 bash, 1 editor, python3 inside
    /// bash, submit) through the whole benchmark pipeline, as a % of the ideal rate
    /// (workers / (5 x latency)).
    #[arg(long, value_name = "SECONDS")]
    model_latency: Option<f64>,
    /// Worker counts for --model-latency.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "64,512,1024",
        value_name = "N,..."
    )]
    latency_workers: Vec<usize>,
    /// Only the --model-latency rows (skip the start-up and per-command measurements).
    #[arg(long, requires = "model_latency")]
    latency_only: bool,
    /// Only the package and Python-network rows (`packages.rs`): `import math_verify` from the
    /// site layer vs preloaded, first vs cached `pip install` in an episode (loopback index),
    /// a Python HTTP GET through the host door vs from a native `python3` (loopback server).
    #[arg(long)]
    packages: bool,
    /// Only the package corpus: `pip install` each package of the corpus in a fresh sandbox
    /// and import it; prints one line each and how many import.
    #[arg(long)]
    packages_corpus: bool,
    /// The corpus for --packages-corpus: `DISTRIBUTION MODULE` a line. Default: the built-in
    /// list (tests/fixtures/package_corpus.txt).
    #[arg(long, value_name = "FILE", requires = "packages_corpus")]
    corpus: Option<PathBuf>,
    /// Try only this many packages of the corpus, spread evenly over it.
    #[arg(long, value_name = "N", requires = "packages_corpus")]
    sample: Option<usize>,
    /// Only the serving benchmark: `/run_code` of our `serve` against a process-per-call
    /// baseline (temp dir + native Python subprocess per request), both in this process, at
    /// each --serve-clients count; and the memory of live idle sessions.
    #[arg(long)]
    serve: bool,
    /// Seconds measured per --serve row (after a 1 s warm-up).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    serve_seconds: f64,
    /// Concurrent clients for --serve.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,64,512",
        value_name = "N,..."
    )]
    serve_clients: Vec<usize>,
    /// Calls our server runs at once for --serve; the others wait in its queue. Default: what
    /// `serve` takes with no flags on this machine (three quarters of its memory at 2 GiB a
    /// call).
    #[arg(long, value_name = "N", requires = "serve")]
    serve_inflight: Option<usize>,
    /// The native Python used as the baseline.
    #[arg(long, default_value = NATIVE_PYTHON, value_name = "PROGRAM")]
    native_python: String,
    /// The Python that serves --serve's aiohttp baseline (it must import aiohttp; the code it
    /// runs still uses --native-python). Default: --native-python; without aiohttp there, that
    /// baseline is skipped and stderr says so.
    #[arg(long, value_name = "PROGRAM", requires = "serve")]
    aiohttp_python: Option<String>,
    /// Only the shell's data pipelines (sort -n of 2 million lines, grep and wc over 50 MB,
    /// sed -i on 25 MB, tr over 300 MB, ...) against the host's `bash -c` and coreutils over
    /// the same files, each --shell-data-runs times; fails when an output differs.
    #[arg(long)]
    shell_data: bool,
    /// Runs per side and pipeline for --shell-data (the median is reported).
    #[arg(long, default_value_t = 3, value_name = "N", requires = "shell_data")]
    shell_data_runs: usize,
    /// Only compute-bound Python: 14 workloads (a pure-Python loop, recursion, dicts and
    /// Counter, string building, sorting, regex, json, big ints, primes by trial division,
    /// objects, sympy, a numpy 400x400 matmul loop, a pandas groupby, scipy), each timed inside
    /// the program, in a fresh sandbox and in --native-python (alternating, --compute-runs
    /// times); ratios, their geometric mean and the worst row against the targets (geometric
    /// mean at most 2x, every row and the pure-Python loop at most 3x). Rows whose modules the
    /// native Python lacks are skipped and say so; fails when a result differs.
    #[arg(long)]
    compute: bool,
    /// Runs per side and workload for --compute (the median is reported).
    #[arg(long, default_value_t = 3, value_name = "N", requires = "compute")]
    compute_runs: usize,
    /// Multiplies every --compute workload's size (1: about 0.3-1 s each natively on 2 cores;
    /// 0.05 for a check that the suite runs, whose ratios mean little).
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "FACTOR",
        requires = "compute"
    )]
    compute_scale: f64,
}

pub fn run(global: &GlobalArgs, args: PerfArgs) -> anyhow::Result<ExitCode> {
    let n = args.iterations.max(1);
    let runtime = global.load_runtime_for(concurrent_sandboxes(&args))?;
    let rt = tokio_runtime()?;
    if let Some(code) = run_only(global, &args, &runtime, &rt, n)? {
        return Ok(code);
    }
    run_rows(global, &args, &runtime, &rt, n)?;
    Ok(ExitCode::SUCCESS)
}

/// How many sandboxes the run keeps alive at once, at most: the runtime is loaded for them.
fn concurrent_sandboxes(args: &PerfArgs) -> usize {
    let concurrent = args.density.unwrap_or(0).max(if args.episodes {
        args.episode_workers.iter().copied().max().unwrap_or(1)
    } else {
        0
    });
    if args.serve {
        args.serve_clients.iter().copied().max().unwrap_or(1)
    } else {
        concurrent
    }
}

/// The suites run alone (`--shell-data`, `--compute`, `--packages-corpus`, `--packages`,
/// `--serve`, `--latency-only`, `--episodes-only`): the first one asked, and its exit code;
/// `None` when none is.
fn run_only(
    global: &GlobalArgs,
    args: &PerfArgs,
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    n: usize,
) -> anyhow::Result<Option<ExitCode>> {
    if args.shell_data {
        return shell_data::run(rt, runtime, args.shell_data_runs.max(1)).map(Some);
    }
    if args.compute {
        return compute::run(
            rt,
            runtime,
            args.compute_runs.max(1),
            args.compute_scale,
            &args.native_python,
        )
        .map(Some);
    }
    if args.packages_corpus {
        return corpus::run(runtime, rt, args.corpus.as_deref(), args.sample).map(Some);
    }
    if args.packages {
        return packages::run(global, runtime, rt, n, &args.native_python).map(Some);
    }
    if args.serve {
        serve::serve(
            runtime,
            rt,
            args.serve_seconds,
            &args.serve_clients,
            args.serve_inflight,
            &args.native_python,
            args.aiohttp_python.as_deref(),
        )?;
        return Ok(Some(ExitCode::SUCCESS));
    }
    if args.latency_only
        && let Some(latency) = args.model_latency
    {
        latency_throughput(runtime, rt, latency, &args.latency_workers)?;
        return Ok(Some(ExitCode::SUCCESS));
    }
    if args.episodes_only {
        episode_overhead(runtime, rt)?;
        throughput(runtime, rt, &args.episode_workers)?;
        return Ok(Some(ExitCode::SUCCESS));
    }
    Ok(None)
}

/// The whole run: the start-up and per-command rows, then the ones asked for beside them
/// (`--stock`, `--episodes`, `--model-latency`, `--density`).
fn run_rows(
    global: &GlobalArgs,
    args: &PerfArgs,
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    n: usize,
) -> anyhow::Result<()> {
    let mut rows: Vec<Row> = Vec::new();
    let (native, preloaded_imports) = python_rows(global, args, rt, runtime, &mut rows)?;
    shell_rows(rt, runtime, n, &mut rows)?;
    if args.stock {
        stock_rows(
            global,
            rt,
            runtime,
            n,
            (native, preloaded_imports),
            &mut rows,
        )?;
    }

    load_rows(global, runtime, n, args.compile, &mut rows)?;
    let written = phases::written_pages(rt, runtime, &phases::WRITTEN_PAGES_CALLS)?;

    // After the per-call rows: thousands of episodes leave slots and threads that would skew
    // them.
    if args.episodes {
        episode_overhead(runtime, rt)?;
        throughput(runtime, rt, &args.episode_workers)?;
    }
    if let Some(latency) = args.model_latency {
        latency_throughput(runtime, rt, latency, &args.latency_workers)?;
    }
    // The rows first: a density run stopped by a limit ends in an error.
    print_rows(&rows);
    phases::print_written_pages(written.as_deref());
    // Last: thousands of live instances leave their slots' pages resident, which would skew
    // whatever is measured after them.
    if let Some(count) = args.density {
        density(runtime, rt, count)?;
    }
    Ok(())
}
