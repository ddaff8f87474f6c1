//! The in-process bash behind `execute_bash`: a bashkit interpreter over the sandbox's
//! directories (cap-std backends mounted at `/testbed` and `/tmp`), with `python3` going to the
//! WASM CPython. It never starts a host process. One shell per episode: `cd`, variables and
//! functions persist between calls.

mod commands;
mod fs;
mod observation;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bashkit::{Bash, ExecutionLimits, NetworkAllowlist, PosixFs, SessionLimits};

pub use fs::Quota;
pub use observation::{ObservationFormat, observation};

use crate::sandbox::{GUEST_TMP, GUEST_WORKSPACE, Sandbox};
use commands::{Pip, PipCommand, PythonCommand, UNAVAILABLE, Unavailable};
use fs::CapFs;

/// Errors setting up a shell.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShellError {
    /// A sandbox directory could not be shared with the shell.
    #[error("cannot mount {path} in the shell: {detail}")]
    Mount {
        /// The guest path.
        path: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// An `--allow-net` entry is not a host name.
    #[error(
        "invalid network allow-list entry {0:?}: give a host name or host:port, e.g. example.org"
    )]
    BadHost(String),
}

/// Which hosts `curl`/`wget` may reach. Off (empty) by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkPolicy {
    hosts: Vec<String>,
}

impl NetworkPolicy {
    /// No network at all (the default).
    pub fn off() -> Self {
        Self::default()
    }

    /// Allow `http(s)://HOST[:PORT]/...` for each entry, e.g. `example.org` or `127.0.0.1:8080`.
    ///
    /// # Errors
    /// [`ShellError::BadHost`] for an entry that is not a plain host or host:port.
    pub fn allow<S: AsRef<str>>(hosts: &[S]) -> Result<Self, ShellError> {
        let mut out = Vec::new();
        for h in hosts {
            let h = h.as_ref().trim();
            if h.is_empty()
                || h.contains(['/', '@', '?', '#', ' '])
                || h.starts_with(':')
                || h.split(':').count() > 2
            {
                return Err(ShellError::BadHost(h.to_string()));
            }
            out.push(h.to_lowercase());
        }
        Ok(Self { hosts: out })
    }

    /// The allowed hosts.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    fn allowlist(&self) -> NetworkAllowlist {
        let mut list = NetworkAllowlist::new();
        let mut private = false;
        for h in &self.hosts {
            let host = h.split(':').next().unwrap_or(h);
            // Naming a loopback or private address is the operator's explicit choice.
            private |= host == "localhost"
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback() || is_private(&ip));
            list = list
                .allow(format!("http://{h}"))
                .allow(format!("https://{h}"));
        }
        list.block_private_ips(!private)
    }
}

fn is_private(ip: &std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(v4) => v4.is_private() || v4.is_link_local(),
        std::net::IpAddr::V6(_) => false,
    }
}

/// Settings of one shell. Defaults match the reference system where it has one.
#[derive(Debug, Clone)]
pub struct ShellSettings {
    /// Wall-clock limit per `exec` call. Default 120 s.
    pub timeout: Duration,
    /// Bytes kept per stream per call. Default 8 MiB.
    pub max_output_bytes: usize,
    /// Disk quota over `/testbed` and `/tmp` together. Default 1 GiB.
    pub disk_quota_bytes: u64,
    /// File-count cap over `/testbed` and `/tmp` together. Default 100,000.
    pub max_files: u64,
    /// Network access for `curl`/`wget`. Default: off.
    pub network: NetworkPolicy,
}

impl Default for ShellSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            max_output_bytes: 8 << 20,
            disk_quota_bytes: 1 << 30,
            max_files: 100_000,
            network: NetworkPolicy::off(),
        }
    }
}

/// How a shell call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommandOutcome {
    /// The script ran to its end (any exit code).
    Completed,
    /// The per-call time limit passed; output up to then is kept (exit code 124).
    Timeout,
    /// The script could not be parsed (exit code 2).
    SyntaxError,
    /// Another interpreter limit stopped it (exit code 1); the text says which.
    LimitExceeded(String),
}

/// The result of one shell call.
#[derive(Debug, Clone)]
pub struct CommandResult {
    /// Exit status of the last command (or 124/2/1 for timeout/syntax/limit).
    pub exit_code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// How it ended.
    pub outcome: CommandOutcome,
    /// Wall-clock duration.
    pub duration: Duration,
}

/// One episode's shell.
pub struct Shell {
    bash: Bash,
    settings: ShellSettings,
    sandbox: Arc<Sandbox>,
}

