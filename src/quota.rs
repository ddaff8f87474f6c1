//! The sandbox's disk quota: bytes and files over its directories.
//!
//! WASI has no disk quota; without this a guest could fill the host disk before anyone looks.
//! One [`Quota`] per sandbox is charged live by every writer: the shell's file backend, the
//! editor, `pip install` (the package layer) and Python (through the runtime's WASI write
//! guard, `runtime/write_guard.rs`). Overwrites are charged as growth until the next
//! [`Quota::refresh`], which re-measures what is really on disk after each call.
//!
//! It sits below `runtime`, `packages`, `shell` and `sandbox`, which all charge it; it imports
//! none of them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use cap_std::fs::Dir;

use crate::lazy_dir::LazyDir;

/// What the quota's directories hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Bytes in regular files.
    pub bytes: u64,
    /// Regular files (and links).
    pub files: u64,
    /// Directories.
    pub dirs: u64,
}

/// A write the quota refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuotaError {
    /// The bytes would pass the limit.
    #[error("disk quota exceeded: the sandbox may hold {0} bytes; delete files to go on")]
    Bytes(u64),
    /// The file count would pass the limit.
    #[error("disk quota exceeded: the sandbox may hold {0} files; delete files to go on")]
    Files(u64),
    /// The sandboxes sharing a [`DiskPool`] hold all it allows together.
    #[error(
        "no space left on device: the sandboxes of this server may hold {0} bytes together, \
         and they do (the server's --disk-budget); delete files to go on"
    )]
    Pool(u64),
}

/// A disk budget shared by many sandboxes (a server's sessions): each [`Quota`] made with it
/// also charges here what its folders hold, so the sandboxes together never hold more than
/// the budget, while each may still grow to its own quota when the others are small. This is
/// what lets a server keep many sessions without reserving each one's whole quota on disk.
#[derive(Debug)]
pub struct DiskPool {
    max_bytes: u64,
    used: AtomicU64,
}

impl DiskPool {
    /// A pool of `max_bytes`, empty.
    pub fn new(max_bytes: u64) -> Arc<DiskPool> {
        Arc::new(DiskPool {
            max_bytes,
            used: AtomicU64::new(0),
        })
    }

    /// The budget.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Bytes the sandboxes hold now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Take `bytes` if they fit.
    fn take(&self, bytes: u64) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                u.checked_add(bytes).filter(|&t| t <= self.max_bytes)
            })
            .is_ok()
    }

    /// Count `bytes` that are on disk already, fitting or not (a re-measure).
    fn force(&self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                Some(u.saturating_add(bytes))
            });
    }

    /// Give back `bytes`.
    fn give(&self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                Some(u.saturating_sub(bytes))
            });
    }
}

impl From<QuotaError> for std::io::Error {
    fn from(e: QuotaError) -> Self {
        std::io::Error::new(std::io::ErrorKind::StorageFull, e)
    }
}

/// A disk quota over one or more directories: total bytes and number of files. Shared (in an
/// `Arc`) by everything that writes into a sandbox.
#[derive(Debug)]
pub struct Quota {
    max_bytes: u64,
    max_files: u64,
    /// Folders never opened hold nothing: only opened ones are walked.
    dirs: Vec<Arc<LazyDir>>,
    usage: Mutex<State>,
    /// The server-wide budget this quota's bytes also count against, if any.
    pool: Option<Arc<DiskPool>>,
}

/// A quota's usage and the part of it charged to its pool.
#[derive(Debug, Default)]
struct State {
    usage: Usage,
    /// Bytes this quota has charged to its [`DiskPool`] (its real usage, kept in step).
    pooled: u64,
}

impl State {
    /// Move the pool's share to `bytes`: a growth must fit the pool unless `force`.
    fn repool(&mut self, pool: Option<&DiskPool>, bytes: u64, force: bool) -> bool {
        let Some(pool) = pool else {
            return true;
        };
        if bytes > self.pooled {
            let more = bytes - self.pooled;
            if force {
                pool.force(more);
            } else if !pool.take(more) {
                return false;
            }
        } else {
            pool.give(self.pooled - bytes);
        }
        self.pooled = bytes;
        true
    }
}

impl Drop for Quota {
    fn drop(&mut self) {
        let pooled = self.lock().pooled;
        if let Some(pool) = &self.pool {
            pool.give(pooled);
        }
    }
}

impl Quota {
    /// A quota over `dirs`, with the current usage measured now.
    pub fn new(dirs: Vec<Arc<LazyDir>>, max_bytes: u64, max_files: u64) -> Arc<Quota> {
        let q = Quota::empty(dirs, max_bytes, max_files);
        q.refresh();
        q
    }

    /// A quota over `dirs` that its caller knows to be empty (folders it just made, or
    /// recycled ones checked empty when given back): nothing is walked.
    pub(crate) fn empty(dirs: Vec<Arc<LazyDir>>, max_bytes: u64, max_files: u64) -> Arc<Quota> {
        Quota::empty_in(dirs, max_bytes, max_files, None)
    }

