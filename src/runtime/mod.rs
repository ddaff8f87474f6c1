//! The Python runtime: one wasmtime [`Engine`], the compiled snapshot module and its
//! [`InstancePre`], shared by every sandbox in the process. Each run gets a fresh instance
//! (copy-on-write memory from the snapshot), so runs never see each other's state.

mod cache;
mod door;
pub mod executor;
mod invocation;
mod io;
pub mod layout;
mod limits;
pub mod net;
mod open_files;
mod preload;
pub mod procs;
mod quota;
pub use open_files::{PER_CALL as MAX_OPEN_FILES_PER_CALL, open_now as guest_open_files};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use sha2::Digest;
use wasmtime::{Config, Engine, InstancePre, Linker, Store};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::pipe::MemoryInputPipe;
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

pub use cache::WASMTIME_VERSION;
pub use invocation::{Invocation, UsageError};
pub use limits::{Limits, Outcome, RunResult};
pub use quota::{Quota, QuotaError, Usage};

use crate::artifacts::RuntimeFiles;
use limits::MemoryLimiter;

/// Errors of the runtime itself (not of the guest program: a Python exception is a normal
/// [`RunResult`] with exit code 1).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// A filesystem operation on the cache or a mount failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Compiling or loading the module failed.
    #[error("cannot compile or load the Python module: {0}")]
    Compile(String),
    /// The engine or linker could not be set up.
    #[error("cannot set up the wasmtime engine: {0}")]
    Engine(String),
    /// Instantiating or preparing a run failed (host side, not the guest's fault).
    #[error("cannot start the Python instance: {0}")]
    Instantiate(String),
    /// Every instance slot stayed busy until the call's deadline passed (more calls at once
    /// than `RuntimeConfig::max_instances`).
    #[error(
        "all {slots} Python instance slots stayed busy for {waited:?}: too many calls at once for \
         this runtime (raise its max_instances, or run fewer at once)"
    )]
    Busy {
        /// The pool's size.
        slots: u32,
        /// How long the call waited.
        waited: Duration,
    },
    /// Host code panicked while running a call (a bug of ours, not the guest's).
    #[error("internal error while running the sandbox: {0}")]
    Panicked(String),
    /// A name in the preload list is not a module name.
    /// The extra packages (`--with`) could not be resolved or unpacked.
    #[error("extra packages: {0}")]
    Packages(#[from] crate::packages::PackageError),
    #[error(
        "`{0}` in the preload list is not a module name: give dotted Python names separated by \
         commas (e.g. `numpy,scipy.stats`), `+name,...` at the start to add to the default, or \
         `none`"
    )]
    BadPreload(String),
}

/// Settings of the shared runtime.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// Where compiled modules are cached (the same root as the artifacts).
    pub cache_root: PathBuf,
    /// How many instances may be live at once (pooling allocator slots). Default 256. More
    /// calls at once wait for a free slot (up to their deadline).
    pub max_instances: u32,
    /// Modules imported into a pre-initialized snapshot made once at setup, so every call
    /// starts with them loaded. Default [`DEFAULT_PRELOAD`] (or `$LLM_IN_SANDBOX_PRELOAD`, a
    /// comma list; `none` for the stock snapshot). [`Runtime::load`] refuses names that are not
    /// dotted Python names. If the snapshot cannot be made, the stock one is used and a message
    /// says why.
    pub preload: Vec<String>,
    /// Extra pure-Python packages for the read-only site layer every sandbox mounts, as a
    /// comma list (`math-verify,pint==0.24`; see [`crate::packages::parse_list`]). Default:
    /// `$LLM_IN_SANDBOX_WITH`, else what `setup --with` recorded in the cache, else none.
    pub with: String,
    /// How the host's pip is run, for the layer and for `pip install` in episodes.
    pub pip: crate::packages::PipSettings,
}

impl RuntimeConfig {
    /// Defaults for a cache root.
    pub fn new(cache_root: impl Into<PathBuf>) -> Self {
        Self {
            cache_root: cache_root.into(),
            max_instances: 256,
            preload: default_preload(),
            with: String::new(),
            pip: crate::packages::PipSettings::from_env(),
        }
        .with_requested()
    }
}

impl RuntimeConfig {
    fn with_requested(mut self) -> Self {
        self.with = crate::packages::requested(&self.cache_root);
        self
    }
}

