//! The in-process bash behind `execute_bash`: a bashkit interpreter over the sandbox's
//! directories (cap-std backends mounted at `/testbed`, `/tmp` and `/root`), with `python3`
//! going to the WASM CPython. It never starts a host process. One shell per episode: `cd`,
//! variables and functions persist between calls.

mod cc;
mod commands;
mod fs;
mod git;
mod observation;
mod processes;
mod waits;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bashkit::{Bash, BashBuilder, ExecutionLimits, NetworkAllowlist, PosixFs, SessionLimits};

pub use crate::sandbox::NetworkPolicy;
pub(crate) use observation::strip_terminal_codes;
pub use observation::{ObservationFormat, TRUNCATION_NOTE, observation, timeout_text};

use crate::runtime::executor;
use crate::sandbox::{GUEST_HOME, GUEST_TMP, GUEST_WORKSPACE, Sandbox};
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
}

/// A failure of the host under a shell call (not the script's): the episode cannot go on, and
/// the model is not told it was its own fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the sandbox failed on the host side: {0}")]
pub struct ShellFault(pub String);

/// bashkit's allow-list for the sandbox's policy.
fn allowlist(policy: &NetworkPolicy) -> NetworkAllowlist {
    let mut list = NetworkAllowlist::new();
    for h in policy.hosts() {
        list = list
            .allow(format!("http://{h}"))
            .allow(format!("https://{h}"));
    }
    // Addresses are filtered per name by the sandbox's door, which carries every request
    // (`Sandbox::shell_transport`).
    list.block_private_ips(false)
}

/// What one level of shell nesting (a function call, `source`, `eval`, `$(...)`, `( ... )`,
/// `bash -c`) costs the host, at most: the interpreter's frames for it (moved to heap stack
/// segments past the thread's stack), its call frame and its copy of the positional
/// parameters. The nesting limit, all kinds together, is the memory limit over this.
pub const FUNCTION_LEVEL_BYTES: u64 = 64 << 10;

/// bashkit's limits for a shell in a sandbox with `memory` bytes: no cap of bashkit's own on
/// data, lines, loop iterations or commands; what a call holds at once (pipe buffers, captured
/// output, collected input, variables, arrays) and how deep functions nest are bounded by the
/// sandbox's memory limit, and the call by its deadline (docs/shell.md lists every limit).
fn shell_limits(memory: u64, timeout: Duration) -> (ExecutionLimits, bashkit::MemoryLimits) {
    let bytes = usize::try_from(memory).unwrap_or(usize::MAX);
    let depth = usize::try_from(memory / FUNCTION_LEVEL_BYTES).unwrap_or(usize::MAX);
    let limits = ExecutionLimits::new()
        .max_commands(usize::MAX)
        .max_loop_iterations(usize::MAX)
        .max_total_loop_iterations(usize::MAX)
        .max_work_units(u64::MAX)
        .max_aggregate_input_bytes(u64::MAX)
        .max_live_intermediate_bytes(memory)
        .max_word_split_fields(usize::MAX)
        .max_word_split_bytes(bytes)
        .max_function_depth(depth.max(1))
        .max_subst_depth(depth.max(1))
        .max_subshell_depth(depth.max(1))
        .max_nesting_levels(depth.max(1))
        // The parser: no fuel cap (a 30,000-line script is ~100,000 operations), the call's
        // deadline, and no refusal of a script for its shape (commands, loop nesting, brace
        // ranges): the deadline and the memory limit bound what it does.
        .max_parser_operations(usize::MAX)
        .parser_timeout(timeout)
        .static_budget_checks(false)
        .timeout(timeout)
        .max_stdout_bytes(bytes)
        .max_stderr_bytes(bytes);
    // Variables: bytes are charged as they are set; a count costs at least ~64 bytes each.
    let memory_limits = bashkit::MemoryLimits::new()
        .max_total_variable_bytes(bytes)
        .max_variable_count(bytes / 64)
        .max_array_entries(bytes / 64)
        .max_function_count(bytes / 1024)
        .max_function_body_bytes(bytes);
    (limits, memory_limits)
}

