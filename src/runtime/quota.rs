//! The sandbox's disk quota (bytes and files over its directories), and its enforcement inside
//! the guest's WASI calls.
//!
//! WASI has no disk quota; without this a guest could fill the host disk before anyone looks.
//! One [`Quota`] per sandbox is charged live by every writer: the shell's file backend, the
//! editor, and Python. For Python we shadow `fd_write`/`fd_pwrite` (bytes written to any file;
//! stdout/stderr are captured and capped elsewhere) and `path_open` with `O_CREAT` (a file
//! that does not exist yet takes a file slot): past the quota they fail with `ENOSPC` ("No space
//! left on device"), as a full disk would. Overwrites are charged as growth until the next
//! [`Quota::refresh`], which re-measures what is really on disk after each call.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use cap_std::fs::Dir;
use wasmtime::{AsContextMut, Caller, Linker};
use wasmtime_wasi::p1::wasi_snapshot_preview1 as p1;
use wasmtime_wasi::p1::wasi_snapshot_preview1::WasiSnapshotPreview1;

use super::GuestState;

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
    dirs: Vec<Arc<Dir>>,
    usage: Mutex<Usage>,
}

impl Quota {
    /// A quota over `dirs`, with the current usage measured now.
    pub fn new(dirs: Vec<Arc<Dir>>, max_bytes: u64, max_files: u64) -> Arc<Quota> {
        let q = Quota {
            max_bytes,
            max_files,
            dirs,
            usage: Mutex::new(Usage::default()),
        };
        q.refresh();
        Arc::new(q)
    }

    /// Re-measure what is on disk (walks the directories: call it off the async threads).
    pub fn refresh(&self) -> Usage {
        let mut total = Usage::default();
        for d in &self.dirs {
            walk(d, Path::new("."), &mut total, 0);
        }
        *self.lock() = total;
        total
    }

    /// The current usage.
    pub fn usage(&self) -> Usage {
        *self.lock()
    }

    /// Whether current usage is over the quota.
    pub fn exceeded(&self) -> bool {
        let u = self.usage();
        u.bytes > self.max_bytes || u.files > self.max_files
    }

    /// The byte limit.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The file-count limit.
    pub fn max_files(&self) -> u64 {
        self.max_files
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Usage> {
        self.usage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Account for a file going from `old` bytes (`None`: a new file) to `new` bytes.
    ///
    /// # Errors
    /// [`QuotaError`] when it would not fit; nothing is charged then.
    pub fn charge(&self, old: Option<u64>, new: u64) -> Result<(), QuotaError> {
        let mut u = self.lock();
        let bytes = u.bytes - old.unwrap_or(0).min(u.bytes) + new;
        let files = u.files + u64::from(old.is_none());
        if bytes > self.max_bytes {
            return Err(QuotaError::Bytes(self.max_bytes));
        }
        if files > self.max_files {
            return Err(QuotaError::Files(self.max_files));
        }
        u.bytes = bytes;
        u.files = files;
        Ok(())
    }

    /// Give back what a removed file held.
    pub fn release(&self, bytes: u64, files: u64) {
        let mut u = self.lock();
        u.bytes = u.bytes.saturating_sub(bytes);
        u.files = u.files.saturating_sub(files);
    }

    /// Charge `bytes` more written, if they fit.
    fn charge_bytes(&self, bytes: u64) -> bool {
        let mut u = self.lock();
        match u.bytes.checked_add(bytes) {
            Some(b) if b <= self.max_bytes => {
                u.bytes = b;
                true
            }
            _ => false,
        }
    }
}

fn walk(dir: &Dir, rel: &Path, total: &mut Usage, depth: usize) {
    let Ok(entries) = dir.read_dir(rel) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(meta) = e.metadata() else { continue };
        let path = rel.join(e.file_name());
        if meta.is_dir() {
            total.dirs += 1;
            if depth < 256 {
                walk(dir, &path, total, depth + 1);
            }
        } else {
            total.files += 1;
            total.bytes += meta.len();
        }
    }
}

/// `__WASI_ERRNO_NOSPC`.
const ERRNO_NOSPC: i32 = 51;
/// `__WASI_OFLAGS_CREAT`.
const OFLAGS_CREAT: i32 = 1;

/// Sum of the lengths in a guest `iovec` array (pairs of little-endian u32 ptr, len).
fn iovec_bytes(memory: &[u8], iovs: i32, count: i32) -> Option<u64> {
    let start = usize::try_from(iovs).ok()?;
    let count = usize::try_from(count).ok()?;
    let table = memory.get(start..start.checked_add(count.checked_mul(8)?)?)?;
    Some(
        table
            .chunks_exact(8)
            .map(|c| u64::from(u32::from_le_bytes([c[4], c[5], c[6], c[7]])))
            .sum(),
    )
}

/// Whether this write fits the quota; charges it if so.
fn charge(caller: &mut Caller<'_, GuestState>, fd: i32, iovs: i32, count: i32) -> bool {
    if fd <= 2 {
        return true;
    }
    let Some(quota) = caller.data().quota.clone() else {
        return true;
    };
    let Some(memory) = caller.get_export("memory").and_then(|e| e.into_memory()) else {
        return true; // let WASI itself report the fault
    };
    let Some(want) = iovec_bytes(memory.data(&caller), iovs, count) else {
        return true;
    };
    quota.charge_bytes(want)
}

fn memory_of(caller: &mut Caller<'_, GuestState>) -> wasmtime::Result<wasmtime::Memory> {
    caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::format_err!("guest exports no memory"))
}