    /// As [`Quota::empty`], its bytes also charged to `pool` when given.
    pub(crate) fn empty_in(
        dirs: Vec<Arc<LazyDir>>,
        max_bytes: u64,
        max_files: u64,
        pool: Option<Arc<DiskPool>>,
    ) -> Arc<Quota> {
        Arc::new(Quota {
            max_bytes,
            max_files,
            dirs,
            usage: Mutex::new(State::default()),
            pool,
        })
    }

    /// Re-measure what is on disk (walks the directories: call it off the async threads).
    pub fn refresh(&self) -> Usage {
        let mut total = Usage::default();
        let mut complete = true;
        for d in self.dirs.iter().filter_map(|d| d.if_open()) {
            complete &= walk(d, &mut total);
        }
        let mut state = self.lock();
        // What is on disk is on disk: the pool counts it whether it fits or not.
        state.repool(self.pool.as_deref(), total.bytes, true);
        if !complete {
            // Something could not be measured (e.g. a folder made unreadable): count the
            // quota as full, so writes stop until it can be measured again.
            total.bytes = total.bytes.max(self.max_bytes.saturating_add(1));
        }
        state.usage = total;
        total
    }

    /// The current usage.
    pub fn usage(&self) -> Usage {
        self.lock().usage
    }

    /// Whether current usage is over the quota (files and folders both count as entries
    /// against the file cap).
    pub fn exceeded(&self) -> bool {
        let u = self.usage();
        u.bytes > self.max_bytes || u.files.saturating_add(u.dirs) > self.max_files
    }

    /// The byte limit.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The file-count limit.
    pub fn max_files(&self) -> u64 {
        self.max_files
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.usage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Account for a file going from `old` bytes (`None`: a new file) to `new` bytes.
    ///
    /// # Errors
    /// [`QuotaError`] when it would not fit; nothing is charged then.
    pub fn charge(&self, old: Option<u64>, new: u64) -> Result<(), QuotaError> {
        let mut state = self.lock();
        let u = state.usage;
        let bytes = (u.bytes - old.unwrap_or(0).min(u.bytes)).saturating_add(new);
        let files = u.files + u64::from(old.is_none());
        if bytes > self.max_bytes {
            return Err(QuotaError::Bytes(self.max_bytes));
        }
        if files.saturating_add(u.dirs) > self.max_files {
            return Err(QuotaError::Files(self.max_files));
        }
        self.repool_to(&mut state, bytes)?;
        state.usage.bytes = bytes;
        state.usage.files = files;
        Ok(())
    }

    /// Keep the pool's share in step with a new byte count; growth must fit the pool.
    fn repool_to(&self, state: &mut State, bytes: u64) -> Result<(), QuotaError> {
        if state.repool(self.pool.as_deref(), bytes, false) {
            Ok(())
        } else {
            Err(QuotaError::Pool(
                self.pool.as_ref().map_or(0, |p| p.max_bytes()),
            ))
        }
    }

    /// Charge one new folder (it counts against the file cap).
    ///
    /// # Errors
    /// [`QuotaError::Files`] when the cap is reached.
    pub fn charge_dir(&self) -> Result<(), QuotaError> {
        let u = &mut self.lock().usage;
        if u.files.saturating_add(u.dirs).saturating_add(1) > self.max_files {
            return Err(QuotaError::Files(self.max_files));
        }
        u.dirs += 1;
        Ok(())
    }

    /// Give back a folder's slot.
    pub fn release_dir(&self) {
        let u = &mut self.lock().usage;
        u.dirs = u.dirs.saturating_sub(1);
    }

    /// Give back what a removed file held.
    pub fn release(&self, bytes: u64, files: u64) {
        let mut state = self.lock();
        let left = state.usage.bytes.saturating_sub(bytes);
        state.repool(self.pool.as_deref(), left, true);
        state.usage.bytes = left;
        state.usage.files = state.usage.files.saturating_sub(files);
    }

    /// Create the folder `rel` (and every missing folder above it) in `dir`, one at a time,
    /// each charged as an entry: `mkdir -p a/b/c` takes three slots, as three `mkdir` would.
    /// Paths past [`crate::fsutil::MAX_PATH_DEPTH`] or [`crate::fsutil::MAX_PATH_BYTES`] are
    /// refused before anything is made; `..` and absolute paths are refused.
    ///
    /// # Errors
    /// The quota's error (`StorageFull`), a bad path (`InvalidInput`/`InvalidFilename`),
    /// `NotADirectory` when a file is in the way, or the OS error.
    pub fn create_dirs(&self, dir: &Dir, rel: &std::path::Path) -> std::io::Result<()> {
        use std::io::{Error, ErrorKind};
        use std::path::Component;
        crate::fsutil::check_path_shape(rel)?;
        let mut at = std::path::PathBuf::new();
        for c in rel.components() {
            match c {
                Component::Normal(s) => at.push(s),
                Component::CurDir => continue,
                _ => {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        format!("{} leaves the folder", rel.display()),
                    ));
                }
            }
            match dir.metadata(&at) {
                Ok(m) if m.is_dir() => continue,
                Ok(_) => {
                    return Err(Error::new(
                        ErrorKind::NotADirectory,
                        format!("{} is a file, not a folder", at.display()),
                    ));
                }
                Err(e) if e.kind() != ErrorKind::NotFound => return Err(e),
                Err(_) => {}
            }
            self.charge_dir()?;
            match dir.create_dir(&at) {
                Ok(()) => {}
                Err(e) => {
                    self.release_dir();
                    if e.kind() != ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    }

    /// Create the folders above the file `rel` (see [`Quota::create_dirs`]), after checking
    /// the file's own path against the same bounds.
    ///
    /// # Errors
    /// As [`Quota::create_dirs`].
    pub fn create_parents(&self, dir: &Dir, rel: &std::path::Path) -> std::io::Result<()> {
        crate::fsutil::check_path_shape(rel)?;
        match rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(parent) => self.create_dirs(dir, parent),
            None => Ok(()),
        }
    }

    /// Charge `bytes` more written, if they fit.
    pub(crate) fn charge_bytes(&self, bytes: u64) -> bool {
        let mut state = self.lock();
        match state.usage.bytes.checked_add(bytes) {
            Some(b) if b <= self.max_bytes && self.repool_to(&mut state, b).is_ok() => {
                state.usage.bytes = b;
                true
            }
            _ => false,
        }
    }
}

/// Add up what `root` holds, descending through directory handles (paths never grow, so no
/// depth or path-length limit hides anything). `false` if something could not be read: the
/// caller then treats the quota as full rather than trust a partial count.
fn walk(root: &Dir, total: &mut Usage) -> bool {
    let mut complete = true;
    let Ok(first) = root.try_clone() else {
        return false;
    };
    let mut stack = vec![first];
    let mut linked = std::collections::HashSet::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = dir.entries() else {
            complete = false;
            continue;
        };
        for e in entries {
            let Ok(e) = e else {
                complete = false;
                continue;
            };
            let Ok(meta) = e.metadata() else {
                complete = false;
                continue;
            };
            if meta.is_dir() {
                total.dirs += 1;
                match e.open_dir() {
                    Ok(sub) => stack.push(sub),
                    Err(_) => complete = false,
                }
            } else {
                total.files += 1;
                // A file with several hard links holds its bytes once.
                use cap_std::fs::MetadataExt;
                if meta.nlink() <= 1 || linked.insert((meta.dev(), meta.ino())) {
                    total.bytes = total.bytes.saturating_add(meta.len());
                }
            }
        }
    }
    complete
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quota_in(pool: &Arc<DiskPool>, max_bytes: u64) -> Arc<Quota> {
        Quota::empty_in(Vec::new(), max_bytes, 100, Some(pool.clone()))
    }

