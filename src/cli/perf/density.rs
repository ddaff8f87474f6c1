//! Density: many sandboxes alive at once, each inside a numpy call; their memory idle,
//! mid-call, after and released, and the open files and memory maps they hold. When a limit
//! of the machine stops the run (open files, memory maps, memory), it ends with an error that
//! names the limit and the count reached, and lets the calls already running finish.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::bail;

use llm_in_sandbox::runtime::{Limits, Runtime};
use llm_in_sandbox::sandbox::Sandbox;
use llm_in_sandbox::shell::{Shell, ShellSettings};

use super::limits::{
    machine_memory, memory_floor, memory_maps, memory_short, open_file_limit, open_files, reached,
    standing,
};

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

/// Physical memory (PSS) of this process by where it lives, to say where a running call's
/// memory goes.
#[derive(Clone, Copy, Default)]
pub(super) struct Split {
    /// The compiled module's mappings: each instance slot maps the snapshot image
    /// copy-on-write, so what grows here is the guest's written pages.
    guest: u64,
    /// Large anonymous regions (8 MiB and up, but glibc's arenas): wasmtime's pools (tables,
    /// fiber stacks, linear memory beyond the image).
    pools: u64,
    /// The rest of anonymous memory: the host's heap (glibc's arenas; there each instance's
    /// VMContext and the function references the guest's tables point to) and thread stacks.
    heap: u64,
    /// Page tables (VmPTE).
    page_tables: u64,
}

/// Anonymous regions at least this large are wasmtime's pools (fiber stacks are 9 MiB), not
/// the host's heap; except glibc's thread arenas ([`ARENA`]).
const POOL_REGION: u64 = 8 << 20;

/// glibc's thread arenas: heaps of at most 64 MiB, each starting at a multiple of its size.
const ARENA: u64 = 64 << 20;

impl Split {
    pub(super) fn now() -> Split {
        let Ok(me) = procfs::process::Process::myself() else {
            return Split::default();
        };
        let mut split = Split::default();
        if let Ok(maps) = me.smaps() {
            for m in maps.0 {
                let pss = m.extension.map.get("Pss").copied().unwrap_or(0);
                let size = m.address.1.saturating_sub(m.address.0);
                use procfs::process::MMapPath;
                match &m.pathname {
                    MMapPath::Path(p) if p.extension().is_some_and(|e| e == "cwasm") => {
                        split.guest += pss
                    }
                    // glibc's thread arenas: at most 64 MiB each, at a 64 MiB boundary.
                    MMapPath::Anonymous if size <= ARENA && m.address.0.is_multiple_of(ARENA) => {
                        split.heap += pss
                    }
                    MMapPath::Anonymous if size >= POOL_REGION => split.pools += pss,
                    MMapPath::Anonymous | MMapPath::Heap | MMapPath::TStack(_) => split.heap += pss,
                    _ => {}
                }
            }
        }
        split.page_tables = me
            .status()
            .ok()
            .and_then(|s| s.vmpte)
            .unwrap_or(0)
            .saturating_mul(1024);
        split
    }

    fn minus(self, base: Split) -> Split {
        Split {
            guest: self.guest.saturating_sub(base.guest),
            pools: self.pools.saturating_sub(base.pools),
            heap: self.heap.saturating_sub(base.heap),
            page_tables: self.page_tables.saturating_sub(base.page_tables),
        }
    }
}

/// What each call runs: real numpy work (a 100x100 solve through OpenBLAS), then it says it
/// is running (a marker file) and sleeps until the host's go file appears.
const WORK: &str = "import numpy as np\n\
    a = np.eye(100) * 4 + 1\n\
    x = np.linalg.solve(a, a @ np.ones(100))\n";

/// How long a call may wait for the host's go (and its deadline): starting 10,000 calls on 2
/// cores takes minutes.
const WAIT_LIMIT: Duration = Duration::from_secs(3600);