impl std::fmt::Debug for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shell")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Shell {
    /// A shell over `sandbox`: `/testbed` (the working directory) and `/tmp` are the sandbox's
    /// directories; everything else (`/etc`, `/bin`, ...) is bashkit's virtual, in-memory system.
    ///
    /// # Errors
    /// [`ShellError::Mount`] when the directories cannot be shared.
    pub fn new(sandbox: Arc<Sandbox>, settings: ShellSettings) -> Result<Shell, ShellError> {
        // The sandbox's own directory handles, shared: no extra file descriptors per shell.
        let ws = sandbox.workspace().shared_dir();
        let tmp = sandbox.scratch_shared();
        let quota = Quota::new(
            vec![ws.clone(), tmp.clone()],
            settings.disk_quota_bytes,
            settings.max_files,
        );
        let manifest =
            std::fs::read_to_string(sandbox.runtime().files().manifest()).unwrap_or_default();
        let pip = Arc::new(PipCommand::from_manifest(&manifest));
        let limits = ExecutionLimits::new()
            .max_commands(usize::MAX)
            .max_loop_iterations(usize::MAX)
            .max_total_loop_iterations(usize::MAX)
            .timeout(settings.timeout)
            .max_stdout_bytes(settings.max_output_bytes)
            .max_stderr_bytes(settings.max_output_bytes);
        let mut b = Bash::builder()
            .username("root")
            .hostname("sandbox")
            .cwd(GUEST_WORKSPACE)
            .limits(limits)
            .session_limits(SessionLimits::unlimited())
            .network(settings.network.allowlist());
        for (k, v) in sandbox.env() {
            b = b.env(k, v);
        }
        let python = || {
            Box::new(PythonCommand {
                sandbox: sandbox.clone(),
                quota: quota.clone(),
                pip: pip.clone(),
            })
        };
        b = b
            .builtin("python3", python())
            .builtin("python", python())
            .builtin("python3.15", python())
            .builtin("pip", Box::new(Pip(pip.clone())))
            .builtin("pip3", Box::new(Pip(pip.clone())));
        for (name, reason) in UNAVAILABLE {
            b = b.builtin(*name, Box::new(Unavailable { name, reason }));
        }
        let bash = b.build();
        let mount = |path: &'static str, dir: Arc<cap_std::fs::Dir>| {
            let fs = PosixFs::new(CapFs::new(dir, quota.clone()));
            bash.mount(path, Arc::new(fs))
                .map_err(|e| ShellError::Mount {
                    path,
                    detail: e.to_string(),
                })
        };
        mount(GUEST_WORKSPACE, ws)?;
        mount(GUEST_TMP, tmp)?;
        Ok(Shell {
            bash,
            settings,
            sandbox,
        })
    }

    /// The sandbox under this shell.
    pub fn sandbox(&self) -> &Arc<Sandbox> {
        &self.sandbox
    }

    /// The settings.
    pub fn settings(&self) -> &ShellSettings {
        &self.settings
    }

    /// Run a script. Never fails: limits, timeouts and syntax errors are results.
    pub async fn exec(&mut self, script: &str) -> CommandResult {
        let started = Instant::now();
        // Keep what was printed before a limit stops the script (bashkit drops it on error).
        let partial = Arc::new(Mutex::new((Vec::<u8>::new(), Vec::<u8>::new())));
        let sink = partial.clone();
        let cap = self.settings.max_output_bytes;
        let callback: bashkit::OutputCallback = Box::new(move |out, err| {
            let mut p = sink.lock().unwrap_or_else(PoisonError::into_inner);
            let room = cap.saturating_sub(p.0.len());
            p.0.extend_from_slice(&out.as_bytes()[..out.as_bytes().len().min(room)]);
            let room = cap.saturating_sub(p.1.len());
            p.1.extend_from_slice(&err.as_bytes()[..err.as_bytes().len().min(room)]);
        });
        let run = self.bash.exec_streaming(script, callback).await;
        let duration = started.elapsed();
        match run {
            Ok(r) => CommandResult {
                exit_code: r.exit_code,
                stdout: r.stdout.text_lossy().into_owned(),
                stderr: r.stderr.text_lossy().into_owned(),
                outcome: CommandOutcome::Completed,
                duration,
            },
            Err(e) => {
                let (out, err) =
                    std::mem::take(&mut *partial.lock().unwrap_or_else(PoisonError::into_inner));
                let mut stderr = String::from_utf8_lossy(&err).into_owned();
                let (exit_code, outcome) = match &e {
                    bashkit::Error::ResourceLimit(bashkit::LimitExceeded::Timeout(_)) => {
                        (124, CommandOutcome::Timeout)
                    }
                    bashkit::Error::Parse { .. } => {
                        stderr.push_str(&format!("bash: syntax error: {e}\n"));
                        (2, CommandOutcome::SyntaxError)
                    }
                    other => {
                        stderr.push_str(&format!("bash: {other}\n"));
                        (1, CommandOutcome::LimitExceeded(other.to_string()))
                    }
                };
                CommandResult {
                    exit_code,
                    stdout: String::from_utf8_lossy(&out).into_owned(),
                    stderr,
                    outcome,
                    duration,
                }
            }
        }
    }
}
