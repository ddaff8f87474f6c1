//! The shell (`execute_bash`): per-command latency against a native `bash -c`.

use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;

use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::sandbox::Sandbox;

use super::measure::{NATIVE_PYTHON, Row, first_output, repeat};

/// The shell (execute_bash): per-command latency in one long-lived shell, against spawning a
/// native `bash -c` for the same command.
pub(super) fn shell_rows(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    n: usize,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
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
            let r = rt.block_on(shell.exec(script))?;
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

    Ok(())
}
