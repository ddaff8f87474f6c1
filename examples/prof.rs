//! A loop of fresh sandboxes, each made, given one `python3 -c CODE` call and dropped, one at
//! a time: the time of each step and the process's CPU per call. For profiling the path a
//! fresh sandbox takes (`LLM_IN_SANDBOX_PERFMAP=1 perf record -g` names the guest's functions).
//! `SHOW=1` prints the last call's output.
//!
//! ```sh
//! cargo build --release --example prof && ./target/release/examples/prof 3000 'print(1)'
//! ```
use llm_in_sandbox::artifacts::{self, SetupOptions};
use llm_in_sandbox::runtime::RuntimeConfig;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let code = std::env::args().nth(2).unwrap_or("print(1)".into());
    let setup = SetupOptions {
        cache_root: artifacts::cache_root(None),
        source: None,
    };
    let config = RuntimeConfig::new(setup.cache_root.clone());
    let runtime =
        Arc::new(llm_in_sandbox::load_runtime(&setup, &config, &|m| eprintln!("{m}")).unwrap());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let settings = llm_in_sandbox::agent::SandboxSettings::default();
    // `--version` is answered without the guest: the loop then times the path around it.
    let args = if code == "--version" {
        vec![code]
    } else {
        vec!["-c".to_string(), code]
    };
    let (mut a, mut b, mut c) = (0f64, 0f64, 0f64);
    let mut last = String::new();
    let mut last_err = String::new();
    let ru0 = cpu();
    let flt0 = faults();
    let phases0 = runtime.phase_times();
    let t = Instant::now();
    for _ in 0..n {
        let t0 = Instant::now();
        let sb = settings.sandbox(&runtime, None).unwrap();
        let t1 = Instant::now();
        let r = rt.block_on(sb.python(&args, b"")).unwrap();
        let t2 = Instant::now();
        drop(sb);
        let t3 = Instant::now();
        assert_eq!(r.exit_code, 0, "{}", r.stderr_text());
        last = r.stdout_text();
        last_err = r.stderr_text();
        a += (t1 - t0).as_secs_f64();
        b += (t2 - t1).as_secs_f64();
        c += (t3 - t2).as_secs_f64();
    }
    let wall = t.elapsed().as_secs_f64();
    let cpu_ms = (cpu() - ru0) * 1e3 / n as f64;
    let faults_per = (faults() - flt0) as f64 / n as f64;
    let p = runtime.phase_times().since(&phases0);
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e3 / n as f64;
    println!(
        "phases per call: store {:.3} ms instantiate {:.3} ms guest {:.3} ms reset {:.3} ms",
        per(p.store),
        per(p.instantiate),
        per(p.guest),
        per(p.reset)
    );
    if std::env::var_os("SHOW").is_some() {
        print!("last call's output: {last}");
        print!("last call's stderr: {last_err}");
    }
    println!(
        "per call: make {:.3} ms run {:.3} ms drop {:.3} ms; wall {:.3} ms; cpu {:.3} ms; {:.0} page faults",
        a * 1e3 / n as f64,
        b * 1e3 / n as f64,
        c * 1e3 / n as f64,
        wall * 1e3 / n as f64,
        cpu_ms,
        faults_per
    );
}
fn cpu() -> f64 {
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut r) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(r.ru_utime) + tv(r.ru_stime)
}

/// Minor and major page faults of the whole process so far.
fn faults() -> i64 {
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut r) };
    r.ru_minflt + r.ru_majflt
}