/// Memory with `count` sandboxes (sandbox + shell each) alive at once, each inside a
/// `python3` call made through its shell. The active figure is read once all calls are
/// waiting together (each holds a marker file in its workspace while it waits for the host's
/// go file).
pub(super) fn density(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    count: usize,
) -> anyhow::Result<()> {
    let (fds_before, before) = (open_files(), Memory::now());
    let (sandboxes, shells, short) = live_episodes(runtime, count);
    // Fewer when a limit stopped the making: the figures are for those made, and the run
    // still fails at the end, naming the limit.
    let made = sandboxes.len();
    if let (0, Some(why)) = (made, &short) {
        bail!("could not make any of {count} sandboxes: {why}");
    }
    let idle = Memory::now().minus(before);
    let fds_idle = open_files();
    let (base, maps_base, split_base) = (Memory::now(), memory_maps(), Split::now());
    let (tasks, waited) = start_waiting_calls(rt, &sandboxes, shells);
    let active = Memory::now().minus(base);
    let split = Split::now().minus(split_base);
    let (fds_active, maps_active) = (open_files(), memory_maps());
    let started = waited.started;
    let ended = end_calls(runtime, rt, &sandboxes, tasks, started, before)?;
    print_density(made, started, ended.results, idle, active, ended.after);
    print_per_sandbox(
        made,
        started,
        idle,
        active,
        fds_idle.saturating_sub(fds_before),
        fds_active.saturating_sub(fds_before),
        maps_active.saturating_sub(maps_base),
    );
    print_split(split, started);
    if let Some(why) = ended.stopped {
        let making = short.map_or_else(String::new, |s| format!("; making stopped early: {s}"));
        bail!(
            "{started} calls were inside a numpy call at once (of {made} sandboxes made, \
             {count} asked), then stopped, not let finish: {why}{making}"
        );
    }
    if let Some(why) = short {
        bail!(
            "stopped after making {made} of {count} sandboxes ({started} were inside a numpy \
             call at once, {} of their calls succeeded): {why}",
            ended.results
        );
    }
    if let Some(why) = waited.stopped {
        bail!("stopped with {started} of {made} calls running at once ({count} asked): {why}");
    }
    if ended.results < made {
        bail!(
            "only {} of {made} concurrent calls succeeded; the first failure: {}",
            ended.results,
            ended.first_failure.unwrap_or_default()
        );
    }
    if started < made {
        bail!(
            "only {started} of {made} calls were running at once; {}",
            standing()
        );
    }
    Ok(())
}

fn per_bytes(bytes: u64, of: usize) -> f64 {
    bytes as f64 / of.max(1) as f64
}

/// How the calls ended: let finish, or stopped when finishing would not fit in memory.
struct Ended {
    /// Calls that succeeded (none when they were stopped).
    results: usize,
    /// The first call's failure.
    first_failure: Option<String>,
    /// Memory after the calls and after the release, when the calls were let finish.
    after: Option<[Memory; 2]>,
    /// Why the calls were stopped instead of let finish.
    stopped: Option<String>,
}