/// Settings of one shell. Defaults match the reference system where it has one. The disk quota
/// and the network policy are the sandbox's ([`Sandbox::quota`], [`Sandbox::network`]).
#[derive(Debug, Clone)]
pub struct ShellSettings {
    /// Wall-clock limit per `exec` call. Default 120 s.
    pub timeout: Duration,
    /// Bytes of each stream kept from a call that a limit or error ended (its partial
    /// output). Default 8 MiB. A call that completes keeps all its output (bounded by the
    /// sandbox's memory); only the model's observation is cut, as the reference cuts it.
    pub max_output_bytes: usize,
}

impl Default for ShellSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            max_output_bytes: 8 << 20,
        }
    }
}

/// How a shell call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommandOutcome {
    /// The script ran to its end (any exit code).
    Completed,
    /// The per-call time limit passed (exit code 124). The output up to then is kept here;
    /// the model's observation says only that the command took too long, as the reference's.
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
    /// The per-call time limit that applied (the observation of a timeout names it).
    pub timeout: Duration,
}

/// One episode's shell.
pub struct Shell {
    /// Locked by the task running a call on the sandbox threads, which keeps it even when the
    /// caller stops waiting (the call is interrupted instead and the shell stays whole); the
    /// next call waits for it. `None` only if building it failed half-way.
    bash: Arc<tokio::sync::Mutex<Option<Bash>>>,
    settings: ShellSettings,
    sandbox: Arc<Sandbox>,
    /// Host failures met by builtins during the current call (e.g. no Python instance).
    faults: Arc<Mutex<Option<String>>>,
    /// The deadline of the current `exec_within` call when it is shorter than the shell's.
    call_deadline: Arc<Mutex<Option<Instant>>>,
    interrupter: Interrupter,
    /// Calls started (and ended) so far: a per-call timer fires only into its own call.
    calls: Arc<std::sync::atomic::AtomicU64>,
    /// When set, every call starts from this state (the reference's fresh `bash -c` in
    /// `/testbed`: `cd`, variables, functions and aliases do not carry over; files do).
    fresh: Option<Arc<bashkit::ShellState>>,
    /// What the next call's commands read on stdin (a guest's `subprocess` input).
    stdin: Option<Vec<u8>>,
}

/// Stops the call a [`Shell`] is running from outside it (e.g. the client that asked for it
/// went away): the script stops at its next command boundary, and a command that waits is
/// stopped at once (`python3`, `pip`, `sleep`; `curl` and `wget` within 10 ms); the call then
/// ends with a [`ShellFault`] and the shell stays usable.
/// Cheap to clone; get it before the call starts ([`Shell::interrupter`]).
#[derive(Clone)]
pub struct Interrupter {
    /// bashkit's own cancellation flag (checked between commands).
    cancel: Arc<std::sync::atomic::AtomicBool>,
    /// Seen by a running `python3`, `pip` or `sleep` (also sent when the per-call limit
    /// passes).
    python: Arc<tokio::sync::watch::Sender<bool>>,
    stopped: Arc<std::sync::atomic::AtomicBool>,
}

impl std::fmt::Debug for Interrupter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interrupter")
            .field("stopped", &self.stopped)
            .finish_non_exhaustive()
    }
}

impl Interrupter {
    /// Stop the current call (no effect when none runs; the next call resets it).
    pub fn interrupt(&self) {
        use std::sync::atomic::Ordering::SeqCst;
        self.stopped.store(true, SeqCst);
        // The interpreter's flag first, so it sees it before a stopped `python3` returns.
        self.cancel.store(true, SeqCst);
        self.python.send_replace(true);
    }

    fn reset(&self) {
        use std::sync::atomic::Ordering::SeqCst;
        self.stopped.store(false, SeqCst);
        self.python.send_replace(false);
        self.cancel.store(false, SeqCst);
    }