    #[test]
    fn sandboxes_sharing_a_pool_hold_no_more_than_it_together() {
        let pool = DiskPool::new(1000);
        let (a, b) = (quota_in(&pool, 800), quota_in(&pool, 800));
        // Each may grow to its own quota while the other is small...
        a.charge(None, 700).expect("a fits its quota and the pool");
        assert_eq!(pool.used(), 700);
        // ...but not past what the pool has left, and a refused write charges nothing.
        assert_eq!(b.charge(None, 400), Err(QuotaError::Pool(1000)));
        assert_eq!((b.usage().bytes, pool.used()), (0, 700));
        assert!(!b.charge_bytes(301));
        b.charge(None, 300).expect("what is left fits");
        // Its own quota still binds before the pool does.
        assert_eq!(a.charge(Some(700), 801), Err(QuotaError::Bytes(800)));
        // Shrinking a file, removing one, and dropping a quota give bytes back.
        a.charge(Some(700), 100).expect("shrinking always fits");
        assert_eq!(pool.used(), 400);
        b.release(300, 1);
        assert_eq!(pool.used(), 100);
        drop(a);
        assert_eq!(pool.used(), 0);
        let err = std::io::Error::from(QuotaError::Pool(1000));
        assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);
        assert!(err.to_string().contains("no space left on device"), "{err}");
    }

    #[test]
    fn a_re_measure_counts_what_is_on_disk_even_past_the_pool() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("big"), vec![0u8; 5000]).expect("write");
        let cap = Arc::new(
            Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).expect("open"),
        );
        let pool = DiskPool::new(1000);
        let q = Quota::empty_in(
            vec![Arc::new(LazyDir::open_now(cap, dir.path()))],
            10_000,
            100,
            Some(pool.clone()),
        );
        assert_eq!(q.refresh().bytes, 5000);
        assert_eq!(pool.used(), 5000);
        // Nothing more fits until something is deleted.
        assert_eq!(q.charge(None, 1), Err(QuotaError::Pool(1000)));
        std::fs::remove_file(dir.path().join("big")).expect("remove");
        assert_eq!(q.refresh().bytes, 0);
        assert_eq!(pool.used(), 0);
    }
}
