//! Commands the guest starts (`subprocess`, `os.system`, `os.popen`, `shutil.which`): WASI has
//! no processes, so the guest hands the command line to the host door, and whoever runs the
//! Python call (the episode's shell) runs it in an in-process shell over the same sandbox:
//! same workspace, limits, quota, deadline and network policy; never a host process.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// One command from the guest.
#[derive(Debug, Clone)]
pub struct ProcessRequest {
    /// A bash script (the guest has already quoted an argument list).
    pub script: String,
    /// For an argument list: the program, which must exist (else the guest raises
    /// `FileNotFoundError`, as `execve` would fail on Linux).
    pub program: Option<String>,
    /// Bytes on the command's stdin.
    pub stdin: Vec<u8>,
    /// How long the command may take: the guest's own timeout, never more than what is left
    /// of the Python call's deadline.
    pub timeout: Duration,
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProcessAnswer {
    /// It ran (any exit status).
    Done {
        /// Exit status.
        status: i32,
        /// Standard output.
        stdout: Vec<u8>,
        /// Standard error.
        stderr: Vec<u8>,
        /// It was stopped at `timeout` (the output so far is kept).
        timed_out: bool,
    },
    /// The program of an argument list does not exist.
    NotFound,
    /// It was not run; the text says why (nesting too deep, no shell, host failure).
    Refused(String),
}

/// A boxed future, as trait objects need.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Runs the guest's commands. Implemented by the shell (`crate::shell`).
pub trait GuestProcesses: Send + Sync + std::fmt::Debug {
    /// Run one command.
    fn run(&self, request: ProcessRequest) -> BoxFuture<'_, ProcessAnswer>;
    /// Where `name` would be found (`shutil.which`), if anywhere.
    fn which(&self, name: String) -> BoxFuture<'_, Option<String>>;
    /// The permission bits (`0o777` and set-id/sticky, as the host keeps them) of the file at
    /// the guest's absolute `path`, following a final symbolic link when `follow` is set:
    /// WASI's `filestat` has no mode, so the guest's `os.stat` asks here. `None` when the path
    /// is not in one of the sandbox's folders or cannot be read (the guest keeps WASI's answer).
    fn file_mode(&self, path: &str, follow: bool) -> Option<u32> {
        let _ = (path, follow);
        None
    }
    /// Set the permission bits of the file at the guest's absolute `path` (the guest's
    /// `os.chmod`), by the same rule as the shell's `chmod`: no set-id or sticky bits, the
    /// owner's access kept. `None` when the path is not in one of the sandbox's folders.
    fn set_file_mode(&self, path: &str, mode: u32) -> Option<std::io::Result<()>> {
        let _ = (path, mode);
        None
    }
    /// The program ended itself by `signal` (a default action of `os.kill` and the like): the
    /// shell that started it may report it as a signal, not as the status `128 + signal`.
    fn ended_by_signal(&self, signal: i32) {
        let _ = signal;
    }
}
