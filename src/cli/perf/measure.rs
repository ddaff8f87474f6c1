//! Timing helpers every measurement shares: medians, a table of rows against baselines,
//! first output of a process, a fresh-sandbox call.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::sandbox::Sandbox;

/// The system interpreter, not a version-manager shim that adds its own start-up cost.
pub(super) const NATIVE_PYTHON: &str = if cfg!(target_os = "linux") {
    "/usr/bin/python3"
} else {
    "python3"
};

/// A measurement: a fresh sandbox on `runtime` running `python3 -c CODE`.
pub(super) fn fresh_call<'a>(
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
pub(super) type Row = (String, Duration, Option<(Duration, &'static str)>);

/// The rows as a Markdown table (median, and the ratio to the row's baseline).
pub(super) fn print_rows(rows: &[Row]) {
    println!("| measurement | median | ratio |");
    println!("|---|---|---|");
    for (name, d, base) in rows {
        let ratio = base
            .map(|(b, what)| format!("{:.3}x {what}", d.as_secs_f64() / b.as_secs_f64()))
            .unwrap_or_default();
        println!("| {name} | {} | {ratio} |", ms(*d));
    }
}

pub(super) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

pub(super) fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Time from spawning `cmd` to the first byte on its stdout, and make sure it succeeds.
pub(super) fn first_output(cmd: &mut Command) -> anyhow::Result<Duration> {
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

pub(super) fn repeat(
    n: usize,
    mut f: impl FnMut() -> anyhow::Result<Duration>,
) -> anyhow::Result<Duration> {
    f()?; // warm-up
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(f()?);
    }
    Ok(median(v))
}

/// CPU time this process has used so far: (user, kernel).
pub(super) fn process_cpu() -> (Duration, Duration) {
    // SAFETY: getrusage only writes the struct passed to it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &raw mut usage) } != 0 {
        return (Duration::ZERO, Duration::ZERO);
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    (tv(usage.ru_utime), tv(usage.ru_stime))
}
