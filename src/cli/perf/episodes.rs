//! The episode rows of `perf`: whole episodes against the fake model server (so they need the
//! `testing` feature): a 10-step episode's overhead split, throughput and memory at several
//! worker counts, and throughput against a model with latency.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::bail;

use llm_in_sandbox::runtime::Runtime;

/// A fake model that runs `steps - 1` commands (alternating shell and Python), then submits.
fn scripted_model(steps: usize) -> anyhow::Result<llm_in_sandbox::llm::fake::FakeServer> {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    Ok(FakeServer::start(Box::new(
        move |req: &serde_json::Value| {
            let done = req["messages"]
                .as_array()
                .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count());
            if done + 1 >= steps {
                Reply::calls(&[("submit", "{}")])
            } else if done.is_multiple_of(2) {
                Reply::calls(&[(
                    "execute_bash",
                    r#"{"command": "ls -la | head -5; echo 42 > /testbed/answer.txt"}"#,
                )])
            } else {
                Reply::calls(&[("execute_bash", r#"{"command": "python3 -c 'print(6*7)'"}"#)])
            }
        },
    ))?)
}

fn rss_bytes() -> u64 {
    procfs::process::Process::myself()
        .and_then(|p| p.status())
        .ok()
        .and_then(|s| s.vmrss)
        .map_or(0, |kb| kb * 1024)
}

pub(super) fn episode_overhead(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
) -> anyhow::Result<()> {
    use llm_in_sandbox::agent::{EpisodeSettings, EpisodeSpec, SandboxSettings, setup};
    use llm_in_sandbox::llm::{Client, LlmConfig};
    let server = scripted_model(10)?;
    let client = Client::new(LlmConfig::new(&server.url, "fake"))?;
    let mut rows = Vec::new();
    for _ in 0..6 {
        let dir = tempfile::tempdir()?;
        let started = Instant::now();
        let r = rt.block_on(async {
            let spec = EpisodeSpec {
                sandbox: SandboxSettings::default(),
                episode: EpisodeSettings::default(),
                workspace: None,
                input_files: Vec::new(),
                record_dir: dir.path().to_path_buf(),
                header: serde_json::json!({"problem_statement": "bench"}),
            };
            anyhow::Ok(
                setup(runtime, client.clone(), spec)
                    .await?
                    .run("bench")
                    .await,
            )
        })?;
        let total = started.elapsed().as_secs_f64();
        if r.steps != 10 {
            bail!("the scripted episode took {} steps, not 10", r.steps);
        }
        rows.push((total, r.llm_seconds, r.tool_seconds));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (total, llm, tools) = rows[rows.len() / 2];
    let ours = (total - llm - tools).max(0.0);
    println!(
        "\nScripted 10-step episode (5 shell + 4 python3 commands + submit), zero-latency fake model, median of 6:\n"
    );
    println!("| part | time | share |");
    println!("|---|---|---|");
    for (name, t) in [
        ("waiting for the model (HTTP on loopback)", llm),
        ("sandbox (tools)", tools),
        ("our own overhead (setup, trajectory, loop)", ours),
    ] {
        println!("| {name} | {:.2} ms | {:.0}% |", t * 1e3, 100.0 * t / total);
    }
    println!("| whole episode | {:.2} ms | 100% |\n", total * 1e3);
    Ok(())
}

/// A fake model with latency: each episode runs 3 bash commands (one of them `python3`), one
/// editor call, then submits; every reply comes after `latency`.
fn latency_model(latency: Duration) -> anyhow::Result<llm_in_sandbox::llm::fake::FakeServer> {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    Ok(FakeServer::start(Box::new(
        move |req: &serde_json::Value| {
            let done = req["messages"]
                .as_array()
                .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count());
            let reply = match done {
                0 => Reply::calls(&[("execute_bash", r#"{"command": "ls -la | head -5"}"#)]),
                1 => Reply::calls(&[(
                    "str_replace_editor",
                    r#"{"command": "create", "path": "/testbed/notes.txt", "file_text": "a\nb\n"}"#,
                )]),
                2 => Reply::calls(&[(
                    "execute_bash",
                    r#"{"command": "python3 -c 'print(6*7)' > /testbed/answer.txt"}"#,
                )]),
                3 => Reply::calls(&[("execute_bash", r#"{"command": "cat /testbed/answer.txt"}"#)]),
                _ => Reply::calls(&[("submit", "{}")]),
            };
            reply.delayed(latency)
        },
    ))?)
}

/// Episodes/s against a model with latency, as a share of the ideal workers / episode time.
pub(super) fn latency_throughput(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    latency: f64,
    workers: &[usize],
) -> anyhow::Result<()> {
    use llm_in_sandbox::eval::runner::{self, BenchSettings};
    use llm_in_sandbox::llm::LlmConfig;
    if !(latency.is_finite() && latency > 0.0) {
        bail!("--model-latency must be a positive number of seconds");
    }
    let server = latency_model(Duration::from_secs_f64(latency))?;
    println!(
        "\nThroughput against a fake model answering after {latency} s: 5-step episodes (3 bash incl. one python3, 1 editor, submit), whole benchmark pipeline, 3 episodes per worker:\n"
    );
    println!(
        "| workers | episodes | episodes/s | ideal | % of ideal | median model wait / episode | median tools / episode | CPU |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &w in workers {
        let n = w * 3;
        let (task, rows) = synthetic_task("latency", n);
        let dir = tempfile::tempdir()?;
        let mut llm = LlmConfig::new(&server.url, "fake");
        llm.request_timeout = Duration::from_secs(120);
        let settings = BenchSettings {
            workers: w,
            ..BenchSettings::new(llm, dir.path().to_path_buf())
        };
        let cpu0 = cpu_seconds();
        let started = Instant::now();
        let out = rt.block_on(runner::run(runtime.clone(), &task, rows, settings))?;
        let secs = started.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu0;
        if out.summary["overall"]["errors"].as_u64() != Some(0) {
            bail!("latency run had errors: {}", out.summary["overall"]);
        }
        let results = llm_in_sandbox::eval::report::read_results(&dir.path().join("results.jsonl"));
        let median = |f: &dyn Fn(&llm_in_sandbox::eval::report::RowResult) -> f64| {
            let mut v: Vec<f64> = results.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        let (llm_wait, tools) = (median(&|r| r.llm_seconds), median(&|r| r.sandbox_seconds));
        let rate = n as f64 / secs;
        let ideal = w as f64 / (5.0 * latency);
        println!(
            "| {w} | {n} | {rate:.1} | {ideal:.1} | {:.0}% | {llm_wait:.2} s | {:.1} ms | {:.0}% |",
            100.0 * rate / ideal,
            tools * 1e3,
            100.0 * cpu / secs
        );
    }
    println!();
    Ok(())
}

/// CPU time (user + system) this process has used, in seconds.
fn cpu_seconds() -> f64 {
    let (user, kernel) = super::measure::process_cpu();
    (user + kernel).as_secs_f64()
}

/// Where this process's CPU time went, by thread name (seconds, cumulative): the sandbox
/// pool (`lis-sandbox`: guest code, the shell, file work), the caller's async runtime
/// (`tokio-runtime-worker`: the agent loop, the model client, the runner), the fake model's
/// thread, and the rest. Threads that have exited are not counted, so only differences over a
/// run whose threads stay alive mean anything; the process total (`cpu_seconds`) is exact.
#[derive(Debug, Default, Clone, Copy)]
struct ThreadCpu {
    sandbox: f64,
    runtime: f64,
    model: f64,
    other: f64,
}

impl ThreadCpu {
    fn now() -> ThreadCpu {
        let mut out = ThreadCpu::default();
        let tick = procfs::ticks_per_second() as f64;
        let Ok(tasks) = procfs::process::Process::myself().and_then(|p| p.tasks()) else {
            return out;
        };
        for stat in tasks.flatten().filter_map(|t| t.stat().ok()) {
            let secs = (stat.utime + stat.stime) as f64 / tick;
            match stat.comm.as_str() {
                "lis-sandbox" => out.sandbox += secs,
                // "tokio-rt-worker" (tokio >= 1.44), "tokio-runtime-w" (older, cut to 15 bytes)
                c if c.starts_with("tokio-r") => out.runtime += secs,
                "fake-model" => out.model += secs,
                _ => out.other += secs,
            }
        }
        out
    }

    fn since(self, before: ThreadCpu) -> ThreadCpu {
        ThreadCpu {
            sandbox: (self.sandbox - before.sandbox).max(0.0),
            runtime: (self.runtime - before.runtime).max(0.0),
            model: (self.model - before.model).max(0.0),
            other: (self.other - before.other).max(0.0),
        }
    }
}

/// The system temporary folder (where sandboxes make their scratch folders, and where these
/// rows put their run folders) and the kind of file system it is on.
fn temp_dir_kind() -> String {
    let dir = std::env::temp_dir();
    let kind = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .ok()
        .and_then(|path| {
            // SAFETY: statfs reads the NUL-terminated path and writes into the struct we pass.
            let mut st: libc::statfs = unsafe { std::mem::zeroed() };
            (unsafe { libc::statfs(path.as_ptr(), &mut st) } == 0).then_some(st.f_type)
        })
        .map_or("unknown file system".to_string(), |t| match t {
            0x0102_1994 => "tmpfs".into(),
            0xEF53 => "ext2/3/4".into(),
            0x5846_5342 => "xfs".into(),
            0x9123_683E => "btrfs".into(),
            0x794C_7630 => "overlayfs".into(),
            other => format!("file system type {other:#x}"),
        });
    format!("{} ({kind})", dir.display())
}

/// The whole machine's busy and total CPU time so far (all processes, from `/proc/stat`), in
/// clock ticks: other work on the machine shows as busy time this process did not use.
fn machine_ticks() -> (u64, u64) {
    let Ok(text) = std::fs::read_to_string("/proc/stat") else {
        return (0, 0);
    };
    let Some(line) = text.lines().find(|l| l.starts_with("cpu ")) else {
        return (0, 0);
    };
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let total: u64 = v.iter().take(8).sum();
    // idle and iowait
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    (total.saturating_sub(idle), total)
}

/// Episodes/s at zero model latency for each worker count, with the CPU they cost: the
/// process's CPU time over the run (getrusage: every thread, the fake model's included),
/// split by thread, and the whole machine's busy share (`/proc/stat`), so a run limited by
/// the cores shows as CPU time per episode staying put while the cores are full.
pub(super) fn throughput(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    workers: &[usize],
) -> anyhow::Result<()> {
    use llm_in_sandbox::eval::runner::{self, BenchSettings};
    use llm_in_sandbox::llm::LlmConfig;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let server = scripted_model(5)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "Throughput: scripted 5-step episodes (2 shell + 2 python3 + submit), zero-latency fake model, whole benchmark pipeline (scoring, results.jsonl, trajectories); {cores} cores available; sandbox scratch and run folders in {}; CPU = this process (getrusage, the fake model's thread included), machine = all processes (/proc/stat):\n",
        temp_dir_kind()
    );
    println!(
        "| workers | episodes | episodes/s | episodes/s per core available | CPU cores used | episodes per CPU-second | machine busy | peak RSS over idle | per concurrent episode |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut splits = Vec::new();
    for &workers in workers {
        let n = (workers * 4).max(128);
        let (task, rows) = synthetic_task("throughput", n);
        let dir = tempfile::tempdir()?;
        let settings = BenchSettings {
            workers,
            ..BenchSettings::new(
                LlmConfig::new(&server.url, "fake"),
                dir.path().to_path_buf(),
            )
        };
        let idle = rss_bytes();
        let peak = Arc::new(AtomicU64::new(idle));
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = {
            let (peak, stop) = (peak.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    peak.fetch_max(rss_bytes(), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        let (cpu0, threads0, machine0) = (cpu_seconds(), ThreadCpu::now(), machine_ticks());
        let started = Instant::now();
        let out = rt.block_on(runner::run(runtime.clone(), &task, rows, settings))?;
        let secs = started.elapsed().as_secs_f64();
        let (cpu, threads) = (cpu_seconds() - cpu0, ThreadCpu::now().since(threads0));
        let machine1 = machine_ticks();
        stop.store(true, Ordering::Relaxed);
        let _ = sampler.join();
        if out.summary["overall"]["errors"].as_u64() != Some(0) {
            bail!("throughput run had errors: {}", out.summary);
        }
        let grown = peak.load(Ordering::Relaxed).saturating_sub(idle);
        let busy = (machine1.0 - machine0.0) as f64 / (machine1.1 - machine0.1).max(1) as f64;
        let rate = n as f64 / secs;
        println!(
            "| {workers} | {n} | {rate:.1} | {:.1} | {:.2} | {:.1} | {:.0}% | {:.1} MiB | {:.2} MiB |",
            rate / cores as f64,
            cpu / secs,
            n as f64 / cpu.max(1e-9),
            100.0 * busy,
            grown as f64 / 1048576.0,
            grown as f64 / 1048576.0 / workers.min(n) as f64
        );
        splits.push((workers, n, cpu, threads));
    }
    println!(
        "\nCPU per episode by thread (ms): sandbox = the sandbox pool (guest code, shell, file work); runtime = the caller's async runtime (agent loop, model client, runner, scoring); model = the fake model server's thread:\n"
    );
    println!("| workers | sandbox | runtime | model | other | process total |");
    println!("|---|---|---|---|---|---|");
    for (workers, n, cpu, t) in splits {
        let ms = |s: f64| 1e3 * s / n as f64;
        println!(
            "| {workers} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            ms(t.sandbox),
            ms(t.runtime),
            ms(t.model),
            ms(t.other),
            ms(cpu)
        );
    }
    println!();
    Ok(())
}

/// `n` rows whose answer is 42, as a task scored exactly, and its parsed rows.
fn synthetic_task(
    name: &str,
    n: usize,
) -> (
    llm_in_sandbox::eval::TaskSpec,
    Vec<llm_in_sandbox::eval::Row>,
) {
    let data: String = (0..n)
        .map(|i| {
            format!(
                "{{\"id\": \"e{i}\", \"problem_statement\": \"x\", \"ground_truth\": \"42\"}}\n"
            )
        })
        .collect();
    let rows = llm_in_sandbox::eval::parse_jsonl(&data).0;
    let task = llm_in_sandbox::eval::TaskSpec::new(name, data, llm_in_sandbox::eval::Scorer::Exact);
    (task, rows)
}
