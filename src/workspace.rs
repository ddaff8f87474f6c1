//! The per-episode directory. It is opened once as a [`cap_std::fs::Dir`]; after that every
//! access (ours and the guest's) goes through that capability, never through a host path, so
//! `..`, absolute paths and symlinks cannot lead outside it.

use std::io;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;

use crate::lazy_dir::LazyDir;

/// Errors from workspace operations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// Creating or opening the workspace directory failed.
    #[error("cannot open workspace {path}: {source}")]
    Open {
        /// The host directory.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// A file operation inside the workspace failed (including attempts to leave it).
    #[error("{action} {path} in the workspace: {source}")]
    File {
        /// What was being done.
        action: &'static str,
        /// The path, relative to the workspace.
        path: String,
        /// The OS error.
        source: io::Error,
    },
}

/// A workspace directory, reached only through its capability.
#[derive(Debug)]
pub struct Workspace {
    /// Shared (not cloned) with the shell: a clone is another open file descriptor, and
    /// descriptors bound how many sandboxes one process can hold.
    dir: std::sync::Arc<Dir>,
    host_path: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

impl Workspace {
    /// Open (creating it if missing) a host directory as a workspace. Files in it stay after
    /// the workspace is dropped.
    ///
    /// # Errors
    /// [`WorkspaceError::Open`] when it cannot be created or opened.
    pub fn open(path: impl AsRef<Path>) -> Result<Workspace, WorkspaceError> {
        let path = path.as_ref();
        let open_err = |source| WorkspaceError::Open {
            path: path.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(path).map_err(open_err)?;
        let dir = Dir::open_ambient_dir(path, cap_std::ambient_authority()).map_err(open_err)?;
        Ok(Workspace {
            dir: std::sync::Arc::new(dir),
            host_path: path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
            _temp: None,
        })
    }

    /// A fresh empty workspace in the system temporary directory, deleted when dropped.
    ///
    /// # Errors
    /// [`WorkspaceError::Open`] when the temporary directory cannot be made.
    pub fn temporary() -> Result<Workspace, WorkspaceError> {
        if let Some(r) = recycled::take(true) {
            let dir = match r.dir {
                Some(d) => Some(d),
                None => crate::lazy_dir::open_no_follow(&r.host_path)
                    .ok()
                    .map(std::sync::Arc::new),
            };
            if let Some(dir) = dir {
                return Ok(Workspace {
                    dir,
                    host_path: r.host_path,
                    _temp: Some(r.temp),
                });
            }
        }
        let temp = new_temp_folder()?;
        let mut ws = Workspace::open(temp.path())?;
        ws._temp = Some(temp);
        Ok(ws)
    }

    /// The capability to the directory.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The same capability, shared (no new file descriptor).
    pub fn shared_dir(&self) -> std::sync::Arc<Dir> {
        self.dir.clone()
    }

    /// The host path it was opened from (for messages; never used to reach files).
    pub fn host_path(&self) -> &Path {
        &self.host_path
    }

    /// Write a file (creating parent directories), relative to the workspace root.
    ///
    /// # Errors
    /// [`WorkspaceError::File`], also when `path` would leave the workspace.
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) -> Result<(), WorkspaceError> {
        let rel = relative(path);
        crate::fsutil::check_path_shape(Path::new(rel)).map_err(file_err("write", path))?;
        if let Some(parent) = Path::new(rel)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            self.dir
                .create_dir_all(parent)
                .map_err(file_err("create directory", path))?;
        }
        self.dir
            .write(rel, contents)
            .map_err(file_err("write", path))
    }

    /// Read a file, relative to the workspace root, at most
    /// [`GUEST_READ_LIMIT`](crate::fsutil::GUEST_READ_LIMIT) bytes.
    ///
    /// # Errors
    /// [`WorkspaceError::File`], also when `path` would leave the workspace or is too large.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, WorkspaceError> {
        crate::fsutil::read_capped(
            &self.dir,
            Path::new(relative(path)),
            crate::fsutil::GUEST_READ_LIMIT,
        )
        .map_err(file_err("read", path))
    }

    /// Read a UTF-8 file, relative to the workspace root, bounded as [`Workspace::read`].
    ///
    /// # Errors
    /// [`WorkspaceError::File`] when missing, unreadable, not UTF-8, too large, or outside
    /// the workspace.
    pub fn read_to_string(&self, path: &str) -> Result<String, WorkspaceError> {
        crate::fsutil::read_capped_string(
            &self.dir,
            Path::new(relative(path)),
            crate::fsutil::GUEST_READ_LIMIT,
        )
        .map_err(file_err("read", path))
    }

    /// Whether a file or directory exists (inside the workspace).
    pub fn exists(&self, path: &str) -> bool {
        self.dir.exists(relative(path))
    }
}

