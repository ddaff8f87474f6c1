//! The read-only site layer (`setup --with`) every sandbox of a runtime mounts.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{
    Locked, PackageError, PipSettings, Requirement, builtin_names, builtin_versions, install_into,
    io_err, normalize, packages_dir, resolve_with_builtins,
};
use crate::artifacts::RuntimeFiles;

/// The read-only site layer every sandbox of a runtime mounts: a folder that takes the place
/// of the runtime's library folder in the guest (`/usr/local/lib`), holding the same stdlib
/// zip (a hard link) and `site-packages/`.
#[derive(Debug, Clone)]
pub struct SiteLayer {
    /// The folder mounted at `/usr/local/lib`.
    pub lib_dir: PathBuf,
    /// The layer's key (hash of the runtime and the lock).
    pub key: String,
    /// What it holds (built-in names skipped).
    pub packages: Vec<Locked>,
    /// The lock file in the cache.
    pub lock_file: PathBuf,
}

/// Make (once) the site layer for `reqs`; `None` when there are none. Cached by the hashes
/// of the runtime and of what the requirements resolved to.
///
/// # Errors
/// See [`resolve_with_builtins`] and [`install_into`].
pub fn ensure_layer(
    files: &RuntimeFiles,
    cache_root: &Path,
    reqs: &[Requirement],
    settings: &PipSettings,
    progress: &dyn Fn(&str),
) -> Result<Option<SiteLayer>, PackageError> {
    if reqs.is_empty() {
        return Ok(None);
    }
    let list: Vec<String> = reqs.iter().map(ToString::to_string).collect();
    // The built-in packages are offered to pip as installed, as for an install inside an
    // episode: a dependency on one (rouge-score's nltk needs numpy and regex) resolves to it
    // instead of pip falling back to an old release that does not need it.
    let lock = resolve_with_builtins(
        cache_root,
        reqs,
        settings,
        &builtin_versions(&files.manifest()),
    )?;
    let lock_file = packages_dir(cache_root)
        .join("locks")
        .join(format!("{}.lock", lock.key));
    let builtin = builtin_names(&files.manifest());
    let mut h = Sha256::new();
    h.update(files.snapshot_sha256().as_bytes());
    h.update(lock.text().as_bytes());
    let key = hex::encode(&h.finalize()[..16]);
    let site_root = cache_root.join("site");
    let dir = site_root.join(&key);
    let packages: Vec<Locked> = lock
        .packages
        .iter()
        .filter(|p| !builtin.contains(&normalize(&p.name)))
        .cloned()
        .collect();
    let layer = SiteLayer {
        lib_dir: dir.join("lib"),
        key: key.clone(),
        packages,
        lock_file,
    };
    if dir.join("COMPLETE").is_file() {
        return Ok(Some(layer));
    }
    fs::create_dir_all(&site_root).map_err(io_err("create directory", &site_root))?;
    let flock_path = site_root.join(format!("{key}.lock"));
    let flock = File::create(&flock_path).map_err(io_err("create lock file", &flock_path))?;
    flock.lock().map_err(io_err("lock", &flock_path))?;
    if dir.join("COMPLETE").is_file() {
        return Ok(Some(layer));
    }
    progress(&format!("making the site layer with {}", list.join(", ")));
    let staging = site_root.join(format!("{key}.partial"));
    if staging.exists() {
        make_tree_writable(&staging);
        fs::remove_dir_all(&staging).map_err(io_err("remove", &staging))?;
    }
    let lib = staging.join("lib");
    let site = lib.join("site-packages");
    fs::create_dir_all(&site).map_err(io_err("create directory", &site))?;
    let zip_src = files.lib_dir().join(crate::artifacts::STDLIB_GUEST_NAME);
    let zip_dst = lib.join(crate::artifacts::STDLIB_GUEST_NAME);
    if fs::hard_link(&zip_src, &zip_dst).is_err() {
        fs::copy(&zip_src, &zip_dst).map_err(io_err("copy", &zip_src))?;
    }
    let site_dir = cap_std::fs::Dir::open_ambient_dir(&site, cap_std::ambient_authority())
        .map_err(io_err("open", &site))?;
    install_into(
        cache_root,
        &lock,
        &builtin,
        &site_dir,
        settings.max_bytes.saturating_mul(8),
        &mut |_| Ok(()),
    )?;
    let mut manifest = format!("# requirements: {}\n", list.join(" "));
    manifest.push_str(&lock.text());
    let stamp = staging.join("COMPLETE");
    fs::write(&stamp, manifest).map_err(io_err("write", &stamp))?;
    make_tree_read_only(&staging);
    fs::rename(&staging, &dir).map_err(io_err("rename into", &dir))?;
    Ok(Some(layer))
}

fn set_read_only(p: &Path, ro: bool) {
    if let Ok(m) = fs::symlink_metadata(p)
        && !m.file_type().is_symlink()
    {
        let mut perms = m.permissions();
        perms.set_readonly(ro);
        let _ = fs::set_permissions(p, perms);
    }
}

/// Make every file under `dir` read-only (the layer after its `.pyc` files were written).
pub fn seal(dir: &Path) {
    make_tree_read_only(dir);
}

fn make_tree_read_only(dir: &Path) {
    // Files only: the layer's folders stay listable and the cache stays removable.
    crate::fsutil::walk(dir, &mut |p, is_dir| {
        if !is_dir {
            set_read_only(p, true);
        }
    });
}

/// Make a layer's folders writable so that the tree can be removed. Only folders: removing a
/// file needs a writable folder, not a writable file, and a layer's files may be hard links to
/// the runtime's own (its `python315.zip`), which must stay read-only.
fn make_tree_writable(dir: &Path) {
    set_read_only(dir, false);
    crate::fsutil::walk(dir, &mut |p, is_dir| {
        if is_dir {
            set_read_only(p, false);
        }
    });
}
