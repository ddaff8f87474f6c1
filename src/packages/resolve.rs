//! Resolving a requirement set to a lock (name, version, SHA-256 and file of each wheel),
//! answered from the cache when it was resolved before.

use std::fs::{self, File};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::pip::{PURE_TARGET, PipSettings, run_pip};
use super::{PackageError, Requirement, builtin, downloads_dir, io_err, normalize};
use crate::artifacts::sha256_file;

/// One resolved wheel.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Locked {
    /// The distribution name (from the wheel's file name).
    pub name: String,
    /// Its version.
    pub version: String,
    /// The wheel's SHA-256 (hex).
    pub sha256: String,
    /// The wheel's file name in the cache.
    pub file: String,
}

/// What a requirement set resolved to.
#[derive(Debug, Clone)]
pub struct Lock {
    /// The lock's key (hash of requirements and index).
    pub key: String,
    /// The wheels, sorted by name.
    pub packages: Vec<Locked>,
    /// Whether pip ran (false: answered from the cache).
    pub fetched: bool,
}

impl Lock {
    pub(super) fn text(&self) -> String {
        let mut t = String::from("# name version sha256 wheel\n");
        for p in &self.packages {
            t.push_str(&format!(
                "{} {} {} {}\n",
                p.name, p.version, p.sha256, p.file
            ));
        }
        t
    }

    fn parse(key: &str, text: &str) -> Option<Lock> {
        let mut packages = Vec::new();
        for l in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let w: Vec<&str> = l.split_whitespace().collect();
            let [name, version, sha256, file] = w.as_slice() else {
                return None;
            };
            packages.push(Locked {
                name: (*name).into(),
                version: (*version).into(),
                sha256: (*sha256).into(),
                file: (*file).into(),
            });
        }
        Some(Lock {
            key: key.to_string(),
            packages,
            fetched: false,
        })
    }
}

/// The key of a requirement set: what pip is asked and where.
fn lock_key(reqs: &[Requirement], settings: &PipSettings, stubs: Option<&Path>) -> String {
    let mut lines: Vec<String> = reqs.iter().map(ToString::to_string).collect();
    lines.sort();
    lines.dedup();
    let mut h = Sha256::new();
    h.update(b"lis-packages v1\0");
    h.update(PURE_TARGET.join(" ").as_bytes());
    h.update(b"\0");
    h.update(settings.index_url.as_deref().unwrap_or("").as_bytes());
    if let Some(stubs) = stubs {
        // Named by a hash of the built-in set: other built-ins, another resolution.
        h.update(b"\0builtins ");
        h.update(stubs.to_string_lossy().as_bytes());
    }
    for l in &lines {
        h.update(b"\0");
        h.update(l.as_bytes());
    }
    hex::encode(&h.finalize()[..16])
}

/// `NAME-VERSION(-BUILD)?-PY-ABI-PLATFORM.whl` → (name, version, abi, platform).
fn wheel_tags(file: &str) -> Option<(String, String, String, String)> {
    let stem = file.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    if parts.len() < 5 {
        return None;
    }
    let n = parts.len();
    Some((
        parts[0].to_string(),
        parts[1].to_string(),
        parts[n - 2].to_string(),
        parts[n - 1].to_string(),
    ))
}

/// The lock a requirement set resolves to: from the cache when it was resolved before and
/// every wheel is still there with its SHA-256, else with the host's pip (one pip at a time
/// per cache).
///
/// # Errors
/// [`PackageError::NotPure`] naming the package with no pure-Python wheel, `Timeout`,
/// `TooLarge`, `Resolve` or `Io`.
pub fn resolve(
    cache_root: &Path,
    reqs: &[Requirement],
    settings: &PipSettings,
) -> Result<Lock, PackageError> {
    resolve_with_builtins(cache_root, reqs, settings, &[])
}

