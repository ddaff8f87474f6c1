//! The Python runtime: one wasmtime [`Engine`], the compiled snapshot module and its
//! [`InstancePre`], shared by every sandbox in the process. Each run gets a fresh instance
//! (copy-on-write memory from the snapshot), so runs never see each other's state.
//!
//! Files by concern: `config.rs` (settings, preload lists), `engine.rs` (engine and pool
//! settings, loading the module), `site_layer.rs` (compiling the `--with` layer once),
//! `pool.rs` (instance slots, idle memory), `call.rs` (one call in a fresh instance),
//! `driver.rs` (the Python driver every call runs), `write_guard.rs` (the disk quota inside
//! WASI calls), `door.rs` (the host door), `preload.rs` (the preloaded snapshot).

mod cache;
mod call;
mod config;
mod data_segments;
mod door;
mod driver;
mod engine;
pub mod executor;
mod gemm;
mod guest_mem;
mod invocation;
mod io;
mod limits;
pub mod linux_files;
pub mod loopback;
mod modes;
pub mod net;
mod open_files;
mod phases;
mod pool;
mod preload;
pub mod procs;
mod programs;
mod relink;
mod shim;
mod site_layer;
mod sock_door;
mod write_guard;
pub use open_files::{
    LimitRaise, OpenFileLimit, PER_CALL as MAX_OPEN_FILES_PER_CALL,
    PER_SANDBOX as OPEN_FILES_PER_SANDBOX, current_limit as open_file_limit, files_wanted,
    open_now as guest_open_files, raise_open_file_limit,
};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use wasmtime::{Engine, InstancePre};
use wasmtime_wasi::p1::WasiP1Ctx;

pub use cache::WASMTIME_VERSION;
pub use config::{DEFAULT_PRELOAD, RuntimeConfig, parse_preload};
pub use invocation::{Invocation, UsageError};
pub use limits::{Limits, Outcome, RunResult};
pub use phases::PhaseTimes;
pub use programs::{Program, ProgramError, ProgramRequest};

/// The guest layout lives below the runtime (the package layer reads it too); this path stays.
pub use crate::layout;
pub use crate::quota::{DiskPool, Quota, QuotaError, Usage};

use crate::artifacts::RuntimeFiles;
use call::TurnExports;
use driver::{DRIVER, DRIVER_FILENAME};
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
    /// The extra packages (`--with`) could not be resolved or unpacked.
    #[error("extra packages: {0}")]
    Packages(#[from] crate::packages::PackageError),
    /// A name in the preload list is not a module name.
    #[error(
        "`{0}` in the preload list is not a module name: give dotted Python names separated by \
         commas (e.g. `numpy,scipy.stats`), `+name,...` at the start to add to the default, or \
         `none`"
    )]
    BadPreload(String),
}

/// A directory the guest sees.
#[derive(Debug, Clone)]
pub struct Mount {
    /// The host directory's capability (shared, not reopened), open now or opened when the
    /// guest first uses it.
    pub dir: Arc<crate::lazy_dir::LazyDir>,
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
    /// The sandbox's own loopback network the guest's sockets use (`None`: sockets fail
    /// with `EAFNOSUPPORT`).
    pub loopback: Option<Arc<loopback::Loopback>>,
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
    /// This program's sockets on the sandbox's loopback (closed when it ends).
    loopback: Option<loopback::Lease>,
    /// When the call's deadline passes: a request through the door may not outlive it.
    deadline: Instant,
    /// The files the guest holds open (bounded: [`open_files`]).
    open_files: open_files::OpenFiles,
    /// Whether the call did anything that may change what its folders hold on disk (a write
    /// to a file, a new, removed or renamed entry, a size change, a command): only then is
    /// the quota re-measured after it (`write_guard`).
    touched_disk: bool,
    /// The runtime's count of matrix products the host did for its guests (`gemm.rs`).
    products: Arc<std::sync::atomic::AtomicU64>,
}

/// The shared Python runtime. Cheap to share behind an `Arc`; `run` may be called from many
/// tasks at once.
pub struct Runtime {
    engine: Engine,
    pre: InstancePre<GuestState>,
    /// The library folders every call preopens, opened once for the process (each call's
    /// preopen shares the descriptor).
    lib_dir: Arc<cap_std::fs::Dir>,
    mpl_dir: Arc<cap_std::fs::Dir>,
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
    /// Where calls' time went, summed (see [`Runtime::phase_times`]).
    phases: Arc<phases::PhaseCounters>,
    /// Matrix products the host did for this runtime's guests ([`Runtime::host_products`]).
    products: Arc<std::sync::atomic::AtomicU64>,
    /// The read-only site layer (`--with`), if any.
    site_layer: Option<crate::packages::SiteLayer>,
    /// How the host's pip is run for installs in episodes.
    pip: crate::packages::PipSettings,
    cache_root: PathBuf,
    /// The engine of WASI programs (the C toolchain and what it builds), made on first use.
    programs: std::sync::OnceLock<programs::Programs>,
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

impl Runtime {
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

    /// How many matrix products the host has done for this runtime's guests (numpy's and
    /// scipy's `gemm` calls, see `gemm.rs`); products it declined are not counted.
    pub fn host_products(&self) -> u64 {
        self.products.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Where every call's time went so far, by phase (store, instantiation, guest, reset);
    /// subtract two readings with [`PhaseTimes::since`].
    pub fn phase_times(&self) -> PhaseTimes {
        self.phases.now()
    }

    /// The verified artifacts this runtime was loaded from.
    pub fn files(&self) -> &RuntimeFiles {
        &self.files
    }
}
