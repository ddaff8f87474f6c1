//! The host Pythons some suites drive, made on first use in the build's own folder
//! (`target/tmp/`) and reused afterwards, so `cargo test --release` needs nothing installed by
//! hand but `python3` with pip and venv.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use sha2::{Digest, Sha256};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The Python of the clients' suite (`clients/python/tests`) and of the `view` browser test:
/// `$LLM_IN_SANDBOX_TEST_PYTHON` if set; else `target/tmp/python-client-venv`, made with
/// `python3 -m venv` and given `./clients/python[test]` and `selenium` by `python3 -m pip` the
/// first time (said on stderr), and the client again when its files change.
///
/// # Panics
/// When the venv cannot be made or pip fails, with pip's output.
pub fn client_python() -> String {
    if let Ok(p) = std::env::var("LLM_IN_SANDBOX_TEST_PYTHON") {
        return p;
    }
    static PY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let made = PY.get_or_init(|| {
        let client = format!("{ROOT}/clients/python");
        let stamp = format!(
            "client files {}\n",
            tree_hash(&[
                Path::new(&client).join("pyproject.toml"),
                Path::new(&client).join("src"),
            ])
        );
        provision(
            "python-client-venv",
            &["python3".to_string()],
            &[
                (
                    true,
                    vec!["install", "-q", &format!("{client}[test]"), "selenium"],
                ),
                // The same version with changed files: pip would keep the old copy.
                (
                    false,
                    vec!["install", "-q", "--force-reinstall", "--no-deps", &client],
                ),
            ],
            &stamp,
        )
    });
    match made {
        Ok(p) => p.display().to_string(),
        Err(e) => panic!(
            "the Python client tests need a venv with {ROOT}/clients/python[test]: {e}\n\
             (set LLM_IN_SANDBOX_TEST_PYTHON to a Python that has them, or \
             LLM_IN_SANDBOX_SKIP_PY_CLIENT=1 to skip)"
        ),
    }
}

/// The packages the Linux-programs oracle needs (the guest's versions).
pub const ORACLE_REQUIREMENTS: &str = "tests/fixtures/linux_programs/host-requirements.txt";

/// The host CPython the Linux-programs test compares the guest with:
/// `$LLM_IN_SANDBOX_TEST_HOST_PYTHON` if set; else `target/tmp/oracle-venv`, made the first time
/// from the newest Python >= 3.12 found (`python3.14` .. `python3.12`, pyenv's versions folder,
/// `python3`; the guest's numpy needs 3.12) with [`ORACLE_REQUIREMENTS`] installed. `None`
/// when there is no such Python (the reason is on stderr).
///
/// # Panics
/// When a venv could be made but pip failed, with pip's output.
pub fn oracle_python() -> Option<String> {
    if let Ok(p) = std::env::var("LLM_IN_SANDBOX_TEST_HOST_PYTHON") {
        return Some(p);
    }
    static PY: OnceLock<Option<Result<PathBuf, String>>> = OnceLock::new();
    let made = PY.get_or_init(|| {
        let bases = python_312_or_newer();
        if bases.is_empty() {
            return None;
        }
        let reqs = format!("{ROOT}/{ORACLE_REQUIREMENTS}");
        let stamp = format!("requirements {}\n", tree_hash(&[PathBuf::from(&reqs)]));
        Some(provision(
            "oracle-venv",
            &bases,
            &[(true, vec!["install", "-q", "-r", &reqs])],
            &stamp,
        ))
    });
    match made {
        None => None,
        Some(Ok(p)) => Some(p.display().to_string()),
        Some(Err(e)) => panic!("the Linux-programs oracle: {e}"),
    }
}