    fn stopped(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl std::fmt::Debug for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shell")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// Where a `python3` run directly on `sandbox` (no shell under it: `exec -- python3`,
/// `/run_code`, the session and MCP python calls) sends its `subprocess`/`os.system` commands:
/// each to a fresh in-process shell over the same sandbox, as from the episode's shell (same
/// limits, quota, network policy, the call's deadline, and nesting bound). Cheap: no shell is
/// made until the program starts a command.
pub fn guest_commands(sandbox: &Arc<Sandbox>) -> Arc<dyn crate::runtime::procs::GuestProcesses> {
    Arc::new(processes::ShellProcesses::new(sandbox.clone(), 0))
}

impl Shell {
    /// A shell over `sandbox`: `/testbed` (the working directory) and `/tmp` are the sandbox's
    /// directories; everything else (`/etc`, `/bin`, ...) is bashkit's virtual, in-memory system.
    ///
    /// # Errors
    /// [`ShellError::Mount`] when the directories cannot be shared.
    pub fn new(sandbox: Arc<Sandbox>, settings: ShellSettings) -> Result<Shell, ShellError> {
        Shell::at_depth(sandbox, settings, 0)
    }

    /// bashkit's builder with the shell's identity, working directory, limits (the
    /// settings' timeout and the sandbox's memory, see [`shell_limits`]), network and
    /// environment; no builtins of ours yet.
    fn base_builder(sandbox: &Sandbox, settings: &ShellSettings) -> BashBuilder {
        let (limits, memory) = shell_limits(sandbox.limits().memory_bytes, settings.timeout);
        let mut b = Bash::builder()
            .memory_limits(memory)
            .username("root")
            .hostname(crate::runtime::linux_files::HOSTNAME)
            .cwd(GUEST_WORKSPACE)
            .limits(limits)
            .session_limits(SessionLimits::unlimited())
            .network(allowlist(sandbox.network()))
            .http_transport(sandbox.shell_transport());
        for (k, v) in sandbox.env() {
            b = b.env(k, v);
        }
        // The same /etc and /proc texts Python reads (runtime/linux_files.rs).
        let memory = sandbox.limits().memory_bytes;
        for (path, text) in crate::runtime::linux_files::shell_files(memory) {
            b = b.mount_readonly_text(path, text);
        }
        b
    }

    /// A shell for commands that a `python3` started `depth` shells deep (0: the episode's).
    fn at_depth(
        sandbox: Arc<Sandbox>,
        settings: ShellSettings,
        depth: u32,
    ) -> Result<Shell, ShellError> {
        // The sandbox's own directory handles, shared: no extra file descriptors per shell.
        let ws = sandbox.workspace_shared();
        let tmp = sandbox.scratch_shared();
        let home = sandbox.home_shared();
        let quota = sandbox.quota().clone();
        let pip = PipCommand::shared(sandbox.runtime());
        let faults = Arc::new(Mutex::new(None));
        let call_deadline = Arc::new(Mutex::new(None));
        let call_cancel = Arc::new(std::sync::OnceLock::new());
        let stop = Arc::new(tokio::sync::watch::Sender::new(false));
        let mut b = Shell::base_builder(&sandbox, &settings);
        let python = || {
            Box::new(PythonCommand {
                sandbox: sandbox.clone(),
                pip: pip.clone(),
                faults: faults.clone(),
                call_deadline: call_deadline.clone(),
                interrupt: stop.clone(),
                processes: Arc::new(processes::ShellProcesses::new(sandbox.clone(), depth)),
                call_cancel: call_cancel.clone(),
            })
        };
        b = b
            .builtin("python3", python())
            .builtin("python", python())
            .builtin("python3.15", python())
            .builtin(
                "pip",
                Box::new(Pip(pip.clone(), sandbox.clone(), stop.clone())),
            )
            .builtin(
                "pip3",
                Box::new(Pip(pip.clone(), sandbox.clone(), stop.clone())),
            );
        b = b
            .builtin("sleep", Box::new(waits::Sleep(stop.clone())))
            .builtin("id", Box::new(commands::Id))
            .builtin("whoami", Box::new(commands::Whoami))
            .builtin(
                "git",
                Box::new(git::Git {
                    timeout: settings.timeout,
                }),
            );
        let toolchain = cc::Toolchain {
            sandbox: sandbox.clone(),
            call_deadline: call_deadline.clone(),
            interrupt: stop.clone(),
        };
        b = cc::register(b, &toolchain);
        for (name, reason) in UNAVAILABLE {
            b = b.builtin(*name, Box::new(Unavailable { name, reason }));
        }
        let bash = b.build();
        let _ = call_cancel.set(bash.cancellation_token());
        let interrupter = Interrupter {
            cancel: bash.cancellation_token(),
            python: stop,
            stopped: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        };
        let memory = sandbox.limits().memory_bytes;
        let mount = |path: &'static str, dir: Arc<crate::lazy_dir::LazyDir>| {
            let fs = PosixFs::new(CapFs::new(dir, quota.clone(), memory));
            bash.mount(path, Arc::new(fs))
                .map_err(|e| ShellError::Mount {
                    path,
                    detail: e.to_string(),
                })
        };
        mount(GUEST_WORKSPACE, ws)?;
        mount(GUEST_TMP, tmp)?;
        mount(GUEST_HOME, home)?;
        Ok(Shell {
            bash: Arc::new(tokio::sync::Mutex::new(Some(bash))),
            settings,
            sandbox,
            faults,
            call_deadline,
            interrupter,
            calls: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            fresh: None,
            stdin: None,
        })
    }

    /// Start every later call from the shell's state as it is now (`true`: the reference's
    /// fresh `bash -c` per command), or let state carry over from call to call (`false`, the
    /// default). Call it between calls, typically right after [`Shell::new`].
    pub fn set_fresh_per_call(&mut self, on: bool) {
        self.fresh = if on {
            self.bash
                .try_lock()
                .ok()
                .and_then(|b| b.as_ref().map(|b| Arc::new(b.shell_state())))
        } else {
            None
        };
    }

    /// Whether every call starts from the same state ([`Shell::set_fresh_per_call`]).
    pub fn fresh_per_call(&self) -> bool {
        self.fresh.is_some()
    }

    /// The sandbox under this shell.
    pub fn sandbox(&self) -> &Arc<Sandbox> {
        &self.sandbox
    }

    /// A handle that stops the call this shell runs (see [`Interrupter`]).
    pub fn interrupter(&self) -> Interrupter {
        self.interrupter.clone()
    }

    /// The settings.
    pub fn settings(&self) -> &ShellSettings {
        &self.settings
    }

    /// Run a script on the sandbox threads. Limits, timeouts and syntax errors are results.
    ///
    /// # Errors
    /// [`ShellFault`] when the host failed under the script (a Python instance could not be
    /// had, a panic in our code): the episode should end rather than show this to the model.
    pub async fn exec(&mut self, script: &str) -> Result<CommandResult, ShellFault> {
        self.exec_streaming(script, None).await
    }

    /// The shell's current directory (a guest path).
    pub fn cwd(&self) -> String {
        // Between calls the lock is free; during one (only possible after its caller stopped
        // waiting) the directory is not known yet.
        self.bash
            .try_lock()
            .ok()
            .and_then(|b| {
                b.as_ref()
                    .map(|b| b.shell_state_view().cwd.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| GUEST_WORKSPACE.to_string())
    }

    /// [`Shell::exec`], also handing each piece of output to `sink` (stdout, stderr) as the
    /// script produces it (the result still holds all of it).
    ///
    /// # Errors
    /// As [`Shell::exec`].
    pub async fn exec_streaming(
        &mut self,
        script: &str,
        sink: Option<OutputSink>,
    ) -> Result<CommandResult, ShellFault> {
        self.exec_within(script, sink, None).await
    }

    /// [`Shell::exec_streaming`] with a shorter time limit for this call only (`None` or a
    /// longer one: the shell's own). The shorter limit stops the script at its next command
    /// boundary and a command waiting in it at once (see [`Interrupter`]); a `python3` inside
    /// is given only what is left of it.
    ///
    /// # Errors
    /// As [`Shell::exec`].
    pub async fn exec_within(
        &mut self,
        script: &str,
        sink: Option<OutputSink>,
        limit: Option<Duration>,
    ) -> Result<CommandResult, ShellFault> {
        self.exec_holding(script, sink, limit, None).await
    }

    /// [`Shell::exec_within`], keeping `hold` (e.g. an admission permit) until the call has
    /// really ended, even when the caller stops waiting for it first.
    ///
    /// # Errors
    /// As [`Shell::exec`].
    pub async fn exec_holding(
        &mut self,
        script: &str,
        sink: Option<OutputSink>,
        limit: Option<Duration>,
        hold: Option<Box<dyn std::any::Any + Send>>,
    ) -> Result<CommandResult, ShellFault> {
        use std::sync::atomic::Ordering::SeqCst;
        let started = Instant::now();
        // Waits for a call whose caller stopped waiting to end (it was interrupted).
        let mut slot = self.bash.clone().lock_owned().await;
        let cancel = slot
            .as_ref()
            .map(Bash::cancellation_token)
            .ok_or_else(|| ShellFault("the shell was lost by an earlier failure".into()))?;
        let cap = self.settings.max_output_bytes;
        let source = script;
        let script = script.to_string();
        let stdin = self.stdin.take();
        let limit = limit.filter(|l| *l < self.settings.timeout);
        self.interrupter.reset();
        // A failure left by a call nobody waited for belongs to that call.
        lock(&self.faults).take();
        let fired = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let began = Instant::now();
        *lock(&self.call_deadline) = limit.map(|l| began + l);
        // The timer runs beside the call (a busy script never yields to a timer of its own
        // task) and fires only into the call it was made for.
        let call_no = self.calls.fetch_add(1, SeqCst) + 1;
        let timer = limit.map(|l| self.start_call_timer(l, call_no, cancel, fired.clone()));
        // Not aborted when this future is dropped (that would lose the shell's state with
        // the task): the guard interrupts the call and the task puts the shell back.
        let mut guard = CallGuard {
            interrupter: None,
            timer,
            calls: self.calls.clone(),
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        let fresh = self.fresh.clone();
        let command_string = self.fresh.is_some();
        executor::detach(async move {
            let r = match slot.as_mut() {
                Some(bash) => {
                    if let Some(state) = &fresh {
                        bash.restore_shell_state(state);
                    }
                    run_script(bash, &script, cap, sink, stdin, command_string).await
                }
                None => (Err(bashkit::Error::Cancelled), (Vec::new(), Vec::new())),
            };
            drop(slot);
            drop(hold);
            let _ = tx.send(r);
        })
        .map_err(|e| ShellFault(e.to_string()))?;
        guard.interrupter = Some(self.interrupter.clone());
        let ran = rx.await;
        guard.interrupter = None;
        drop(guard);
        *lock(&self.call_deadline) = None;
        let interrupted = self.interrupter.stopped();
        self.interrupter.reset();
        let (run, partial) =
            ran.map_err(|_| ShellFault("the shell's call panicked on the sandbox threads".into()))?;
        if interrupted {
            lock(&self.faults).take();
            return Err(ShellFault("the call was interrupted".into()));
        }
        let timeout = limit.unwrap_or(self.settings.timeout);
        // A `python3` given what was left of the limit may end the script a moment before
        // the timer fires: past the limit is a timeout all the same.
        if fired.load(SeqCst) || limit.is_some_and(|l| began.elapsed() >= l) {
            // Past the per-call limit: a timeout, however the script ended after it.
            lock(&self.faults).take();
            let (out, err) = partial;
            return Ok(CommandResult {
                exit_code: 124,
                stdout: String::from_utf8_lossy(&out).into_owned(),
                stderr: String::from_utf8_lossy(&err).into_owned(),
                outcome: CommandOutcome::Timeout,
                duration: started.elapsed(),
                timeout,
            });
        }
        if let Some(fault) = lock(&self.faults).take() {
            return Err(ShellFault(fault));
        }
        Ok(self.command_result(run, partial, source, started.elapsed()))
    }

    /// What bash's syntax-error reports start with: `bash -c`'s `bash: -c` for a shell that
    /// starts every call afresh (the reference's `docker exec bash -c`), `bash` (a shell
    /// reading its commands) for a persistent one.
    fn syntax_name(&self) -> &'static str {
        if self.fresh.is_some() {
            "bash: -c"
        } else {
            "bash"
        }
    }

    /// The timer of a call with its own time limit: it runs beside the call (a busy script
    /// never yields to a timer of its own task) and, once `limit` passes, stops the script
    /// (`cancel`) and the `python3` inside it, marking `fired`, but only if call `call_no` is
    /// still the current one.
    fn start_call_timer(
        &self,
        limit: Duration,
        call_no: u64,
        cancel: Arc<std::sync::atomic::AtomicBool>,
        fired: Arc<std::sync::atomic::AtomicBool>,
    ) -> tokio::task::AbortHandle {
        use std::sync::atomic::Ordering::SeqCst;
        let (stop, calls) = (self.interrupter.python.clone(), self.calls.clone());
        tokio::spawn(async move {
            tokio::time::sleep(limit).await;
            if calls.load(SeqCst) == call_no {
                fired.store(true, SeqCst);
                cancel.store(true, SeqCst);
                stop.send_replace(true);
            }
        })
        .abort_handle()
    }

    /// What a call that ran to its end (or stopped on its own) shows: its output, or for a
    /// bash error the partial output and the error on stderr, with bash's exit code.
    /// The line that says which of the sandbox's limits an interpreter error comes from
    /// (empty for other errors).
    fn limit_note(&self, error: &bashkit::Error) -> String {
        let bashkit::Error::ResourceLimit(limit) = error else {
            return String::new();
        };
        match limit {
            bashkit::LimitExceeded::ExecutionBudget(
                bashkit::ExecutionBudgetExceeded::LiveBytes { limit, .. },
            ) => format!(
                "bash: the command held more data at once than the sandbox's memory limit \
                 allows ({} MiB)\n",
                limit >> 20
            ),
            bashkit::LimitExceeded::MaxFunctionDepth(levels)
            | bashkit::LimitExceeded::MaxSubstDepth(levels)
            | bashkit::LimitExceeded::MaxSubshellDepth(levels)
            | bashkit::LimitExceeded::MaxNestingLevels(levels) => format!(
                "bash: functions, $(...) and subshells nested past what the sandbox's memory \
                 limit allows ({} MiB: {levels} levels of {} KiB)\n",
                self.sandbox.limits().memory_bytes >> 20,
                FUNCTION_LEVEL_BYTES >> 10
            ),
            _ => String::new(),
        }
    }

    fn command_result(
        &self,
        run: bashkit::Result<bashkit::ExecResult>,
        partial: Partial,
        source: &str,
        duration: Duration,
    ) -> CommandResult {
        match run {
            // Output past the memory limit was cut: an error, never exit 0 with part of it.
            Ok(r) if r.stdout_truncated || r.stderr_truncated => {
                let why = format!(
                    "the call's output passed the sandbox's memory limit ({} MiB) and was cut",
                    self.sandbox.limits().memory_bytes >> 20
                );
                let mut stderr = r.stderr.text_lossy().into_owned();
                stderr.push_str(&format!("bash: {why}\n"));
                CommandResult {
                    exit_code: 1,
                    stdout: r.stdout.text_lossy().into_owned(),
                    stderr,
                    outcome: CommandOutcome::LimitExceeded(why),
                    duration,
                    timeout: self.settings.timeout,
                }
            }
            Ok(r) => CommandResult {
                exit_code: r.exit_code,
                stdout: r.stdout.text_lossy().into_owned(),
                stderr: r.stderr.text_lossy().into_owned(),
                outcome: CommandOutcome::Completed,
                duration,
                timeout: self.settings.timeout,
            },
            Err(e) => {
                let (out, err) = partial;
                let mut stderr = String::from_utf8_lossy(&err).into_owned();
                let (exit_code, outcome) = match &e {
                    bashkit::Error::ResourceLimit(bashkit::LimitExceeded::Timeout(_)) => {
                        (124, CommandOutcome::Timeout)
                    }
                    bashkit::Error::Parse { .. } => {
                        // As bash words it: `bash: -c: line 1: syntax error near ...`, then
                        // the offending line.
                        let who = self.syntax_name();
                        stderr.push_str(
                            &e.syntax_report(who, source)
                                .unwrap_or_else(|| format!("{who}: syntax error: {e}\n")),
                        );
                        (2, CommandOutcome::SyntaxError)
                    }
                    other => {
                        stderr.push_str(&format!("bash: {other}\n"));
                        stderr.push_str(&self.limit_note(other));
                        (1, CommandOutcome::LimitExceeded(other.to_string()))
                    }
                };
                CommandResult {
                    exit_code,
                    stdout: String::from_utf8_lossy(&out).into_owned(),
                    stderr,
                    outcome,
                    duration,
                    timeout: self.settings.timeout,
                }
            }
        }
    }
}

/// Ends a shell call's helpers: its timer always (and any late firing of it, by moving the
/// call count on), and the call itself (interrupted) when the caller stopped waiting for it.
struct CallGuard {
    interrupter: Option<Interrupter>,
    timer: Option<tokio::task::AbortHandle>,
    calls: Arc<std::sync::atomic::AtomicU64>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        if let Some(t) = self.timer.take() {
            t.abort();
        }
        if let Some(i) = self.interrupter.take() {
            i.interrupt();
        } else {
            self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Output printed before a limit stopped the script (bashkit drops it on error).
type Partial = (Vec<u8>, Vec<u8>);

/// Receives output as a script produces it: (stdout piece, stderr piece).
pub type OutputSink = Box<dyn FnMut(&[u8], &[u8]) + Send + Sync>;

async fn run_script(
    bash: &mut Bash,
    script: &str,
    cap: usize,
    mut extra: Option<OutputSink>,
    stdin: Option<Vec<u8>>,
    command_string: bool,
) -> (bashkit::Result<bashkit::ExecResult>, Partial) {
    let partial = Arc::new(Mutex::new((Vec::<u8>::new(), Vec::<u8>::new())));
    let sink = partial.clone();
    let callback: bashkit::OutputCallback = Box::new(move |out, err| {
        if let Some(f) = extra.as_mut() {
            f(out.as_bytes(), err.as_bytes());
        }
        let mut p = lock(&sink);
        let room = cap.saturating_sub(p.0.len());
        p.0.extend_from_slice(&out.as_bytes()[..out.as_bytes().len().min(room)]);
        let room = cap.saturating_sub(p.1.len());
        p.1.extend_from_slice(&err.as_bytes()[..err.as_bytes().len().min(room)]);
    });
    let mut options = bashkit::ExecOptions::new().streaming(callback);
    if command_string {
        // As the reference's `bash -c`: its syntax-error wording, and a fatal expansion
        // error ends the command with 127.
        options = options.command_string();
    }
    if let Some(stdin) = stdin {
        options = options.stdin(stdin);
    }
    let run = bash.exec_with_options(script, options).await;
    let partial = std::mem::take(&mut *lock(&partial));
    (run, partial)
}