/// The modules preloaded by default, chosen by measurement (README, "Choosing the preloaded
/// modules"): each costs 4 ms to 1 s to import from the stock snapshot on every call, and all
/// of them together add ~0.3 ms to a fresh call and ~0.4 MiB to an active sandbox.
pub const DEFAULT_PRELOAD: &str = "numpy,sympy,scipy,scipy.optimize,scipy.integrate,scipy.stats,\
     scipy.linalg,scipy.special,pandas,matplotlib.pyplot,mpmath,networkx,fractions,decimal,\
     statistics";

fn default_preload() -> Vec<String> {
    let spec = std::env::var("LLM_IN_SANDBOX_PRELOAD").unwrap_or_else(|_| DEFAULT_PRELOAD.into());
    parse_preload(&spec)
}

/// A comma list of module names; `+a,b` for the default list plus `a` and `b`; `none` or
/// empty for none. Names are checked when the runtime loads ([`RuntimeError::BadPreload`]).
pub fn parse_preload(spec: &str) -> Vec<String> {
    let (base, extra) = match spec.trim().strip_prefix('+') {
        Some(extra) => (DEFAULT_PRELOAD, extra),
        None => ("", spec),
    };
    let mut modules: Vec<String> = Vec::new();
    for m in base.split(',').chain(extra.split(',')).map(str::trim) {
        if !m.is_empty() && m != "none" && !modules.iter().any(|x| x == m) {
            modules.push(m.to_string());
        }
    }
    modules
}

/// A dotted Python name (`scipy.stats`): the names end up in guest code.
fn is_module_name(name: &str) -> bool {
    name.split('.').all(|p| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A directory the guest sees.
#[derive(Debug, Clone)]
pub struct Mount {
    /// The host directory, as an open capability (shared, not reopened).
    pub dir: Arc<cap_std::fs::Dir>,
    /// Where the guest sees it, e.g. `/testbed`.
    pub guest_path: String,
    /// Whether the guest may change it.
    pub writable: bool,
}

/// One `python3` run.
#[derive(Debug)]
pub struct RunRequest {
    /// What to run.
    pub invocation: Invocation,
    /// The guest's environment (exactly this; nothing of the host's leaks in).
    pub env: Vec<(String, String)>,
    /// The guest working directory (a path under one of `mounts`).
    pub cwd: String,
    /// Bytes on stdin.
    pub stdin: Vec<u8>,
    /// Per-run limits.
    pub limits: Limits,
    /// Directories to preopen, after the runtime's own read-only library folders.
    pub mounts: Vec<Mount>,
    /// The disk quota the guest's file writes and creations are charged to (`None`: none);
    /// re-measured after the call.
    pub quota: Option<Arc<Quota>>,
    /// Where the guest's HTTP requests go (`urllib`, `http.client`), through the host door.
    /// `None`: no network at all.
    pub network: Option<Arc<dyn net::GuestNetwork>>,
    /// Where the guest's `subprocess`/`os.system` commands run (the episode's shell), through
    /// the host door. `None`: they fail with an `OSError` saying why.
    pub processes: Option<Arc<dyn procs::GuestProcesses>>,
}

struct GuestState {
    wasi: WasiP1Ctx,
    limiter: MemoryLimiter,
    /// The quota file writes are charged to (`None`: no limit).
    quota: Option<Arc<Quota>>,
    /// The driver's request, handed out once through the host door.
    request: Option<Vec<u8>>,
    /// Where the guest's HTTP requests go (`None`: refused).
    network: Option<Arc<dyn net::GuestNetwork>>,
    /// Where the guest's commands run (`None`: refused).
    processes: Option<Arc<dyn procs::GuestProcesses>>,
    /// When the call's deadline passes: a request through the door may not outlive it.
    deadline: Instant,
    /// The files the guest holds open (bounded: [`open_files`]).
    open_files: open_files::OpenFiles,
}

/// Engine settings that are baked into compiled code; part of the cache key.
const ENGINE_SETTINGS: &str = "exceptions,gc-drc,epoch,cow,pooling,stack=8M,opt=speed,v1";
/// How often the epoch advances: the granularity of deadlines.
const EPOCH_TICK: Duration = Duration::from_millis(10);
const STACK: usize = 8 << 20;
/// Written pages of a linear memory that a reset may restore in place instead of releasing.
/// Chosen by measurement (README): 32 MiB holds the working set of a numpy call (a 300x300
/// matmul loop: 15.8 ms per call, 23.7 ms with 16 MiB) and caps what an idle slot keeps.
const KEEP_RESIDENT: usize = 32 << 20;
/// The driver and, appended (one code object), the Linux-box shims it installs: identity,
/// cooperative threads and asyncio, alarms, process pools, `ssl` and commands (the last file
/// installs them all; docs/linux-compatibility.md).
const DRIVER: &str = concat!(
    include_str!("driver.py"),
    include_str!("linux_box/identity.py"),
    include_str!("linux_box/threads.py"),
    include_str!("linux_box/signals.py"),
    include_str!("linux_box/pools.py"),
    include_str!("linux_box/ssl.py"),
    include_str!("linux_box/commands.py"),
);
/// The driver's code file name; its frames are dropped from tracebacks under this name.
const DRIVER_FILENAME: &str = "<lis-driver>";

/// Marks the runtime active when made and again when dropped (a call's start and end), for
/// [`Runtime::release_idle_memory`].
struct Active<'a>(&'a AtomicU64, Instant);

impl<'a> Active<'a> {
    fn now(at: &'a AtomicU64, born: Instant) -> Self {
        let me = Active(at, born);
        me.mark();
        me
    }

    fn mark(&self) {
        let ms = u64::try_from(self.1.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.0.fetch_max(ms, Ordering::Relaxed);
    }
}

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.mark();
    }
}

