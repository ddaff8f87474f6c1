//! WASI command programs run in a sandbox's folders: the C toolchain (`crate::toolchain`) and
//! the programs it builds. Each run is a fresh instance of a plain `wasm32-wasip1` command
//! (`_start`), under the same limits as a `python3` call: the memory cap, the deadline (epoch
//! checks), the disk quota on writes, and only the sandbox's folders, plus the toolchain's
//! `/usr` read-only when it runs.
//!
//! These modules are not the Python snapshot: they run on an engine of their own without the
//! instance pool (Clang's tables and instance are far past the pool's per-slot sizes), made on
//! first use. They get WASI and nothing else: no host door, so no network and no commands.
//!
//! wasi-libc starts every program in `/` and knows no other way to be told its working
//! folder, so a program sees the folder it was started in as `/` for relative paths (absolute
//! paths under `/testbed`, `/tmp` and `/root` still reach those folders, the longer match).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use sha2::{Digest, Sha256};
use wasmtime::{Config, Engine, Linker, Module, Store};
use wasmtime_wasi::p2::pipe::MemoryInputPipe;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::{
    GuestState, Limits, MemoryLimiter, Mount, Outcome, RunResult, Runtime, RuntimeError, cache,
    executor, io,
};
use crate::quota::Quota;
use crate::toolchain::ToolchainFiles;

/// The settings part of the compiled-module cache key for this engine.
const SETTINGS: &str = "programs,epoch,stack=16M,opt=speed,v1";
/// Native stack for a program's wasm frames (Clang's parser recurses deeply).
const STACK: usize = 16 << 20;
/// Built programs kept compiled in memory, by their SHA-256.
const KEEP_BUILT: usize = 32;
/// The largest program module run: compiling it happens on the host before the program's
/// deadline and memory limit apply, so its size is what bounds that work. What models build
/// is far smaller (a C++ program with the STL: under 1 MB).
pub const MAX_PROGRAM_BYTES: usize = 64 << 20;

/// What to run.
#[derive(Debug, Clone)]
pub enum Program {
    /// The C toolchain's multi-call module (`argv[0]` picks the tool: `clang`, `clang++`,
    /// `wasm-ld`, `ar`, ...), with its headers and libraries at `/usr`.
    Toolchain,
    /// A program's module, as read from the sandbox (a file the toolchain built).
    Module(Arc<Vec<u8>>),
}

/// One program run.
#[derive(Debug)]
pub struct ProgramRequest {
    /// What to run.
    pub program: Program,
    /// Its arguments, `argv[0]` first.
    pub argv: Vec<String>,
    /// Its environment (exactly this).
    pub env: Vec<(String, String)>,
    /// The guest folder it starts in (under one of `mounts`).
    pub cwd: String,
    /// Bytes on stdin.
    pub stdin: Vec<u8>,
    /// Per-run limits.
    pub limits: Limits,
    /// The sandbox's folders.
    pub mounts: Vec<Mount>,
    /// The disk quota writes are charged to.
    pub quota: Option<Arc<Quota>>,
}

/// Why a program cannot start: told to the user as the shell tells a bad executable.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// The C toolchain is not installed or not compiled in the cache.
    #[error(
        "the C toolchain is not set up on this machine: run `llm-in-sandbox setup` (it needs Node's `npm` to fetch it)"
    )]
    NoToolchain,
    /// The module is not a WASI command this sandbox can run.
    #[error("cannot run this program: {0}")]
    NotRunnable(String),
    /// The working folder is not one of the sandbox's.
    #[error("{0}: not a folder of this sandbox (only /testbed, /tmp and /root are)")]
    Cwd(String),
    /// A host-side failure.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// The engine, linker and compiled modules of [`Program`]s.
pub(super) struct Programs {
    engine: Engine,
    linker: Linker<GuestState>,
    stop_ticker: Arc<AtomicBool>,
    toolchain: Mutex<Option<(Module, Arc<cap_std::fs::Dir>)>>,
    built: Mutex<HashMap<[u8; 32], Module>>,
}

impl Drop for Programs {
    fn drop(&mut self) {
        self.stop_ticker.store(true, Ordering::Relaxed);
    }
}

fn engine_error(e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Engine(e.to_string())
}

impl Programs {
    fn new() -> Result<Programs, RuntimeError> {
        let mut c = Config::new();
        c.epoch_interruption(true)
            .memory_init_cow(true)
            .max_wasm_stack(STACK)
            .async_stack_size(STACK + (1 << 20))
            .cranelift_opt_level(wasmtime::OptLevel::Speed);
        let engine = Engine::new(&c).map_err(engine_error)?;
        let mut linker: Linker<GuestState> = Linker::new(&engine);
        wasmtime_wasi::p1::add_to_linker_async(&mut linker, |s| &mut s.wasi)
            .map_err(engine_error)?;
        super::write_guard::add_write_guard(&mut linker).map_err(engine_error)?;
        let stop_ticker = super::engine::start_epoch_ticker(&engine)?;
        Ok(Programs {
            engine,
            linker,
            stop_ticker,
            toolchain: Mutex::new(None),
            built: Mutex::new(HashMap::new()),
        })
    }