/// A fresh empty folder in the temporary folder (or the process's own, [`claim_temp_root`]),
/// removed when the returned guard is dropped.
fn new_temp_folder() -> Result<tempfile::TempDir, WorkspaceError> {
    let parent = TEMP_ROOT.get().cloned().unwrap_or_else(std::env::temp_dir);
    tempfile::Builder::new()
        .prefix("llm-in-sandbox-")
        .tempdir_in(&parent)
        .map_err(|source| WorkspaceError::Open {
            path: parent.clone(),
            source,
        })
}

/// A sandbox's private temporary folder (`/tmp`, `/root`), opened only when first used
/// ([`LazyDir`]): a sandbox whose calls never touch it holds no file descriptor for it.
/// Removed when dropped, or kept for the next sandbox when nothing was left in it.
#[derive(Debug)]
pub struct Scratch {
    dir: std::sync::Arc<LazyDir>,
    _temp: Option<tempfile::TempDir>,
}

impl Scratch {
    /// A fresh empty folder (none opened yet).
    ///
    /// # Errors
    /// [`WorkspaceError::Open`] when the temporary folder cannot be made.
    pub fn temporary() -> Result<Scratch, WorkspaceError> {
        // An opened folder (a workspace's, when no never-opened one waits) gives its
        // descriptor up: this one holds none until first use.
        if let Some(r) = recycled::take(false) {
            return Ok(Scratch {
                dir: std::sync::Arc::new(LazyDir::at(r.host_path)),
                _temp: Some(r.temp),
            });
        }
        let temp = new_temp_folder()?;
        let path = temp.path().to_path_buf();
        Ok(Scratch {
            dir: std::sync::Arc::new(LazyDir::at(path)),
            _temp: Some(temp),
        })
    }

    /// The folder's capability, opened on first use (shared: no new file descriptor).
    pub fn dir(&self) -> &std::sync::Arc<LazyDir> {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Some(temp) = self._temp.take() else {
            return;
        };
        let path = self.dir.host_path().to_path_buf();
        let leftover = match std::sync::Arc::get_mut(&mut self.dir) {
            // Someone still holds it (a call's instance, being reset off the answer's path):
            // it may change yet, so it waits until that holder lets go.
            None => recycled::later(temp, recycled::Held::Lazy(self.dir.clone()), path),
            Some(lazy) => recycled::give_back_lazy(temp, lazy, &path),
        };
        if let Some(temp) = leftover {
            let path = temp.keep();
            let _ = crate::fsutil::remove_tree(&path);
        }
    }
}

/// A temporary workspace is removed without recursion on the host stack: its guest may have
/// nested folders deeper than any thread's stack ([`crate::fsutil::remove_tree`]).
/// A folder its guest left empty is kept for the next [`Workspace::temporary`] instead
/// (see the `recycled` module).
impl Drop for Workspace {
    fn drop(&mut self) {
        if let Some(temp) = self._temp.take() {
            let leftover = if std::sync::Arc::get_mut(&mut self.dir).is_none() {
                // Held by a call's instance still being reset: recycled once it lets go.
                let held = recycled::Held::Dir(self.dir.clone());
                recycled::later(temp, held, self.host_path.clone())
            } else {
                recycled::give_back(temp, &mut self.dir, &self.host_path)
            };
            if let Some(temp) = leftover {
                let path = temp.keep();
                let _ = crate::fsutil::remove_tree(&path);
            }
        }
    }
}

/// Temporary folders their guests left empty, ready for the next sandbox.
///
/// Making and removing a folder is most of what a short call costs the file system (three per
/// sandbox: `/testbed`, `/tmp`, `/root`; on ext4 each removal also journals and may discard
/// blocks). A call that wrote nothing leaves its folders exactly as they were made, so they are
/// handed to the next sandbox instead: mode back to 0700, times set to now, nothing inside.
/// Nothing crosses over: a folder is kept only when no one else holds its capability and it
/// has no entry at all; a folder with anything in it is removed as before. A folder whose
/// capability a finishing call still holds when its sandbox goes (the instance is reset just
/// after the answer, on another thread) waits in [`recycled::later`] and is looked at again,
/// once that holder let go, when the next folder is taken or by a thread that watches the
/// waiting folders until none is left.
mod recycled {
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use cap_std::fs::Dir;

