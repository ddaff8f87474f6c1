//! One wiring from settings to a ready episode: sandbox (limits, quota, network policy), shell,
//! tools, input files, trajectory recorder and model client. `run`, `benchmark`, the speed
//! command and the server all start episodes here, so a setting means the same everywhere.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::trajectory::Recorder;
use super::{Episode, EpisodeSettings};
use crate::llm::Client;
use crate::runtime::{Limits, Runtime, RuntimeError, executor};
use crate::sandbox::{
    DEFAULT_DISK_QUOTA, DEFAULT_MAX_FILES, DiskPool, GUEST_WORKSPACE, NetworkPolicy, Sandbox,
    SandboxBuilder, SandboxError,
};
use crate::shell::{Shell, ShellError, ShellSettings};
use crate::tools::Toolbox;
use crate::workspace::Workspace;

/// What an episode's sandbox may do. Defaults: 120 s per command (the reference system's
/// `timeout 120`), 2 GiB of memory per Python call, 8 MiB kept per output stream, a 1 GiB /
/// 100,000-file disk quota, no network, `pip install` on.
#[derive(Debug, Clone)]
pub struct SandboxSettings {
    /// Wall-clock limit of one tool command (a bash call, and each Python run inside it).
    pub command_timeout: Duration,
    /// Memory cap of one Python call, in bytes.
    pub memory_bytes: u64,
    /// Bytes kept per output stream of a command.
    pub output_bytes: usize,
    /// Bytes `/testbed` and `/tmp` may hold together.
    pub disk_quota: u64,
    /// Files `/testbed` and `/tmp` may hold together.
    pub max_files: u64,
    /// A disk budget the sandboxes made with these settings share (a server's), besides each
    /// one's `disk_quota`. None: each has its quota only.
    pub disk_pool: Option<Arc<DiskPool>>,
    /// Hosts the sandbox may reach, and whether `pip install` may fetch pure-Python packages
    /// through the host's pip ([`NetworkPolicy::with_pip`]).
    pub network: NetworkPolicy,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        let limits = Limits::default();
        SandboxSettings {
            command_timeout: limits.timeout,
            memory_bytes: limits.memory_bytes,
            output_bytes: limits.output_bytes,
            disk_quota: DEFAULT_DISK_QUOTA,
            max_files: DEFAULT_MAX_FILES,
            disk_pool: None,
            network: NetworkPolicy::off(),
        }
    }
}

impl SandboxSettings {
    /// A sandbox with these settings.
    ///
    /// # Errors
    /// [`SandboxError`] when its directories cannot be made.
    pub fn sandbox(
        &self,
        runtime: &Arc<Runtime>,
        workspace: Option<Workspace>,
    ) -> Result<Sandbox, SandboxError> {
        self.builder(runtime, workspace).build()
    }

    /// A sandbox builder with these settings, for callers that add more (environment, ...).
    pub fn builder(&self, runtime: &Arc<Runtime>, workspace: Option<Workspace>) -> SandboxBuilder {
        let mut b = Sandbox::builder(runtime.clone())
            .limits(Limits {
                timeout: self.command_timeout,
                memory_bytes: self.memory_bytes,
                output_bytes: self.output_bytes,
            })
            .disk_quota(self.disk_quota)
            .max_files(self.max_files)
            .disk_pool(self.disk_pool.clone())
            .network(self.network.clone());
        if let Some(ws) = workspace {
            b = b.workspace(ws);
        }
        b
    }

    /// The shell settings that go with them (the same timeout and output cap).
    pub fn shell(&self) -> ShellSettings {
        ShellSettings {
            timeout: self.command_timeout,
            max_output_bytes: self.output_bytes,
        }
    }
}

/// One episode to set up.
#[derive(Debug)]
pub struct EpisodeSpec {
    /// The sandbox's limits and policies.
    pub sandbox: SandboxSettings,
    /// Steps, budgets and prompts (which also say where input files go and where the answer
    /// is read).
    pub episode: EpisodeSettings,
    /// The workspace to use. Default (`None`): a fresh temporary one.
    pub workspace: Option<Workspace>,
    /// Files put into the prompts' `input_dir` before the episode: (relative name, content).
    pub input_files: Vec<(String, Vec<u8>)>,
    /// Where the trajectory is recorded.
    pub record_dir: PathBuf,
    /// Fixed fields of `trajectory.json` (e.g. `problem_statement`, model).
    pub header: Value,
}

