//! Where a fresh sandbox + `print(1)` spends its time, as rows: the sandbox's folder (host),
//! the call's store and instance (wasmtime), the guest's turn, the slot's reset after the
//! answer (copy), what is left (the hop to the sandbox threads, the request), and the CPU the
//! process used in user mode and in the kernel. Read from the runtime's own counters
//! ([`Runtime::phase_times`]) over calls made one at a time, so the next person sees it without
//! a profiler.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::bail;

use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::sandbox::Sandbox;

use super::measure::{Row, process_cpu};

/// `n` fresh sandboxes, each running `print(1)` once, one at a time; the mean of each phase
/// per call, against a native start.
pub(super) fn where_time_goes(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    n: usize,
    native: Duration,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let n = n.max(1);
    settle(runtime);
    let (phases, cpu) = (runtime.phase_times(), process_cpu());
    let started = Instant::now();
    let mut folder = Duration::ZERO;
    for _ in 0..n {
        let t = Instant::now();
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        folder += t.elapsed();
        let r = rt.block_on(sandbox.python(&["-c".into(), "print(1)".into()], b""))?;
        if r.exit_code != 0 {
            bail!("print(1) failed: {}", r.stderr_text());
        }
        let t = Instant::now();
        drop(sandbox);
        folder += t.elapsed();
    }
    let wall = started.elapsed();
    settle(runtime);
    let p = runtime.phase_times().since(&phases);
    let (user, kernel) = process_cpu();
    let (user, kernel) = (user.saturating_sub(cpu.0), kernel.saturating_sub(cpu.1));
    let per = |d: Duration| d / u32::try_from(n).unwrap_or(u32::MAX);
    let on_path = folder + p.store + p.instantiate + p.guest;
    let vs = Some((native, "native process"));
    for (what, d) in [
        ("wall time per call, one at a time", wall),
        ("· the sandbox's folder, made and given back (host)", folder),
        (
            "· the call's store: WASI context, preopens, limits (wasmtime)",
            p.store,
        ),
        (
            "· instantiating the snapshot in a pool slot (wasmtime)",
            p.instantiate,
        ),
        (
            "· the guest's turn: Python runs `print(1)` (guest)",
            p.guest,
        ),
        (
            "· the rest: the hop to the sandbox threads, the request (host)",
            wall.saturating_sub(on_path),
        ),
        (
            "· the slot's reset after the answer: written pages found and copied back (copy; \
             off the answer's path)",
            p.reset,
        ),
        ("process CPU in user mode per call (all threads)", user),
        ("process CPU in the kernel per call (all threads)", kernel),
    ] {
        rows.push((
            format!("fresh sandbox + `print(1)`, where the time goes: {what}"),
            per(d),
            vs,
        ));
    }
    Ok(())
}

/// Wait (up to 5 s) until no instance is in use, so a reading sees every reset finished.
fn settle(runtime: &Runtime) {
    let until = Instant::now() + Duration::from_secs(5);
    while runtime.instances_in_use() > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
}
