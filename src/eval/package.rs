//! The reference package's own task rewards, for a reward that imports them: the reference's
//! `instruct_pretrain/reward.py` (the reward of its RL training) imports
//! `llm_in_sandbox.benchmark.{math,biomed,chem,instruct_follow}.reward` and routes each row to
//! one of them by its `domain` and `qa_type`.

use std::path::{Path, PathBuf};

use super::task_error::{TaskError, read};

/// The reference package's import name.
pub(super) const PACKAGE: &str = "llm_in_sandbox";

/// Whether task code imports the reference package (`import llm_in_sandbox...` or `from
/// llm_in_sandbox... import`).
pub fn imports_package(source: &str) -> bool {
    source.lines().any(|l| {
        let l = l.trim_start();
        [format!("from {PACKAGE}"), format!("import {PACKAGE}")]
            .iter()
            .any(|p| {
                l.strip_prefix(p.as_str())
                    .is_some_and(|rest| rest.starts_with(['.', ' ']) || rest.is_empty())
            })
    })
}

/// What a reward that imports its sibling tasks' rewards needs, from the reference package's
/// folder `package` (the one named `llm_in_sandbox`): every `benchmark/<task>/reward.py` as
/// `llm_in_sandbox/benchmark/<task>/reward.py`, unchanged, under two stand-in `__init__.py`
/// (the package's own imports its agent, Docker runtime and benchmark runner, and through
/// them litellm, docker and PyYAML, which a reward does not use).
///
/// # Errors
/// [`TaskError::Read`] when a file cannot be read.
pub fn reference_modules(package: &Path) -> Result<Vec<(String, String)>, TaskError> {
    let stub = "# Stand-in for the package's __init__.py: only its task rewards are imported.\n";
    let mut modules = vec![
        (format!("{PACKAGE}/__init__.py"), stub.to_string()),
        (format!("{PACKAGE}/benchmark/__init__.py"), stub.to_string()),
    ];
    let benchmark = package.join("benchmark");
    let entries = std::fs::read_dir(&benchmark).map_err(|source| TaskError::Read {
        path: benchmark.clone(),
        source,
    })?;
    let mut tasks: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("reward.py").is_file())
        .collect();
    tasks.sort();
    for task in tasks {
        if let Some(name) = task.file_name().and_then(|n| n.to_str()) {
            modules.push((
                format!("{PACKAGE}/benchmark/{name}/reward.py"),
                read(&task.join("reward.py"))?,
            ));
        }
    }
    Ok(modules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_of_the_package_are_recognised() {
        assert!(imports_package(
            "import os\nfrom llm_in_sandbox.benchmark.math.reward import compute_score\n"
        ));
        assert!(imports_package("  import llm_in_sandbox\n"));
        assert!(!imports_package(
            "import llm_in_sandbox_extra\nx = 'llm_in_sandbox'\n"
        ));
        assert!(!imports_package("from math_verify import parse\n"));
    }

    #[test]
    fn the_sibling_rewards_are_gathered_under_stub_packages() {
        let root = tempfile::tempdir().unwrap();
        let package = root.path().join(PACKAGE);
        for (task, reward) in [
            ("math", Some("M = 1\n")),
            ("demo", None),
            ("biomed", Some("B\n")),
        ] {
            let dir = package.join("benchmark").join(task);
            std::fs::create_dir_all(&dir).unwrap();
            if let Some(text) = reward {
                std::fs::write(dir.join("reward.py"), text).unwrap();
            }
        }
        let modules = reference_modules(&package).unwrap();
        let names: Vec<&str> = modules.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "llm_in_sandbox/__init__.py",
                "llm_in_sandbox/benchmark/__init__.py",
                "llm_in_sandbox/benchmark/biomed/reward.py",
                "llm_in_sandbox/benchmark/math/reward.py",
            ]
        );
        assert_eq!(modules[3].1, "M = 1\n");
        let e = reference_modules(&root.path().join("missing")).unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
    }
}