/// Let the waiting calls finish (the go file in each workspace) and read the memory after
/// them and after the release; or stop them, when finishing would not fit in memory.
fn end_calls(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    sandboxes: &[Arc<Sandbox>],
    tasks: Vec<WaitingCall>,
    started: usize,
    before: Memory,
) -> anyhow::Result<Ended> {
    // Finishing writes more pages in each call (its output, its exit): when the machine could
    // not hold that for every call, the calls are stopped instead of let finish.
    let spare = machine_memory().map_or(0, |(total, avail)| {
        avail.saturating_sub(memory_floor(total))
    });
    let finishing = (started as u64).saturating_mul(FINISH_BYTES);
    if spare < finishing {
        for t in &tasks {
            t.abort();
        }
        for t in tasks {
            let _ = rt.block_on(t);
        }
        let why = format!(
            "finishing the {started} calls would take about {} MiB more and {} MiB is spare \
             above the floor kept free ({})",
            finishing >> 20,
            spare >> 20,
            memory_short().unwrap_or_else(|| "the machine's memory".into())
        );
        println!(
            "\nThe calls were stopped, not let finish: {why} (the rows after the calls are not \
             measured; their outputs not checked)."
        );
        return Ok(Ended {
            results: 0,
            first_failure: None,
            after: None,
            stopped: Some(why),
        });
    }
    for sb in sandboxes {
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
    Ok(Ended {
        results,
        first_failure,
        after: Some([after, released]),
        stopped: None,
    })
}

/// Physical memory per sandbox inside a call, and the open files and memory maps a sandbox
/// holds: `files_idle` more open files with the sandboxes made, `files_in_call` and
/// `maps_in_call` more with their calls running.
fn print_per_sandbox(
    made: usize,
    started: usize,
    idle: Memory,
    active: Memory,
    files_idle: usize,
    files_in_call: usize,
    maps_in_call: usize,
) {
    let per = |n: usize, of: usize| n as f64 / of.max(1) as f64;
    let in_call = per(files_in_call, started);
    println!(
        "Physical memory per sandbox inside a numpy call: {:.2} MiB (its idle share plus the \
         active row). Open files per live sandbox: {:.1} idle, {in_call:.1} inside a call; \
         memory maps per running call: {:.1}. This process may hold {} open files, so about \
         {:.0} sandboxes fit inside a call at once by open files.\n",
        (idle.physical as f64 / made.max(1) as f64 + per_bytes(active.physical, started))
            / 1048576.0,
        per(files_idle, made),
        per(maps_in_call, started),
        open_file_limit(),
        open_file_limit() as f64 / in_call.max(1.0),
    );
}

/// The file a waiting call holds in its workspace.
const MARKER: &str = "lis-bench-started";
/// The file the host writes to let the calls finish.
const GO: &str = "lis-bench-go";

/// A waiting call: its failure (if any), and its shell, kept alive for the "after" figure.
type WaitingCall = tokio::task::JoinHandle<(Option<String>, Shell)>;

/// `count` sandboxes, each with a shell and the script that does the numpy work, says it is
/// running, and waits (sleeping) for the host's go. Fewer when a limit stops the making: a
/// sandbox could not be made, or the open files came within [`files_kept_free`] of the limit
/// (the calls still need some) or the machine's memory near its floor; then also why, naming
/// the limit and where it stood.
fn live_episodes(
    runtime: &Arc<Runtime>,
    count: usize,
) -> (Vec<Arc<Sandbox>>, Vec<Shell>, Option<String>) {
    let script = format!(
        "import os, time\n\
         {WORK}\
         open('{MARKER}', 'w').close()\n\
         t = time.time()\n\
         while not os.path.exists('{GO}') and time.time() - t < {}:\n    time.sleep(2)\n\
         os.remove('{MARKER}')\n\
         print(round(float(x.sum()), 6))\n",
        WAIT_LIMIT.as_secs()
    );
    let limits = Limits {
        timeout: WAIT_LIMIT,
        ..Limits::default()
    };
    let settings = ShellSettings {
        timeout: WAIT_LIMIT,
        ..ShellSettings::default()
    };
    let mut shells = Vec::with_capacity(count);
    let mut sandboxes = Vec::with_capacity(count);
    for made in 0..count {
        if made % CHECK_EVERY == 0
            && let Some(why) = near_a_limit()
        {
            return (sandboxes, shells, Some(why));
        }
        let one = || -> anyhow::Result<(Arc<Sandbox>, Shell)> {
            let sb = Arc::new(
                Sandbox::builder(runtime.clone())
                    .limits(limits.clone())
                    .build()?,
            );
            sb.workspace().write("lis_bench_wait.py", &script)?;
            let shell = Shell::new(sb.clone(), settings.clone())?;
            Ok((sb, shell))
        };
        match one() {
            Ok((sb, shell)) => {
                sandboxes.push(sb);
                shells.push(shell);
            }
            Err(e) => {
                let why = reached().unwrap_or_else(standing);
                return (sandboxes, shells, Some(format!("{why} ({e:#})")));
            }
        }
    }
    (sandboxes, shells, None)
}

/// How often (in sandboxes made) [`live_episodes`] looks at the limits: reading the open
/// files lists them all.
const CHECK_EVERY: usize = 64;

/// Open files left free for the calls themselves (each opens its script, its marker and what
/// Python opens; [`WINDOW`] start at once): 2% of the limit, at least 512.
fn files_kept_free(limit: u64) -> u64 {
    (limit / 50).max(512)
}

/// Why no more sandboxes should be made, if so: the next [`CHECK_EVERY`] would take the open
/// files into the share kept for the calls, or the machine's memory is near its floor.
fn near_a_limit() -> Option<String> {
    let (files, limit) = (open_files() as u64, open_file_limit());
    let next = (CHECK_EVERY as u64).saturating_mul(llm_in_sandbox::runtime::OPEN_FILES_PER_SANDBOX);
    if files
        .saturating_add(next)
        .saturating_add(files_kept_free(limit))
        > limit
    {
        return Some(format!(
            "the open-files limit: {files} open of {limit} (ulimit -n), {} kept free for the \
             calls; each sandbox holds {}",
            files_kept_free(limit),
            llm_in_sandbox::runtime::OPEN_FILES_PER_SANDBOX
        ));
    }
    memory_short()
}

/// Calls started but not yet waiting, at most: enough to keep the cores busy, few enough that
/// a limit met stops the run within a few calls of it.
const WINDOW: usize = 64;

/// How starting the calls went.
struct Waited {
    /// Calls waiting together at the end.
    started: usize,
    /// Why it stopped early: the limit reached.
    stopped: Option<String>,
}

/// Start the sandboxes' waiting calls through their shells, [`WINDOW`] at a time, until every
/// call is waiting or has ended. Stops early when the machine's available memory falls near
/// its end (the kernel would otherwise kill the process) or when no call has got going for
/// two minutes; calls already started keep waiting for the go.
fn start_waiting_calls(
    rt: &tokio::runtime::Runtime,
    sandboxes: &[Arc<Sandbox>],
    shells: Vec<Shell>,
) -> (Vec<WaitingCall>, Waited) {
    let mut tasks: Vec<WaitingCall> = Vec::with_capacity(shells.len());
    let mut shells = shells.into_iter();
    let mut pending: Vec<usize> = Vec::new();
    let (mut started, mut stopped) = (0, None);
    let mut progress = Instant::now();
    loop {
        let before = pending.len();
        pending.retain(|&i| {
            if sandboxes[i].workspace().exists(MARKER) {
                started += 1;
                false
            } else {
                !tasks[i].is_finished()
            }
        });
        if pending.len() < before {
            progress = Instant::now();
        }
        if let Some(short) = memory_short() {
            stopped = Some(format!("{short}, so no more calls were started"));
            break;
        }
        while pending.len() < WINDOW {
            let Some(shell) = shells.next() else { break };
            pending.push(tasks.len());
            tasks.push(spawn_call(rt, shell));
        }
        if pending.is_empty() {
            break;
        }
        if progress.elapsed() > Duration::from_secs(120) {
            stopped = Some(format!(
                "no call got going for two minutes ({} started, not yet waiting); {}",
                pending.len(),
                standing()
            ));
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    (tasks, Waited { started, stopped })
}

/// One sandbox's waiting call through its shell.
fn spawn_call(rt: &tokio::runtime::Runtime, mut shell: Shell) -> WaitingCall {
    rt.spawn(async move {
        // The episode stays alive after its call, for the "after" figure.
        let failure = match shell.exec("python3 lis_bench_wait.py").await {
            Ok(r) => (r.exit_code != 0 || r.stdout != "100.0\n")
                .then(|| format!("exit {}: {}", r.exit_code, r.stderr.trim())),
            Err(fault) => Some(fault.to_string()),
        };
        // Said now, while the limit that caused it (if any) still stands.
        let failure = failure.map(|f| match reached() {
            Some(limit) => format!("{f} ({limit})"),
            None => f,
        });
        (failure, shell)
    })
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

/// Where a running call's memory goes: the active row, split by region.
fn print_split(split: Split, started: usize) {
    let per = |bytes: u64| bytes as f64 / started.max(1) as f64 / 1048576.0;
    println!("| inside a numpy call, per call | physical memory (PSS) |");
    println!("|---|---|");
    for (name, bytes) in [
        (
            "the guest's written pages (the snapshot image's copy-on-write mappings)",
            split.guest,
        ),
        (
            "wasmtime's pools (function tables, fiber stacks, linear memory beyond the image)",
            split.pools,
        ),
        (
            "the host's heap: each instance's VMContext (with the function references its \
             tables point to, packed as they are first used), store, WASI context, shell",
            split.heap,
        ),
        ("page tables", split.page_tables),
    ] {
        println!("| {name} | {:.2} MiB |", per(bytes));
    }
    println!();
}

/// What finishing adds to a waiting call, at most (measured: about 0.12 MiB).
const FINISH_BYTES: u64 = 192 << 10;

/// The memory table: per episode, idle, active, after the calls and after the release (when
/// the calls were let finish).
fn print_density(
    count: usize,
    started: usize,
    results: usize,
    idle: Memory,
    active: Memory,
    after: Option<[Memory; 2]>,
) {
    println!(
        "\nDensity: {count} episodes (sandbox + shell) alive at once \
         ({started} calls were waiting together; {}):\n",
        if after.is_some() {
            format!("{results} succeeded")
        } else {
            "then stopped, not let finish".into()
        }
    );
    println!(
        "| state | physical memory per episode (PSS + page tables) | episodes per 24 GiB | \
         RSS per episode (counts shared snapshot pages once per instance) |"
    );
    println!("|---|---|---|---|");
    let per = |bytes: u64| (bytes as f64 / count.max(1) as f64).max(1.0);
    let mut states = vec![
        ("idle (workspace + /tmp + shell, no call running)", idle),
        ("active (mid-call: numpy loaded, sleeping)", active),
    ];
    if let Some([after, released]) = after {
        states.push((
            "idle after the calls (slots keep their pages for reuse)",
            after,
        ));
        states.push((
            "idle, slots' pages given back (`release_idle_memory`)",
            released,
        ));
    }
    for (name, m) in states {
        println!(
            "| {name} | {:.2} MiB | {:.0} | {:.2} MiB |",
            per(m.physical) / 1048576.0,
            24.0 * 1073741824.0 / per(m.physical),
            per(m.rss) / 1048576.0,
        );
    }
}
