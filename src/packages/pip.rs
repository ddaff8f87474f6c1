//! Running the host's pip: `pip download` for the pure-Python target, with a deadline and
//! only the environment pip needs.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
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
    /// Stopped by whoever asked for the packages when it no longer wants them (its call
    /// ended): see [`PipStop`]. `None` (the default): never.
    pub stop: Option<Arc<PipStop>>,
}

impl PipSettings {
    /// Whether [`PipSettings::stop`] was stopped.
    pub(super) fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.is_stopped())
    }
}

/// Stops one resolution from another thread: a running pip is killed at once, with every
/// process it started (pip runs in a process group of its own, so a wrapper such as pyenv's
/// shims is no shelter), a wait for the cache's lock ends, and the resolution fails with
/// [`PackageError::Stopped`].
#[derive(Debug, Default)]
pub struct PipStop {
    stopped: AtomicBool,
    /// The process group of the pip running for this resolution, if one is.
    group: Mutex<Option<i32>>,
}

impl PipStop {
    /// Stop the resolution (no effect once it has ended).
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        if let Some(g) = *lock(&self.group) {
            kill_group(g);
        }
    }

    /// Whether [`PipStop::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// The process groups of the pips running in this process, for [`stop_all`].
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kill every pip this process is running, with what each started (a process about to exit
/// calls it: a pip whose call was never dropped would outlive it otherwise).
pub fn stop_all() {
    for g in lock(&RUNNING).iter() {
        kill_group(*g);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// SIGKILL to every process of group `g`.
fn kill_group(g: i32) {
    #[cfg(unix)]
    // SAFETY: a signal to a process group we made (pip's own, `process_group(0)`), by its id.
    unsafe {
        libc::kill(-g, libc::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = g;
}

/// A running pip's group, known to its [`PipStop`] and to [`stop_all`] until dropped.
struct Running<'a> {
    group: i32,
    stop: Option<&'a PipStop>,
}

impl<'a> Running<'a> {
    fn register(group: i32, stop: Option<&'a PipStop>) -> Running<'a> {
        lock(&RUNNING).push(group);
        if let Some(s) = stop {
            *lock(&s.group) = Some(group);
            // Stopped before pip started: it never runs.
            if s.is_stopped() {
                kill_group(group);
            }
        }
        Running { group, stop }
    }

    /// Kill the whole group (pip and what it started).
    fn kill(&self) {
        kill_group(self.group);
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.stop {
            *lock(&s.group) = None;
        }
        lock(&RUNNING).retain(|g| *g != self.group);
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

/// Only the environment variables pip may see ([`pip_may_see`]).
fn pip_environment(cmd: &mut Command) {
    cmd.env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| pip_may_see(k)));
}

/// The executable `python` runs (its `sys.executable`), asked once per process, so pip is our
/// own child even when `python` is a wrapper that starts the real interpreter as a child of
/// its own (pyenv's shims do for pip): then a kill and the parent-death signal reach pip
/// itself. `python` as given when it cannot say.
fn interpreter(python: &str) -> String {
    static SEEN: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
    if let Some((_, real)) = lock(&SEEN).iter().find(|(given, _)| given == python) {
        return real.clone();
    }
    let mut ask = Command::new(python);
    ask.args(["-c", "import sys; print(sys.executable)"])
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    pip_environment(&mut ask);
    let real = ask
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|p| Path::new(p).is_file())
        .unwrap_or_else(|| python.to_string());
    lock(&SEEN).push((python.to_string(), real.clone()));
    real
}

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
    let running = Running::register(
        i32::try_from(child.id()).unwrap_or(i32::MAX),
        settings.stop.as_deref(),
    );
    let status = wait_for_pip(&mut child, &running, settings, dest)?;
    drop(running);
    if settings.stopped() {
        return Err(PackageError::Stopped);
    }
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
/// process is killed while pip runs (a clean exit calls [`stop_all`]); that thread waits for
/// pip, so it cannot end before pip otherwise. Only the child itself gets it, not what it
/// starts: hence [`interpreter`], so the child is pip and not a wrapper. Elsewhere nothing.
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
    let mut cmd = Command::new(interpreter(&settings.python));
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
    pip_environment(&mut cmd);
    fs::create_dir_all(tmp).map_err(io_err("create directory", tmp))?;
    cmd.env("TMPDIR", tmp);
    die_with_this_thread(&mut cmd);
    // A group of its own: a stop kills what pip (or a wrapper around it) started too.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    Ok(cmd)
}

/// Wait for pip to exit. Past the deadline, on a stop, or once `dest` holds more than the
/// size cap (checked every 100 ms), pip's group is killed and that is the error.
fn wait_for_pip(
    child: &mut Child,
    running: &Running<'_>,
    settings: &PipSettings,
    dest: &Path,
) -> Result<ExitStatus, PackageError> {
    let started = Instant::now();
    let mut polls = 0u32;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if started.elapsed() > settings.timeout => {
                running.kill();
                let _ = child.wait();
                return Err(PackageError::Timeout(settings.timeout));
            }
            Ok(None) if settings.stopped() => {
                running.kill();
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
                        running.kill();
                        let _ = child.wait();
                        return Err(PackageError::TooLarge {
                            size,
                            limit: settings.max_bytes,
                        });
                    }
                }
            }
            Err(e) => {
                running.kill();
                return Err(io_err("wait for pip", Path::new(&settings.python))(e));
            }
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
