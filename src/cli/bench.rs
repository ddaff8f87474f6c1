//! `llm-in-sandbox bench`: start-up and per-command costs, each against a baseline measured in
//! the same run (a native `python3` subprocess), reported as medians and ratios.

use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;

use llm_in_sandbox::runtime::{Runtime, RuntimeConfig};
use llm_in_sandbox::sandbox::Sandbox;

use super::{GlobalArgs, tokio_runtime};

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Repetitions per measurement (the median is reported).
    #[arg(long, default_value_t = 20)]
    iterations: usize,
    /// Also time a first-ever compile into a throwaway cache (~1 minute, ~2.2 GiB of memory).
    #[arg(long)]
    compile: bool,
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

/// A table row: what, its median, and an optional baseline to compare with.
type Row = (String, Duration, Option<(Duration, &'static str)>);

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

pub fn run(global: &GlobalArgs, args: BenchArgs) -> anyhow::Result<ExitCode> {
    let n = args.iterations.max(1);
    let runtime = global.load_runtime()?;
    let rt = tokio_runtime()?;
    let exe = std::env::current_exe().context("cannot find our own executable")?;
    let mut rows: Vec<Row> = Vec::new();

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

    let in_process = |code: &'static str| {
        let runtime = runtime.clone();
        let rt = &rt;
        move || -> anyhow::Result<Duration> {
            let started = Instant::now();
            let sandbox = Sandbox::builder(runtime.clone()).build()?;
            let args = vec!["-c".to_string(), code.to_string()];
            let r = rt.block_on(sandbox.python(&args, b""))?;
            let elapsed = started.elapsed();
            if r.exit_code != 0 {
                bail!("{code} failed: {}", r.stderr_text());
            }
            Ok(elapsed)
        }
    };
    let fresh = repeat(n, in_process("print(1)"))?;
    rows.push((
        "in-process fresh sandbox + `print(1)`".into(),
        fresh,
        Some((native, "native process")),
    ));
    let reuse = {
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        repeat(n, || {
            let started = Instant::now();
            let r = rt.block_on(sandbox.python(&["-c".into(), "print(1)".into()], b""))?;
            let elapsed = started.elapsed();
            if r.exit_code != 0 {
                bail!("print(1) failed: {}", r.stderr_text());
            }
            Ok(elapsed)
        })?
    };
    rows.push((
        "`python3 -c 'print(1)'` in an existing sandbox (fresh instance)".into(),
        reuse,
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

    // The shell (execute_bash): per-command latency in one long-lived shell, against spawning
    // a native `bash -c` for the same command.
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
            let r = rt.block_on(shell.exec(script));
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

    if args.compile {
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

    println!("| measurement | median | ratio |");
    println!("|---|---|---|");
    for (name, d, base) in &rows {
        let ratio = base
            .map(|(b, what)| format!("{:.3}x {what}", d.as_secs_f64() / b.as_secs_f64()))
            .unwrap_or_default();
        println!("| {name} | {} | {ratio} |", ms(*d));
    }
    Ok(ExitCode::SUCCESS)
}
