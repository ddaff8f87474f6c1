//! `llm-in-sandbox perf` (alias `bench`): start-up and per-command costs, each against a
//! baseline measured in the same run (a native `python3` or `bash` subprocess), reported as
//! medians and ratios; episode throughput (`episodes.rs`); memory density.

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
    pub fn throughput(_: &Arc<Runtime>, _: &tokio::runtime::Runtime) -> anyhow::Result<()> {
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

mod corpus;
mod packages;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;

use llm_in_sandbox::runtime::{Runtime, RuntimeConfig};
use llm_in_sandbox::sandbox::Sandbox;

use super::{GlobalArgs, tokio_runtime};

#[derive(Debug, Args)]
pub struct PerfArgs {
    /// Repetitions per measurement (the median is reported).
    #[arg(long, default_value_t = 20)]
    iterations: usize,
    /// Also time a first-ever compile into a throwaway cache (~1 minute, ~2.2 GiB of memory).
    #[arg(long)]
    compile: bool,
    /// Also measure whole episodes against a zero-latency fake model: the overhead of a
    /// 10-step episode, and throughput and memory at 1, 16, 128 and 512 workers.
    #[arg(long)]
    episodes: bool,
    /// Also load the stock snapshot (no pre-imported modules; compiled once if missing) and
    /// compare imports against the preloaded one.
    #[arg(long)]
    stock: bool,
    /// Also measure resident memory with this many sandboxes alive at once, each mid-call
    /// (`time.sleep` in Python).
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
    /// The native Python used as the baseline.
    #[arg(long, default_value = NATIVE_PYTHON, value_name = "PROGRAM")]
    native_python: String,
}

/// The system interpreter, not a version-manager shim that adds its own start-up cost.
const NATIVE_PYTHON: &str = if cfg!(target_os = "linux") {
    "/usr/bin/python3"
} else {
    "python3"
};

/// A measurement: a fresh sandbox on `runtime` running `python3 -c CODE`.
fn fresh_call<'a>(
    rt: &'a tokio::runtime::Runtime,
    runtime: &'a Arc<Runtime>,
    code: impl Into<String>,
) -> impl FnMut() -> anyhow::Result<Duration> + 'a {
    let code: String = code.into();
    move || {
        let started = Instant::now();
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        let r = rt.block_on(sandbox.python(&["-c".to_string(), code.clone()], b""))?;
        let elapsed = started.elapsed();
        if r.exit_code != 0 {
            bail!("{code} failed: {}", r.stderr_text());
        }
        Ok(elapsed)
    }
}

