//! One call: a fresh instance in a free slot, its WASI context and limits, the code run
//! through the snapshot's `turn` export under the deadline, and its outcome.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::Store;
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::pipe::MemoryInputPipe;
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

use super::driver::request_frame;
use super::phases::{Phase, PhaseCounters};
use super::{
    GuestState, Limits, MemoryLimiter, Outcome, RunRequest, RunResult, Runtime, RuntimeError,
    executor, io, layout,
};

/// What `turn` came back with: its raw result, a trap or exit, or the deadline passing.
pub(super) type TurnOutcome = Result<wasmtime::Result<i32>, tokio::time::error::Elapsed>;

impl Runtime {
    /// Run one `python3` command in a fresh instance, on the sandbox threads (see
    /// [`executor`]). When every instance slot is busy, the call waits for one (up to its
    /// deadline).
    ///
    /// # Errors
    /// Only host-side failures ([`RuntimeError::Busy`], [`RuntimeError::Instantiate`], ...);
    /// everything the guest does (exceptions, exit codes, deadline, memory cap, traps) is a
    /// [`RunResult`].
    pub async fn run(self: &Arc<Self>, req: RunRequest) -> Result<RunResult, RuntimeError> {
        let this = self.clone();
        executor::spawn(async move { this.run_here(req).await }).await?
    }

    pub(super) async fn run_here(&self, req: RunRequest) -> Result<RunResult, RuntimeError> {
        let started = Instant::now();
        let Some(request) = request_frame(&req)? else {
            return Ok(RunResult::usage(req.invocation, started));
        };
        let code = self.driver_call().await?;
        let result = self.turn(&code, &req, Some(request), started).await;
        // Overwrites and deletions are not seen live: re-measure the quota's directories
        // exactly, here on the sandbox threads, whatever the call's outcome, unless the call
        // did nothing that changes what is on disk (most short calls: the walk was ~20 us of
        // a `print(1)`).
        let touched_disk = result.as_ref().map_or(true, |(_, touched)| *touched);
        if let Some(q) = &req.quota
            && touched_disk
        {
            q.refresh();
        }
        let (mut result, _) = result?;
        result.duration = started.elapsed();
        Ok(result)
    }

