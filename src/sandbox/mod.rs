//! One episode's sandbox: a workspace seen by the guest as `/testbed`, a private `/tmp`, and
//! the shared Python runtime. Usable on its own (no agent needed).

use std::sync::Arc;

use crate::runtime::{
    Invocation, Limits, Mount, Outcome, RunRequest, RunResult, Runtime, RuntimeError,
};
use crate::workspace::{Workspace, WorkspaceError};

/// Where the workspace appears in the guest (the reference system's working directory).
pub const GUEST_WORKSPACE: &str = "/testbed";
/// Where the sandbox's private scratch directory appears in the guest.
pub const GUEST_TMP: &str = "/tmp";

/// Errors that stop a sandbox from running a command (not the command failing).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The runtime failed on the host side.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The workspace or scratch directory failed.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

/// Builds a [`Sandbox`]. Grants nothing beyond the workspace and a private `/tmp`.
#[derive(Debug)]
pub struct SandboxBuilder {
    runtime: Arc<Runtime>,
    workspace: Option<Workspace>,
    limits: Limits,
    env: Vec<(String, String)>,
}

impl SandboxBuilder {
    /// Use this workspace. Default: a fresh temporary one, deleted with the sandbox.
    pub fn workspace(mut self, ws: Workspace) -> Self {
        self.workspace = Some(ws);
        self
    }

    /// Per-command limits. Default: [`Limits::default`] (120 s, 2 GiB, 8 MiB per stream).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Set a guest environment variable. Default environment: `HOME=/tmp`, `TMPDIR=/tmp`,
    /// `PATH=/usr/local/bin:/usr/bin:/bin`, `LANG=C.UTF-8`, `MPLBACKEND=Agg`, `PYTHONTZPATH=`;
    /// nothing from the host.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let key = key.into();
        self.env.retain(|(k, _)| *k != key);
        self.env.push((key, value.into()));
        self
    }

    /// Create the sandbox.
    ///
    /// # Errors
    /// [`SandboxError::Workspace`] when the temporary directories cannot be made.
    pub fn build(self) -> Result<Sandbox, SandboxError> {
        let workspace = match self.workspace {
            Some(ws) => ws,
            None => Workspace::temporary()?,
        };
        Ok(Sandbox {
            runtime: self.runtime,
            workspace,
            scratch: Workspace::temporary()?,
            limits: self.limits,
            env: self.env,
            cwd: GUEST_WORKSPACE.to_string(),
        })
    }
}

/// One episode's sandbox.
#[derive(Debug)]
pub struct Sandbox {
    runtime: Arc<Runtime>,
    workspace: Workspace,
    scratch: Workspace,
    limits: Limits,
    env: Vec<(String, String)>,
    cwd: String,
}

impl Sandbox {
    /// Start building a sandbox on a shared runtime.
    pub fn builder(runtime: Arc<Runtime>) -> SandboxBuilder {
        let env = [
            ("HOME", "/tmp"),
            ("TMPDIR", "/tmp"),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("LANG", "C.UTF-8"),
            ("MPLBACKEND", "Agg"),
            ("PYTHONTZPATH", ""),
        ];
        SandboxBuilder {
            runtime,
            workspace: None,
            limits: Limits::default(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
        }
    }

    /// The workspace (`/testbed` in the guest).
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The per-command limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The private scratch directory (`/tmp` in the guest).
    pub fn scratch_dir(&self) -> &cap_std::fs::Dir {
        self.scratch.dir()
    }

    /// The scratch directory's capability, shared (no new file descriptor).
    pub fn scratch_shared(&self) -> Arc<cap_std::fs::Dir> {
        self.scratch.shared_dir()
    }

    /// The shared runtime.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// The guest environment commands start with.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// The guest working directory for the next command (default `/testbed`).
    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// Set the guest working directory for later commands (a guest path).
    pub fn set_cwd(&mut self, cwd: impl Into<String>) {
        self.cwd = cwd.into();
    }

    /// Run `python3 ARGS...` (the arguments after the program name) with `stdin`.
    /// A command line CPython would refuse gives exit code 2 and a usage message on stderr.
    ///
    /// # Errors
    /// Host-side failures only; see [`Runtime::run`].
    pub async fn python(&self, args: &[String], stdin: &[u8]) -> Result<RunResult, SandboxError> {
        let invocation = match Invocation::parse(args) {
            Ok(inv) => inv,
            Err(usage) => {
                return Ok(RunResult {
                    exit_code: 2,
                    stdout: Vec::new(),
                    stderr: format!("{usage}\n").into_bytes(),
                    stdout_dropped: 0,
                    stderr_dropped: 0,
                    duration: std::time::Duration::ZERO,
                    peak_memory_bytes: 0,
                    outcome: Outcome::Exited,
                });
            }
        };
        self.run(invocation, stdin, &self.env, &self.cwd).await
    }

    /// Run a parsed invocation with an explicit environment and working directory (used by the
    /// shell, which owns its own cwd and exported variables).
    ///
    /// # Errors
    /// Host-side failures only; see [`Runtime::run`].
    pub async fn run(
        &self,
        invocation: Invocation,
        stdin: &[u8],
        env: &[(String, String)],
        cwd: &str,
    ) -> Result<RunResult, SandboxError> {
        self.run_with_limits(invocation, stdin, env, cwd, self.limits.clone())
            .await
    }

    /// Like [`Sandbox::run`] with other limits for this one command (e.g. a shorter deadline
    /// when the shell's own time is running out).
    ///
    /// # Errors
    /// Host-side failures only; see [`Runtime::run`].
    pub async fn run_with_limits(
        &self,
        invocation: Invocation,
        stdin: &[u8],
        env: &[(String, String)],
        cwd: &str,
        limits: Limits,
    ) -> Result<RunResult, SandboxError> {
        let req = RunRequest {
            invocation,
            env: env.to_vec(),
            cwd: cwd.to_string(),
            stdin: stdin.to_vec(),
            limits,
            mounts: vec![
                Mount {
                    dir: self.workspace.dir(),
                    guest_path: GUEST_WORKSPACE,
                    writable: true,
                },
                Mount {
                    dir: self.scratch.dir(),
                    guest_path: GUEST_TMP,
                    writable: true,
                },
            ],
        };
        Ok(self.runtime.run(req).await?)
    }
}
