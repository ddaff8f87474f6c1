//! `perf --shell-data`: the shell's common data pipelines at a model's data sizes, against the
//! host's `bash -c` with GNU coreutils over the same files in the same run (issue 43, item 4).
//! Each row's output must be the same on both sides; the table gives medians and ratios.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::sandbox::Sandbox;
use llm_in_sandbox::shell::{Shell, ShellSettings};

use super::measure::{median, ms};

/// The pipelines: (what the issue names, the script).
const ROWS: &[(&str, &str)] = &[
    ("sort -n, 2 million lines", "sort -n nums.txt | md5sum"),
    ("grep -c over 50 MB", "grep -c ERROR log.txt"),
    (
        "awk over 1 million lines",
        "head -n 1000000 nums.txt | awk '$1 > 500000 {c++} END {print c}'",
    ),
    ("wc -l over 50 MB", "wc -l log.txt"),
    (
        "sed -i on 25 MB",
        "cp half.txt edit.txt && sed -i 's/INFO/info/g' edit.txt && md5sum edit.txt",
    ),
    (
        "tr over 300 MB",
        "yes abcdefghij | head -c 300000000 | tr a-j A-J | md5sum",
    ),
    (
        "sort | uniq -c | sort -rn",
        "awk '{print $4}' log.txt | sort | uniq -c | sort -rn",
    ),
    (
        "for i in $(seq 1 200000)",
        "s=0; for i in $(seq 1 200000); do s=$((s+i)); done; echo $s",
    ),
];

/// Deterministic numbers (an LCG) for the data files.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

/// nums.txt (2,000,000 numbers), log.txt (about 50 MB), half.txt (its first 25 MB of lines).
fn data_files() -> Vec<(&'static str, Vec<u8>)> {
    let mut state = 7;
    let mut nums = String::new();
    for _ in 0..2_000_000 {
        nums.push_str(&format!("{}\n", lcg(&mut state) % 1_000_000));
    }
    let levels = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"];
    let parts = [
        "api", "db", "cache", "auth", "queue", "worker", "web", "cron",
    ];
    let mut log = String::new();
    let mut i = 0u64;
    while log.len() < 50_000_000 {
        let level = levels[(lcg(&mut state) % 6) as usize];
        let part = parts[(lcg(&mut state) % 8) as usize];
        log.push_str(&format!(
            "2024-05-{:02}T{:02}:{:02}:{:02} {level} {part} request id={} took {}ms\n",
            1 + i % 28,
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60,
            lcg(&mut state) % 100_000,
            lcg(&mut state) % 5_000
        ));
        i += 1;
    }
    let cut = log[..25_000_000].rfind('\n').map_or(0, |p| p + 1);
    let half = log[..cut].to_string();
    vec![
        ("nums.txt", nums.into_bytes()),
        ("log.txt", log.into_bytes()),
        ("half.txt", half.into_bytes()),
    ]
}

fn native(dir: &Path, script: &str) -> anyhow::Result<(String, Duration)> {
    let started = Instant::now();
    let out = Command::new("bash")
        .args(["-c", script])
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .context("running the host's bash")?;
    let took = started.elapsed();
    if !out.status.success() {
        bail!(
            "`{script}` failed in the host's bash: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), took))
}

/// Runs every row `runs` times on each side, alternating, and prints the table.
pub(super) fn run(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    runs: usize,
) -> anyhow::Result<ExitCode> {
    let host = tempfile::tempdir()?;
    let sandbox = Arc::new(
        Sandbox::builder(runtime.clone())
            .disk_quota(4 << 30)
            .build()?,
    );
    eprintln!("perf --shell-data: writing the data files (about 130 MB on each side)...");
    for (name, bytes) in data_files() {
        std::fs::write(host.path().join(name), &bytes)?;
        sandbox.workspace().write(name, &bytes)?;
    }
    println!("| pipeline | native bash + coreutils | in-process shell | ratio |");
    println!("|---|---|---|---|");
    let mut ratios = Vec::new();
    let mut differ = Vec::new();
    for (label, script) in ROWS {
        let (mut theirs, mut ours) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let (want, took) = native(host.path(), script)?;
            theirs.push(took);
            let mut shell = Shell::new(sandbox.clone(), ShellSettings::default())?;
            let started = Instant::now();
            let r = rt.block_on(shell.exec(script))?;
            ours.push(started.elapsed());
            if r.exit_code != 0 || r.stdout != want {
                differ.push(format!(
                    "{label}: bash printed {want:?}, ours exit {} {:?} {}",
                    r.exit_code,
                    r.stdout.chars().take(200).collect::<String>(),
                    r.stderr.trim()
                ));
                break;
            }
        }
        let (n, o) = (median(theirs), median(ours));
        let ratio = o.as_secs_f64() / n.as_secs_f64().max(1e-9);
        ratios.push(ratio);
        println!("| {label} | {} | {} | {ratio:.2}x |", ms(n), ms(o));
    }
    let mut sorted = ratios.clone();
    sorted.sort_by(f64::total_cmp);
    let worst = sorted.last().copied().unwrap_or(0.0);
    let half = sorted.len() / 2;
    let mid = if sorted.len() % 2 == 0 {
        (sorted[half - 1] + sorted[half]) / 2.0
    } else {
        sorted[half]
    };
    println!(
        "\nmedian ratio {mid:.2}x, worst {worst:.2}x over {} pipelines, {runs} runs each \
         (target: median within 2x, every row within 3x)",
        ROWS.len()
    );
    if !differ.is_empty() {
        eprintln!(
            "outputs differ from the host's bash:\n{}",
            differ.join("\n")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
