//! The guest's commands (`subprocess`, `os.system`, `os.popen`, `shutil.which`), run in a
//! fresh in-process shell over the same sandbox: same workspace, limits, quota and network
//! policy, bounded by the Python call's deadline (see `runtime::procs`). A `python3` in that
//! shell may start commands again, down to [`MAX_DEPTH`] shells.
//!
//! Also what the guest's `os.stat`/`os.chmod` read and set (the host's permission bits of the
//! sandbox's files, by the shell's `chmod` rule), and how a program that ended by a signal's
//! default action is reported to the program that started it (`returncode` `-N`).

use std::cell::RefCell;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::{CommandOutcome, Shell, ShellSettings};
use crate::lazy_dir::LazyDir;
use crate::runtime::procs::{BoxFuture, GuestProcesses, ProcessAnswer, ProcessRequest};
use crate::sandbox::{GUEST_HOME, GUEST_TMP, GUEST_WORKSPACE, Sandbox};

/// How many shells deep commands may be started: the episode's shell runs `python3`, whose
/// `subprocess` runs a shell (1), whose `python3` may start another (2), and so on.
pub const MAX_DEPTH: u32 = 3;

/// The first line of a guest's script for a command given as an argument list
/// (`linux_box/commands.py`): on Linux no shell stands between that program and Python.
const NO_SHELL: &str = "#lis:no-shell\n";

/// Where a program run in a command's shell says it ended by a signal (the last one wins).
#[derive(Debug, Default)]
struct SignalReport(Mutex<Option<i32>>);

impl SignalReport {
    fn set(&self, signal: i32) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(signal);
    }

    fn take(&self) -> Option<i32> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

thread_local! {
    /// The report of the command whose shell is being built, set only around
    /// `Shell::at_depth` (synchronous): that shell's `python3` commands keep it.
    static BUILDING: RefCell<Option<Arc<SignalReport>>> = const { RefCell::new(None) };
}

/// Runs a Python call's commands (one per call of the shell that started that `python3`).
#[derive(Debug)]
pub struct ShellProcesses {
    sandbox: Arc<Sandbox>,
    /// How deep the shell that started the `python3` is (0: the episode's).
    depth: u32,
    /// When that shell runs a guest's command: where its programs report a signal's end.
    report: Option<Arc<SignalReport>>,
}

impl ShellProcesses {
    pub(super) fn new(sandbox: Arc<Sandbox>, depth: u32) -> Self {
        ShellProcesses {
            sandbox,
            depth,
            report: BUILDING.with(|b| b.borrow().clone()),
        }
    }

    fn shell(&self, timeout: Duration, report: Option<Arc<SignalReport>>) -> Result<Shell, String> {
        let settings = ShellSettings {
            timeout: timeout.max(Duration::from_millis(10)),
            ..ShellSettings::default()
        };
        let outer = BUILDING.with(|b| b.replace(report));
        let shell = Shell::at_depth(self.sandbox.clone(), settings, self.depth + 1);
        BUILDING.with(|b| *b.borrow_mut() = outer);
        shell.map_err(|e| e.to_string())
    }

    /// The sandbox folder holding the guest's absolute `path`, and the path beneath it.
    fn folder(&self, path: &str) -> Option<(Arc<LazyDir>, PathBuf)> {
        let roots = [
            (GUEST_WORKSPACE, self.sandbox.workspace_shared()),
            (GUEST_TMP, self.sandbox.scratch_shared()),
            (GUEST_HOME, self.sandbox.home_shared()),
        ];
        for (root, dir) in roots {
            let Some(rest) = path.strip_prefix(root) else {
                continue;
            };
            if !(rest.is_empty() || rest.starts_with('/')) {
                continue;
            }
            return beneath(rest).map(|rel| (dir, rel));
        }
        None
    }

    /// What `command -v NAME` says in a fresh shell, if it finds the command.
    async fn lookup(&self, name: &str) -> Option<String> {
        let mut shell = self.shell(Duration::from_secs(10), None).ok()?;
        let r = shell
            .exec(&format!("command -v -- {}", quote(name)))
            .await
            .ok()?;
        let found = r.stdout.trim();
        (r.exit_code == 0 && !found.is_empty()).then(|| found.to_string())
    }
}

/// A path below a folder's root as a relative path, if it is plain (no `..`: the guest sends
/// normalised absolute paths).
fn beneath(rest: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in Path::new(rest).components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

/// What bash prints for a command that a signal ended (glibc's `strsignal`), for the signals
/// whose default action ends a program; none for `SIGINT` and `SIGPIPE`, as bash.
pub(crate) fn signal_message(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "Hangup",
        3 => "Quit",
        4 => "Illegal instruction",
        5 => "Trace/breakpoint trap",
        6 => "Aborted",
        7 => "Bus error",
        8 => "Floating point exception",
        9 => "Killed",
        10 => "User defined signal 1",
        11 => "Segmentation fault",
        12 => "User defined signal 2",
        14 => "Alarm clock",
        15 => "Terminated",
        16 => "Stack fault",
        24 => "CPU time limit exceeded",
        25 => "File size limit exceeded",
        26 => "Virtual timer expired",
        27 => "Profiling timer expired",
        29 => "I/O possible",
        30 => "Power failure",
        31 => "Bad system call",
        _ => return None,
    })
}

