//! `llm-in-sandbox perf --serve`: our `serve` against a process-per-call baseline, both started
//! in this process and measured in the same run. `/run_code` throughput and latency (p50, p99)
//! for `print(1)` and a numpy snippet at several client counts, and the memory of live idle
//! sessions (`POST /v1/sandboxes`).
//!
//! Two baselines, both SandboxFusion's cost model (each request writes the code to a file in a
//! fresh temp dir and runs the host's Python on it as a subprocess, answering the same JSON):
//! one served from this process (axum), and one served by aiohttp in a Python process of its
//! own (`aiohttp_baseline.py`), as SandboxFusion itself is, when a Python with aiohttp is
//! found.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use axum::Json;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};

use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::serve::{ServeConfig, Server};

use super::Memory;

/// The numpy snippet: an import and a small solve (no preloaded answer to print).
const NUMPY: &str = "import numpy as np; print(np.linalg.solve([[2,1],[1,3]],[3,5]))";
/// Live idle sessions created for the memory figure.
const SESSIONS: usize = 500;
/// Time not counted at the start of each measurement.
const WARM_UP: Duration = Duration::from_secs(1);

/// One server under load at one client count.
struct Load {
    /// Completed requests per second in the measured window.
    rate: f64,
    p50: Duration,
    p99: Duration,
    /// Requests measured.
    count: usize,
    /// Non-200 answers, transport errors, or a status other than `Success`.
    errors: usize,
    /// Minor page faults of this process in the measured window (the baseline's child
    /// processes are not counted: only meaningful for our server).
    faults: u64,
}

/// Serve `router` on a free loopback port until `stop` fires; its base URL.
async fn spawn(
    router: axum::Router,
    stop: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let mut stop = stop;
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stop.wait_for(|v| *v).await;
            })
            .await;
    });
    Ok(format!("http://{addr}"))
}

/// The baseline's state: the Python to run and the calls allowed at once (as ours).
struct Baseline {
    python: String,
    slots: tokio::sync::Semaphore,
}

/// `POST /run_code` the process-per-call way: a fresh temp dir, the code in a file, the host
/// Python as a subprocess under the run timeout; the same answer shape as ours.
async fn baseline_run_code(State(b): State<Arc<Baseline>>, Json(req): Json<Value>) -> Json<Value> {
    let Ok(_slot) = b.slots.acquire().await else {
        return Json(json!({"status": "SandboxError", "message": "closed"}));
    };
    let code = req["code"].as_str().unwrap_or_default().to_string();
    let timeout = req["run_timeout"]
        .as_f64()
        .filter(|t| t.is_finite() && *t > 0.0)
        .unwrap_or(10.0);
    let started = Instant::now();
    let run = async {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("main.py");
        tokio::fs::write(&file, code.as_bytes()).await?;
        let child = tokio::process::Command::new(&b.python)
            .arg(&file)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        match tokio::time::timeout(Duration::from_secs_f64(timeout.min(1e6)), child).await {
            Ok(out) => out.map(Some),
            Err(_) => Ok(None),
        }
    };
    let out: std::io::Result<Option<std::process::Output>> = run.await;
    let secs = started.elapsed().as_secs_f64();
    Json(match out {
        Ok(Some(o)) => {
            let ok = o.status.success();
            json!({
                "status": if ok { "Success" } else { "Failed" },
                "message": "",
                "compile_result": null,
                "run_result": {
                    "status": "Finished",
                    "execution_time": secs,
                    "return_code": o.status.code(),
                    "stdout": String::from_utf8_lossy(&o.stdout),
                    "stderr": String::from_utf8_lossy(&o.stderr),
                },
                "executor_pod_name": null,
                "files": {},
            })
        }
        Ok(None) => json!({
            "status": "Failed",
            "message": "",
            "compile_result": null,
            "run_result": {"status": "TimeLimitExceeded", "execution_time": secs,
                           "return_code": null, "stdout": "", "stderr": ""},
            "executor_pod_name": null,
            "files": {},
        }),
        Err(e) => json!({"status": "SandboxError", "message": e.to_string()}),
    })
}