/// The shared Python runtime. Cheap to share behind an `Arc`; `run` may be called from many
/// tasks at once.
pub struct Runtime {
    engine: Engine,
    pre: InstancePre<GuestState>,
    lib_dir: cap_std::fs::Dir,
    mpl_dir: cap_std::fs::Dir,
    files: RuntimeFiles,
    stop_ticker: Arc<AtomicBool>,
    /// The driver's marshalled code object (hex), compiled in the guest on first use.
    driver: tokio::sync::OnceCell<String>,
    /// Where the marshalled driver is cached on disk (next to the compiled module).
    driver_cache: PathBuf,
    /// The modules imported in the snapshot every call starts from. Empty: the stock snapshot,
    /// which (unlike the preloaded one) does not define the driver.
    preloaded: Vec<String>,
    /// One permit per pooling-allocator slot: a call waits here for a free slot instead of
    /// failing to instantiate.
    slots: Arc<tokio::sync::Semaphore>,
    max_instances: u32,
    /// When the last call ended or began, in milliseconds after `born`.
    last_active: Arc<AtomicU64>,
    born: Instant,
    /// `last_active` as it was at the last release: one release per quiet spell.
    released_at: AtomicU64,
    /// The read-only site layer (`--with`), if any.
    site_layer: Option<crate::packages::SiteLayer>,
    /// How the host's pip is run for installs in episodes.
    pip: crate::packages::PipSettings,
    cache_root: PathBuf,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("artifacts", &self.files.dir())
            .finish_non_exhaustive()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.stop_ticker.store(true, Ordering::Relaxed);
    }
}

fn engine_config(cfg: &RuntimeConfig) -> Config {
    let mut c = Config::new();
    c.wasm_exceptions(true)
        .epoch_interruption(true)
        .memory_init_cow(true)
        .max_wasm_stack(STACK)
        .async_stack_size(STACK + (1 << 20))
        .cranelift_opt_level(wasmtime::OptLevel::Speed);
    let mut pool = wasmtime::PoolingAllocationConfig::new();
    // Each instance takes two memories (its linear memory and, once it throws, its GC heap,
    // which the pool allocates as a memory too) and two fiber stacks (the call, and the host
    // door calling back into the guest's allocator).
    pool.total_core_instances(cfg.max_instances)
        .total_memories(cfg.max_instances.saturating_mul(2))
        .total_tables(cfg.max_instances)
        .total_stacks(cfg.max_instances.saturating_mul(2))
        .total_gc_heaps(cfg.max_instances)
        .max_memory_size(4 << 30)
        .table_elements(100_000)
        .max_core_instance_size(16 << 20)
        .max_tables_per_module(4)
        // Every slot may stay warm (its pages kept, see below): with a small cap, calls under
        // concurrency kept landing on cold slots and faulted their pages in again (~30 faults
        // per `/run_code` at 64 clients, ~6 with this; README). A quiet server gives the warm
        // slots' memory back (`Runtime::release_idle_memory`).
        .max_unused_warm_slots(cfg.max_instances.saturating_mul(2));
    // Where the kernel can tell which pages a finished instance wrote (PAGEMAP_SCAN, Linux
    // 6.7+), put just those back from the image and keep them mapped: the next instance in
    // the slot then starts without page faults. Without it, `keep_resident` would copy the
    // whole prefix on every reset, so it stays off and pages are released with `madvise`.
    if wasmtime::PoolingAllocationConfig::is_pagemap_scan_available() {
        pool.pagemap_scan(wasmtime::Enabled::Yes)
            .linear_memory_keep_resident(KEEP_RESIDENT)
            .table_keep_resident(1 << 20);
    }
    c.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(pool));
    c
}

