//! One episode's sandbox: a workspace seen by the guest as `/testbed`, a private `/tmp` and
//! home (`/root`), the shared Python runtime, and the two policies every tool in it obeys: one
//! disk [`Quota`] (charged live by the shell, the editor and Python) and one [`NetworkPolicy`].
//! Usable on its own (no agent needed).

mod http;
mod network;

use std::sync::Arc;

pub use crate::runtime::layout::{GUEST_HOME, GUEST_TMP, GUEST_WORKSPACE};
pub use crate::runtime::{DiskPool, Quota, QuotaError};
pub use http::{BadCertificate, HttpSettings};
pub use network::{BadHost, NetworkDenied, NetworkPolicy};

use crate::lazy_dir::LazyDir;
use crate::runtime::{
    Invocation, Limits, Mount, Outcome, RunRequest, RunResult, Runtime, RuntimeError, layout,
};
use crate::workspace::{Scratch, Workspace, WorkspaceError};

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
    /// `pip install` failed or was refused.
    #[error(transparent)]
    Packages(#[from] crate::packages::PackageError),
    /// `pip install` is off for this sandbox ([`NetworkPolicy::pip`] is false).
    #[error(
        "pip install is off for this sandbox (its network policy does not let pip reach the \
         package index: --pip off): no package can be installed; the built-in packages \
         (`pip list`) are available"
    )]
    PipOff,
}

/// The most bytes one `pip install` in an episode may unpack (the disk quota also applies).
pub const MAX_INSTALL_BYTES: u64 = 256 << 20;

/// The disk quota's default size: 1 GiB over `/testbed`, `/tmp` and `/root` together.
pub const DEFAULT_DISK_QUOTA: u64 = 1 << 30;
/// The default cap on files over `/testbed`, `/tmp` and `/root` together.
pub const DEFAULT_MAX_FILES: u64 = 100_000;

/// Builds a [`Sandbox`]. Grants nothing beyond the workspace and a private `/tmp`: no network,
/// no host environment.
#[derive(Debug)]
pub struct SandboxBuilder {
    runtime: Arc<Runtime>,
    workspace: Option<Workspace>,
    limits: Limits,
    env: Vec<(String, String)>,
    disk_quota: u64,
    max_files: u64,
    disk_pool: Option<Arc<DiskPool>>,
    network: NetworkPolicy,
    pip_settings: Option<crate::packages::PipSettings>,
    http: HttpSettings,
}

impl SandboxBuilder {
    /// How the host's pip is run for this sandbox's installs (index, caps). Default: the
    /// runtime's ([`Runtime::pip_settings`]). The operator's setting, never the guest's.
    pub fn pip_settings(mut self, settings: crate::packages::PipSettings) -> Self {
        self.pip_settings = Some(settings);
        self
    }

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

    /// Bytes the sandbox's `/testbed`, `/tmp` and `/root` may hold together, whoever writes (shell,
    /// editor, Python). Default [`DEFAULT_DISK_QUOTA`] (1 GiB).
    pub fn disk_quota(mut self, bytes: u64) -> Self {
        self.disk_quota = bytes;
        self
    }

    /// Files the sandbox may hold. Default [`DEFAULT_MAX_FILES`] (100,000).
    pub fn max_files(mut self, files: u64) -> Self {
        self.max_files = files;
        self
    }

    /// A disk budget this sandbox shares with others (a server's): its bytes count there
    /// too, and a write that would pass it fails as a full disk does. Default: none.
    pub fn disk_pool(mut self, pool: Option<Arc<DiskPool>>) -> Self {
        self.disk_pool = pool;
        self
    }

    /// Which hosts the sandbox may reach (the shell's `curl`/`wget` and Python's `urllib` and
    /// `http.client` alike) and whether `pip install` may fetch packages
    /// ([`NetworkPolicy::with_pip`]). Default: [`NetworkPolicy::off`] (no host, pip on).
    pub fn network(mut self, policy: NetworkPolicy) -> Self {
        self.network = policy;
        self
    }