/// The aiohttp baseline's server script.
const AIOHTTP_BASELINE: &str = include_str!("aiohttp_baseline.py");

/// The aiohttp baseline running in its own process (killed when dropped), and its base URL.
struct AiohttpBaseline {
    _child: tokio::process::Child,
    _script: tempfile::TempDir,
    base: String,
}

/// Start `aiohttp_baseline.py` with `server_python` (which must import aiohttp), running code
/// with `runner`; `Ok(None)` with the reason on stderr when that Python has no aiohttp.
async fn start_aiohttp(
    server_python: &str,
    runner: &str,
) -> anyhow::Result<Option<AiohttpBaseline>> {
    let has_aiohttp = tokio::process::Command::new(server_python)
        .args(["-c", "import aiohttp"])
        .output()
        .await
        .is_ok_and(|o| o.status.success());
    if !has_aiohttp {
        eprintln!(
            "aiohttp baseline skipped: {server_python} cannot import aiohttp (install it there, \
             e.g. `{server_python} -m pip install aiohttp`, or pass --aiohttp-python)"
        );
        return Ok(None);
    }
    // A folder of its own: Python puts the script's folder first on its path, and a stray
    // `attr.py` in the shared temporary folder would shadow aiohttp's own dependency.
    let script = tempfile::tempdir()?;
    let path = script.path().join("aiohttp_baseline.py");
    std::fs::write(&path, AIOHTTP_BASELINE)?;
    let mut child = tokio::process::Command::new(server_python)
        .arg(&path)
        .arg(runner)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start the aiohttp baseline with {server_python}"))?;
    let stdout = child
        .stdout
        .take()
        .context("the aiohttp baseline has no stdout")?;
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let port = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .context("the aiohttp baseline did not say its port within 30 s")??
        .context("the aiohttp baseline exited before saying its port")?;
    let port: u16 = port
        .trim()
        .parse()
        .with_context(|| format!("the aiohttp baseline printed {port:?}, not a port"))?;
    Ok(Some(AiohttpBaseline {
        _child: child,
        _script: script,
        base: format!("http://127.0.0.1:{port}"),
    }))
}

/// One request: its latency, and whether it succeeded with the expected output.
async fn one(http: &reqwest::Client, url: &str, body: &Value) -> (Duration, bool) {
    let started = Instant::now();
    let ok = match http.post(url).json(body).send().await {
        Ok(r) if r.status().is_success() => match r.json::<Value>().await {
            Ok(v) => v["status"] == "Success",
            Err(_) => false,
        },
        _ => false,
    };
    (started.elapsed(), ok)
}

/// `clients` tasks posting `code` to `base/run_code` back to back for `WARM_UP + seconds`;
/// what completed after the warm-up and before the end is counted.
async fn load(
    http: &reqwest::Client,
    base: &str,
    code: &str,
    clients: usize,
    seconds: f64,
) -> Load {
    let url = format!("{base}/run_code");
    let body = json!({"code": code, "language": "python", "run_timeout": 30});
    let begin = Instant::now() + WARM_UP;
    let end = begin + Duration::from_secs_f64(seconds);
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (http, url, body) = (http.clone(), url.clone(), body.clone());
            tokio::spawn(async move {
                let mut seen = Vec::new();
                while Instant::now() < end {
                    let (latency, ok) = one(&http, &url, &body).await;
                    let done = Instant::now();
                    if done >= begin && done <= end {
                        seen.push((latency, ok));
                    }
                }
                seen
            })
        })
        .collect();
    let window = tokio::spawn(async move {
        tokio::time::sleep_until(begin.into()).await;
        let first = minor_faults();
        tokio::time::sleep_until(end.into()).await;
        minor_faults().saturating_sub(first)
    });
    let mut latencies = Vec::new();
    let mut errors = 0;
    for t in tasks {
        for (latency, ok) in t.await.unwrap_or_default() {
            latencies.push(latency);
            errors += usize::from(!ok);
        }
    }
    latencies.sort();
    let at = |q: f64| {
        let i = ((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1);
        latencies.get(i).copied().unwrap_or_default()
    };
    Load {
        rate: latencies.len() as f64 / seconds,
        p50: at(0.50),
        p99: at(0.99),
        count: latencies.len(),
        errors,
        faults: window.await.unwrap_or(0),
    }
}