/// A table row: what, its median, and an optional baseline to compare with.
type Row = (String, Duration, Option<(Duration, &'static str)>);

/// The rows as a Markdown table (median, and the ratio to the row's baseline).
fn print_rows(rows: &[Row]) {
    println!("| measurement | median | ratio |");
    println!("|---|---|---|");
    for (name, d, base) in rows {
        let ratio = base
            .map(|(b, what)| format!("{:.3}x {what}", d.as_secs_f64() / b.as_secs_f64()))
            .unwrap_or_default();
        println!("| {name} | {} | {ratio} |", ms(*d));
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Time from spawning `cmd` to the first byte on its stdout, and make sure it succeeds.
fn first_output(cmd: &mut Command) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {cmd:?}"))?;
    let mut byte = [0u8; 1];
    let got = child
        .stdout
        .as_mut()
        .map(|s| s.read(&mut byte))
        .transpose()?;
    let elapsed = started.elapsed();
    let status = child.wait()?;
    if got != Some(1) || !status.success() {
        bail!("{cmd:?} printed nothing or failed ({status})");
    }
    Ok(elapsed)
}

fn repeat(n: usize, mut f: impl FnMut() -> anyhow::Result<Duration>) -> anyhow::Result<Duration> {
    f()?; // warm-up
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(f()?);
    }
    Ok(median(v))
}

pub fn run(global: &GlobalArgs, args: PerfArgs) -> anyhow::Result<ExitCode> {
    let n = args.iterations.max(1);
    let concurrent = args
        .density
        .unwrap_or(0)
        .max(if args.episodes { 512 } else { 0 });
    let concurrent = if args.serve {
        args.serve_clients.iter().copied().max().unwrap_or(1)
    } else {
        concurrent
    };
    let runtime = global.load_runtime_for(concurrent)?;
    let rt = tokio_runtime()?;
    if args.packages_corpus {
        return corpus::run(&runtime, &rt, args.corpus.as_deref(), args.sample);
    }
    if args.packages {
        return packages::run(global, &runtime, &rt, n, &args.native_python);
    }
    if args.serve {
        serve::serve(
            &runtime,
            &rt,
            args.serve_seconds,
            &args.serve_clients,
            &args.native_python,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.latency_only
        && let Some(latency) = args.model_latency
    {
        latency_throughput(&runtime, &rt, latency, &args.latency_workers)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut rows: Vec<Row> = Vec::new();
    let (native, preloaded_imports) = python_rows(global, &args, &rt, &runtime, &mut rows)?;
    shell_rows(&rt, &runtime, n, &mut rows)?;
    if args.stock {
        stock_rows(
            global,
            &rt,
            &runtime,
            n,
            (native, preloaded_imports),
            &mut rows,
        )?;
    }

    load_rows(global, &runtime, n, args.compile, &mut rows)?;

    // After the per-call rows: thousands of episodes leave slots and threads that would skew
    // them.
    if args.episodes {
        episode_overhead(&runtime, &rt)?;
        throughput(&runtime, &rt)?;
    }
    if let Some(latency) = args.model_latency {
        latency_throughput(&runtime, &rt, latency, &args.latency_workers)?;
    }
    // Last: thousands of live instances leave their slots' pages resident, which would skew
    // whatever is measured after them.
    if let Some(count) = args.density {
        density(&runtime, &rt, count)?;
    }

    print_rows(&rows);
    Ok(ExitCode::SUCCESS)
}

/// A native process, our `exec` process, and in-process calls (fresh and reused sandboxes,
/// light calls after heavy ones, imports). Returns the native start and the preloaded imports,
/// the baselines of later rows.
fn python_rows(
    global: &GlobalArgs,
    args: &PerfArgs,
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    rows: &mut Vec<Row>,
) -> anyhow::Result<(Duration, Duration)> {
    let n = args.iterations.max(1);
    let exe = std::env::current_exe().context("cannot find our own executable")?;

    eprintln!("measuring {n} iterations each...");
    let native = repeat(n, || {
        first_output(Command::new(&args.native_python).args(["-c", "print(1)"]))
    })?;
    rows.push((
        "native `python3 -c 'print(1)'` process, start to first output".into(),
        native,
        None,
    ));

    let exec_cmd = || {
        let mut c = Command::new(&exe);
        c.args(["exec", "--", "python3", "-c", "print(1)"]);
        if let Some(dir) = &global.cache_dir {
            c.arg("--cache-dir").arg(dir);
        }
        c
    };
    let ours = repeat(n, || first_output(&mut exec_cmd()))?;
    rows.push((
        "`llm-in-sandbox exec -- python3 -c 'print(1)'` process, start to first output".into(),
        ours,
        Some((native, "native process")),
    ));

    let in_process = |code: &'static str| fresh_call(rt, runtime, code);
    let fresh = repeat(n, in_process("print(1)"))?;
    rows.push((
        "in-process fresh sandbox + `print(1)`".into(),
        fresh,
        Some((native, "native process")),
    ));
    // `python3 -c CODE` in an existing sandbox (a fresh instance each time), timed.
    let call = |sandbox: &Sandbox, code: &str| -> anyhow::Result<Duration> {
        let started = Instant::now();
        let r = rt.block_on(sandbox.python(&["-c".into(), code.into()], b""))?;
        let elapsed = started.elapsed();
        if r.exit_code != 0 {
            bail!("{code} failed: {}", r.stderr_text());
        }
        Ok(elapsed)
    };
    let reuse = {
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        repeat(n, || call(&sandbox, "print(1)"))?
    };
    rows.push((
        "`python3 -c 'print(1)'` in an existing sandbox (fresh instance)".into(),
        reuse,
        Some((native, "native process")),
    ));
    // Light calls in a sandbox that also does heavier work (numpy, sympy and pandas, writing
    // tens of MiB): the first light call after it, which starts from a slot that had to be
    // released, and the next one, back to the steady state of a long agent session.
    let (first_after, second_after) = {
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        let work = "import numpy as np, sympy as sp, pandas as pd\n\
                    a = np.random.rand(300, 300); b = a @ a\n\
                    x = sp.Symbol('x'); sp.integrate(sp.sin(x) ** 2, x)\n\
                    pd.DataFrame(np.random.rand(10000, 8)).describe()";
        let (mut first, mut second) = (Vec::new(), Vec::new());
        for _ in 0..n {
            call(&sandbox, work)?;
            first.push(call(&sandbox, "print(1)")?);
            second.push(call(&sandbox, "print(1)")?);
        }
        (median(first), median(second))
    };
    rows.push((
        "`python3 -c 'print(1)'` just after a numpy/sympy/pandas call in that sandbox".into(),
        first_after,
        Some((native, "native process")),
    ));
    rows.push((
        "the next `python3 -c 'print(1)'` in that sandbox".into(),
        second_after,
        Some((native, "native process")),
    ));
    let numpy = repeat(n.min(10), in_process("import numpy; print(1)"))?;
    rows.push((
        "in-process fresh sandbox + `import numpy`".into(),
        numpy,
        Some((native, "native process")),
    ));
    let sympy = repeat(n.min(5), in_process("import sympy; print(1)"))?;
    rows.push((
        "in-process fresh sandbox + `import sympy`".into(),
        sympy,
        Some((native, "native process")),
    ));

    let preloaded_imports = repeat(n, in_process("import numpy, sympy; print(1)"))?;
    rows.push((
        format!(
            "in-process fresh sandbox + `import numpy, sympy` (snapshot with {} imported)",
            snapshot_holds(runtime)
        ),
        preloaded_imports,
        Some((native, "native process")),
    ));
    Ok((native, preloaded_imports))
}

/// The shell (execute_bash): per-command latency in one long-lived shell, against spawning a
/// native `bash -c` for the same command.
fn shell_rows(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    n: usize,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let mut shell = llm_in_sandbox::shell::Shell::new(
        Arc::new(Sandbox::builder(runtime.clone()).build()?),
        llm_in_sandbox::shell::ShellSettings::default(),
    )?;
    shell
        .sandbox()
        .workspace()
        .write("words.txt", "b a c a b a\n".repeat(50))?;
    let native_dir = tempfile::tempdir()?;
    std::fs::write(
        native_dir.path().join("words.txt"),
        "b a c a b a\n".repeat(50),
    )?;
    let pipeline = "cat words.txt | tr ' ' '\\n' | grep -v '^$' | sort | uniq -c | sort -rn";
    for (label, script, reps) in [
        ("`echo hi`", "echo hi", n * 10),
        ("6-stage pipeline", pipeline, n * 5),
        ("`python3 -c 'print(1)'`", "python3 -c 'print(1)'", n),
    ] {
        let native_bash = repeat(n, || {
            first_output(
                Command::new("bash")
                    .args(["-c", &script.replace("python3", NATIVE_PYTHON)])
                    .current_dir(native_dir.path()),
            )
        })?;
        let ours = repeat(reps, || {
            let started = Instant::now();
            let r = rt.block_on(shell.exec(script))?;
            let elapsed = started.elapsed();
            if r.exit_code != 0 || r.stdout.is_empty() {
                bail!("{script} failed in the shell: {}", r.stderr);
            }
            Ok(elapsed)
        })?;
        rows.push((
            format!("native `bash -c` subprocess: {label}"),
            native_bash,
            None,
        ));
        rows.push((
            format!("in-process shell: {label}"),
            ours,
            Some((native_bash, "native bash -c")),
        ));
    }

    Ok(())
}

/// Loading the runtime from the compiled cache, and (with `compile`) a first-ever compile.
fn load_rows(
    global: &GlobalArgs,
    runtime: &Arc<Runtime>,
    n: usize,
    compile: bool,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let cached = repeat(n.min(5), || {
        let started = Instant::now();
        let config = RuntimeConfig::new(llm_in_sandbox::artifacts::cache_root(
            global.cache_dir.as_deref(),
        ));
        let r = Runtime::load(runtime.files().clone(), &config, &|_| {})?;
        let elapsed = started.elapsed();
        drop(r);
        Ok(elapsed)
    })?;
    rows.push((
        "load runtime from the compiled cache (engine + deserialize + link)".into(),
        cached,
        None,
    ));

    if compile {
        let tmp = tempfile::tempdir()?;
        let started = Instant::now();
        let config = RuntimeConfig::new(tmp.path());
        let _r: Arc<Runtime> = Arc::new(Runtime::load(runtime.files().clone(), &config, &|m| {
            eprintln!("  {m}")
        })?);
        let compile = started.elapsed();
        rows.push(("first-ever compile (no cache)".into(), compile, None));
        rows.push((
            "load from cache vs first-ever compile".into(),
            cached,
            Some((compile, "compile")),
        ));
    }
    Ok(())
}

/// The stock snapshot (loaded, and compiled once if missing) against the preloaded one.
fn stock_rows(
    global: &GlobalArgs,
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    n: usize,
    (native, preloaded_imports): (Duration, Duration),
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let mut config = RuntimeConfig::new(llm_in_sandbox::artifacts::cache_root(
        global.cache_dir.as_deref(),
    ));
    config.preload.clear();
    let stock = Arc::new(Runtime::load(runtime.files().clone(), &config, &|m| {
        eprintln!("  {m}")
    })?);
    let stock_run = |code: &'static str| fresh_call(rt, &stock, code);
    let stock_print = repeat(n, stock_run("print(1)"))?;
    rows.push((
        "stock snapshot: fresh sandbox + `print(1)`".into(),
        stock_print,
        Some((native, "native process")),
    ));
    let stock_imports = repeat(n.min(5), stock_run("import numpy, sympy; print(1)"))?;
    rows.push((
        "stock snapshot: fresh sandbox + `import numpy, sympy`".into(),
        stock_imports,
        None,
    ));
    rows.push((
        "preloaded vs stock: `import numpy, sympy`".into(),
        preloaded_imports,
        Some((stock_imports, "stock")),
    ));
    import_costs(rt, runtime, &stock, n)?;
    Ok(())
}

/// What the snapshot of `runtime` has imported, for labels.
fn snapshot_holds(runtime: &Runtime) -> String {
    match runtime.preloaded() {
        [] => "nothing (stock)".to_string(),
        m => m.join(", "),
    }
}

/// What each candidate module costs to import on every call from the stock snapshot, against
/// this runtime's snapshot: the measurement behind the default preload list.
fn import_costs(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    stock: &Arc<Runtime>,
    n: usize,
) -> anyhow::Result<()> {
    // The default set, plus heavy modules it leaves out.
    let candidates = llm_in_sandbox::runtime::parse_preload("+sklearn,statsmodels.api");
    println!(
        "\nImport cost per call (fresh sandbox + `import M`; snapshot with {} imported):\n",
        snapshot_holds(runtime)
    );
    println!("| module | stock snapshot | this snapshot | saved per call |");
    println!("|---|---|---|---|");
    for m in &candidates {
        let code = format!("import {m}");
        let cold = repeat(n.min(3), fresh_call(rt, stock, code.clone()))?;
        let warm = repeat(n.min(10), fresh_call(rt, runtime, code))?;
        println!(
            "| {m} | {} | {} | {} |",
            ms(cold),
            ms(warm),
            ms(cold.saturating_sub(warm))
        );
    }
    println!();
    Ok(())
}

/// How many files this process has open.
fn open_files() -> usize {
    procfs::process::Process::myself()
        .and_then(|p| p.fd_count())
        .unwrap_or(0)
}

/// The soft limit on open files (what `ulimit -n` shows; `u64::MAX` when unlimited).
fn open_file_limit() -> u64 {
    use procfs::process::LimitValue;
    match procfs::process::Process::myself()
        .and_then(|p| p.limits())
        .map(|l| l.max_open_files.soft_limit)
    {
        Ok(LimitValue::Value(n)) => n,
        Ok(LimitValue::Unlimited) => u64::MAX,
        Err(_) => 0,
    }
}

/// Memory of this process, two ways.
#[derive(Clone, Copy, Default)]
struct Memory {
    /// VmRSS: every mapped page, counted once per mapping. Each instance maps the snapshot
    /// image copy-on-write, so a page of it read by N instances counts N times here.
    rss: u64,
    /// Proportional set size + page tables: each physical page once (shared pages divided
    /// among their mappings), plus the page tables that map them. What the machine spends.
    physical: u64,
}

impl Memory {
    fn now() -> Memory {
        let Ok(me) = procfs::process::Process::myself() else {
            return Memory::default();
        };
        let status = me.status().ok();
        let kb = |v: Option<u64>| v.unwrap_or(0) * 1024;
        // smaps_rollup's values are in bytes already.
        let pss: u64 = me
            .smaps_rollup()
            .map(|r| {
                r.memory_map_rollup
                    .iter()
                    .filter_map(|m| m.extension.map.get("Pss"))
                    .sum()
            })
            .unwrap_or(0);
        Memory {
            rss: kb(status.as_ref().and_then(|s| s.vmrss)),
            physical: pss + kb(status.as_ref().and_then(|s| s.vmpte)),
        }
    }

    fn minus(self, base: Memory) -> Memory {
        Memory {
            rss: self.rss.saturating_sub(base.rss),
            physical: self.physical.saturating_sub(base.physical),
        }
    }
}

/// Memory with `count` episodes alive at once (sandbox + shell each), each inside a `python3`
/// call made through its shell. The active figure is read once all calls are waiting together
/// (each holds a marker file in its workspace while it waits for the host's go file).
fn density(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    count: usize,
) -> anyhow::Result<()> {
    use llm_in_sandbox::shell::{Shell, ShellSettings};
    const MARKER: &str = "lis-bench-started";
    const GO: &str = "lis-bench-go";
    // Each call loads numpy, says it is running, and waits (sleeping) for the host's go.
    let script = format!(
        "import os, time, numpy\n\
         a = numpy.ones(1000)\n\
         open('{MARKER}', 'w').close()\n\
         t = time.time()\n\
         while not os.path.exists('{GO}') and time.time() - t < 300:\n    time.sleep(2)\n\
         os.remove('{MARKER}')\n\
         print(a.sum())\n"
    );
    let mut shells = Vec::with_capacity(count);
    let mut sandboxes = Vec::with_capacity(count);
    let fds_before = open_files();
    let before = Memory::now();
    for _ in 0..count {
        let sb = Arc::new(Sandbox::builder(runtime.clone()).build()?);
        sb.workspace().write("lis_bench_wait.py", &script)?;
        sandboxes.push(sb.clone());
        shells.push(Shell::new(sb, ShellSettings::default())?);
    }
    let idle = Memory::now().minus(before);
    let fds_idle = open_files();
    let base = Memory::now();
    let tasks: Vec<_> = shells
        .into_iter()
        .map(|mut shell| {
            rt.spawn(async move {
                // The episode stays alive after its call, for the "after" figure.
                let failure = match shell.exec("python3 lis_bench_wait.py").await {
                    Ok(r) => (r.exit_code != 0 || r.stdout != "1000.0\n")
                        .then(|| format!("exit {}: {}", r.exit_code, r.stderr.trim())),
                    Err(fault) => Some(fault.to_string()),
                };
                (failure, shell)
            })
        })
        .collect();
    // Wait (up to two minutes) until every call is waiting, then read the memory.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut started = 0;
    while Instant::now() < deadline {
        started = sandboxes
            .iter()
            .filter(|sb| sb.workspace().exists(MARKER))
            .count();
        if started == count {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let active = Memory::now().minus(base);
    let fds_active = open_files();
    for sb in &sandboxes {
        sb.workspace().write(GO, "")?;
    }
    let (results, first_failure, alive) = rt.block_on(async {
        let (mut ok, mut first_failure) = (0usize, None);
        let mut alive = Vec::with_capacity(tasks.len());
        for t in tasks {
            match t.await {
                Ok((None, shell)) => {
                    ok += 1;
                    alive.push(shell);
                }
                Ok((Some(why), shell)) => {
                    first_failure.get_or_insert(why);
                    alive.push(shell);
                }
                Err(e) => {
                    first_failure.get_or_insert(e.to_string());
                }
            }
        }
        (ok, first_failure, alive)
    });
    // Instance slots keep the pages a call wrote (reset in place, ready for the next call in
    // that slot) instead of releasing them; this shows what stays once the calls are over.
    let after = Memory::now().minus(before);
    // What a quiet server does after `--release-idle-after`: the slots give their pages back.
    let _ = runtime.release_idle_memory(Duration::ZERO);
    let released = Memory::now().minus(before);
    drop(alive);
    println!(
        "\nDensity: {count} episodes (sandbox + shell) alive at once \
         ({started} calls were waiting together; {results} succeeded):\n"
    );
    println!(
        "| state | physical memory per episode (PSS + page tables) | episodes per 24 GiB | \
         RSS per episode (counts shared snapshot pages once per instance) |"
    );
    println!("|---|---|---|---|");
    let per = |bytes: u64| (bytes as f64 / count.max(1) as f64).max(1.0);
    for (name, m) in [
        ("idle (workspace + /tmp + shell, no call running)", idle),
        ("active (mid-call: numpy loaded, sleeping)", active),
        (
            "idle after the calls (slots keep their pages for reuse)",
            after,
        ),
        (
            "idle, slots' pages given back (`release_idle_memory`)",
            released,
        ),
    ] {
        println!(
            "| {name} | {:.2} MiB | {:.0} | {:.2} MiB |",
            per(m.physical) / 1048576.0,
            24.0 * 1073741824.0 / per(m.physical),
            per(m.rss) / 1048576.0,
        );
    }
    let per_idle = fds_idle.saturating_sub(fds_before) as f64 / count.max(1) as f64;
    let per_call = fds_active.saturating_sub(fds_idle) as f64 / count.max(1) as f64;
    let limit = open_file_limit();
    println!(
        "Open files: {per_idle:.1} per live episode, {per_call:.1} more per running call; \
         this process may hold {limit}, so at most ~{:.0} episodes can be inside a call at once \
         here (raise `ulimit -n` for more).\n",
        limit as f64 / (per_idle + per_call).max(1.0)
    );
    if results < count {
        bail!(
            "only {results} of {count} concurrent calls succeeded; the first failure: {}",
            first_failure.unwrap_or_default()
        );
    }
    if started < count {
        bail!("only {started} of {count} calls were running at once; the active figure is low");
    }
    Ok(())
}