    /// At most this many folders wait (each opened one holds one open descriptor).
    const KEEP: usize = 96;

    /// A folder ready for the next sandbox.
    pub(super) struct Ready {
        pub(super) temp: tempfile::TempDir,
        /// Its capability, when it was opened (a folder never opened holds no descriptor).
        pub(super) dir: Option<Arc<Dir>>,
        pub(super) host_path: PathBuf,
    }

    static READY: Mutex<Vec<Ready>> = Mutex::new(Vec::new());

    /// A waiting folder, one `opened` or not when there is such (a workspace opens its
    /// folder at once, `/tmp` and `/root` on first use), else any.
    pub(super) fn take(opened: bool) -> Option<Ready> {
        settle();
        let mut pool = READY.lock().ok()?;
        match pool.iter().rposition(|r| r.dir.is_some() == opened) {
            Some(at) => Some(pool.swap_remove(at)),
            None => pool.pop(),
        }
    }

    /// Keep `temp`, never opened, for later (its times set to now, as a new folder has);
    /// otherwise hand it back to be removed.
    pub(super) fn give_back_unopened(
        temp: tempfile::TempDir,
        host_path: &Path,
    ) -> Option<tempfile::TempDir> {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c_path) = std::ffi::CString::new(host_path.as_os_str().as_bytes()) else {
            return Some(temp);
        };
        // SAFETY: `c_path` is a valid C string; a null `times` means "now" for both.
        let touched = unsafe {
            libc::utimensat(
                libc::AT_FDCWD,
                c_path.as_ptr(),
                std::ptr::null(),
                libc::AT_SYMLINK_NOFOLLOW,
            ) == 0
        };
        if !touched {
            return Some(temp);
        }
        keep(Ready {
            temp,
            dir: None,
            host_path: host_path.to_path_buf(),
        })
    }

    /// Put `ready` in the pool, or hand its folder back to be removed when the pool is full.
    fn keep(ready: Ready) -> Option<tempfile::TempDir> {
        let Ok(mut pool) = READY.lock() else {
            return Some(ready.temp);
        };
        if pool.len() >= KEEP {
            return Some(ready.temp);
        }
        pool.push(ready);
        None
    }

    /// Keep `temp` for later when its guest left it empty; otherwise hand it back to be removed.
    pub(super) fn give_back(
        temp: tempfile::TempDir,
        dir: &mut Arc<Dir>,
        host_path: &Path,
    ) -> Option<tempfile::TempDir> {
        if Arc::get_mut(dir).is_none() || !is_empty(dir) || !reset(dir) {
            return Some(temp);
        }
        keep(Ready {
            temp,
            dir: Some(dir.clone()),
            host_path: host_path.to_path_buf(),
        })
    }

    /// Remove every folder waiting (each `TempDir` removes its folder when dropped).
    pub(super) fn release() {
        let waiting = match READY.lock() {
            Ok(mut ready) => std::mem::take(&mut *ready),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        drop(waiting);
        let held = match PENDING.lock() {
            Ok(mut pending) => std::mem::take(&mut *pending),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        drop(held);
    }

    /// What still holds a folder's capability besides its waiting entry.
    pub(super) enum Held {
        /// A workspace's capability.
        Dir(Arc<Dir>),
        /// `/tmp`'s or `/root`'s, opened or not.
        Lazy(Arc<crate::lazy_dir::LazyDir>),
    }

    /// A folder whose sandbox is gone while a call still held its capability.
    struct Pending {
        temp: tempfile::TempDir,
        held: Held,
        host_path: PathBuf,
    }

    /// At most this many folders wait for their last holder (a few calls are reset at once).
    const PENDING_MAX: usize = 64;

    static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

    /// Let `temp` wait until `held` is its only holder, then recycle or remove it
    /// ([`settle`]); hand it back to be removed now when too many wait.
    pub(super) fn later(
        temp: tempfile::TempDir,
        held: Held,
        host_path: PathBuf,
    ) -> Option<tempfile::TempDir> {
        let Ok(mut pending) = PENDING.lock() else {
            return Some(temp);
        };
        if pending.len() >= PENDING_MAX {
            return Some(temp);
        }
        pending.push(Pending {
            temp,
            held,
            host_path,
        });
        drop(pending);
        watch();
        None
    }

    /// Whether a thread is looking at the waiting folders (see [`watch`]).
    static WATCHING: AtomicBool = AtomicBool::new(false);

    /// Look at the waiting folders on a thread of its own until none is left, so that a folder
    /// is recycled or removed soon after its last holder lets go even when no sandbox is made
    /// after it (an idle server after a session's delete; a process whose last sandbox it
    /// was). A finishing call lets go within milliseconds of its answer: the thread looks
    /// every 10 ms, less often (up to every second) while nothing is let go.
    fn watch() {
        if WATCHING.swap(true, Ordering::SeqCst) {
            return;
        }
        let watcher = std::thread::Builder::new()
            .name("lis-folders".into())
            .spawn(|| {
                let mut every = Duration::from_millis(10);
                loop {
                    std::thread::sleep(every);
                    let before = waiting();
                    settle();
                    let left = waiting();
                    if left == 0 {
                        WATCHING.store(false, Ordering::SeqCst);
                        // A folder that came since would wait unwatched: look again for it,
                        // unless its `later` started a watcher of its own.
                        if waiting() == 0 || WATCHING.swap(true, Ordering::SeqCst) {
                            return;
                        }
                    }
                    every = if left < before {
                        Duration::from_millis(10)
                    } else {
                        (every * 2).min(Duration::from_secs(1))
                    };
                }
            });
        if watcher.is_err() {
            // No thread: the next folder taken looks at them, as it always does.
            WATCHING.store(false, Ordering::SeqCst);
        }
    }

    /// How many folders wait for their last holder.
    fn waiting() -> usize {
        PENDING.lock().map_or(0, |p| p.len())
    }

    /// Recycle (or remove) every waiting folder no one else holds any more.
    fn settle() {
        let free: Vec<Pending> = {
            let Ok(mut pending) = PENDING.lock() else {
                return;
            };
            if pending.is_empty() {
                return;
            }
            let mut free = Vec::new();
            let mut i = 0;
            while i < pending.len() {
                let alone = match &mut pending[i].held {
                    Held::Dir(d) => Arc::get_mut(d).is_some(),
                    Held::Lazy(l) => Arc::get_mut(l).is_some(),
                };
                if alone {
                    free.push(pending.swap_remove(i));
                } else {
                    i += 1;
                }
            }
            free
        };
        for p in free {
            let leftover = match p.held {
                Held::Dir(mut d) => give_back(p.temp, &mut d, &p.host_path),
                Held::Lazy(mut l) => match Arc::get_mut(&mut l) {
                    Some(lazy) => give_back_lazy(p.temp, lazy, &p.host_path),
                    None => Some(p.temp),
                },
            };
            if let Some(temp) = leftover {
                let path = temp.keep();
                let _ = crate::fsutil::remove_tree(&path);
            }
        }
    }

    /// `/tmp`'s or `/root`'s folder, held by no one else: kept for later when left empty.
    pub(super) fn give_back_lazy(
        temp: tempfile::TempDir,
        lazy: &mut crate::lazy_dir::LazyDir,
        host_path: &Path,
    ) -> Option<tempfile::TempDir> {
        match lazy.take_open() {
            Some(mut dir) => give_back(temp, &mut dir, host_path),
            // Never opened: nothing can have been put in it.
            None => give_back_unopened(temp, host_path),
        }
    }

    fn is_empty(dir: &Dir) -> bool {
        dir.entries().is_ok_and(|mut e| e.next().is_none())
    }

    /// Mode 0755 and times of now, as a new folder has (what `ls -ld` and `os.stat` show of a
    /// fresh sandbox's `/testbed`, `/tmp` and `/root`). (The capability may be an `O_PATH`
    /// descriptor, which cannot change either: the folder is opened again for it.)
    fn reset(dir: &Dir) -> bool {
        use std::os::fd::AsRawFd;
        let now = libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_NOW,
        };
        // SAFETY: `dir`'s descriptor stays open for the whole call; "." is a valid C string;
        // the descriptor opened here is closed before returning; `times` points to two valid
        // timespecs.
        unsafe {
            let fd = libc::openat(
                dir.as_raw_fd(),
                c".".as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOFOLLOW,
            );
            if fd < 0 {
                return false;
            }
            let ok = libc::fchmod(fd, 0o755) == 0 && libc::futimens(fd, [now, now].as_ptr()) == 0;
            libc::close(fd);
            ok
        }
    }
}