/// Replace `fd_write` and `fd_pwrite` in `linker` (which already has WASI) with guarded ones.
pub(super) fn add_write_guard(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    guard_fd_write(linker)?;
    guard_fd_pwrite(linker)?;
    guard_path_open(linker)?;
    linker.allow_shadowing(false);
    Ok(())
}

/// `fd_write`: charge the bytes first (ENOSPC past the quota), then let WASI write.
fn guard_fd_write(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap_async(
        "wasi_snapshot_preview1",
        "fd_write",
        |mut caller: Caller<'_, GuestState>, (fd, iovs, count, nwritten): (i32, i32, i32, i32)| {
            Box::new(async move {
                if !charge(&mut caller, fd, iovs, count) {
                    return Ok(ERRNO_NOSPC);
                }
                let memory = memory_of(&mut caller)?;
                let fuel = caller.as_context_mut().hostcall_fuel();
                let (data, state) = memory.data_and_store_mut(&mut caller);
                // As wiggle's own wrapper does: without fuel the copy limit is 0 (ENOMEM).
                state.wasi.set_hostcall_fuel(fuel);
                let mut memory = wiggle::GuestMemory::Unshared(data);
                p1::fd_write(&mut state.wasi, &mut memory, fd, iovs, count, nwritten).await
            })
        },
    )?;
    Ok(())
}

/// `fd_pwrite`: as `fd_write`.
fn guard_fd_pwrite(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap_async(
        "wasi_snapshot_preview1",
        "fd_pwrite",
        |mut caller: Caller<'_, GuestState>,
         (fd, iovs, count, offset, nwritten): (i32, i32, i32, i64, i32)| {
            Box::new(async move {
                if !charge(&mut caller, fd, iovs, count) {
                    return Ok(ERRNO_NOSPC);
                }
                let memory = memory_of(&mut caller)?;
                let fuel = caller.as_context_mut().hostcall_fuel();
                let (data, state) = memory.data_and_store_mut(&mut caller);
                state.wasi.set_hostcall_fuel(fuel);
                let mut memory = wiggle::GuestMemory::Unshared(data);
                p1::fd_pwrite(
                    &mut state.wasi,
                    &mut memory,
                    fd,
                    iovs,
                    count,
                    offset,
                    nwritten,
                )
                .await
            })
        },
    )?;
    Ok(())
}

/// `path_open`: a file that does not exist yet takes a file slot before it is created.
fn guard_path_open(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap_async(
        "wasi_snapshot_preview1",
        "path_open",
        |mut caller: Caller<'_, GuestState>,
         (dirfd, dirflags, path, path_len, oflags, base, inheriting, fdflags, opened): (
            i32,
            i32,
            i32,
            i32,
            i32,
            i64,
            i64,
            i32,
            i32,
        )| {
            Box::new(async move {
                let memory = memory_of(&mut caller)?;
                let fuel = caller.as_context_mut().hostcall_fuel();
                let quota = caller.data().quota.clone();
                let (data, state) = memory.data_and_store_mut(&mut caller);
                state.wasi.set_hostcall_fuel(fuel);
                let mut memory = wiggle::GuestMemory::Unshared(data);
                // A file that does not exist yet takes a file slot before it is created.
                let mut charged = None;
                if let Some(q) = quota.filter(|_| oflags & OFLAGS_CREAT != 0) {
                    let ptr = wiggle::GuestPtr::<str>::new((path as u32, path_len as u32));
                    let exists = state
                        .wasi
                        .path_filestat_get(
                            &mut memory,
                            (dirfd as u32).into(),
                            wasmtime_wasi::p1::types::Lookupflags::empty(),
                            ptr,
                        )
                        .await
                        .is_ok();
                    if !exists {
                        if q.charge(None, 0).is_err() {
                            return Ok(ERRNO_NOSPC);
                        }
                        charged = Some(q);
                    }
                }
                let errno = p1::path_open(
                    &mut state.wasi,
                    &mut memory,
                    dirfd,
                    dirflags,
                    path,
                    path_len,
                    oflags,
                    base,
                    inheriting,
                    fdflags,
                    opened,
                )
                .await?;
                if let Some(q) = charged.filter(|_| errno != 0) {
                    q.release(0, 1);
                }
                Ok(errno)
            })
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iovec_lengths_are_summed_and_bounds_checked() {
        let mut mem = vec![0u8; 32];
        mem[4..8].copy_from_slice(&5u32.to_le_bytes());
        mem[12..16].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(iovec_bytes(&mem, 0, 2), Some(12));
        assert_eq!(iovec_bytes(&mem, 30, 1), None);
        assert_eq!(iovec_bytes(&mem, -1, 1), None);
    }
}
