//! Running the host's pip: `pip download` for the pure-Python target, with a deadline and
//! only the environment pip needs.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{PackageError, Requirement, io_err};

/// How the host's pip is run.
#[derive(Debug, Clone)]
pub struct PipSettings {
    /// The host Python that runs pip (`$LLM_IN_SANDBOX_PYTHON`, default `python3`).
    pub python: String,
    /// An index URL passed as `--index-url` (`$LLM_IN_SANDBOX_PIP_INDEX_URL`); `None`: pip's
    /// own configuration applies. Set by the user, never by the guest.
    pub index_url: Option<String>,
    /// How long one resolution may take.
    pub timeout: Duration,
    /// The most bytes of wheels one resolution may fetch; checked while pip downloads (its
    /// partial files included), not after.
    pub max_bytes: u64,
    /// The most bytes the wheel cache (`<cache>/packages/wheels`) keeps; past it, the wheels
    /// used longest ago are removed after a resolution (`$LLM_IN_SANDBOX_WHEEL_CACHE_MB`,
    /// default 4 GiB).
    pub max_cache_bytes: u64,
    /// Set by whoever asked for the packages when it no longer wants them (its call ended):
    /// a running pip is killed within 20 ms, a wait for the cache's lock ends, and the
    /// resolution fails with [`PackageError::Stopped`]. `None` (the default): never.
    pub stop: Option<Arc<AtomicBool>>,
}

impl PipSettings {
    /// Whether [`PipSettings::stop`] was set.
    pub(super) fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst))
    }
}

impl Default for PipSettings {
    fn default() -> Self {
        PipSettings {
            python: "python3".into(),
            index_url: None,
            timeout: Duration::from_secs(300),
            max_bytes: 512 << 20,
            max_cache_bytes: 4 << 30,
            stop: None,
        }
    }
}

impl PipSettings {
    /// The defaults, with `$LLM_IN_SANDBOX_PYTHON` and `$LLM_IN_SANDBOX_PIP_INDEX_URL`.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        PipSettings {
            python: var("LLM_IN_SANDBOX_PYTHON").unwrap_or_else(|| "python3".into()),
            index_url: var("LLM_IN_SANDBOX_PIP_INDEX_URL"),
            max_cache_bytes: var("LLM_IN_SANDBOX_WHEEL_CACHE_MB")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map_or(4 << 30, |mb| mb.saturating_mul(1 << 20)),
            ..PipSettings::default()
        }
    }
}

/// The flags that make pip pick only wheels that run in our WASM CPython 3.15.
pub(super) const PURE_TARGET: [&str; 9] = [
    "--only-binary=:all:",
    "--platform",
    "any",
    "--python-version",
    "3.15",
    "--implementation",
    "py",
    "--abi",
    "none",
];

/// Whether the host's pip child sees this environment variable: pip's own settings, proxies,
/// certificate bundles, locale and the few paths a Python needs; nothing else.
fn pip_may_see(name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    const EXACT: &[&str] = &[
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TMPDIR",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_DIRS",
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NETRC",
    ];
    let upper = name.to_ascii_uppercase();
    EXACT.contains(&name)
        || name.starts_with("PIP_")
        || upper == "HTTP_PROXY"
        || upper == "HTTPS_PROXY"
        || upper == "ALL_PROXY"
        || upper == "NO_PROXY"
}

/// `python3 -m pip download` for the pure-Python target into `dest`, with a deadline.
pub(super) fn run_pip(
    reqs: &[Requirement],
    settings: &PipSettings,
    stubs: Option<&Path>,
    dest: &Path,
) -> Result<(), PackageError> {
    let out_path = dest.join(".pip-output");
    // pip's partial downloads land in `dest` too, so the size cap sees them as they grow.
    let tmp = dest.join(".tmp");
    let mut cmd = pip_command(reqs, settings, stubs, dest, &out_path, &tmp)?;
    let all: Vec<String> = reqs.iter().map(ToString::to_string).collect();
    let mut child = cmd.spawn().map_err(|e| PackageError::Resolve {
        requirements: all.join(" "),
        detail: format!("cannot start `{} -m pip`: {e}", settings.python),
    })?;
    let status = wait_for_pip(&mut child, settings, dest)?;
    let mut text = String::new();
    let _ = File::open(&out_path).and_then(|mut f| f.read_to_string(&mut text));
    let _ = fs::remove_file(&out_path);
    let _ = fs::remove_dir_all(&tmp);
    if status.success() {
        return Ok(());
    }
    Err(pip_failure(&text, &all))
}