/// Minor page faults of this process so far, all threads (children not included).
fn minor_faults() -> u64 {
    procfs::process::Process::myself()
        .and_then(|p| p.stat())
        .map_or(0, |s| s.minflt)
}

fn ms(d: Duration) -> String {
    let m = d.as_secs_f64() * 1e3;
    if m < 10.0 {
        format!("{m:.2} ms")
    } else {
        format!("{m:.0} ms")
    }
}

/// Memory of `count` live idle sessions made through `POST /v1/sandboxes` (16 at a time), then
/// deleted.
async fn session_memory(
    http: &reqwest::Client,
    base: &str,
    count: usize,
) -> anyhow::Result<(Memory, usize)> {
    let before = Memory::now();
    let url = format!("{base}/v1/sandboxes");
    let mut ids = Vec::with_capacity(count);
    let mut made = 0;
    while made < count {
        let batch: Vec<_> = (made..count.min(made + 16))
            .map(|_| {
                let (http, url) = (http.clone(), url.clone());
                tokio::spawn(async move {
                    let r = http.post(&url).json(&json!({})).send().await.ok()?;
                    let v: Value = r.json().await.ok()?;
                    v["id"].as_str().map(str::to_string)
                })
            })
            .collect();
        made += batch.len();
        for t in batch {
            if let Ok(Some(id)) = t.await {
                ids.push(id);
            }
        }
    }
    let delta = Memory::now().minus(before);
    let live = ids.len();
    for chunk in ids.chunks(64) {
        let _ = http
            .post(format!("{base}/v1/sandboxes/delete"))
            .json(&json!({ "ids": chunk }))
            .send()
            .await;
    }
    Ok((delta, live))
}

/// Where one `/run_code` `print(1)` goes without HTTP: medians over `n` calls of making the
/// fresh sandbox (two temp dirs, quota), running `python3 -c 'print(1)'` in it (an instance
/// from the pool, reset when it is returned) and dropping it (removing both dirs).
fn breakdown(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    n: usize,
) -> anyhow::Result<[Duration; 3]> {
    let settings = llm_in_sandbox::agent::SandboxSettings::default();
    let args = ["-c".to_string(), "print(1)".to_string()];
    let (mut make, mut run, mut drop_) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..=n {
        let t0 = Instant::now();
        let sb = settings.sandbox(runtime, None)?;
        let t1 = Instant::now();
        let r = rt.block_on(sb.python(&args, b""))?;
        let t2 = Instant::now();
        drop(sb);
        let t3 = Instant::now();
        if r.exit_code != 0 {
            bail!("print(1) failed: {}", r.stderr_text());
        }
        if i > 0 {
            make.push(t1 - t0);
            run.push(t2 - t1);
            drop_.push(t3 - t2);
        }
    }
    Ok([
        super::median(make),
        super::median(run),
        super::median(drop_),
    ])
}

