//! The on-disk cache of compiled modules (`.cwasm`).
//!
//! Compiling the ~100 MB Python module takes ~46 s and ~2.2 GiB, so it is done once per
//! (artifact SHA-256, wasmtime version, engine settings) and stored; later processes
//! deserialize it in milliseconds. Writes are atomic (temporary file + rename) and guarded by a
//! file lock so parallel processes (e.g. test binaries) never compile the same module twice at
//! once.

use std::fs::{self, File};
use std::hash::{Hash, Hasher};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

use super::RuntimeError;

/// The wasmtime version compiled in (kept equal to the exact pin in Cargo.toml).
pub const WASMTIME_VERSION: &str = "48.0.8";

/// The cache key of a module: its SHA-256, the wasmtime version, our engine settings and
/// wasmtime's own compatibility hash of the engine configuration.
pub fn cache_key(engine: &Engine, wasm_sha256: &str, settings: &str) -> String {
    let mut compat = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut compat);
    let mut h = Sha256::new();
    h.update(wasm_sha256.as_bytes());
    h.update(b"\0");
    h.update(WASMTIME_VERSION.as_bytes());
    h.update(b"\0");
    h.update(settings.as_bytes());
    h.update(b"\0");
    h.update(compat.finish().to_le_bytes());
    hex::encode(&h.finalize()[..16])
}

fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> RuntimeError + 'a {
    move |source| RuntimeError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Where the compiled form of a module with this key lives.
pub fn cwasm_path(cache_root: &Path, key: &str) -> PathBuf {
    cache_root.join("compiled").join(format!("{key}.cwasm"))
}

/// What is done to a module's bytes before they are compiled (part of the key's identity).
pub type Prepare<'a> = &'a dyn Fn(Vec<u8>) -> Result<Vec<u8>, RuntimeError>;

/// Load the compiled module from the cache, compiling and storing it first if needed, after
/// `prepare` (if any) rewrote its bytes. `progress` gets a line when a compile starts, every
/// 10 s while it runs, and when it ends.
///
/// # Errors
/// I/O errors on the cache directory, `prepare`'s errors and compile errors.
pub fn load_or_compile(
    engine: &Engine,
    wasm: &Path,
    key: &str,
    cache_root: &Path,
    prepare: Option<Prepare<'_>>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Module, RuntimeError> {
    let dir = cache_root.join("compiled");
    let path = cwasm_path(cache_root, key);
    if let Some(m) = try_deserialize(engine, &path) {
        return Ok(m);
    }
    fs::create_dir_all(&dir).map_err(io("create directory", &dir))?;
    // Private: we only ever deserialize files from a directory nobody else can write.
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
        .map_err(io("set permissions of", &dir))?;
    let lock_path = dir.join(format!("{key}.lock"));
    let lock = File::create(&lock_path).map_err(io("create lock file", &lock_path))?;
    lock.lock().map_err(io("lock", &lock_path))?;
    if let Some(m) = try_deserialize(engine, &path) {
        return Ok(m);
    }
    let mut bytes = fs::read(wasm).map_err(io("read", wasm))?;
    if let Some(prepare) = prepare {
        bytes = prepare(bytes)?;
    }
    progress(&format!(
        "compiling {} ({} MB) once; later runs load it from {} in milliseconds",
        wasm.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("module"),
        bytes.len() / 1_000_000,
        dir.display()
    ));
    let started = Instant::now();
    let done = AtomicBool::new(false);
    let compiled = std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                if last.elapsed() >= Duration::from_secs(10) && !done.load(Ordering::Relaxed) {
                    last = Instant::now();
                    progress(&format!(
                        "still compiling... {} s",
                        started.elapsed().as_secs()
                    ));
                }
            }
        });
        let r = engine.precompile_module(&bytes);
        done.store(true, Ordering::Relaxed);
        r
    })
    .map_err(|e| RuntimeError::Compile(format!("{e:#}")))?;
    drop(bytes);
    crate::fsutil::write_atomic(&path, &compiled).map_err(io("write", &path))?;
    progress(&format!(
        "compiled in {:.0} s",
        started.elapsed().as_secs_f64()
    ));
    // SAFETY: `path` is in our private cache directory (mode 0700) and was written just now by
    // `Engine::precompile_module` of this same engine.
    unsafe { Module::deserialize_file(engine, &path) }
        .map_err(|e| RuntimeError::Compile(format!("{e:#}")))
}

/// The compiled module with this key, if the cache has it (never compiles).
pub fn load_compiled(engine: &Engine, key: &str, cache_root: &Path) -> Option<Module> {
    try_deserialize(engine, &cwasm_path(cache_root, key))
}

fn try_deserialize(engine: &Engine, path: &Path) -> Option<Module> {
    if !path.is_file() {
        return None;
    }
    // SAFETY: only files from our private cache directory, written by `precompile_module` with
    // an engine whose settings are part of the file name (the key). wasmtime also checks the
    // header for a version/configuration mismatch and refuses such files.
    match unsafe { Module::deserialize_file(engine, path) } {
        Ok(m) => Some(m),
        Err(_) => {
            // Corrupt or incompatible: recompile.
            let _ = fs::remove_file(path);
            None
        }
    }
}