/// Linux: the child gets SIGKILL if the thread that starts it ends first, e.g. when the
/// process exits (Ctrl-C) while pip runs; that thread waits for pip, so it cannot end before
/// pip otherwise. Elsewhere nothing.
fn die_with_this_thread(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt as _;
        // SAFETY: between fork and exec only async-signal-safe calls: prctl and getppid.
        unsafe {
            let parent = libc::getpid();
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent ended before the request took effect.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// The `pip download` command: its output (both streams) into `out_path`, its temporary files
/// into `tmp` (made here), and only the environment pip needs.
fn pip_command(
    reqs: &[Requirement],
    settings: &PipSettings,
    stubs: Option<&Path>,
    dest: &Path,
    out_path: &Path,
    tmp: &Path,
) -> Result<Command, PackageError> {
    let mut cmd = Command::new(&settings.python);
    cmd.args([
        "-m",
        "pip",
        "download",
        "--disable-pip-version-check",
        "--no-input",
    ])
    .args(PURE_TARGET)
    .arg("--dest")
    .arg(dest);
    if let Some(url) = &settings.index_url {
        cmd.arg("--index-url").arg(url);
    }
    if let Some(stubs) = stubs {
        cmd.arg("--find-links").arg(stubs);
    }
    // Every requirement was validated and rebuilt from its parts: none starts with `-`.
    cmd.args(reqs.iter().map(ToString::to_string));
    let out = File::create(out_path).map_err(io_err("create", out_path))?;
    let err = out.try_clone().map_err(io_err("create", out_path))?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err));
    // pip gets only what it needs to reach the index (its own settings, proxies,
    // certificates, where its config and cache live), never the rest of the host's
    // environment: API keys, the server's token.
    cmd.env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| pip_may_see(k)));
    fs::create_dir_all(tmp).map_err(io_err("create directory", tmp))?;
    cmd.env("TMPDIR", tmp);
    die_with_this_thread(&mut cmd);
    Ok(cmd)
}

/// Wait for pip to exit. Past the deadline, or once `dest` holds more than the size cap
/// (checked every 100 ms), pip is killed and that is the error.
fn wait_for_pip(
    child: &mut Child,
    settings: &PipSettings,
    dest: &Path,
) -> Result<ExitStatus, PackageError> {
    let started = Instant::now();
    let mut polls = 0u32;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if started.elapsed() > settings.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(PackageError::Timeout(settings.timeout));
            }
            Ok(None) if settings.stopped() => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(PackageError::Stopped);
            }
            Ok(None) => {
                std::thread::sleep(Duration::from_millis(20));
                polls += 1;
                // Every 100 ms: what pip has written so far, partial files included.
                if polls.is_multiple_of(5) {
                    let size = tree_size(dest);
                    if size > settings.max_bytes {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(PackageError::TooLarge {
                            size,
                            limit: settings.max_bytes,
                        });
                    }
                }
            }
            Err(e) => return Err(io_err("wait for pip", Path::new(&settings.python))(e)),
        }
    }
}

/// Why pip failed, read from its output `text`: a package with no pure-Python wheel, by name;
/// else pip's error lines (or its last line).
fn pip_failure(text: &str, all: &[String]) -> PackageError {
    if let Some(name) = text
        .lines()
        .find_map(|l| l.split("No matching distribution found for ").nth(1))
    {
        let name = name
            .split([' ', '<', '>', '=', '!', '~', '['])
            .next()
            .unwrap_or(name);
        return PackageError::NotPure {
            name: name.trim().to_string(),
        };
    }
    let detail: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("ERROR") || l.contains("Error"))
        .collect();
    PackageError::Resolve {
        requirements: all.join(" "),
        detail: if detail.is_empty() {
            text.lines().last().unwrap_or("pip failed").to_string()
        } else {
            detail.join("\n")
        },
    }
}

/// The bytes of the files under `dir` (links not followed).
fn tree_size(dir: &Path) -> u64 {
    let mut total = 0;
    crate::fsutil::walk(dir, &mut |p, is_dir| {
        if !is_dir {
            total += fs::symlink_metadata(p).map_or(0, |m| m.len());
        }
    });
    total
}

#[cfg(test)]
mod env_tests {
    #[test]
    fn pip_sees_its_settings_and_not_the_hosts_secrets() {
        let sees = |k: &str| super::pip_may_see(std::ffi::OsStr::new(k));
        for k in [
            "PATH",
            "HOME",
            "PIP_INDEX_URL",
            "https_proxy",
            "SSL_CERT_FILE",
        ] {
            assert!(sees(k), "{k}");
        }
        for k in [
            "OPENAI_API_KEY",
            "LLM_IN_SANDBOX_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "HF_TOKEN",
        ] {
            assert!(!sees(k), "{k}");
        }
    }
}
