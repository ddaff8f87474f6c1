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

/// The guest memory one call writes, in pages, for each of `calls` (label, code): each runs
/// alone in a fresh sandbox, in a slot whose kept pages were given back first, so what the
/// slot keeps after its reset is exactly what that call wrote (the reset finds written pages
/// with PAGEMAP_SCAN and keeps them; [`Runtime::kept_bytes`]). Each of those pages is memory
/// the call holds privately while it runs. `None` when the kernel has no PAGEMAP_SCAN (slots
/// keep nothing then, so nothing can be read).
pub(super) fn written_pages(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    calls: &[(&'static str, &'static str)],
) -> anyhow::Result<Option<Vec<(&'static str, u64)>>> {
    let mut out = Vec::with_capacity(calls.len());
    for &(label, code) in calls {
        settle(runtime);
        let _ = runtime.release_idle_memory(Duration::ZERO);
        let before = runtime.kept_bytes();
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        let r = rt.block_on(sandbox.python(&["-c".into(), code.into()], b""))?;
        if r.exit_code != 0 {
            bail!("{label} failed: {}", r.stderr_text());
        }
        drop(sandbox);
        settle(runtime);
        let written = runtime.kept_bytes().saturating_sub(before) / 4096;
        if written == 0 {
            return Ok(None);
        }
        out.push((label, written));
    }
    Ok(Some(out))
}

/// The calls [`written_pages`] measures: an empty one (what the driver's own path writes),
/// `print(1)`, and the numpy call of the per-call rows.
pub(super) const WRITTEN_PAGES_CALLS: [(&str, &str); 3] = [
    ("`pass`", "pass"),
    ("`print(1)`", "print(1)"),
    (
        "the numpy call (import, a 100x100 `np.linalg.solve`)",
        "import numpy as np; a = np.eye(100) * 4 + 1; \
         print(np.linalg.solve(a, a @ np.ones(100)).sum())",
    ),
];

/// The [`written_pages`] table.
pub(super) fn print_written_pages(pages: Option<&[(&'static str, u64)]>) {
    let Some(pages) = pages else {
        println!(
            "\n(The guest memory a call writes is not shown: the slots keep no pages to read it from \
             (a kernel without PAGEMAP_SCAN, or a `stock-wasmtime` build).)"
        );
        return;
    };
    println!(
        "\n| a fresh sandbox's call writes | pages of guest memory (4 KiB) | MiB, held while it runs |"
    );
    println!("|---|---|---|");
    for (label, n) in pages {
        println!("| {label} | {n} | {:.2} |", *n as f64 * 4096.0 / 1048576.0);
    }
}
