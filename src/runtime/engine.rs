//! The engine and its instance pool settings, and loading the runtime: the compiled module
//! (from the cache, or compiled once), the linker with WASI and our host functions, and the
//! epoch ticker that enforces deadlines.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sha2::Digest;
use wasmtime::{Config, Engine, Linker};

use super::config::is_module_name;
use super::{
    DRIVER, GuestState, Runtime, RuntimeConfig, RuntimeError, cache, door, preload, write_guard,
};
use crate::artifacts::RuntimeFiles;

/// Engine settings that are baked into compiled code; part of the cache key.
const ENGINE_SETTINGS: &str = "exceptions,gc-drc,epoch,cow,pooling,stack=8M,opt=speed,v1";
/// Our patch to the code generator (vendor/README.md): compiled code depends on it, so the
/// cache key carries its hash too.
const CODEGEN_PATCH: &str = include_str!("../../vendor/wasmtime-internal-cranelift.patch");

/// [`ENGINE_SETTINGS`] and the code generator patch's hash: the settings part of the key of
/// every compiled module. The `---`/`+++` header lines are left out of the hash: they carry
/// file times, which change whenever the patch is regenerated, though the code does not.
fn compiled_settings() -> String {
    format!(
        "{ENGINE_SETTINGS},codegen-patch={},{}",
        patch_hash(CODEGEN_PATCH),
        super::relink::VERSION
    )
}

/// The Python module's rewrite before it is compiled ([`super::relink`]): its matrix products
/// go to the host, `fmod` gets a fast path. Part of the key through [`compiled_settings`].
fn relink(wasm: Vec<u8>) -> Result<Vec<u8>, RuntimeError> {
    let (linked, _) =
        super::relink::link(&wasm).map_err(|e| RuntimeError::Compile(e.to_string()))?;
    Ok(linked)
}

/// A short hash of a unified diff's content, its `---`/`+++` header lines left out.
fn patch_hash(patch: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for line in patch
        .lines()
        .filter(|l| !l.starts_with("--- ") && !l.starts_with("+++ "))
    {
        h.update(line.as_bytes());
        h.update(b"\n");
    }
    hex::encode(&h.finalize()[..8])
}

/// How often the epoch advances: the granularity of deadlines.
const EPOCH_TICK: Duration = Duration::from_millis(10);
pub(super) const STACK: usize = 8 << 20;
/// Written pages of a linear memory that a reset may restore in place instead of releasing.
/// Chosen by measurement (README): 32 MiB holds the working set of a numpy call (a 300x300
/// matmul loop: 15.8 ms per call, 23.7 ms with 16 MiB) and caps what an idle slot keeps.
const KEEP_RESIDENT: usize = 32 << 20;

fn engine_config(cfg: &RuntimeConfig) -> Config {
    let mut c = Config::new();
    c.wasm_exceptions(true)
        .epoch_interruption(true)
        .memory_init_cow(true)
        .max_wasm_stack(STACK)
        .async_stack_size(STACK + (1 << 20))
        .cranelift_opt_level(wasmtime::OptLevel::Speed);
    // For profiling the guest: `perf record` then names the guest's functions (CPython's C
    // functions, from the module's name section) through /tmp/perf-PID.map. Not part of the
    // compiled code, so not of the cache key.
    if std::env::var_os("LLM_IN_SANDBOX_PERFMAP").is_some() {
        c.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    let mut pool = wasmtime::PoolingAllocationConfig::new();
    // Each instance takes two memories (its linear memory and, once it throws, its GC heap,
    // which the pool allocates as a memory too) and a fiber stack, and a second stack while
    // the host door calls back into the guest's allocator (`host_alloc`, microseconds; the
    // door gives it back at once).
    pool.total_core_instances(cfg.max_instances)
        .total_memories(cfg.max_instances.saturating_mul(2))
        .total_tables(cfg.max_instances)
        .total_stacks(fiber_stacks(cfg.max_instances))
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

/// Fiber stacks for `instances` calls at once: one each, and spares for the calls that are
/// inside the door's callback at the same moment (an eighth, and at least 16 and twice the
/// sandbox threads). Not two each: every stack is two memory maps (the stack and its guard
/// page) made when the pool is, and at 10,000 instances two each took 40,000 of the kernel's default 65,530 maps per process
/// (`vm.max_map_count`) before any call ran; each running call adds about 3 more.
fn fiber_stacks(instances: u32) -> u32 {
    // A call is in the callback only while a sandbox thread runs it (or, rarely, when its
    // epoch slice ends right there): never fewer spares than twice the threads.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let floor = u32::try_from(threads.saturating_mul(2))
        .unwrap_or(u32::MAX)
        .max(16);
    instances.saturating_add((instances / 8).max(floor))
}

fn map_engine_err(e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Engine(e.to_string())
}

pub(super) fn open_dir(path: &Path) -> Result<cap_std::fs::Dir, RuntimeError> {
    cap_std::fs::Dir::open_ambient_dir(path, cap_std::ambient_authority()).map_err(|source| {
        RuntimeError::Io {
            action: "open directory",
            path: path.to_path_buf(),
            source,
        }
    })
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
        let key = cache::cache_key(&engine, &identity, &compiled_settings());
        let module = cache::load_or_compile(
            &engine,
            &wasm,
            &key,
            &cfg.cache_root,
            Some(&relink),
            progress,
        )?;
        let mut linker: Linker<GuestState> = Linker::new(&engine);
        wasmtime_wasi::p1::add_to_linker_async(&mut linker, |s| &mut s.wasi)
            .map_err(map_engine_err)?;
        write_guard::add_write_guard(&mut linker).map_err(map_engine_err)?;
        door::add_to_linker(&mut linker).map_err(map_engine_err)?;
        let pre = linker.instantiate_pre(&module).map_err(map_engine_err)?;
        let stop_ticker = start_epoch_ticker(&engine)?;
        let runtime = Runtime {
            lib_dir: Arc::new(open_dir(&lib_dir)?),
            mpl_dir: Arc::new(open_dir(&files.mpl_data_dir())?),
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
            phases: Arc::default(),
            products: Arc::default(),
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
            programs: std::sync::OnceLock::new(),
        };
        runtime.compile_layer(progress);
        Ok(runtime)
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
            &cache::cache_key(engine, &id, &compiled_settings()),
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
}

/// Advance the engine's epoch every [`EPOCH_TICK`] on a thread of its own (deadlines), until
/// the returned flag is set or the engine is gone.
pub(super) fn start_epoch_ticker(engine: &Engine) -> Result<Arc<AtomicBool>, RuntimeError> {
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
    Ok(stop_ticker)
}

#[cfg(test)]
mod tests {
    use super::patch_hash;

    #[test]
    fn the_codegen_key_follows_the_patch_content_not_its_file_times() {
        let a = "--- a/x.rs\t2006-07-24 01:21:28\n+++ b/x.rs\t2026-12-07 12:38:38\n@@ -1 +1 @@\n-old\n+new\n";
        let regenerated = "--- a/x.rs\t2006-07-24 01:21:28\n+++ b/x.rs\t2026-12-08 09:00:00\n@@ -1 +1 @@\n-old\n+new\n";
        let changed = "--- a/x.rs\t2006-07-24 01:21:28\n+++ b/x.rs\t2026-12-07 12:38:38\n@@ -1 +1 @@\n-old\n+newer\n";
        assert_eq!(patch_hash(a), patch_hash(regenerated));
        assert_ne!(patch_hash(a), patch_hash(changed));
    }
}
