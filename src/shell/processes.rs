//! The guest's commands (`subprocess`, `os.system`, `os.popen`, `shutil.which`), run in a
//! fresh in-process shell over the same sandbox: same workspace, limits, quota and network
//! policy, bounded by the Python call's deadline (see `runtime::procs`). A `python3` in that
//! shell may start commands again, down to [`MAX_DEPTH`] shells.

use std::sync::Arc;
use std::time::Duration;

use super::{CommandOutcome, Shell, ShellSettings};
use crate::runtime::procs::{BoxFuture, GuestProcesses, ProcessAnswer, ProcessRequest};
use crate::sandbox::Sandbox;

/// How many shells deep commands may be started: the episode's shell runs `python3`, whose
/// `subprocess` runs a shell (1), whose `python3` may start another (2), and so on.
pub const MAX_DEPTH: u32 = 3;

/// Runs a Python call's commands (one per call of the shell that started that `python3`).
#[derive(Debug)]
pub struct ShellProcesses {
    sandbox: Arc<Sandbox>,
    /// How deep the shell that started the `python3` is (0: the episode's).
    depth: u32,
}

impl ShellProcesses {
    pub(super) fn new(sandbox: Arc<Sandbox>, depth: u32) -> Self {
        ShellProcesses { sandbox, depth }
    }

    fn shell(&self, timeout: Duration) -> Result<Shell, String> {
        let settings = ShellSettings {
            timeout: timeout.max(Duration::from_millis(10)),
            ..ShellSettings::default()
        };
        Shell::at_depth(self.sandbox.clone(), settings, self.depth + 1).map_err(|e| e.to_string())
    }

    /// What `command -v NAME` says in a fresh shell, if it finds the command.
    async fn lookup(&self, name: &str) -> Option<String> {
        let mut shell = self.shell(Duration::from_secs(10)).ok()?;
        let r = shell
            .exec(&format!("command -v -- {}", quote(name)))
            .await
            .ok()?;
        let found = r.stdout.trim();
        (r.exit_code == 0 && !found.is_empty()).then(|| found.to_string())
    }
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
            let mut shell = match self.shell(request.timeout) {
                Ok(shell) => shell,
                Err(why) => return ProcessAnswer::Refused(why),
            };
            shell.stdin = Some(request.stdin);
            match shell.exec(&request.script).await {
                Ok(r) => ProcessAnswer::Done {
                    status: r.exit_code,
                    timed_out: r.outcome == CommandOutcome::Timeout,
                    stdout: r.stdout.into_bytes(),
                    stderr: r.stderr.into_bytes(),
                },
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
}