/// Run the serving benchmark and print its tables.
pub fn serve(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    seconds: f64,
    clients: &[usize],
    inflight: Option<usize>,
    python: &str,
    aiohttp_python: Option<&str>,
) -> anyhow::Result<()> {
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("--serve-seconds must be a positive number");
    }
    let most = clients.iter().copied().max().unwrap_or(1).max(1);
    check_baseline_python(python)?;
    let parts = breakdown(runtime, rt, 200)?;
    rt.block_on(async {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        // Our server stays alive (its sessions too) until this block ends, as the figures expect.
        let inflight = inflight.unwrap_or_else(|| {
            crate::cli::serve::default_inflight(llm_in_sandbox::runtime::Limits::default().memory_bytes)
        });
        eprintln!("our server runs {inflight} calls at once (--serve-inflight); the rest queue");
        let (_server, ours, base) =
            start_servers(runtime, python, [most, inflight.max(1)], stop_rx).await?;
        let aiohttp = start_aiohttp(aiohttp_python.unwrap_or(python), python).await?;
        let aiohttp_base = aiohttp.as_ref().map(|a| a.base.as_str());
        // reqwest is built without a default TLS provider; plain HTTP still needs one set.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .pool_max_idle_per_host(most.saturating_mul(2))
            .build()?;

        eprintln!(
            "serving benchmark: {seconds} s per row after a {} s warm-up; clients {clients:?}",
            WARM_UP.as_secs()
        );
        let rows = load_rows(&http, [&ours, &base], aiohttp_base, clients, seconds).await;
        drop(aiohttp);
        let (memory, live) = session_memory(&http, &ours, SESSIONS).await?;
        let _ = stop_tx.send(true);

        print_load_table(&rows, python, seconds);
        print_faults_and_breakdown(&rows, parts);
        let per = |bytes: u64| bytes as f64 / live.max(1) as f64 / 1024.0;
        println!(
            "\nMemory per live idle session ({live} of {SESSIONS} made through POST /v1/sandboxes): \
             {:.0} KiB physical (PSS + page tables), {:.0} KiB RSS.\n",
            per(memory.physical),
            per(memory.rss)
        );
        if live < SESSIONS {
            bail!("only {live} of {SESSIONS} sessions were made");
        }
        Ok(())
    })
}

/// The baseline's Python must import numpy, or its numpy rows would measure failures.
fn check_baseline_python(python: &str) -> anyhow::Result<()> {
    let check = std::process::Command::new(python)
        .args(["-c", "import numpy"])
        .output()
        .with_context(|| format!("cannot run the baseline's Python {python}"))?;
    if !check.status.success() {
        bail!(
            "the baseline's Python ({python}) cannot import numpy: install it (e.g. \
             `apt-get install python3-numpy`) or pass --native-python"
        );
    }
    Ok(())
}