fn map_engine_err(e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Engine(e.to_string())
}

fn open_dir(path: &Path) -> Result<cap_std::fs::Dir, RuntimeError> {
    cap_std::fs::Dir::open_ambient_dir(path, cap_std::ambient_authority()).map_err(|source| {
        RuntimeError::Io {
            action: "open directory",
            path: path.to_path_buf(),
            source,
        }
    })
}

/// A path that opens exactly this open directory (not whatever is at its old host path now).
fn fd_path(dir: &cap_std::fs::Dir) -> PathBuf {
    use std::os::fd::AsRawFd;
    PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()))
}

impl Runtime {
    /// Load the runtime: build the engine, load the compiled snapshot from the cache (compiling
    /// it once if missing, ~1 minute), link WASI and prepare instantiation.
    ///
    /// # Errors
    /// [`RuntimeError`] when the cache cannot be used or the module does not link.
    pub fn load(
        files: RuntimeFiles,
        cfg: &RuntimeConfig,
        progress: &(dyn Fn(&str) + Sync),
    ) -> Result<Runtime, RuntimeError> {
        let engine = Engine::new(&engine_config(cfg)).map_err(map_engine_err)?;
        let with = crate::packages::parse_list(&cfg.with)?;
        let site_layer =
            crate::packages::ensure_layer(&files, &cfg.cache_root, &with, &cfg.pip, &progress)?;
        let lib_dir = site_layer
            .as_ref()
            .map_or_else(|| files.lib_dir(), |l| l.lib_dir.clone());
        let (wasm, identity, driver_in_snapshot) =
            Self::module_source(&engine, &files, cfg, site_layer.as_ref(), progress)?;
        let key = cache::cache_key(&engine, &identity, ENGINE_SETTINGS);
        let module = cache::load_or_compile(&engine, &wasm, &key, &cfg.cache_root, progress)?;
        let mut linker: Linker<GuestState> = Linker::new(&engine);
        wasmtime_wasi::p1::add_to_linker_async(&mut linker, |s| &mut s.wasi)
            .map_err(map_engine_err)?;
        quota::add_write_guard(&mut linker).map_err(map_engine_err)?;
        door::add_to_linker(&mut linker).map_err(map_engine_err)?;
        let pre = linker.instantiate_pre(&module).map_err(map_engine_err)?;
        let stop_ticker = Arc::new(AtomicBool::new(false));
        let (stop, weak) = (stop_ticker.clone(), engine.weak());
        std::thread::Builder::new()
            .name("llm-in-sandbox-epoch".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(EPOCH_TICK);
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })
            .map_err(|e| RuntimeError::Engine(format!("cannot start epoch thread: {e}")))?;
        let runtime = Runtime {
            lib_dir: open_dir(&lib_dir)?,
            mpl_dir: open_dir(&files.mpl_data_dir())?,
            engine,
            pre,
            files,
            stop_ticker,
            driver: tokio::sync::OnceCell::new(),
            slots: Arc::new(tokio::sync::Semaphore::new(cfg.max_instances as usize)),
            max_instances: cfg.max_instances,
            last_active: Arc::new(AtomicU64::new(0)),
            born: Instant::now(),
            released_at: AtomicU64::new(u64::MAX),
            preloaded: if driver_in_snapshot {
                cfg.preload.clone()
            } else {
                Vec::new()
            },
            driver_cache: cache::cwasm_path(&cfg.cache_root, &key).with_extension(format!(
                "driver-{}.hex",
                &hex::encode(sha2::Sha256::digest(DRIVER.as_bytes()))[..16]
            )),
            site_layer,
            pip: cfg.pip.clone(),
            cache_root: cfg.cache_root.clone(),
        };
        runtime.compile_layer(progress);
        Ok(runtime)
    }

    /// Compile the site layer's `.py` files to `.pyc` once (with this interpreter, which is
    /// the only one whose bytecode fits), so no call compiles them again. Best effort: without
    /// it imports from the layer still work, only slower; a message says why.
    fn compile_layer(&self, progress: &(dyn Fn(&str) + Sync)) {
        let Some(layer) = &self.site_layer else {
            return;
        };
        let site = layer.lib_dir.join("site-packages");
        let stamp = layer.lib_dir.with_file_name("COMPILED");
        if stamp.is_file() {
            return;
        }
        let lock_path = layer.lib_dir.with_file_name("compile.lock");
        let lock = std::fs::File::create(&lock_path).and_then(|f| f.lock().map(|_| f));
        if lock.is_err() || stamp.is_file() {
            return;
        }
        progress("compiling the site layer's Python files (once)");
        let outcome = std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?;
                rt.block_on(self.compile_site(&site))
            })
            .join()
            .unwrap_or_else(|_| Err("the compile thread panicked".into()))
        });
        crate::packages::seal(&site);
        match outcome {
            Ok(()) => {
                let _ = std::fs::write(&stamp, b"compiled\n");
            }
            Err(why) => progress(&format!(
                "cannot compile the site layer ({why}); its modules are compiled on import"
            )),
        }
    }

    /// `compileall` over `site`, mounted writable at `/tmp` for this one call, with file
    /// names as the guest sees the layer.
    async fn compile_site(&self, site: &Path) -> Result<(), String> {
        let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mount = |p: &Path, guest: &str| -> Result<Mount, String> {
            Ok(Mount {
                dir: Arc::new(open_dir(p).map_err(|e| e.to_string())?),
                guest_path: guest.to_string(),
                writable: true,
            })
        };
        let code = format!(
            "import compileall, sys\n\
             ok = compileall.compile_dir('{tmp}', ddir='{layer}', quiet=1, workers=1)\n\
             sys.exit(0 if ok else 1)",
            tmp = layout::GUEST_TMP,
            layer = layout::GUEST_SITE_LAYER,
        );
        let req = RunRequest {
            invocation: Invocation::Code {
                code,
                args: Vec::new(),
            },
            env: layout::default_env(),
            cwd: layout::GUEST_WORKSPACE.to_string(),
            stdin: Vec::new(),
            limits: Limits {
                timeout: Duration::from_secs(600),
                ..Limits::default()
            },
            mounts: vec![
                mount(scratch.path(), layout::GUEST_WORKSPACE)?,
                mount(site, layout::GUEST_TMP)?,
            ],
            quota: None,
            network: None,
            processes: None,
        };
        let r = self.run_here(req).await.map_err(|e| e.to_string())?;
        if r.exit_code == 0 {
            Ok(())
        } else {
            Err(r
                .stderr_text()
                .lines()
                .last()
                .unwrap_or("failed")
                .to_string())
        }
    }

    /// The module to run, its identity and whether it defines the driver: the preloaded
    /// snapshot (made now if missing) or, without preloads or when it cannot be made, the
    /// stock snapshot.
    fn module_source(
        engine: &Engine,
        files: &RuntimeFiles,
        cfg: &RuntimeConfig,
        layer: Option<&crate::packages::SiteLayer>,
        progress: &(dyn Fn(&str) + Sync),
    ) -> Result<(PathBuf, String, bool), RuntimeError> {
        if let Some(bad) = cfg.preload.iter().find(|m| !is_module_name(m)) {
            return Err(RuntimeError::BadPreload(bad.clone()));
        }
        let stock = (files.snapshot(), files.snapshot_sha256().to_string(), false);
        if cfg.preload.is_empty() {
            return Ok(stock);
        }
        let id = preload::key(
            files.snapshot_sha256(),
            &cfg.preload,
            layer.map(|l| l.key.as_str()),
        );
        let dir = cfg.cache_root.join("preloaded");
        let wasm = dir.join(format!("{id}.wasm"));
        let compiled = cache::cwasm_path(
            &cfg.cache_root,
            &cache::cache_key(engine, &id, ENGINE_SETTINGS),
        );
        if compiled.is_file() || wasm.is_file() {
            return Ok((wasm, id, true));
        }
        std::fs::create_dir_all(&dir).map_err(|source| RuntimeError::Io {
            action: "create directory",
            path: dir.clone(),
            source,
        })?;
        let lock_path = dir.join(format!("{id}.lock"));
        let lock = std::fs::File::create(&lock_path).and_then(|f| f.lock().map(|_| f));
        let _lock = lock.map_err(|source| RuntimeError::Io {
            action: "lock",
            path: lock_path,
            source,
        })?;
        if wasm.is_file() {
            return Ok((wasm, id, true));
        }
        let failed = dir.join(format!("{id}.failed"));
        let why = match std::fs::read_to_string(&failed) {
            Ok(why) => why,
            Err(_) => match preload::build(
                files,
                layer.map(|l| l.lib_dir.as_path()),
                &cfg.preload,
                &wasm,
                progress,
            ) {
                Ok(()) => return Ok((wasm, id, true)),
                Err(e) => {
                    // Remember the failure: retrying costs a minute on every start.
                    let _ = std::fs::write(&failed, e.to_string());
                    e.to_string()
                }
            },
        };
        progress(&format!(
            "cannot make the snapshot with {} imported ({why}); using the stock snapshot, so \
             those imports cost their full time on every call. Set LLM_IN_SANDBOX_PRELOAD to \
             other modules or `none`, or delete {} to try again.",
            cfg.preload.join(", "),
            failed.display()
        ));
        Ok(stock)
    }

    /// Bytes of linear memory every call starts with (the snapshot's memory, preloaded
    /// modules included); a memory cap below it cannot start an instance.
    pub fn base_memory_bytes(&self) -> u64 {
        self.pre
            .module()
            .exports()
            .find_map(|e| e.ty().memory().map(|m| m.minimum()))
            .unwrap_or(0)
            .saturating_mul(65536)
    }

    /// Bytes of guest memory that idle instance slots keep resident so the next call in each
    /// starts without page faults (at most 32 MiB a slot, written pages only; 0 on kernels
    /// without PAGEMAP_SCAN, where nothing is kept).
    pub fn kept_bytes(&self) -> u64 {
        self.engine
            .pooling_allocator_metrics()
            .map_or(0, |m| m.unused_memory_bytes_resident() as u64)
    }

    /// Give memory back once the runtime has gone quiet: when no call is running and none has
    /// run for `idle`, release the pages the idle instance slots keep (see
    /// [`Runtime::kept_bytes`]) and return the allocator's free heap memory to the system.
    /// The next call in each slot faults its pages in again (a few ms once: `perf`'s row for
    /// `print(1)` just after a numpy call measures such a slot), then runs as fast as before.
    /// Returns the slot bytes released (0 when this quiet spell was already released), or
    /// `None` when the runtime is busy or not idle long enough. Safe at any time: a call that
    /// starts meanwhile is not disturbed.
    pub fn release_idle_memory(&self, idle: Duration) -> Option<u64> {
        if self.slots.available_permits() < self.max_instances as usize {
            return None;
        }
        let last = self.last_active.load(Ordering::Relaxed);
        if self
            .born
            .elapsed()
            .saturating_sub(Duration::from_millis(last))
            < idle
        {
            return None;
        }
        if self.released_at.swap(last, Ordering::Relaxed) == last {
            return Some(0);
        }
        #[cfg(target_os = "linux")]
        let released = self
            .engine
            .pooling_allocator_metrics()
            .map_or(0, |m| m.release_unused_memory_resident() as u64);
        #[cfg(not(target_os = "linux"))]
        let released = 0;
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: `malloc_trim` only returns free heap pages to the kernel; it is thread-safe.
        unsafe {
            libc::malloc_trim(0);
        }
        Some(released)
    }

    /// The modules already imported in the snapshot every call starts from; empty for the
    /// stock snapshot (asked for, or used because the preloaded one could not be made).
    pub fn preloaded(&self) -> &[String] {
        &self.preloaded
    }

    /// The read-only site layer of extra packages every sandbox sees, if any.
    pub fn site_layer(&self) -> Option<&crate::packages::SiteLayer> {
        self.site_layer.as_ref()
    }

    /// How the host's pip is run for `pip install` in episodes.
    pub fn pip_settings(&self) -> &crate::packages::PipSettings {
        &self.pip
    }

    /// The cache root (package downloads are shared through it).
    pub fn cache_root(&self) -> &Path {
        &self.cache_root
    }

    /// The verified artifacts this runtime was loaded from.
    pub fn files(&self) -> &RuntimeFiles {
        &self.files
    }

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

    async fn run_here(&self, req: RunRequest) -> Result<RunResult, RuntimeError> {
        let started = Instant::now();
        let Some(request) = request_json(&req) else {
            return Ok(RunResult::usage(req.invocation, started));
        };
        // The request goes through the host door (see door.rs), so the code is constant.
        let code = if !self.preloaded.is_empty() {
            "_lis_main()".to_string()
        } else {
            let driver = self
                .driver
                .get_or_try_init(|| self.compile_driver())
                .await?;
            format!(
                "exec(__import__('marshal').loads(bytes.fromhex({driver})), _lis_g := {{'__builtins__': __builtins__}}); _lis_g['_lis_main']()"
            )
        };
        let result = self.turn(&code, &req, Some(request), started).await;
        // Overwrites and deletions are not seen live: re-measure the quota's directories
        // exactly, here on the sandbox threads, whatever the call's outcome.
        if let Some(q) = &req.quota {
            q.refresh();
        }
        let mut result = result?;
        result.duration = started.elapsed();
        Ok(result)
    }

    /// Compile the driver once per runtime, inside the guest, and keep its marshalled code:
    /// compiling ~100 lines of Python costs ~3 ms per call in WASM, unmarshalling ~0.1 ms.
    async fn compile_driver(&self) -> Result<String, RuntimeError> {
        // Marshalled code is specific to the interpreter build, which the cache key pins.
        let hex = match std::fs::read_to_string(&self.driver_cache) {
            Ok(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => hex,
            _ => {
                let hex = self.compile_driver_in_guest().await?;
                // Best effort: without the file the next process compiles again.
                let _ = crate::fsutil::replace(&self.driver_cache, hex.as_bytes());
                hex
            }
        };
        // `turn` cuts very long lines: split the literal into implicitly joined short pieces.
        let pieces: Vec<String> = hex
            .as_bytes()
            .chunks(1000)
            .map(|c| format!("'{}'", String::from_utf8_lossy(c)))
            .collect();
        Ok(format!("(\n{}\n)", pieces.join("\n")))
    }

    async fn compile_driver_in_guest(&self) -> Result<String, RuntimeError> {
        let code = format!(
            "import marshal, sys; sys.stdout.write(marshal.dumps(compile({}, '{DRIVER_FILENAME}', 'exec')).hex()); sys.stdout.flush()",
            json_literal(DRIVER)
        );
        let req = RunRequest {
            invocation: Invocation::Version,
            env: Vec::new(),
            cwd: "/".into(),
            stdin: Vec::new(),
            limits: Limits {
                timeout: Duration::from_secs(60),
                ..Limits::default()
            },
            mounts: Vec::new(),
            quota: None,
            network: None,
            processes: None,
        };
        let r = self.turn(&code, &req, None, Instant::now()).await?;
        let hex = r.stdout_text();
        if r.exit_code != 0
            || r.outcome != Outcome::Exited
            || hex.is_empty()
            || !hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(RuntimeError::Instantiate(format!(
                "the driver does not compile in the guest: {}",
                r.stderr_text()
            )));
        }
        Ok(hex)
    }

    /// The guest's WASI context: argv, env, stdio, and the preopens in the layout's fd order.
    fn wasi_ctx(
        &self,
        req: &RunRequest,
        stdout: &io::CappedOutput,
        stderr: &io::CappedOutput,
    ) -> Result<WasiP1Ctx, RuntimeError> {
        let mut b = WasiCtxBuilder::new();
        // Must come before the preopens, or file access is much slower (runtime.md).
        b.allow_blocking_current_thread(true);
        b.args(&[layout::ARGV0]);
        b.envs(&req.env);
        b.stdin(MemoryInputPipe::new(req.stdin.clone()));
        b.stdout(stdout.clone());
        b.stderr(stderr.clone());
        let preopen = |b: &mut WasiCtxBuilder, dir: &cap_std::fs::Dir, guest: &str, rw: bool| {
            let perms = if rw {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            b.preopened_dir(fd_path(dir), guest, perms)
                .map(|_| ())
                .map_err(|e| RuntimeError::Instantiate(format!("preopen {guest}: {e:#}")))
        };
        // Order is fd order, which the snapshot expects: library first, then mpl-data.
        preopen(&mut b, &self.lib_dir, layout::GUEST_LIB, false)?;
        preopen(&mut b, &self.mpl_dir, layout::GUEST_MPL_DATA, false)?;
        for m in &req.mounts {
            preopen(&mut b, &m.dir, &m.guest_path, m.writable)?;
        }
        Ok(b.build_p1())
    }

    /// Run `code` through the snapshot's `turn` export in a fresh instance with `req`'s
    /// environment, mounts, stdin and limits (`req.invocation` is not used here); `request`
    /// is what the host door answers, once.
    async fn turn(
        &self,
        code: &str,
        req: &RunRequest,
        request: Option<Vec<u8>>,
        started: Instant,
    ) -> Result<RunResult, RuntimeError> {
        let limits = &req.limits;
        // A slot first, so a full pool means waiting, never a failed instantiation. Waiting
        // counts against the call's deadline.
        let _slot = match tokio::time::timeout(limits.timeout, self.slots.acquire()).await {
            Ok(Ok(permit)) => permit,
            Ok(Err(_closed)) => {
                return Err(RuntimeError::Instantiate(
                    "the runtime is shutting down".into(),
                ));
            }
            Err(_) => {
                return Err(RuntimeError::Busy {
                    slots: self.max_instances,
                    waited: started.elapsed(),
                });
            }
        };
        let _active = Active::now(&self.last_active, self.born);
        let left = limits.timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            // The slot came too late to run anything: still the pool's fault, not the guest's.
            return Err(RuntimeError::Busy {
                slots: self.max_instances,
                waited: started.elapsed(),
            });
        }
        let limits = &Limits {
            timeout: left,
            ..limits.clone()
        };
        let stdout = io::CappedOutput::new(limits.output_bytes);
        let stderr = io::CappedOutput::new(limits.output_bytes);
        let wasi = self.wasi_ctx(req, &stdout, &stderr)?;
        let state = GuestState {
            wasi,
            limiter: MemoryLimiter::new(limits.memory_bytes),
            quota: req.quota.clone(),
            request,
            network: req.network.clone(),
            processes: req.processes.clone(),
            deadline: Instant::now() + limits.timeout,
            open_files: open_files::OpenFiles::default(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.set_epoch_deadline(1);
        store.epoch_deadline_async_yield_and_update(1);

        // Instantiation and the exports are ours: their failures are host errors, never a
        // guest outcome shown to the model.
        let host = |what: &str| {
            let what = what.to_string();
            move |e: wasmtime::Error| RuntimeError::Instantiate(format!("{what}: {e:#}"))
        };
        let instance = self
            .pre
            .instantiate_async(&mut store)
            .await
            .map_err(host("instantiating"))?;
        let exports = TurnExports::of(&instance, &mut store).map_err(host("exports"))?;
        let call = exports.run(&mut store, code);
        let outcome = tokio::time::timeout(limits.timeout, call).await;
        let limiter = &store.data().limiter;
        let (peak, denied) = (limiter.peak(), limiter.denied());
        drop(store);
        let (out, out_dropped) = stdout.take();
        let (err, err_dropped) = stderr.take();
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
            Outcome::Exited if out_dropped + err_dropped > 0 => Outcome::OutputTruncated,
            o => o,
        };
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

/// A string as a JSON string literal, which is also a valid Python string literal.
fn json_literal(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

#[derive(Serialize)]
struct DriverRequest<'a> {
    mode: &'static str,
    code: Option<&'a str>,
    path: Option<&'a str>,
    module: Option<&'a str>,
    argv: Vec<&'a str>,
    cwd: &'a str,
    site: [&'static str; 2],
    env: std::collections::BTreeMap<&'a str, &'a str>,
}

/// The request the driver reads through the host door, as JSON, or `None` for invocations
/// answered without the guest.
fn request_json(req: &RunRequest) -> Option<Vec<u8>> {
    let (mode, code, path, module, argv): (_, _, _, _, Vec<&str>) = match &req.invocation {
        Invocation::Code { code, args } => (
            "code",
            Some(code.as_str()),
            None,
            None,
            std::iter::once("-c")
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::Module { module, args } => (
            "module",
            None,
            None,
            Some(module.as_str()),
            std::iter::once("-m")
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::File { path, args } => (
            "file",
            None,
            Some(path.as_str()),
            None,
            std::iter::once(path.as_str())
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::Stdin { argv0, args } => (
            "stdin",
            None,
            None,
            None,
            std::iter::once(argv0.as_str())
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::Version | Invocation::Help => return None,
    };
    let env = req
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    serde_json::to_vec(&DriverRequest {
        mode,
        code,
        path,
        module,
        argv,
        cwd: &req.cwd,
        site: [layout::GUEST_SITE_LAYER, layout::GUEST_USER_SITE],
        env,
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preload_lists_parse_extend_and_check_names() {
        assert_eq!(
            parse_preload(" numpy , scipy.stats,,"),
            ["numpy", "scipy.stats"]
        );
        assert!(parse_preload("none").is_empty());
        let defaults = parse_preload(DEFAULT_PRELOAD);
        assert!(defaults.iter().any(|m| m == "pandas"), "{defaults:?}");
        let extended = parse_preload("+sklearn,numpy");
        assert_eq!(extended.len(), defaults.len() + 1, "numpy is not repeated");
        assert_eq!(extended.last().map(String::as_str), Some("sklearn"));
        assert!(defaults.iter().all(|m| is_module_name(m)));
        for bad in ["os;print(1)", "a..b", "1x", "x-y", ".x", "x y"] {
            assert!(!is_module_name(bad), "{bad}");
        }
    }
}