/// The status and stderr a guest sees for a command that ended with `status`: a program given
/// as an argument list (no shell between, as `execve` on Linux) that a signal ended reports
/// `-N`, without the line bash would have printed about it.
fn as_seen(
    no_shell: bool,
    status: i32,
    signal: Option<i32>,
    mut stderr: Vec<u8>,
) -> (i32, Vec<u8>) {
    let Some(signal) = signal.filter(|s| no_shell && status == 128 + s) else {
        return (status, stderr);
    };
    if let Some(message) = signal_message(signal) {
        let line = format!("{message}\n");
        if stderr.ends_with(line.as_bytes()) {
            stderr.truncate(stderr.len() - line.len());
        }
    }
    (-signal, stderr)
}

/// `chmod` of `rel` beneath `dir`, by the shell's rule (`fs::guest_mode`).
fn set_mode(dir: &LazyDir, rel: &Path, mode: u32) -> std::io::Result<()> {
    use cap_std::fs::PermissionsExt;
    let dir = dir.get()?;
    let is_dir = dir.metadata(rel)?.is_dir();
    let perms = cap_std::fs::Permissions::from_mode(super::fs::guest_mode(mode, is_dir));
    dir.set_permissions(rel, perms)
}

/// `s` as one bash word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Where a command found by the shell lives, as a path (`shutil.which` returns one): the
/// shell's builtins stand for the programs of the reference's container.
fn as_path(name: &str, found: &str) -> String {
    match name {
        "python" | "python3" | "python3.15" | "pip" | "pip3" => format!("/usr/local/bin/{name}"),
        _ if found.contains('/') => found.to_string(),
        _ => format!("/usr/bin/{name}"),
    }
}

impl GuestProcesses for ShellProcesses {
    fn run(&self, request: ProcessRequest) -> BoxFuture<'_, ProcessAnswer> {
        Box::pin(async move {
            if self.depth >= MAX_DEPTH {
                return ProcessAnswer::Refused(format!(
                    "commands may be started at most {MAX_DEPTH} shells deep (python3 starting a \
                     shell that starts python3 ...); this one would be deeper"
                ));
            }
            if let Some(program) = &request.program
                && self.lookup(program).await.is_none()
            {
                return ProcessAnswer::NotFound;
            }
            let report = Arc::new(SignalReport::default());
            let mut shell = match self.shell(request.timeout, Some(report.clone())) {
                Ok(shell) => shell,
                Err(why) => return ProcessAnswer::Refused(why),
            };
            shell.stdin = Some(request.stdin);
            match shell.exec(&request.script).await {
                Ok(r) => {
                    let (status, stderr) = as_seen(
                        request.program.is_some() || request.script.starts_with(NO_SHELL),
                        r.exit_code,
                        report.take(),
                        r.stderr.into_bytes(),
                    );
                    ProcessAnswer::Done {
                        status,
                        timed_out: r.outcome == CommandOutcome::Timeout,
                        stdout: r.stdout.into_bytes(),
                        stderr,
                    }
                }
                Err(fault) => ProcessAnswer::Refused(fault.to_string()),
            }
        })
    }

    fn which(&self, name: String) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move {
            if name.is_empty() {
                return None;
            }
            let found = self.lookup(&name).await?;
            Some(as_path(&name, &found))
        })
    }

    fn file_mode(&self, path: &str, follow: bool) -> Option<u32> {
        use cap_std::fs::PermissionsExt;
        let (dir, rel) = self.folder(path)?;
        let dir = dir.get().ok()?;
        let meta = if follow {
            dir.metadata(&rel)
        } else {
            dir.symlink_metadata(&rel)
        };
        meta.ok().map(|m| m.permissions().mode() & 0o7777)
    }

    fn set_file_mode(&self, path: &str, mode: u32) -> Option<std::io::Result<()>> {
        let (dir, rel) = self.folder(path)?;
        Some(set_mode(&dir, &rel, mode))
    }

    fn ended_by_signal(&self, signal: i32) {
        if let Some(report) = &self.report {
            report.set(signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_and_builtins_get_paths() {
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(as_path("python3", "python3"), "/usr/local/bin/python3");
        assert_eq!(as_path("ls", "ls"), "/usr/bin/ls");
        assert_eq!(as_path("run.sh", "/testbed/run.sh"), "/testbed/run.sh");
    }

    #[test]
    fn a_signal_shows_as_minus_n_only_without_a_shell() {
        let err = b"out\nTerminated\n".to_vec();
        assert_eq!(
            as_seen(true, 143, Some(15), err.clone()),
            (-15, b"out\n".to_vec())
        );
        assert_eq!(
            as_seen(false, 143, Some(15), err.clone()),
            (143, err.clone())
        );
        assert_eq!(as_seen(true, 143, None, err.clone()), (143, err.clone()));
        assert_eq!(as_seen(true, 0, Some(15), err.clone()), (0, err.clone()));
        assert_eq!(
            as_seen(true, 130, Some(2), b"x".to_vec()),
            (-2, b"x".to_vec())
        );
    }

    #[test]
    fn guest_paths_stay_beneath_their_folder() {
        assert_eq!(beneath(""), Some(PathBuf::from(".")));
        assert_eq!(beneath("/a/b"), Some(PathBuf::from("a/b")));
        assert_eq!(beneath("/a/../b"), None);
    }
}