    /// The toolchain's module and `/usr`, loaded from the cache (never compiled here: that is
    /// setup's work, a minute long).
    fn toolchain(
        &self,
        cache_root: &Path,
    ) -> Result<(Module, Arc<cap_std::fs::Dir>), ProgramError> {
        let mut slot = self.toolchain.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = slot.as_ref() {
            return Ok(t.clone());
        }
        let files = ToolchainFiles::at(cache_root);
        if !files.is_installed() {
            return Err(ProgramError::NoToolchain);
        }
        let key = cache::cache_key(&self.engine, crate::toolchain::PIN.module_sha256, SETTINGS);
        let module = cache::load_compiled(&self.engine, &key, cache_root)
            .ok_or(ProgramError::NoToolchain)?;
        let usr = Arc::new(super::engine::open_dir(&files.usr())?);
        *slot = Some((module.clone(), usr.clone()));
        Ok((module, usr))
    }

    /// A built program's module, compiled now (milliseconds for what models write) or taken
    /// from the ones kept.
    fn built(&self, bytes: &[u8]) -> Result<Module, ProgramError> {
        if bytes.len() > MAX_PROGRAM_BYTES {
            return Err(ProgramError::NotRunnable(format!(
                "the module is {} MB; programs of at most {} MB run here",
                bytes.len() >> 20,
                MAX_PROGRAM_BYTES >> 20
            )));
        }
        let id: [u8; 32] = Sha256::digest(bytes).into();
        if let Some(m) = self.lock_built().get(&id) {
            return Ok(m.clone());
        }
        let module = Module::new(&self.engine, bytes)
            .map_err(|e| ProgramError::NotRunnable(format!("{e:#}")))?;
        if module.get_export("_start").is_none() {
            return Err(ProgramError::NotRunnable(
                "the module has no `_start` (not a WASI command)".into(),
            ));
        }
        let mut built = self.lock_built();
        if built.len() >= KEEP_BUILT {
            built.clear();
        }
        built.insert(id, module.clone());
        Ok(module)
    }

