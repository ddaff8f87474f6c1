//! `perf --packages-corpus`: how many of the most used pure-Python packages install with the
//! sandbox's `pip install` and then import (issue 24, item 7). The list is
//! `tests/fixtures/package_corpus.txt` (built into the binary; `--corpus FILE` for another):
//! one `DISTRIBUTION MODULE` a line. Each package gets a fresh sandbox: pip through the host's
//! pip door, then `python3 -c 'import MODULE'`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;

use llm_in_sandbox::packages::{PackageError, Requirement};
use llm_in_sandbox::runtime::Runtime;
use llm_in_sandbox::sandbox::{Sandbox, SandboxError};

/// The corpus kept in the repository.
const CORPUS: &str = include_str!("../../../tests/fixtures/package_corpus.txt");
/// How long one package's `pip install` may take.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(300);

/// One corpus entry.
struct Entry {
    distribution: String,
    module: String,
}

fn parse(text: &str) -> anyhow::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some(distribution), Some(module), None) => entries.push(Entry {
                distribution: distribution.to_string(),
                module: module.to_string(),
            }),
            _ => anyhow::bail!(
                "corpus line {}: expected `DISTRIBUTION MODULE`, got {line:?}",
                n + 1
            ),
        }
    }
    Ok(entries)
}

/// How one package fared.
enum Fate {
    Imported,
    /// pip found no pure-Python wheel for it or a dependency: not a pure-Python package.
    NotPure(String),
    Failed(String),
}

async fn try_one(runtime: &Arc<Runtime>, entry: &Entry) -> anyhow::Result<Fate> {
    let sandbox = Sandbox::builder(runtime.clone()).build()?;
    let requirement = match Requirement::parse(&entry.distribution) {
        Ok(r) => r,
        Err(e) => return Ok(Fate::Failed(format!("not a requirement: {e}"))),
    };
    match sandbox
        .pip_install(vec![requirement], INSTALL_TIMEOUT)
        .await
    {
        Ok(_) => {}
        Err(SandboxError::Packages(PackageError::NotPure { name })) => {
            return Ok(Fate::NotPure(format!("no pure-Python wheel of {name}")));
        }
        Err(e) => return Ok(Fate::Failed(format!("pip install: {e}"))),
    }
    // Importing may start commands (e.g. a `subprocess` probe): give it the shell.
    let sandbox = Arc::new(sandbox);
    let commands = llm_in_sandbox::shell::guest_commands(&sandbox);
    let code = format!("import {}", entry.module);
    let r = sandbox
        .python_with_processes(&["-c".into(), code], b"", Some(commands))
        .await?;
    if r.exit_code == 0 {
        return Ok(Fate::Imported);
    }
    let stderr = r.stderr_text();
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    Ok(Fate::Failed(format!(
        "import {}: {}",
        entry.module,
        last.unwrap_or("exit code without a message").trim()
    )))
}

/// Install and import each package (every `len / sample`-th one with `sample`), print one line
/// each and the figure.
pub fn run(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    corpus: Option<&std::path::Path>,
    sample: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let text = match corpus {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the corpus {}", path.display()))?,
        None => CORPUS.to_string(),
    };
    let mut entries = parse(&text)?;
    if let Some(k) = sample.filter(|k| *k > 0 && *k < entries.len()) {
        let step = entries.len() as f64 / k as f64;
        entries = (0..k)
            .filter_map(|i| entries.get((i as f64 * step) as usize))
            .map(|e| Entry {
                distribution: e.distribution.clone(),
                module: e.module.clone(),
            })
            .collect();
    }
    eprintln!(
        "installing and importing {} packages, each in a fresh sandbox...",
        entries.len()
    );
    let started = Instant::now();
    let (mut imported, mut failed, mut not_pure) = (0usize, Vec::new(), Vec::new());
    for entry in &entries {
        let fate = rt.block_on(try_one(runtime, entry))?;
        match fate {
            Fate::Imported => {
                imported += 1;
                println!("ok      {}", entry.distribution);
            }
            Fate::NotPure(why) => {
                println!("native  {}: {why}", entry.distribution);
                not_pure.push(entry.distribution.clone());
            }
            Fate::Failed(why) => {
                println!("FAILED  {}: {why}", entry.distribution);
                failed.push(entry.distribution.clone());
            }
        }
    }
    let counted = imported + failed.len();
    let share = if counted == 0 {
        0.0
    } else {
        imported as f64 * 100.0 / counted as f64
    };
    println!(
        "packages corpus: {imported} of {counted} import ({share:.1}%) in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
    }
    if !not_pure.is_empty() {
        println!(
            "not counted (no pure-Python wheel for it or a dependency, so not in the corpus's \
             scope): {}",
            not_pure.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_parses_and_names_each_package_once() {
        let entries = parse(CORPUS).expect("the built-in corpus parses");
        assert!(entries.len() >= 200, "{}", entries.len());
        let mut names: Vec<_> = entries.iter().map(|e| e.distribution.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), entries.len());
        assert!(parse("a b c").is_err());
        assert_eq!(
            parse("# only a comment\n\nx y  # note\n")
                .map(|e| e.len())
                .ok(),
            Some(1)
        );
    }
}