    /// Caps and trusted roots for Python's HTTP requests (which hosts: [`Self::network`]).
    /// Default: [`HttpSettings::default`] (64 MiB per response, 16 MiB per request, 60 s per
    /// request, the system's root certificates).
    pub fn http(mut self, settings: HttpSettings) -> Self {
        self.http = settings;
        self
    }

    /// Set a guest environment variable. Default environment: [`layout::DEFAULT_ENV`]
    /// (`HOME=/root`, `TMPDIR=/tmp`, `PATH`, `LANG=C.UTF-8`, `MPLBACKEND=Agg`,
    /// `PYTHONTZPATH=`); nothing from the host.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let key = key.into();
        self.env.retain(|(k, _)| *k != key);
        self.env.push((key, value.into()));
        self
    }

    /// Create the sandbox. Measures what a workspace given with [`Self::workspace`] already
    /// holds against the quota (a walk of its files); a temporary one starts empty.
    ///
    /// # Errors
    /// [`SandboxError::Workspace`] when the temporary directories cannot be made.
    pub fn build(self) -> Result<Sandbox, SandboxError> {
        // A temporary workspace is empty (made now, or recycled only when found empty), as
        // are `/tmp` and `/root`: only a workspace the caller gave needs its files measured.
        let (workspace, measure) = match self.workspace {
            Some(ws) => (ws, true),
            None => (Workspace::temporary()?, false),
        };
        // `/tmp` and `/root` are opened only when first used: most calls never touch them,
        // and each open folder is a file descriptor (see `LazyDir`).
        let scratch = Scratch::temporary()?;
        let home = Scratch::temporary()?;
        let workspace_dir = Arc::new(LazyDir::open_now(
            workspace.shared_dir(),
            workspace.host_path(),
        ));
        let quota = Quota::empty_in(
            vec![
                workspace_dir.clone(),
                scratch.dir().clone(),
                home.dir().clone(),
            ],
            self.disk_quota,
            self.max_files,
            self.disk_pool,
        );
        if measure {
            quota.refresh();
        }
        Ok(Sandbox {
            runtime: self.runtime,
            workspace,
            workspace_dir,
            scratch,
            home,
            limits: self.limits,
            env: self.env,
            cwd: GUEST_WORKSPACE.to_string(),
            quota,
            door: http::door(&self.network, &self.http),
            loopback: crate::runtime::loopback::Loopback::new(),
            network: self.network,
            pip_settings: self.pip_settings,
            installed: Arc::new(std::sync::Mutex::new(Vec::new())),
        })
    }
}