/// Where [`Workspace::temporary`] makes its folders when set (see [`claim_temp_root`]).
static TEMP_ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// The prefix of a long-running process's own folder for its sandboxes' temporary folders.
const PROCESS_ROOT_PREFIX: &str = "llm-in-sandbox-pid-";

/// For a long-running process (`serve`, `mcp`): put every temporary sandbox folder under
/// `<temp>/llm-in-sandbox-pid-<PID>`, and delete the folders that processes which no longer
/// run left the same way (a server killed with SIGKILL leaves its live sessions' folders;
/// the next start removes them). Returns the folders removed, for the caller to report.
/// Call it once, before the first sandbox.
///
/// # Errors
/// The folder cannot be made.
pub fn claim_temp_root() -> io::Result<Vec<PathBuf>> {
    let temp = std::env::temp_dir();
    let own = temp.join(format!("{PROCESS_ROOT_PREFIX}{}", std::process::id()));
    std::fs::create_dir_all(&own)?;
    let _ = TEMP_ROOT.set(own);
    let mut removed = Vec::new();
    for e in std::fs::read_dir(&temp)?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(PROCESS_ROOT_PREFIX)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if crate::fsutil::remove_tree(&e.path()).is_ok() {
            removed.push(e.path());
        }
    }
    Ok(removed)
}

