//! Memory density: many episodes alive at once, idle, mid-call, after, and released; and
//! the open files they hold.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::bail;

use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::sandbox::Sandbox;
use llm_in_sandbox::shell::{Shell, ShellSettings};

/// How many files this process has open.
pub(super) fn open_files() -> usize {
    procfs::process::Process::myself()
        .and_then(|p| p.fd_count())
        .unwrap_or(0)
}

/// The soft limit on open files (what `ulimit -n` shows; `u64::MAX` when unlimited).
pub(super) fn open_file_limit() -> u64 {
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
pub(super) struct Memory {
    /// VmRSS: every mapped page, counted once per mapping. Each instance maps the snapshot
    /// image copy-on-write, so a page of it read by N instances counts N times here.
    pub(super) rss: u64,
    /// Proportional set size + page tables: each physical page once (shared pages divided
    /// among their mappings), plus the page tables that map them. What the machine spends.
    pub(super) physical: u64,
}

impl Memory {
    pub(super) fn now() -> Memory {
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

    pub(super) fn minus(self, base: Memory) -> Memory {
        Memory {
            rss: self.rss.saturating_sub(base.rss),
            physical: self.physical.saturating_sub(base.physical),
        }
    }
}

/// Memory with `count` episodes alive at once (sandbox + shell each), each inside a `python3`
/// call made through its shell. The active figure is read once all calls are waiting together
/// (each holds a marker file in its workspace while it waits for the host's go file).
pub(super) fn density(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    count: usize,
) -> anyhow::Result<()> {
    let fds_before = open_files();
    let before = Memory::now();
    let (sandboxes, shells) = live_episodes(runtime, count)?;
    let idle = Memory::now().minus(before);
    let fds_idle = open_files();
    let base = Memory::now();
    let tasks = start_waiting_calls(rt, shells);
    let started = wait_until_all_waiting(&sandboxes, count);
    let active = Memory::now().minus(base);
    let fds_active = open_files();
    for sb in &sandboxes {
        sb.workspace().write(GO, "")?;
    }
    let (results, first_failure, alive) = rt.block_on(finish_calls(tasks));
    // Instance slots keep the pages a call wrote (reset in place, ready for the next call in
    // that slot) instead of releasing them; this shows what stays once the calls are over.
    let after = Memory::now().minus(before);
    // What a quiet server does after `--release-idle-after`: the slots give their pages back.
    let _ = runtime.release_idle_memory(Duration::ZERO);
    let released = Memory::now().minus(before);
    drop(alive);
    print_density(count, started, results, [idle, active, after, released]);
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

/// The file a waiting call holds in its workspace.
const MARKER: &str = "lis-bench-started";
/// The file the host writes to let the calls finish.
const GO: &str = "lis-bench-go";

/// A waiting call: its failure (if any), and its shell, kept alive for the "after" figure.
type WaitingCall = tokio::task::JoinHandle<(Option<String>, Shell)>;

/// `count` episodes (sandbox + shell), each with the script that loads numpy, says it is
/// running, and waits (sleeping) for the host's go.
fn live_episodes(
    runtime: &Arc<Runtime>,
    count: usize,
) -> anyhow::Result<(Vec<Arc<Sandbox>>, Vec<Shell>)> {
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
    for _ in 0..count {
        let sb = Arc::new(Sandbox::builder(runtime.clone()).build()?);
        sb.workspace().write("lis_bench_wait.py", &script)?;
        sandboxes.push(sb.clone());
        shells.push(Shell::new(sb, ShellSettings::default())?);
    }
    Ok((sandboxes, shells))
}

/// Start every episode's waiting call through its shell.
fn start_waiting_calls(rt: &tokio::runtime::Runtime, shells: Vec<Shell>) -> Vec<WaitingCall> {
    shells
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
        .collect()
}

/// Wait (up to two minutes) until every call is waiting; how many were.
fn wait_until_all_waiting(sandboxes: &[Arc<Sandbox>], count: usize) -> usize {
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
    started
}

/// The calls' results: how many succeeded, the first failure, and the shells still alive.
async fn finish_calls(tasks: Vec<WaitingCall>) -> (usize, Option<String>, Vec<Shell>) {
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
}

/// The memory table: per episode, idle, active, after the calls and after the release.
fn print_density(count: usize, started: usize, results: usize, states: [Memory; 4]) {
    let [idle, active, after, released] = states;
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
}