/// Our server and the baseline, each on a loopback port of its own, until `stop` turns true;
/// our server and both base URLs.
async fn start_servers(
    runtime: &Arc<Runtime>,
    python: &str,
    [most, inflight]: [usize; 2],
    stop_rx: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<(Arc<Server>, String, String)> {
    let config = ServeConfig {
        access_log: false,
        max_inflight: inflight,
        max_queued: most.saturating_mul(4).max(4096),
        max_sandboxes: SESSIONS + 16,
        ..ServeConfig::default()
    };
    let server = Server::new(runtime.clone(), config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let ours = format!("http://{}", listener.local_addr()?);
    let s = server.clone();
    let mut stop = stop_rx.clone();
    tokio::spawn(async move {
        let _ = s
            .serve(listener, async move {
                let _ = stop.wait_for(|v| *v).await;
            })
            .await;
    });
    let baseline = Arc::new(Baseline {
        python: python.to_string(),
        slots: tokio::sync::Semaphore::new(most),
    });
    let base = spawn(
        axum::Router::new()
            .route("/run_code", post(baseline_run_code))
            .with_state(baseline),
        stop_rx,
    )
    .await?;
    Ok((server, ours, base))
}

/// One measured row: client count, what ran, our load, the in-process baseline's load, and
/// the aiohttp baseline's when it ran.
type LoadRow = (usize, &'static str, Load, Load, Option<Load>);

/// Every server under load at each client count, for `print(1)` and the numpy snippet.
async fn load_rows(
    http: &reqwest::Client,
    [ours, base]: [&str; 2],
    aiohttp: Option<&str>,
    clients: &[usize],
    seconds: f64,
) -> Vec<LoadRow> {
    let cases = [("`print(1)`", "print(1)"), ("numpy snippet", NUMPY)];
    let mut rows = Vec::new();
    for &n in clients {
        for (label, code) in cases {
            let o = load(http, ours, code, n.max(1), seconds).await;
            eprintln!("  ours {label} x{n}: {:.1}/s", o.rate);
            let b = load(http, base, code, n.max(1), seconds).await;
            eprintln!("  baseline {label} x{n}: {:.1}/s", b.rate);
            let a = match aiohttp {
                Some(url) => {
                    let a = load(http, url, code, n.max(1), seconds).await;
                    eprintln!("  aiohttp baseline {label} x{n}: {:.1}/s", a.rate);
                    Some(a)
                }
                None => None,
            };
            rows.push((n, label, o, b, a));
        }
    }
    rows
}

/// The throughput and latency table: one line per server, each baseline with ours divided by
/// it.
fn print_load_table(rows: &[LoadRow], python: &str, seconds: f64) {
    println!(
        "\nServing `/run_code`: our server against two process-per-call baselines (temp dir + \
         `{python}` subprocess per request): one served from this process (axum), one by \
         aiohttp in a Python process of its own, as SandboxFusion is. {seconds} s per line; \
         the clients run in this process:\n"
    );
    println!(
        "| clients | code | server | req/s | p50 | p99 | errors | throughput ours/this | \
         p50 ours/this |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (n, label, o, b, a) in rows {
        let line = |server: &str, l: &Load| {
            let (rate_ratio, p50_ratio) = if std::ptr::eq(l, o) {
                ("1x".to_string(), "1x".to_string())
            } else if l.count == 0 || o.count == 0 {
                ("n/a (none finished)".to_string(), "n/a".to_string())
            } else {
                (
                    format!("{:.1}x", o.rate / l.rate),
                    format!("{:.3}x", o.p50.as_secs_f64() / l.p50.as_secs_f64()),
                )
            };
            println!(
                "| {n} | {label} | {server} | {:.1} | {} | {} | {}/{} | {rate_ratio} | {p50_ratio} |",
                l.rate,
                ms(l.p50),
                ms(l.p99),
                l.errors,
                l.count,
            );
        };
        line("ours", o);
        line("baseline (axum, in process)", b);
        if let Some(a) = a {
            line("baseline (aiohttp process)", a);
        }
    }
}

/// Page faults per request, and where one `print(1)` request's time goes (`parts`: making,
/// running in and dropping a sandbox).
fn print_faults_and_breakdown(rows: &[LoadRow], parts: [Duration; 3]) {
    println!(
        "\nMinor page faults per request in our server (all of this process's threads over \
         each measured window; slots that keep their pages fault little):"
    );
    for (n, label, o, ..) in rows {
        println!(
            "- {n} client(s), {label}: {:.1}",
            o.faults as f64 / o.count.max(1) as f64
        );
    }
    let first = rows
        .iter()
        .find(|(n, label, ..)| *n == 1 && label.contains("print"));
    if let Some((_, _, o, ..)) = first {
        let [make, run, gone] = parts;
        println!(
            "\nWhere one `/run_code` `print(1)` goes (medians, 1 client): fresh sandbox (three temp \
             dirs + quota) {}, `python3 -c 'print(1)'` in it (pooled instance, reset on \
             return) {}, dropping it (removing the dirs) {}; the rest of the {} p50 is HTTP, \
             JSON and the hops between threads ({}; dropping overlaps the next call in the server).",
            ms(make),
            ms(run),
            ms(gone),
            ms(o.p50),
            ms(o.p50.saturating_sub(make + run + gone)),
        );
    }
}