/// Stops a `pip install` when dropped: its pip is killed at once, and its blocking work,
/// which goes on after the call was dropped, writes nothing more.
struct StopOnDrop(Arc<crate::packages::PipStop>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// One episode's sandbox.
#[derive(Debug)]
pub struct Sandbox {
    /// First, so it drops first: it shares the folders' capabilities, and a folder is handed
    /// to the next sandbox only when nothing else holds it (see `Workspace`'s drop).
    quota: Arc<Quota>,
    runtime: Arc<Runtime>,
    /// The workspace's capability as the runtime mounts it (the same descriptor). Before
    /// `workspace`, so it drops first: the workspace's folder is recycled only when nothing
    /// else holds its capability.
    workspace_dir: Arc<LazyDir>,
    workspace: Workspace,
    /// `/tmp` (empty at first; opened on first use).
    scratch: Scratch,
    /// `/root`, the user's home (empty at first; opened on first use).
    home: Scratch,
    limits: Limits,
    env: Vec<(String, String)>,
    cwd: String,
    network: NetworkPolicy,
    pip_settings: Option<crate::packages::PipSettings>,
    /// What `pip install` put in this sandbox (shared with an install still finishing).
    installed: Arc<std::sync::Mutex<Vec<crate::packages::Locked>>>,
    /// Python's way to the network (through the host door), under `network`.
    door: Arc<http::HttpDoor>,
    /// The sandbox's own loopback network (its programs' sockets on 127.0.0.1 and ::1).
    loopback: Arc<crate::runtime::loopback::Loopback>,
}

impl Sandbox {
    /// Start building a sandbox on a shared runtime.
    pub fn builder(runtime: Arc<Runtime>) -> SandboxBuilder {
        SandboxBuilder {
            runtime,
            workspace: None,
            limits: Limits::default(),
            env: layout::default_env(),
            disk_quota: DEFAULT_DISK_QUOTA,
            max_files: DEFAULT_MAX_FILES,
            disk_pool: None,
            network: NetworkPolicy::off(),
            pip_settings: None,
            http: HttpSettings::default(),
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

    /// The disk quota every writer in this sandbox is charged to.
    pub fn quota(&self) -> &Arc<Quota> {
        &self.quota
    }

    /// The network policy every tool in this sandbox obeys.
    pub fn network(&self) -> &NetworkPolicy {
        &self.network
    }

    /// The way out for the shell's `curl`/`wget`: the same door, policy and resolver as
    /// Python's requests.
    pub fn shell_transport(&self) -> Arc<dyn bashkit::HttpTransport> {
        Arc::new(http::ShellTransport(self.door.clone()))
    }

    /// What `pip install` put into this sandbox so far (its own site directory).
    pub fn installed(&self) -> Vec<crate::packages::Locked> {
        self.installed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// `pip install REQS` for this sandbox: the host's pip resolves and fetches pure-Python
    /// wheels (through the cache every sandbox shares), and they are unpacked into the
    /// sandbox's own site directory ([`layout::GUEST_USER_SITE`], under `/tmp`), charged to its
    /// quota, importable from the next `python3` call. Packages built in or in the site layer
    /// are not installed again. pip may take at most `timeout` (and the runtime's own cap).
    /// Returns what was installed.
    ///
    /// # Errors
    /// [`SandboxError::PipOff`], or a [`crate::packages::PackageError`]: no pure-Python wheel,
    /// timeout, size cap, quota.
    pub async fn pip_install(
        &self,
        reqs: Vec<crate::packages::Requirement>,
        timeout: std::time::Duration,
    ) -> Result<Vec<crate::packages::Locked>, SandboxError> {
        use crate::packages;
        if !self.network.pip() {
            return Err(SandboxError::PipOff);
        }
        if reqs.is_empty() {
            return Ok(Vec::new());
        }
        let runtime = self.runtime.clone();
        let scratch = self.scratch.dir().clone();
        let quota = self.quota.clone();
        let have: Vec<String> = self
            .installed()
            .iter()
            .map(|p| packages::normalize(&p.name))
            .collect();
        let mut settings = self
            .pip_settings
            .clone()
            .unwrap_or_else(|| runtime.pip_settings().clone());
        settings.timeout = settings.timeout.min(timeout);
        // Dropping this call (its caller went away, its command was stopped) kills pip.
        let stop = Arc::new(packages::PipStop::default());
        settings.stop = Some(stop.clone());
        let _stop_on_drop = StopOnDrop(stop.clone());
        let record = self.installed.clone();
        let work = move || -> Result<Vec<packages::Locked>, packages::PackageError> {
            let builtins = packages::builtin_versions(&runtime.files().manifest());
            let lock =
                packages::resolve_with_builtins(runtime.cache_root(), &reqs, &settings, &builtins)?;
            let mut skip = packages::builtin_names(&runtime.files().manifest());
            if let Some(layer) = runtime.site_layer() {
                skip.extend(layer.packages.iter().map(|p| packages::normalize(&p.name)));
            }
            skip.extend(have);
            // Nothing is written into a sandbox whose caller has gone.
            if stop.is_stopped() {
                return Err(packages::PackageError::Stopped);
            }
            let site_rel = layout::USER_SITE_IN_TMP;
            let scratch = scratch.get().map_err(|source| packages::PackageError::Io {
                action: "open",
                path: layout::GUEST_TMP.into(),
                source,
            })?;
            scratch
                .create_dir_all(site_rel)
                .map_err(|source| packages::PackageError::Io {
                    action: "create",
                    path: site_rel.into(),
                    source,
                })?;
            let site = scratch
                .open_dir(site_rel)
                .map_err(|source| packages::PackageError::Io {
                    action: "open",
                    path: site_rel.into(),
                    source,
                })?;
            let result = packages::install_into(
                runtime.cache_root(),
                &lock,
                &skip,
                &site,
                MAX_INSTALL_BYTES,
                &mut |bytes| Ok(quota.charge(None, bytes)?),
            );
            // What is on disk now, whatever happened.
            quota.refresh();
            // Recorded here: an install that was under way when its caller left still shows
            // in `pip list`, as its files are there.
            if let Ok(done) = &result {
                record
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .extend(done.iter().cloned());
            }
            result
        };
        let installed = tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| RuntimeError::Panicked(e.to_string()))??;
        Ok(installed)
    }

    /// The workspace's capability as a [`LazyDir`] (always open; the same descriptor).
    pub fn workspace_shared(&self) -> Arc<LazyDir> {
        self.workspace_dir.clone()
    }

    /// The private scratch directory (`/tmp` in the guest), opened now if nothing used it yet.
    ///
    /// # Errors
    /// It cannot be opened (the process is out of file descriptors).
    pub fn scratch_dir(&self) -> std::io::Result<&cap_std::fs::Dir> {
        Ok(self.scratch.dir().get()?)
    }

    /// The scratch directory's capability, shared and opened on first use (no file descriptor
    /// until then).
    pub fn scratch_shared(&self) -> Arc<LazyDir> {
        self.scratch.dir().clone()
    }

    /// The home directory (`/root` in the guest), opened now if nothing used it yet.
    ///
    /// # Errors
    /// It cannot be opened (the process is out of file descriptors).
    pub fn home_dir(&self) -> std::io::Result<&cap_std::fs::Dir> {
        Ok(self.home.dir().get()?)
    }

    /// The home directory's capability, shared and opened on first use.
    pub fn home_shared(&self) -> Arc<LazyDir> {
        self.home.dir().clone()
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

    /// Write a file into `dir` (the workspace's or scratch capability) charging the quota:
    /// the way host-side tools (the editor, input files) write, so they obey the same limit
    /// as the guest.
    ///
    /// # Errors
    /// A [`QuotaError`] (as `io::ErrorKind::StorageFull`) when it does not fit, or the OS error.
    pub fn write_charged(
        &self,
        dir: &cap_std::fs::Dir,
        rel: &str,
        contents: &[u8],
    ) -> std::io::Result<()> {
        crate::fsutil::check_path_shape(std::path::Path::new(rel))?;
        let old = dir
            .symlink_metadata(rel)
            .ok()
            .filter(|m| !m.is_dir())
            .map(|m| m.len());
        self.quota.charge(old, contents.len() as u64)?;
        dir.write(rel, contents).inspect_err(|_| {
            // The write failed part-way or not at all: measure what is really there.
            self.quota.refresh();
        })
    }

    /// Write a file (creating parent directories) into the workspace, charging the quota.
    ///
    /// # Errors
    /// [`WorkspaceError::File`] when it does not fit the quota, fails, or leaves the workspace.
    pub fn write_workspace_file(&self, path: &str, contents: &[u8]) -> Result<(), SandboxError> {
        let rel = path.trim_start_matches('/');
        let file_err = |source| WorkspaceError::File {
            action: "write",
            path: path.to_string(),
            source,
        };
        self.quota
            .create_parents(self.workspace.dir(), std::path::Path::new(rel))
            .map_err(file_err)?;
        self.write_charged(self.workspace.dir(), rel, contents)
            .map_err(file_err)?;
        Ok(())
    }

    /// Run `python3 ARGS...` (the arguments after the program name) with `stdin`.
    /// A command line CPython would refuse gives exit code 2 and a usage message on stderr.
    ///
    /// # Errors
    /// Host-side failures only; see [`Runtime::run`].
    pub async fn python(&self, args: &[String], stdin: &[u8]) -> Result<RunResult, SandboxError> {
        self.python_with_processes(args, stdin, None).await
    }

    /// [`Sandbox::python`], with the guest's `subprocess`/`os.system` commands going to
    /// `processes` (e.g. `crate::shell::guest_commands`); without, they raise `OSError`.
    ///
    /// # Errors
    /// Host-side failures only; see [`Runtime::run`].
    pub async fn python_with_processes(
        &self,
        args: &[String],
        stdin: &[u8],
        processes: Option<Arc<dyn crate::runtime::procs::GuestProcesses>>,
    ) -> Result<RunResult, SandboxError> {
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
        self.run_with_processes(
            invocation,
            stdin,
            &self.env,
            &self.cwd,
            self.limits.clone(),
            processes,
        )
        .await
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
    /// when the shell's own time is running out). Python's file writes and new files are
    /// charged to the sandbox's quota as they happen (past it they fail with `ENOSPC`); after
    /// the call the quota re-measures the directories, and a breach is reported on stderr
    /// (exit code 1 if it was 0).
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
        self.run_with_processes(invocation, stdin, env, cwd, limits, None)
            .await
    }

    /// Run a WASI program (the C toolchain, or a program it built) in this sandbox's folders
    /// with `limits`, starting in `cwd`; see [`Runtime::run_program`].
    ///
    /// # Errors
    /// [`crate::runtime::ProgramError`] when it cannot start.
    pub async fn run_program(
        &self,
        program: crate::runtime::Program,
        argv: Vec<String>,
        stdin: Vec<u8>,
        env: Vec<(String, String)>,
        cwd: &str,
        limits: Limits,
    ) -> Result<RunResult, crate::runtime::ProgramError> {
        let req = crate::runtime::ProgramRequest {
            program,
            argv,
            env,
            cwd: cwd.to_string(),
            stdin,
            limits,
            mounts: self.mounts(),
            quota: Some(self.quota.clone()),
        };
        self.runtime.run_program(req).await
    }

    /// The sandbox's three folders as a call mounts them: `/testbed`, `/tmp` and `/root`.
    fn mounts(&self) -> Vec<Mount> {
        let mount = |dir: Arc<LazyDir>, guest: &str| Mount {
            dir,
            guest_path: guest.to_string(),
            writable: true,
        };
        vec![
            mount(self.workspace_dir.clone(), GUEST_WORKSPACE),
            mount(self.scratch.dir().clone(), GUEST_TMP),
            mount(self.home.dir().clone(), GUEST_HOME),
        ]
    }

    /// Whether this sandbox's `cc` can work (the C toolchain is set up on this machine).
    pub fn has_c_toolchain(&self) -> bool {
        self.runtime.has_c_toolchain()
    }

    /// [`Sandbox::run_with_limits`], with the guest's `subprocess`/`os.system` commands going
    /// to `processes` (the shell that runs this `python3`).
    ///
    /// # Errors
    /// Host-side failures only; see [`Runtime::run`].
    pub async fn run_with_processes(
        &self,
        invocation: Invocation,
        stdin: &[u8],
        env: &[(String, String)],
        cwd: &str,
        limits: Limits,
        processes: Option<Arc<dyn crate::runtime::procs::GuestProcesses>>,
    ) -> Result<RunResult, SandboxError> {
        let req = RunRequest {
            invocation,
            env: env.to_vec(),
            cwd: cwd.to_string(),
            stdin: stdin.to_vec(),
            limits,
            mounts: self.mounts(),
            quota: Some(self.quota.clone()),
            network: Some(self.door.clone()),
            processes,
            loopback: Some(self.loopback.clone()),
        };
        // The runtime re-measures the quota after the call.
        let mut r = self.runtime.run(req).await?;
        if self.quota.exceeded() {
            r.stderr.extend_from_slice(
                format!(
                    "python3: disk quota exceeded: the sandbox may hold {} bytes and {} files; delete files to go on\n",
                    self.quota.max_bytes(),
                    self.quota.max_files()
                )
                .as_bytes(),
            );
            if r.exit_code == 0 {
                r.exit_code = 1;
            }
        }
        Ok(r)
    }
}
