//! A bound on the files a guest holds open. Every file a guest opens is a host descriptor
//! (cap-std), and the process has one table of them for every sandbox and for the server's own
//! sockets: a guest that opens files in a loop would otherwise take the whole table, and every
//! other sandbox and client would then fail. Each call may hold at most [`PER_CALL`] files open
//! (Linux's usual `ulimit -n`), and all calls together at most half the process's limit; past
//! either, `path_open` fails with `EMFILE` ("Too many open files") for the guest that asked.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use wasmtime::{Caller, Linker};
use wasmtime_wasi::p1::wasi_snapshot_preview1 as p1;

use super::GuestState;

/// Files one call may hold open at once (besides stdin, stdout, stderr and the preopened
/// folders).
pub const PER_CALL: u32 = 1024;

/// WASI's `EMFILE`.
const ERRNO_MFILE: i32 = 33;

/// Files all guests of this process hold open.
static OPEN: AtomicU64 = AtomicU64::new(0);

/// Half the process's soft limit on open files (read once; at least 256).
fn process_cap() -> u64 {
    static CAP: OnceLock<u64> = OnceLock::new();
    *CAP.get_or_init(|| {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct passed to it.
        let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut lim) } == 0 {
            lim.rlim_cur
        } else {
            1024
        };
        (soft / 2).clamp(256, 1 << 20)
    })
}

/// The files one call holds open; given back to the process's count when the call ends.
#[derive(Debug, Default)]
pub(super) struct OpenFiles {
    count: u32,
}

impl OpenFiles {
    /// Take a slot for a file about to be opened; `false`: over a cap.
    fn take(&mut self) -> bool {
        if self.count >= PER_CALL {
            return false;
        }
        if OPEN.fetch_add(1, Ordering::Relaxed) >= process_cap() {
            OPEN.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        self.count += 1;
        true
    }

    /// Give back one slot (a file was closed, or the open failed).
    fn give_back(&mut self) {
        if self.count > 0 {
            self.count -= 1;
            OPEN.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Drop for OpenFiles {
    fn drop(&mut self) {
        OPEN.fetch_sub(u64::from(self.count), Ordering::Relaxed);
    }
}

/// Files all guests of this process hold open now (for `perf` and tests).
pub fn open_now() -> u64 {
    OPEN.load(Ordering::Relaxed)
}

/// The slot for `path_open`, taken before the call, given back if it fails. Errors:
/// `EMFILE` past a cap.
pub(super) fn before_open(caller: &mut Caller<'_, GuestState>) -> Result<(), i32> {
    if caller.data_mut().open_files.take() {
        Ok(())
    } else {
        Err(ERRNO_MFILE)
    }
}

/// After `path_open` returned `errno`: a failed open gives its slot back.
pub(super) fn after_open(caller: &mut Caller<'_, GuestState>, errno: i32) {
    if errno != 0 {
        caller.data_mut().open_files.give_back();
    }
}

/// `fd_close` and `fd_renumber` (which closes its target) give a slot back when they succeed.
/// A close of a preopened folder or a standard stream gives back a slot the guest never took;
/// the count never goes below zero, so at worst the guest may open that many more (still
/// bounded by the process cap).
pub(super) fn guard_closes(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap_async(
        "wasi_snapshot_preview1",
        "fd_close",
        |mut caller: Caller<'_, GuestState>, (fd,): (i32,)| {
            Box::new(async move {
                let (wasi, mut memory) = super::shim::wasi_and_memory(&mut caller)?;
                let errno = p1::fd_close(wasi, &mut memory, fd).await?;
                if errno == 0 && fd > 2 {
                    caller.data_mut().open_files.give_back();
                }
                Ok(errno)
            })
        },
    )?;
    linker.func_wrap_async(
        "wasi_snapshot_preview1",
        "fd_renumber",
        |mut caller: Caller<'_, GuestState>, (from, to): (i32, i32)| {
            Box::new(async move {
                let (wasi, mut memory) = super::shim::wasi_and_memory(&mut caller)?;
                let errno = p1::fd_renumber(wasi, &mut memory, from, to).await?;
                if errno == 0 && from != to && to > 2 {
                    caller.data_mut().open_files.give_back();
                }
                Ok(errno)
            })
        },
    )?;
    Ok(())
}
