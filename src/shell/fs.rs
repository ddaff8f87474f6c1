//! The shell's view of a sandbox directory: a bashkit [`FsBackend`] over a
//! [`cap_std::fs::Dir`]. cap-std resolves every path beneath the directory, so `..`, absolute
//! paths and symlinks (whatever their target) cannot reach the host; on top of that we refuse to
//! *create* symlinks whose target would leave the directory, because the files stay on the host
//! after the episode and host tools would follow them. Writes are counted against a [`Quota`]
//! the sandbox's, shared with the editor and Python.

use std::io::{self, ErrorKind, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::lazy_dir::LazyDir;
use crate::runtime::Quota;
use std::time::SystemTime;

use bashkit::{DirEntry, FileType, FsBackend, FsLimits, FsUsage, Metadata};
use cap_std::fs::{Dir, OpenOptions};

/// A bashkit backend over one capability directory.
#[derive(Debug)]
pub struct CapFs {
    /// Opened on first use (a sandbox's `/tmp` and `/root`): mounting it opens nothing.
    dir: Arc<LazyDir>,
    quota: Arc<Quota>,
    /// The most bytes one read brings into memory: the sandbox's memory limit.
    read_limit: u64,
}

impl CapFs {
    /// A backend over `dir`, charging writes to `quota`; a file larger than `read_limit`
    /// (the sandbox's memory limit) cannot be read whole.
    pub fn new(dir: Arc<LazyDir>, quota: Arc<Quota>, read_limit: u64) -> CapFs {
        CapFs {
            dir,
            quota,
            read_limit,
        }
    }

    /// The directory, opened now if nothing used it yet.
    fn dir(&self) -> bashkit::Result<&Dir> {
        self.dir.get().map(|d| &**d).map_err(err)
    }
}

/// bashkit hands us paths relative to the mount point, written absolute (`/`, `/a/b`).
fn rel(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::ParentDir => out.push(".."), // cap-std refuses it if it leaves the root
            _ => {}
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

fn err(e: io::Error) -> bashkit::Error {
    bashkit::Error::Io(e)
}

fn quota_err(e: crate::runtime::QuotaError) -> bashkit::Error {
    bashkit::Error::Io(e.into())
}

fn denied(msg: String) -> bashkit::Error {
    bashkit::Error::Io(io::Error::new(ErrorKind::PermissionDenied, msg))
}

fn metadata(m: &cap_std::fs::Metadata) -> Metadata {
    use cap_std::fs::PermissionsExt;
    let file_type = if m.file_type().is_symlink() {
        FileType::Symlink
    } else if m.is_dir() {
        FileType::Directory
    } else {
        FileType::File
    };
    Metadata {
        file_type,
        size: m.len(),
        mode: m.permissions().mode() & 0o7777,
        modified: m
            .modified()
            .map(|t| t.into_std())
            .unwrap_or(SystemTime::UNIX_EPOCH),
        created: m
            .created()
            .map(|t| t.into_std())
            .unwrap_or(SystemTime::UNIX_EPOCH),
    }
}

/// The mode a guest's `chmod` sets on the host: the permission bits it asked for, without
/// set-user-id, set-group-id or sticky bits (the files stay on the host, where those would
/// mean something), and always readable and writable by their owner (folders also
/// searchable), so that the quota's walk and the cleanup can always read and delete them.
/// The guest is root, which reads and writes any file whatever its mode, so it sees no
/// difference in what it can do.
pub(super) fn guest_mode(mode: u32, is_dir: bool) -> u32 {
    let owner = if is_dir { 0o700 } else { 0o600 };
    (mode & 0o777) | owner
}

/// Whether two entries are the same file (a hard link or the path itself).
fn same_file(a: &cap_std::fs::Metadata, b: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// The bytes removing this link frees: its size when it is the file's last link, else none.
fn bytes_freed(m: &cap_std::fs::Metadata) -> u64 {
    use cap_std::fs::MetadataExt;
    if m.nlink() <= 1 { m.len() } else { 0 }
}

/// Where a relative symlink target lands, as a path under the mount root; `None` if it leaves.
fn resolve_within(link: &Path, target: &Path) -> Option<PathBuf> {
    if target.is_absolute() {
        return None;
    }
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    let parent = rel(link);
    let parent = parent.parent().unwrap_or(Path::new(""));
    for c in parent.components().chain(target.components()) {
        match c {
            Component::Normal(s) => parts.push(s),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.iter().collect())
}

impl CapFs {
    fn size_of(&self, p: &Path) -> Option<u64> {
        self.dir()
            .ok()?
            .symlink_metadata(p)
            .ok()
            .filter(|m| !m.is_dir())
            .map(|m| m.len())
    }
}

#[bashkit::async_trait]
impl FsBackend for CapFs {
    async fn read(&self, path: &Path) -> bashkit::Result<Vec<u8>> {
        // Bounded by the memory limit, not a fixed size: a model's data file of hundreds of
        // MB reads as in bash, and a file that claims more (a sparse file costs nothing on
        // disk) fails clearly.
        crate::fsutil::read_capped(self.dir()?, &rel(path), self.read_limit).map_err(err)
    }

    async fn write(&self, path: &Path, content: &[u8]) -> bashkit::Result<()> {
        let p = rel(path);
        crate::fsutil::check_path_shape(&p).map_err(err)?;
        let old = self.size_of(&p);
        self.quota
            .charge(old, content.len() as u64)
            .map_err(quota_err)?;
        self.dir()?.write(&p, content).map_err(err)
    }

    async fn append(&self, path: &Path, content: &[u8]) -> bashkit::Result<()> {
        let p = rel(path);
        crate::fsutil::check_path_shape(&p).map_err(err)?;
        let old = self.size_of(&p);
        self.quota
            .charge(old, old.unwrap_or(0) + content.len() as u64)
            .map_err(quota_err)?;
        let mut f = self
            .dir()?
            .open_with(&p, OpenOptions::new().append(true).create(true))
            .map_err(err)?;
        f.write_all(content).map_err(err)
    }

    async fn mkdir(&self, path: &Path, recursive: bool) -> bashkit::Result<()> {
        let p = rel(path);
        if recursive {
            // One entry per folder made, bounded in depth (never cap-std's recursive walk).
            return self.quota.create_dirs(self.dir()?, &p).map_err(err);
        }
        crate::fsutil::check_path_shape(&p).map_err(err)?;
        self.quota.charge_dir().map_err(quota_err)?;
        self.dir()?.create_dir(&p).map_err(|e| {
            self.quota.release_dir();
            err(e)
        })
    }

    async fn remove(&self, path: &Path, recursive: bool) -> bashkit::Result<()> {
        let p = rel(path);
        let meta = self.dir()?.symlink_metadata(&p).map_err(err)?;
        if meta.is_dir() {
            if recursive {
                crate::fsutil::remove_tree_in(self.dir()?, &p).map_err(err)?;
                self.quota.refresh();
                Ok(())
            } else {
                self.dir()?.remove_dir(&p).map_err(err)
            }
        } else {
            self.dir()?.remove_file(&p).map_err(err)?;
            self.quota.release(bytes_freed(&meta), 1);
            Ok(())
        }
    }

    async fn stat(&self, path: &Path) -> bashkit::Result<Metadata> {
        self.dir()?
            .symlink_metadata(rel(path))
            .map(|m| metadata(&m))
            .map_err(err)
    }

    async fn read_dir(&self, path: &Path) -> bashkit::Result<Vec<DirEntry>> {
        let mut out = Vec::new();
        for e in self.dir()?.read_dir(rel(path)).map_err(err)? {
            let e = e.map_err(err)?;
            let Ok(m) = e.metadata() else { continue };
            out.push(DirEntry {
                name: e.file_name().to_string_lossy().into_owned(),
                metadata: metadata(&m),
            });
        }
        Ok(out)
    }

    async fn exists(&self, path: &Path) -> bashkit::Result<bool> {
        Ok(self.dir()?.symlink_metadata(rel(path)).is_ok())
    }

    async fn rename(&self, from: &Path, to: &Path) -> bashkit::Result<()> {
        let (from, to) = (rel(from), rel(to));
        crate::fsutil::check_path_shape(&to).map_err(err)?;
        // What the rename frees: the replaced file's bytes, unless it is the same file (a
        // rename onto itself or onto one of its hard links frees nothing) or other links
        // still hold them.
        let source = self.dir()?.symlink_metadata(&from).map_err(err)?;
        let replaced = self
            .dir()?
            .symlink_metadata(&to)
            .ok()
            .filter(|m| !m.is_dir() && !same_file(m, &source));
        self.dir()?.rename(&from, self.dir()?, &to).map_err(err)?;
        if let Some(m) = replaced {
            self.quota.release(bytes_freed(&m), 1);
        }
        Ok(())
    }

    async fn copy(&self, from: &Path, to: &Path) -> bashkit::Result<()> {
        let (from, to) = (rel(from), rel(to));
        crate::fsutil::check_path_shape(&to).map_err(err)?;
        let size = self.dir()?.metadata(&from).map_err(err)?.len();
        self.quota
            .charge(self.size_of(&to), size)
            .map_err(quota_err)?;
        self.dir()?
            .copy(&from, self.dir()?, &to)
            .map(|_| ())
            .map_err(err)
    }

    async fn symlink(&self, target: &Path, link: &Path) -> bashkit::Result<()> {
        if resolve_within(link, target).is_none()
            || crate::fsutil::climbs_through_a_link(self.dir()?, &rel(link), target)
        {
            return Err(denied(format!(
                "refusing a symbolic link to {} (links must stay inside the sandbox directory)",
                target.display()
            )));
        }
        crate::fsutil::check_path_shape(&rel(link)).map_err(err)?;
        self.quota.charge(None, 0).map_err(quota_err)?;
        self.dir()?.symlink(target, rel(link)).map_err(err)
    }

    async fn read_link(&self, path: &Path) -> bashkit::Result<PathBuf> {
        self.dir()?.read_link(rel(path)).map_err(err)
    }

    async fn chmod(&self, path: &Path, mode: u32) -> bashkit::Result<()> {
        use cap_std::fs::PermissionsExt;
        let p = rel(path);
        let is_dir = self.dir()?.symlink_metadata(&p).map_err(err)?.is_dir();
        let perms = cap_std::fs::Permissions::from_mode(guest_mode(mode, is_dir));
        self.dir()?.set_permissions(p, perms).map_err(err)
    }

    async fn set_modified_time(&self, path: &Path, time: SystemTime) -> bashkit::Result<()> {
        let p = rel(path);
        if self.dir()?.symlink_metadata(&p).map_err(err)?.is_dir() {
            return Ok(()); // directory times are not worth a host-path escape hatch
        }
        let f = self
            .dir()?
            .open_with(&p, OpenOptions::new().write(true))
            .map_err(err)?;
        f.into_std().set_modified(time).map_err(err)
    }

    fn usage(&self) -> FsUsage {
        let u = self.quota.usage();
        FsUsage {
            total_bytes: u.bytes,
            file_count: u.files,
            dir_count: u.dirs,
        }
    }

    fn limits(&self) -> FsLimits {
        FsLimits::new()
            .max_total_bytes(self.quota.max_bytes())
            .max_file_count(self.quota.max_files())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlink_targets_must_stay_inside() {
        let ok = |l: &str, t: &str| resolve_within(Path::new(l), Path::new(t)).is_some();
        assert!(ok("/a/link", "b"));
        assert!(ok("/a/link", "../b"));
        assert!(!ok("/a/link", "../../b"));
        assert!(!ok("/link", "/etc"));
        assert!(!ok("/up", "../../.."));
        assert!(ok("/a/b/c", "../../x/./y"));
    }

    #[test]
    fn chmod_keeps_owner_access_and_drops_special_bits() {
        assert_eq!(guest_mode(0, false), 0o600);
        assert_eq!(guest_mode(0, true), 0o700);
        assert_eq!(guest_mode(0o4755, false), 0o755);
        assert_eq!(guest_mode(0o7777, true), 0o777);
        assert_eq!(guest_mode(0o644, false), 0o644);
    }

    #[test]
    fn paths_are_relative_to_the_mount() {
        assert_eq!(rel(Path::new("/")), PathBuf::from("."));
        assert_eq!(rel(Path::new("/a/./b")), PathBuf::from("a/b"));
    }
}
