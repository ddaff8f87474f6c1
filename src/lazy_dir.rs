//! A directory capability opened on first use.
//!
//! Every open directory is a file descriptor, and a process has a fixed number of them
//! (`ulimit -n`). A sandbox has three folders (`/testbed`, `/tmp`, `/root`), but most calls
//! never touch `/tmp` or `/root`: holding those open would make the open-files limit, not
//! memory, what bounds how many sandboxes one process keeps alive. A [`LazyDir`] knows its
//! folder's host path and opens it the first time anyone (the guest, the shell, the editor, the
//! file API) needs it; after that it is one shared capability like any other. Until then the
//! folder is exactly as it was made: nothing can have been written into it, because nothing
//! can reach it but through this capability.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cap_std::fs::Dir;

/// A directory capability, open now or opened on first use.
#[derive(Debug)]
pub struct LazyDir {
    /// The host folder: opened from here once, never used to reach files.
    host_path: PathBuf,
    opened: OnceLock<Arc<Dir>>,
    /// Held while opening, so two first users open it once.
    opening: Mutex<()>,
}

impl LazyDir {
    /// A capability already open (e.g. a workspace's).
    pub fn open_now(dir: Arc<Dir>, host_path: impl Into<PathBuf>) -> LazyDir {
        let opened = OnceLock::new();
        let _ = opened.set(dir);
        LazyDir {
            host_path: host_path.into(),
            opened,
            opening: Mutex::new(()),
        }
    }

    /// The folder at `host_path`, opened when first needed. The folder must be one this
    /// process made and owns (a temporary folder): it is opened by path then, refusing a
    /// symbolic link in its place.
    pub fn at(host_path: impl Into<PathBuf>) -> LazyDir {
        LazyDir {
            host_path: host_path.into(),
            opened: OnceLock::new(),
            opening: Mutex::new(()),
        }
    }

    /// The capability, opened now if it was not yet.
    ///
    /// # Errors
    /// The folder cannot be opened (out of file descriptors, or removed).
    pub fn get(&self) -> io::Result<&Arc<Dir>> {
        if let Some(d) = self.opened.get() {
            return Ok(d);
        }
        let _guard = self.opening.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(d) = self.opened.get() {
            return Ok(d);
        }
        let dir = Arc::new(open_no_follow(&self.host_path)?);
        Ok(self.opened.get_or_init(|| dir))
    }

    /// The capability if it has been opened; `None` means nothing has used the folder yet.
    pub fn if_open(&self) -> Option<&Arc<Dir>> {
        self.opened.get()
    }

    /// Take the capability out if it was opened (for the folder's owner, once no one else
    /// holds this); it is then as if never opened.
    pub fn take_open(&mut self) -> Option<Arc<Dir>> {
        self.opened.take()
    }

    /// The host folder (for messages; never used to reach files once open).
    pub fn host_path(&self) -> &Path {
        &self.host_path
    }
}

/// Open a folder by host path as a capability, refusing a symbolic link as its last part.
pub(crate) fn open_no_follow(path: &Path) -> io::Result<Dir> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    Ok(Dir::from_std_file(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_once_on_first_use_and_refuses_a_link_in_its_place() {
        let tmp = tempfile::tempdir().unwrap();
        let folder = tmp.path().join("f");
        std::fs::create_dir(&folder).unwrap();
        let lazy = LazyDir::at(&folder);
        assert!(lazy.if_open().is_none());
        let first = Arc::as_ptr(lazy.get().unwrap());
        assert_eq!(first, Arc::as_ptr(lazy.get().unwrap()));
        assert!(lazy.if_open().is_some());
        lazy.get().unwrap().write("x", "1").unwrap();
        assert_eq!(std::fs::read_to_string(folder.join("x")).unwrap(), "1");

        let link = tmp.path().join("l");
        std::os::unix::fs::symlink(&folder, &link).unwrap();
        assert!(LazyDir::at(&link).get().is_err());
        assert!(LazyDir::at(tmp.path().join("missing")).get().is_err());
    }
}