/// Remove the empty folders kept for the next sandbox (see the `recycled` module). Call it when
/// the process is about to end, after its sandboxes are gone: the pool is a static, never dropped,
/// so without this each process that ran sandboxes leaves up to 96 empty folders in the
/// temporary folder.
pub fn release_recycled() {
    recycled::release();
}

/// Remove this process's folder of [`claim_temp_root`] and whatever is still in it (call it
/// when the process is about to end, after its sandboxes are gone).
pub fn release_temp_root() {
    release_recycled();
    if let Some(own) = TEMP_ROOT.get() {
        let _ = crate::fsutil::remove_tree(own);
    }
}

/// Workspace paths are relative; a leading `/` means the workspace root, not the host root.
fn relative(path: &str) -> &str {
    let p = path.trim_start_matches('/');
    if p.is_empty() { "." } else { p }
}

fn file_err<'a>(
    action: &'static str,
    path: &'a str,
) -> impl FnOnce(io::Error) -> WorkspaceError + 'a {
    move |source| WorkspaceError::File {
        action,
        path: path.to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::Workspace;

    /// A folder whose capability a finishing call still holds when its workspace goes waits
    /// for that holder: it is not removed under it, and once the holder lets go, a folder it
    /// wrote into is removed, never handed to the next sandbox.
    #[test]
    fn a_held_folder_waits_for_its_holder_and_a_written_one_is_removed() {
        let ws = Workspace::temporary().expect("workspace");
        let path = ws.host_path().to_path_buf();
        let holder = ws.shared_dir();
        drop(ws);
        assert!(path.is_dir(), "removed while a call held it");
        holder.write("left-by-the-call", b"x").expect("write");
        drop(holder);
        // Taking a folder looks at the waiting ones again.
        let next = Workspace::temporary().expect("workspace");
        assert_ne!(next.host_path(), path);
        assert!(!path.exists(), "a folder with a file in it was kept");
    }

    /// A folder left waiting for its holder is removed once the holder lets go, though the
    /// test makes no sandbox after it (an idle server after a session's delete).
    #[test]
    fn a_held_folder_is_removed_once_let_go_with_no_next_sandbox() {
        let ws = Workspace::temporary().expect("workspace");
        let path = ws.host_path().to_path_buf();
        let holder = ws.shared_dir();
        drop(ws);
        holder.write("left-by-the-call", b"x").expect("write");
        drop(holder);
        let waited = std::time::Instant::now();
        while path.exists() {
            assert!(
                waited.elapsed() < std::time::Duration::from_secs(60),
                "{} is still there",
                path.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