    fn lock_built(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Module>> {
        self.built.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Runtime {
    fn programs(&self) -> Result<&Programs, RuntimeError> {
        if let Some(p) = self.programs.get() {
            return Ok(p);
        }
        let made = Programs::new()?;
        Ok(self.programs.get_or_init(|| made))
    }

    /// Whether `cc` can work here: the C toolchain is installed and compiled in the cache.
    pub fn has_c_toolchain(&self) -> bool {
        self.programs()
            .is_ok_and(|p| p.toolchain(&self.cache_root).is_ok())
    }

    /// Compile the installed C toolchain into the cache once (setup's step; ~1 minute and
    /// ~2 GiB), so that `cc` in a sandbox starts in milliseconds.
    ///
    /// # Errors
    /// [`RuntimeError`] when the module cannot be read or compiled.
    pub fn compile_c_toolchain(
        &self,
        files: &ToolchainFiles,
        progress: &(dyn Fn(&str) + Sync),
    ) -> Result<(), RuntimeError> {
        let programs = self.programs()?;
        let key = cache::cache_key(
            &programs.engine,
            crate::toolchain::PIN.module_sha256,
            SETTINGS,
        );
        cache::load_or_compile(
            &programs.engine,
            &files.module(),
            &key,
            &self.cache_root,
            None,
            progress,
        )?;
        Ok(())
    }

    /// Run a WASI program in the sandbox's folders, on the sandbox threads.
    ///
    /// # Errors
    /// [`ProgramError`] when it cannot start; everything the program does (exit codes, the
    /// deadline, the memory cap, traps) is a [`RunResult`].
    pub async fn run_program(
        self: &Arc<Self>,
        req: ProgramRequest,
    ) -> Result<RunResult, ProgramError> {
        let this = self.clone();
        executor::spawn(async move { this.run_program_here(req).await })
            .await
            .map_err(ProgramError::Runtime)?
    }

    async fn run_program_here(&self, req: ProgramRequest) -> Result<RunResult, ProgramError> {
        let started = Instant::now();
        let programs = self.programs()?;
        let (module, usr) = match &req.program {
            Program::Toolchain => {
                let (m, usr) = programs.toolchain(&self.cache_root)?;
                (m, Some(usr))
            }
            Program::Module(bytes) => (programs.built(bytes)?, None),
        };
        let stdout = io::CappedOutput::new(req.limits.output_bytes);
        let stderr = io::CappedOutput::new(req.limits.output_bytes);
        let state = GuestState {
            wasi: program_wasi(&req, usr, &stdout, &stderr)?,
            limiter: MemoryLimiter::new(req.limits.memory_bytes),
            quota: req.quota.clone(),
            request: None,
            network: None,
            processes: None,
            loopback: None,
            deadline: Instant::now() + req.limits.timeout,
            open_files: super::open_files::OpenFiles::default(),
            touched_disk: false,
            products: Arc::default(),
        };
        let mut store = Store::new(&programs.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.set_epoch_deadline(1);
        store.epoch_deadline_async_yield_and_update(1);
        let left = req.limits.timeout.saturating_sub(started.elapsed());
        let outcome = tokio::time::timeout(left, async {
            let instance = programs
                .linker
                .instantiate_async(&mut store, &module)
                .await?;
            let start = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
            start.call_async(&mut store, ()).await.map(|()| 0)
        })
        .await;
        let limiter = &store.data().limiter;
        let (peak, denied) = (limiter.peak(), limiter.denied());
        drop(store);
        if let Some(q) = &req.quota {
            q.refresh();
        }
        let result = super::call::finished(outcome, (peak, denied), &stdout, &stderr, started)?;
        if let Outcome::Trap(msg) = &result.outcome
            && msg.contains("unknown import")
        {
            return Err(ProgramError::NotRunnable(msg.clone()));
        }
        Ok(result)
    }
}

/// The program's WASI context: its argv, environment and stdio, the sandbox's folders, the
/// toolchain's `/usr` (read-only) when given, and its working folder as `/`.
fn program_wasi(
    req: &ProgramRequest,
    usr: Option<Arc<cap_std::fs::Dir>>,
    stdout: &io::CappedOutput,
    stderr: &io::CappedOutput,
) -> Result<wasmtime_wasi::p1::WasiP1Ctx, ProgramError> {
    let (cwd, cwd_writable) = working_folder(&req.mounts, &req.cwd)?;
    let mut b = WasiCtxBuilder::new();
    b.allow_blocking_current_thread(true);
    b.args(&req.argv);
    b.envs(&req.env);
    b.stdin(MemoryInputPipe::new(req.stdin.clone()));
    b.stdout(stdout.clone());
    b.stderr(stderr.clone());
    let perms = |rw: bool| {
        if rw {
            FsPerms::ReadWrite
        } else {
            FsPerms::ReadOnly
        }
    };
    for m in &req.mounts {
        let dir = m.dir.get().map_err(|source| RuntimeError::Io {
            action: "open",
            path: m.guest_path.clone().into(),
            source,
        })?;
        preopen(&mut b, dir.clone(), &m.guest_path, perms(m.writable));
    }
    if let Some(usr) = usr {
        preopen(&mut b, usr, "/usr", FsPerms::ReadOnly);
    }
    preopen(&mut b, cwd, "/", perms(cwd_writable));
    Ok(b.build_p1())
}

fn preopen(b: &mut WasiCtxBuilder, dir: Arc<cap_std::fs::Dir>, guest: &str, perms: FsPerms) {
    #[cfg(not(feature = "stock-wasmtime"))]
    b.preopened_dir_shared(dir, guest, perms);
    #[cfg(feature = "stock-wasmtime")]
    {
        use std::os::fd::AsRawFd;
        let path = format!("/proc/self/fd/{}", dir.as_raw_fd());
        if let Err(e) = b.preopened_dir(&path, guest, perms) {
            eprintln!("stock-wasmtime: cannot preopen {guest}: {e}");
        }
    }
}

/// The folder `cwd` names, opened beneath the mount that holds it (never outside it), and
/// whether it may be written.
fn working_folder(
    mounts: &[Mount],
    cwd: &str,
) -> Result<(Arc<cap_std::fs::Dir>, bool), ProgramError> {
    for m in mounts {
        let rest = match cwd.strip_prefix(m.guest_path.as_str()) {
            Some("") => "",
            Some(r) if r.starts_with('/') => r.trim_start_matches('/'),
            _ => continue,
        };
        let dir = m.dir.get().map_err(|source| RuntimeError::Io {
            action: "open",
            path: m.guest_path.clone().into(),
            source,
        })?;
        if rest.is_empty() {
            return Ok((dir.clone(), m.writable));
        }
        return match dir.open_dir(rest) {
            Ok(d) => Ok((Arc::new(d), m.writable)),
            Err(_) => Err(ProgramError::Cwd(cwd.to_string())),
        };
    }
    Err(ProgramError::Cwd(cwd.to_string()))
}