/// Every `python3.x` (x >= 12) on PATH or in pyenv's versions folder, newest first, then
/// `python3` if it is new enough. (pyenv's shims answer only for the selected version, so
/// each candidate is asked for its version.)
fn python_312_or_newer() -> Vec<String> {
    let mut candidates: Vec<String> = ["python3.14", "python3.13", "python3.12"]
        .map(String::from)
        .to_vec();
    let pyenv = std::env::var_os("PYENV_ROOT").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".pyenv"),
        PathBuf::from,
    );
    let mut versions: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(pyenv.join("versions"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let v: Vec<u32> = name.split('.').map_while(|p| p.parse().ok()).collect();
            let py = e.path().join("bin/python3");
            (v.len() >= 2 && v[0] == 3 && v[1] >= 12 && py.is_file()).then_some((v, py))
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    candidates.extend(versions.into_iter().map(|(_, p)| p.display().to_string()));
    candidates.push("python3".into());
    candidates
        .into_iter()
        .filter(|py| {
            Command::new(py)
                .args(["-c", "import sys; sys.exit(sys.version_info < (3, 12))"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect()
}

/// Make (or reuse) `target/tmp/NAME`: a venv from the first of `bases` that can make one, then
/// each `pip` command in it (those marked `false` only in a venv made by an earlier run). A stamp file records `stamp` once everything succeeded; a venv
/// whose stamp differs gets the pip commands again. A file lock keeps test processes from
/// making it at once.
fn provision(
    name: &str,
    bases: &[String],
    pip: &[(bool, Vec<&str>)],
    stamp: &str,
) -> Result<PathBuf, String> {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let dir = tmp.join(name);
    let python = dir.join("bin/python");
    let stamp_file = dir.join(".llm-in-sandbox-tests");
    let lock_path = tmp.join(format!("{name}.lock"));
    let lock =
        std::fs::File::create(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("lock {}: {e}", lock_path.display()))?;
    if python.is_file() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return Ok(python);
    }
    let started = Instant::now();
    let fresh = !python.is_file();
    if fresh {
        let _ = std::fs::remove_dir_all(&dir);
        let mut tried = Vec::new();
        for base in bases {
            say(&format!(
                "tests: making the venv {} with `{base} -m venv` (once; later runs reuse it)",
                dir.display()
            ));
            match Command::new(base).args(["-m", "venv"]).arg(&dir).output() {
                Ok(o) if o.status.success() && python.is_file() => break,
                Ok(o) => tried.push(format!(
                    "`{base} -m venv` failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                )),
                Err(e) => tried.push(format!("cannot run {base}: {e}")),
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        if !python.is_file() {
            return Err(format!(
                "no venv could be made in {} ({}); on Debian: apt-get install python3-venv",
                dir.display(),
                tried.join("; ")
            ));
        }
    }
    for (on_fresh, args) in pip {
        if fresh && !on_fresh {
            continue;
        }
        say(&format!(
            "tests: {} -m pip {} (once; later runs reuse it)",
            python.display(),
            args.join(" ")
        ));
        let o = Command::new(&python)
            .args(["-m", "pip"])
            .args(args)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
        if !o.status.success() {
            return Err(format!(
                "`{} -m pip {}` failed:\n{}{}",
                python.display(),
                args.join(" "),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    std::fs::write(&stamp_file, stamp).map_err(|e| format!("{}: {e}", stamp_file.display()))?;
    say(&format!(
        "tests: {} is ready ({:.0} s)",
        dir.display(),
        started.elapsed().as_secs_f64()
    ));
    Ok(python)
}

/// A line on the test process's stderr that the test harness does not capture (what a test
/// prints itself is shown only when it fails): setting up a venv takes a minute or more, and
/// the person waiting should know why.
pub fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// SHA-256 over the relative names and contents of every file under `paths` (files or
/// folders), in name order, skipping Python's caches.
fn tree_hash(paths: &[PathBuf]) -> String {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        if p.is_dir() {
            for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
                let name = e.file_name();
                if name != "__pycache__" && !name.to_string_lossy().ends_with(".egg-info") {
                    walk(&e.path(), out);
                }
            }
        } else if p.is_file() {
            out.push(p.to_path_buf());
        }
    }
    let mut files = Vec::new();
    for p in paths {
        walk(p, &mut files);
    }
    files.sort();
    let mut h = Sha256::new();
    for f in files {
        h.update(
            f.strip_prefix(ROOT)
                .unwrap_or(&f)
                .to_string_lossy()
                .as_bytes(),
        );
        h.update([0]);
        h.update(std::fs::read(&f).unwrap_or_default());
        h.update([0]);
    }
    hex::encode(h.finalize())
}