/// Why an episode could not be set up (nothing ran yet).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The sandbox could not be made, or an input file not written.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The shell could not be made.
    #[error(transparent)]
    Shell(#[from] ShellError),
    /// A prompt folder is not inside the workspace.
    #[error(
        "the {what} {path} is not under {GUEST_WORKSPACE}: input files and the answer must be in the workspace"
    )]
    Folder {
        /// Which folder.
        what: &'static str,
        /// Its guest path.
        path: String,
    },
    /// The trajectory folder could not be written.
    #[error("cannot record the trajectory in {dir}: {source}")]
    Record {
        /// The folder.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The sandbox threads failed.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// A guest folder under the workspace, as a workspace-relative path.
fn in_workspace(what: &'static str, guest: &str) -> Result<String, SetupError> {
    let rel = guest
        .strip_prefix(GUEST_WORKSPACE)
        .filter(|r| r.is_empty() || r.starts_with('/'))
        .ok_or_else(|| SetupError::Folder {
            what,
            path: guest.to_string(),
        })?;
    Ok(rel.trim_start_matches('/').to_string())
}

/// What `git init` leaves in an empty folder (git 2.39, as in the reference's image), as
/// (path under `.git/`, contents); a path ending in `/` is a folder.
const GIT_INIT: &[(&str, &str)] = &[
    ("branches/", ""),
    ("hooks/", ""),
    ("info/", ""),
    ("objects/info/", ""),
    ("objects/pack/", ""),
    ("refs/heads/", ""),
    ("refs/tags/", ""),
    ("HEAD", "ref: refs/heads/master\n"),
    (
        "config",
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
    ),
    (
        "description",
        "Unnamed repository; edit this file 'description' to name the repository.\n",
    ),
    (
        "info/exclude",
        "# git ls-files --others --exclude-from=.git/info/exclude\n# Lines that start with '#' are comments.\n# For a project mostly in C, the following would be a good set of\n# exclude patterns (uncomment them if you want to use them):\n# *.[oa]\n# *~\n",
    ),
];

/// The workspace as the reference's container starts every episode: `/testbed/input`,
/// `/testbed/output` and the empty repository `git init` makes in `/testbed`, so the model's
/// first `ls -a` sees what it would see there.
fn reference_layout(sandbox: &Sandbox) -> Result<(), SetupError> {
    let dir = sandbox.workspace().dir();
    let failed = |path: &str, source: std::io::Error| {
        SandboxError::Workspace(crate::workspace::WorkspaceError::File {
            action: "create",
            path: format!("{GUEST_WORKSPACE}/{path}"),
            source,
        })
    };
    for folder in ["input", "output"] {
        dir.create_dir_all(folder).map_err(|e| failed(folder, e))?;
    }
    // A workspace that already has a repository keeps it (`git init` would not change it).
    if dir.symlink_metadata(".git").is_ok() {
        return Ok(());
    }
    for (path, text) in GIT_INIT {
        let full = format!(".git/{path}");
        if let Some(folder) = full.strip_suffix('/') {
            dir.create_dir_all(folder).map_err(|e| failed(folder, e))?;
        } else {
            sandbox.write_workspace_file(&full, text.as_bytes())?;
        }
    }
    Ok(())
}

/// Make a ready episode: the sandbox and its shell, the input files (charged to the quota),
/// the prompts' output folder, the recorder. File work runs on the sandbox threads.
///
/// # Errors
/// [`SetupError`] saying which part failed.
pub async fn setup(
    runtime: &Arc<Runtime>,
    client: Client,
    spec: EpisodeSpec,
) -> Result<Episode, SetupError> {
    let runtime = runtime.clone();
    executor::blocking(move || setup_here(&runtime, client, spec)).await?
}

fn setup_here(
    runtime: &Arc<Runtime>,
    client: Client,
    spec: EpisodeSpec,
) -> Result<Episode, SetupError> {
    let prompts = &spec.episode.prompts;
    let input_dir = in_workspace("input folder", &prompts.input_dir)?;
    let output_dir = in_workspace("output folder", &prompts.output_dir)?;
    in_workspace("answer file", &prompts.answer_file)?;
    let sandbox = spec.sandbox.sandbox(runtime, spec.workspace)?;
    reference_layout(&sandbox)?;
    if !output_dir.is_empty() {
        sandbox
            .workspace()
            .dir()
            .create_dir_all(&output_dir)
            .map_err(|source| {
                SandboxError::Workspace(crate::workspace::WorkspaceError::File {
                    action: "create directory",
                    path: prompts.output_dir.clone(),
                    source,
                })
            })?;
    }
    for (name, content) in &spec.input_files {
        let rel = if input_dir.is_empty() {
            name.clone()
        } else {
            format!("{input_dir}/{}", name.trim_start_matches('/'))
        };
        sandbox.write_workspace_file(&rel, content)?;
    }
    let shell = Shell::new(Arc::new(sandbox), spec.sandbox.shell())?;
    let recorder =
        Recorder::start(&spec.record_dir, spec.header).map_err(|source| SetupError::Record {
            dir: spec.record_dir.clone(),
            source,
        })?;
    Ok(Episode::new(
        client,
        Toolbox::with_modes(shell, spec.episode.deviations.tools),
        spec.episode,
        recorder,
    ))
}