/// [`resolve`], with the runtime's built-in packages (name, version; see
/// [`builtin_versions`](crate::packages::builtin_versions)) offered to pip as already there: a
/// dependency on one (flask needs markupsafe, many packages need numpy) resolves to the
/// built-in version instead of failing for want of a pure-Python wheel. Their stand-in wheels
/// (metadata only) end up in the lock; [`install_into`](crate::packages::install_into) is given
/// their names to skip, like any built-in.
///
/// # Errors
/// As [`resolve`].
pub fn resolve_with_builtins(
    cache_root: &Path,
    reqs: &[Requirement],
    settings: &PipSettings,
    builtins: &[(String, String)],
) -> Result<Lock, PackageError> {
    let dir = downloads_dir(cache_root);
    let stubs = if builtins.is_empty() {
        None
    } else {
        Some(builtin::stub_wheels(&dir, builtins)?)
    };
    let key = lock_key(reqs, settings, stubs.as_deref());
    let lock_path = dir.join("locks").join(format!("{key}.lock"));
    let wheels = dir.join("wheels");
    if let Some(lock) = cached_lock(&key, &lock_path, &wheels) {
        return Ok(lock);
    }
    fs::create_dir_all(dir.join("locks")).map_err(io_err("create directory", &dir))?;
    fs::create_dir_all(&wheels).map_err(io_err("create directory", &wheels))?;
    let flock_path = dir.join(".lock");
    let flock = File::create(&flock_path).map_err(io_err("create lock file", &flock_path))?;
    lock_within(&flock, &flock_path, settings)?;
    if let Some(lock) = cached_lock(&key, &lock_path, &wheels) {
        return Ok(lock);
    }
    let staging = tempfile::Builder::new()
        .prefix("download-")
        .tempdir_in(&dir)
        .map_err(io_err("create a temporary directory in", &dir))?;
    run_pip(reqs, settings, stubs.as_deref(), staging.path())?;
    let mut packages = Vec::new();
    let mut total = 0u64;
    let entries = fs::read_dir(staging.path()).map_err(io_err("read", staging.path()))?;
    for e in entries {
        let e = e.map_err(io_err("read", staging.path()))?;
        let file = e.file_name().to_string_lossy().into_owned();
        let Some((name, version, abi, platform)) = wheel_tags(&file) else {
            return Err(PackageError::Wheel {
                file,
                detail: "not a wheel (only wheels are installed)".into(),
            });
        };
        if abi != "none" || platform != "any" {
            return Err(PackageError::NotPure { name });
        }
        let path = e.path();
        total += e.metadata().map(|m| m.len()).unwrap_or(0);
        if total > settings.max_bytes {
            return Err(PackageError::TooLarge {
                size: total,
                limit: settings.max_bytes,
            });
        }
        let sha256 = sha256_file(&path).map_err(io_err("read", &path))?;
        let dest = wheels.join(&file);
        fs::rename(&path, &dest).map_err(io_err("move into", &dest))?;
        packages.push(Locked {
            name,
            version,
            sha256,
            file,
        });
    }
    packages.sort_by_key(|p| normalize(&p.name));
    let lock = Lock {
        key,
        packages,
        fetched: true,
    };
    crate::fsutil::write_atomic(&lock_path, lock.text().as_bytes())
        .map_err(io_err("write", &lock_path))?;
    evict(&wheels, &lock, settings.max_cache_bytes);
    Ok(lock)
}

/// Take the cache's lock, waiting at most `settings.timeout` (another process may hold it
/// through a long pip run); then [`PackageError::Timeout`] ([`PackageError::Stopped`] when
/// `settings.stop` is set first).
fn lock_within(flock: &File, path: &Path, settings: &PipSettings) -> Result<(), PackageError> {
    let (started, timeout) = (std::time::Instant::now(), settings.timeout);
    loop {
        if settings.stopped() {
            return Err(PackageError::Stopped);
        }
        match flock.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < timeout => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Err(PackageError::Timeout(timeout)),
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err("lock", path)(e)),
        }
    }
}

/// Wheels younger than this are never evicted: a resolution in another process may have just
/// answered from them and be about to unpack them.
const EVICTION_GRACE: std::time::Duration = std::time::Duration::from_secs(600);

/// Keep the wheel cache under `max_bytes`: remove the wheels used longest ago (a cached
/// resolution marks its wheels used), never those of `keep` or any used within
/// [`EVICTION_GRACE`]. A lock whose wheel is gone resolves again when next asked for.
fn evict(wheels: &Path, keep: &Lock, max_bytes: u64) {
    let Ok(entries) = fs::read_dir(wheels) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, u64, std::path::PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let m = e.metadata().ok().filter(std::fs::Metadata::is_file)?;
            Some((m.modified().ok()?, m.len(), e.path()))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    if total <= max_bytes {
        return;
    }
    files.sort();
    let now = std::time::SystemTime::now();
    for (used, size, path) in files {
        if total <= max_bytes {
            break;
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let kept = keep.packages.iter().any(|p| Some(&p.file) == name.as_ref());
        let recent = now
            .duration_since(used)
            .map_or(true, |age| age < EVICTION_GRACE);
        if !kept && !recent && fs::remove_file(&path).is_ok() {
            total -= size;
        }
    }
}

/// Mark a wheel as used now, for [`evict`]'s order.
fn touch(path: &Path) {
    if let Ok(f) = File::options().append(true).open(path) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

fn cached_lock(key: &str, lock_path: &Path, wheels: &Path) -> Option<Lock> {
    let text = fs::read_to_string(lock_path).ok()?;
    let lock = Lock::parse(key, &text)?;
    let whole = lock
        .packages
        .iter()
        .all(|p| sha256_file(&wheels.join(&p.file)).ok().as_deref() == Some(p.sha256.as_str()));
    if whole {
        for p in &lock.packages {
            touch(&wheels.join(&p.file));
        }
    }
    whole.then_some(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_names_give_their_tags() {
        assert_eq!(
            wheel_tags("math_verify-0.9.0-py3-none-any.whl"),
            Some((
                "math_verify".into(),
                "0.9.0".into(),
                "none".into(),
                "any".into()
            ))
        );
        assert_eq!(
            wheel_tags("x-1-1b-cp315-cp315-manylinux_2_17_x86_64.whl").map(|t| t.3),
            Some("manylinux_2_17_x86_64".into())
        );
        assert!(wheel_tags("x-1.tar.gz").is_none());
        assert_eq!(normalize("Foo__Bar.baz"), "foo-bar-baz");
    }
}