    /// The guest's WASI context: argv, env, stdio, and the preopens in the layout's fd order.
    fn wasi_ctx(
        &self,
        req: &RunRequest,
        stdout: &io::CappedOutput,
        stderr: &io::CappedOutput,
    ) -> WasiP1Ctx {
        let mut b = WasiCtxBuilder::new();
        // Must come before the preopens, or file access is much slower (runtime.md).
        b.allow_blocking_current_thread(true);
        b.args(&[layout::ARGV0]);
        b.envs(&req.env);
        b.stdin(MemoryInputPipe::new(req.stdin.clone()));
        b.stdout(stdout.clone());
        b.stderr(stderr.clone());
        // Every preopen shares a descriptor someone already holds (the runtime its library
        // folders, the sandbox its own): a call opens no file descriptor for them.
        let preopen = |b: &mut WasiCtxBuilder, dir: &Arc<cap_std::fs::Dir>, guest: &str, rw| {
            let perms = if rw {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            #[cfg(not(feature = "stock-wasmtime"))]
            b.preopened_dir_shared(dir.clone(), guest, perms);
            // Upstream has no shared preopen: open the same folder again through its descriptor.
            #[cfg(feature = "stock-wasmtime")]
            {
                use std::os::fd::AsRawFd;
                let path = format!("/proc/self/fd/{}", dir.as_raw_fd());
                if let Err(e) = b.preopened_dir(&path, guest, perms) {
                    eprintln!("stock-wasmtime: cannot preopen {guest}: {e}");
                }
            }
        };
        // Order is fd order, which the snapshot expects: library first, then mpl-data.
        preopen(&mut b, &self.lib_dir, layout::GUEST_LIB, false);
        preopen(&mut b, &self.mpl_dir, layout::GUEST_MPL_DATA, false);
        for m in &req.mounts {
            match m.dir.if_open() {
                Some(dir) => preopen(&mut b, dir, &m.guest_path, m.writable),
                // Not opened yet: the preopen opens it when the guest first uses it.
                #[cfg(not(feature = "stock-wasmtime"))]
                None => {
                    let perms = if m.writable {
                        FsPerms::ReadWrite
                    } else {
                        FsPerms::ReadOnly
                    };
                    b.preopened_dir_lazy(m.dir.clone(), &m.guest_path, perms);
                }
                #[cfg(feature = "stock-wasmtime")]
                None => match m.dir.get() {
                    Ok(dir) => preopen(&mut b, dir, &m.guest_path, m.writable),
                    Err(e) => eprintln!("stock-wasmtime: cannot open {}: {e}", m.guest_path),
                },
            }
        }
        b.build_p1()
    }

    /// Run `code` through the snapshot's `turn` export in a fresh instance with `req`'s
    /// environment, mounts, stdin and limits (`req.invocation` is not used here); `request`
    /// is what the host door answers, once. Also says whether the call may have changed what
    /// is on disk (see `GuestState::touched_disk`).
    pub(super) async fn turn(
        &self,
        code: &str,
        req: &RunRequest,
        request: Option<Vec<u8>>,
        started: Instant,
    ) -> Result<(RunResult, bool), RuntimeError> {
        let (slot, left) = self.take_slot(req.limits.timeout, started).await?;
        let limits = &Limits {
            timeout: left,
            ..req.limits.clone()
        };
        let span = Instant::now();
        let stdout = io::CappedOutput::new(limits.output_bytes);
        let stderr = io::CappedOutput::new(limits.output_bytes);
        let mut store = self.new_store(req, request, limits, &stdout, &stderr);
        let span = self.phases.add(Phase::Store, span);
        let outcome = self
            .run_in_fresh_instance(&mut store, code, limits.timeout, span)
            .await?;
        let limiter = &store.data().limiter;
        let (peak, denied) = (limiter.peak(), limiter.denied());
        // A call cut off by its deadline or a trap may have been inside a write: count it as
        // touched.
        let touched_disk = store.data().touched_disk || !matches!(outcome, Ok(Ok(_)));
        retire(store, slot, self.phases.clone());
        let result = finished(outcome, (peak, denied), &stdout, &stderr, started)?;
        Ok((result, touched_disk))
    }

    /// A store for one call: the guest's WASI context, memory limiter, quota, door request,
    /// network and processes, and the epoch deadline that yields every tick.
    fn new_store(
        &self,
        req: &RunRequest,
        request: Option<Vec<u8>>,
        limits: &Limits,
        stdout: &io::CappedOutput,
        stderr: &io::CappedOutput,
    ) -> Store<GuestState> {
        let wasi = self.wasi_ctx(req, stdout, stderr);
        let state = GuestState {
            wasi,
            limiter: MemoryLimiter::new(limits.memory_bytes),
            quota: req.quota.clone(),
            request,
            network: req.network.clone(),
            processes: req.processes.clone(),
            loopback: req.loopback.as_ref().map(|l| l.lease()),
            deadline: Instant::now() + limits.timeout,
            open_files: super::open_files::OpenFiles::default(),
            touched_disk: false,
            products: self.products.clone(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.set_epoch_deadline(1);
        store.epoch_deadline_async_yield_and_update(1);
        store
    }

    /// Instantiate the snapshot in `store` and run `code` through `turn` within `timeout`.
    /// Instantiation and the exports are ours: their failures are host errors, never a guest
    /// outcome shown to the model.
    async fn run_in_fresh_instance(
        &self,
        store: &mut Store<GuestState>,
        code: &str,
        timeout: Duration,
        span: Instant,
    ) -> Result<TurnOutcome, RuntimeError> {
        let host = |what: &str| {
            let what = what.to_string();
            move |e: wasmtime::Error| RuntimeError::Instantiate(format!("{what}: {e:#}"))
        };
        let instance = self
            .pre
            .instantiate_async(&mut *store)
            .await
            .map_err(host("instantiating"))?;
        let exports = TurnExports::of(&instance, &mut *store).map_err(host("exports"))?;
        let span = self.phases.add(Phase::Instantiate, span);
        let call = exports.run(&mut *store, code);
        let outcome = tokio::time::timeout(timeout, call).await;
        self.phases.add(Phase::Guest, span);
        Ok(outcome)
    }
}

/// Drop a finished call's store, and with it its instance, off the answer's path: resetting
/// the instance's memory for the next call in its slot (finding the pages it wrote and putting
/// them back from the image) is a good part of a short call's cost, and the answer does not
/// need to wait for it. The slot stays held until the reset is done. What the store shares
/// with the sandbox (quota, network, commands) is let go at once, so the sandbox's folders
/// are free when the caller drops it.
fn retire(mut store: Store<GuestState>, slot: super::pool::Slot, phases: Arc<PhaseCounters>) {
    let state = store.data_mut();
    state.quota = None;
    state.network = None;
    state.processes = None;
    state.loopback = None;
    state.request = None;
    // Without the sandbox threads the future, and the store in it, is dropped right here.
    let _ = super::executor::detach(async move {
        let span = Instant::now();
        drop(store);
        phases.add(Phase::Reset, span);
        drop(slot);
    });
}

/// What a finished run gives: its exit code and outcome, its output, and `memory`'s peak
/// and whether the cap refused a growth.
///
/// # Errors
/// [`RuntimeError::Instantiate`] when the pool ran out under the guest.
pub(super) fn finished(
    outcome: TurnOutcome,
    (peak, denied): (u64, bool),
    stdout: &io::CappedOutput,
    stderr: &io::CappedOutput,
    started: Instant,
) -> Result<RunResult, RuntimeError> {
    let (out, out_dropped) = stdout.take();
    let (err, err_dropped) = stderr.take();
    let (exit_code, outcome) = exit_status(outcome, denied, out_dropped + err_dropped)?;
    Ok(RunResult {
        exit_code,
        stdout: out,
        stderr: err,
        stdout_dropped: out_dropped,
        stderr_dropped: err_dropped,
        duration: started.elapsed(),
        peak_memory_bytes: peak,
        outcome,
    })
}

/// The exit code and outcome of a finished `turn`: `denied` says the memory cap refused a
/// growth, `dropped` counts output bytes cut by the output cap.
///
/// # Errors
/// [`RuntimeError::Instantiate`] when the pool ran out under the guest.
fn exit_status(
    outcome: TurnOutcome,
    denied: bool,
    dropped: u64,
) -> Result<(i32, Outcome), RuntimeError> {
    let (exit_code, outcome) = match outcome {
        Err(_elapsed) => (124, Outcome::Deadline),
        // `turn` returns the exit status in the low byte (bit 8 flags an explicit exit).
        Ok(Ok(raw)) => (raw & 0xFF, Outcome::Exited),
        Ok(Err(e)) => match e.downcast_ref::<I32Exit>() {
            Some(I32Exit(code)) => (*code, Outcome::Exited),
            // The pool ran out under the guest (a stack or memory for a nested call): the
            // host's fault, never shown as the guest's crash.
            None if format!("{e:#}").contains("maximum concurrent limit") => {
                return Err(RuntimeError::Instantiate(format!(
                    "the instance pool ran out during the call: {e:#}"
                )));
            }
            None => (134, Outcome::Trap(format!("{e:#}"))),
        },
    };
    let outcome = match outcome {
        Outcome::Exited | Outcome::Trap(_) if denied => Outcome::MemoryLimit,
        Outcome::Exited if dropped > 0 => Outcome::OutputTruncated,
        o => o,
    };
    Ok((exit_code, outcome))
}

/// The snapshot's exports that run code: `host_alloc`, `turn` and `memory`.
pub(super) struct TurnExports {
    alloc: wasmtime::TypedFunc<i32, i32>,
    turn: wasmtime::TypedFunc<(i32, i32), i32>,
    memory: wasmtime::Memory,
}

impl TurnExports {
    /// Look them up in `instance`.
    pub(super) fn of<T>(
        instance: &wasmtime::Instance,
        store: &mut Store<T>,
    ) -> wasmtime::Result<TurnExports> {
        Ok(TurnExports {
            alloc: instance.get_typed_func(&mut *store, "host_alloc")?,
            turn: instance.get_typed_func(&mut *store, "turn")?,
            memory: instance
                .get_memory(&mut *store, "memory")
                .ok_or_else(|| wasmtime::format_err!("the module exports no memory"))?,
        })
    }

    /// Copy `code` into the guest and run it through `turn`; its raw result.
    pub(super) async fn run<T: Send>(
        &self,
        store: &mut Store<T>,
        code: &str,
    ) -> wasmtime::Result<i32> {
        let len = i32::try_from(code.len())?;
        let ptr = self.alloc.call_async(&mut *store, len).await?;
        self.memory
            .write(&mut *store, usize::try_from(ptr)?, code.as_bytes())?;
        self.turn.call_async(&mut *store, (ptr, len)).await
    }
}

/// A mount not yet opened, as a preopen: opened when the guest first uses it.
#[cfg(not(feature = "stock-wasmtime"))]
impl wasmtime_wasi::filesystem::OpenOnFirstUse for crate::lazy_dir::LazyDir {
    fn open(&self) -> std::io::Result<Arc<cap_std::fs::Dir>> {
        self.get().cloned()
    }
}
