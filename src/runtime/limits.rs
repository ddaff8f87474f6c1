//! Per-run limits and what a run produced.

use std::time::{Duration, Instant};

use super::Invocation;

/// Limits for one run. Defaults: 120 s wall clock (like the reference system), 2 GiB of
/// linear memory, 8 MiB kept per output stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock deadline; also stops a guest blocked in `time.sleep`.
    pub timeout: Duration,
    /// Cap on the guest's linear memory in bytes (at most 4 GiB, the wasm32 maximum).
    pub memory_bytes: u64,
    /// Bytes kept per stream (stdout, stderr); the rest is counted and dropped.
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            memory_bytes: 2 << 30,
            output_bytes: 8 << 20,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The program exited (any exit code).
    Exited,
    /// The wall-clock deadline passed; the guest was stopped (exit code 124, like `timeout`).
    Deadline,
    /// The guest asked for more memory than the cap allowed (it usually then fails with
    /// `MemoryError`, exit code 1).
    MemoryLimit,
    /// The program exited but wrote more than the output cap; the rest was dropped.
    OutputTruncated,
    /// The guest trapped (a WebAssembly fault, e.g. stack overflow in native code); exit code
    /// 134. The message says what trapped.
    Trap(String),
}

/// The result of one run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Exit status as a shell sees it.
    pub exit_code: i32,
    /// Captured stdout (at most `Limits::output_bytes`).
    pub stdout: Vec<u8>,
    /// Captured stderr (at most `Limits::output_bytes`).
    pub stderr: Vec<u8>,
    /// Bytes of stdout dropped past the cap.
    pub stdout_dropped: u64,
    /// Bytes of stderr dropped past the cap.
    pub stderr_dropped: u64,
    /// Wall-clock time of the run, instance creation included.
    pub duration: Duration,
    /// Largest linear memory size the guest reached, in bytes.
    pub peak_memory_bytes: u64,
    /// How it ended.
    pub outcome: Outcome,
}

impl RunResult {
    /// `python3 --version` / `--help`, answered on the host.
    pub(crate) fn usage(inv: Invocation, started: Instant) -> RunResult {
        let text = match inv {
            Invocation::Version => "Python 3.15.0\n".to_string(),
            _ => "usage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ...\n\
                  Python 3.15.0 compiled to WebAssembly, running inside llm-in-sandbox.\n\
                  -c cmd : program passed in as string\n\
                  -m mod : run library module as a script\n\
                  file   : program read from script file\n\
                  -      : program read from stdin (default when no file is given)\n"
                .to_string(),
        };
        RunResult {
            exit_code: 0,
            stdout: text.into_bytes(),
            stderr: Vec::new(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            duration: started.elapsed(),
            peak_memory_bytes: 0,
            outcome: Outcome::Exited,
        }
    }

    /// stdout as text (lossy UTF-8).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr as text (lossy UTF-8).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Enforces the memory cap and records the peak and whether the cap was hit. Also holds the
/// program's own, lower cap (`resource.setrlimit(RLIMIT_AS, ...)` through the host door): an
/// allocation past it fails (`MemoryError`) without counting as the sandbox's limit hit.
#[derive(Debug)]
pub(super) struct MemoryLimiter {
    limit: u64,
    peak: u64,
    denied: bool,
    /// The program's own cap, at most `limit` (`None`: none set).
    cap: Option<u64>,
    /// When the call's store was made (the call's CPU and uptime figures count from here).
    started: Instant,
}

impl MemoryLimiter {
    pub(super) fn new(limit: u64) -> Self {
        Self {
            limit,
            peak: 0,
            denied: false,
            cap: None,
            started: Instant::now(),
        }
    }
    pub(super) fn peak(&self) -> u64 {
        self.peak
    }
    pub(super) fn denied(&self) -> bool {
        self.denied
    }
    /// The sandbox's memory limit, in bytes.
    pub(super) fn limit(&self) -> u64 {
        self.limit
    }
    /// The program's own cap (`None`: the sandbox's limit only).
    pub(super) fn cap(&self) -> Option<u64> {
        self.cap
    }
    /// Set or clear the program's own cap; a cap above the sandbox's limit is that limit.
    pub(super) fn set_cap(&mut self, cap: Option<u64>) {
        self.cap = cap.map(|c| c.min(self.limit));
    }
    /// When the call began.
    pub(super) fn started(&self) -> Instant {
        self.started
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let desired = desired as u64;
        if desired > self.limit || maximum.is_some_and(|m| desired > m as u64) {
            self.denied = true;
            self.peak = self.peak.max(current as u64);
            return Ok(false);
        }
        if self.cap.is_some_and(|cap| desired > cap) {
            // The program's own limit: the allocation fails as under RLIMIT_AS on Linux.
            self.peak = self.peak.max(current as u64);
            return Ok(false);
        }
        self.peak = self.peak.max(desired);
        Ok(true)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.denied = true;
        Ok(())
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(maximum.is_none_or(|m| desired <= m) && desired <= 1_000_000)
    }
}
