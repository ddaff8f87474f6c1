//! A bound on the files a guest holds open, and the process's own limit on open files.
//!
//! Every file a guest opens is a host descriptor (cap-std), and the process has one table of
//! them for every sandbox and for the server's own sockets: a guest that opens files in a loop
//! would otherwise take the whole table, and every other sandbox and client would then fail.
//! Each call may hold at most [`PER_CALL`] files open (Linux's usual `ulimit -n`), and all
//! calls together at most half the process's limit; past either, `path_open` fails with
//! `EMFILE` ("Too many open files") for the guest that asked. The other half is for the
//! sandboxes' own folders (`/testbed`, and `/tmp` and `/root` once used: they are opened on
//! first use; a call's preopens share them and the runtime's two library folders, so a call
//! opens none of its own) and the process. [`raise_open_file_limit`] raises the limit to what a number of sandboxes wants.

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

/// What all guests together may hold: half the process's soft limit (at least 256), read on
/// first use and set again by [`raise_open_file_limit`]. 0: not read yet.
static CAP: AtomicU64 = AtomicU64::new(0);

fn process_cap() -> u64 {
    match CAP.load(Ordering::Relaxed) {
        0 => {
            let soft = current_limit().map_or(1024, |l| l.soft);
            let cap = guest_share(soft);
            CAP.store(cap, Ordering::Relaxed);
            cap
        }
        cap => cap,
    }
}

fn guest_share(soft: u64) -> u64 {
    (soft / 2).clamp(256, 1 << 20)
}

/// Descriptors a live sandbox holds: its workspace (`/testbed`), shared by its shell and every
/// call it makes. `/tmp` and `/root` add one each once something uses them (they are opened on
/// first use, [`crate::lazy_dir::LazyDir`]); most calls never do.
pub const PER_SANDBOX: u64 = 1;

/// Descriptors the process keeps for itself whatever it runs (the runtime's library folders,
/// the compiled module, the async runtime, stdio, sockets of a small server).
const FOR_THE_PROCESS: u64 = 256;

/// The open-files limit that `sandboxes` live sandboxes want, with `others` descriptors for
/// other things (client connections): their folders, the process's own, and as much again for
/// what their guests open (guests may hold half the limit; see the module's doc).
pub fn files_wanted(sandboxes: usize, others: usize) -> u64 {
    let own = (sandboxes as u64)
        .saturating_mul(PER_SANDBOX)
        .saturating_add(others as u64)
        .saturating_add(FOR_THE_PROCESS);
    own.saturating_mul(2)
}

/// The limit on open files (`RLIMIT_NOFILE`): what the process may hold now (soft) and the
/// most it may raise that to without privilege (hard). `u64::MAX`: unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFileLimit {
    /// The limit in force (`ulimit -n`).
    pub soft: u64,
    /// The ceiling for the soft limit (`ulimit -Hn`); only a privileged process
    /// (`CAP_SYS_RESOURCE`, e.g. root) may raise it, up to the kernel's `fs.nr_open`.
    pub hard: u64,
}

/// The process's limit on open files now.
///
/// # Errors
/// The OS error of `getrlimit`.
pub fn current_limit() -> std::io::Result<OpenFileLimit> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct passed to it.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(OpenFileLimit {
        soft: lim.rlim_cur,
        hard: lim.rlim_max,
    })
}

fn set_limit(l: OpenFileLimit) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: l.soft,
        rlim_max: l.hard,
    };
    // SAFETY: setrlimit only reads the struct passed to it.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raw const lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The kernel's ceiling for any process's open-files limit (`/proc/sys/fs/nr_open`).
pub fn kernel_ceiling() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/fs/nr_open")
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// What [`raise_open_file_limit`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitRaise {
    /// The limit before.
    pub before: OpenFileLimit,
    /// The limit now.
    pub after: OpenFileLimit,
    /// What was asked for (see [`files_wanted`]).
    pub wanted: u64,
    /// The kernel's ceiling for the hard limit (`fs.nr_open`), when known.
    pub kernel_ceiling: Option<u64>,
    /// Raising the hard limit was tried and refused: the OS error (`EPERM` without
    /// `CAP_SYS_RESOURCE`, as for root in many containers).
    pub hard_refused: Option<String>,
}

impl LimitRaise {
    /// Whether the limit changed.
    pub fn changed(&self) -> bool {
        self.before != self.after
    }

    /// Whether the limit now covers what was wanted.
    pub fn enough(&self) -> bool {
        self.after.soft >= self.wanted
    }

    /// Worth telling the user: the hard limit was raised, the raise of the soft one was needed
    /// for what was wanted, or the limit still falls short.
    pub fn worth_saying(&self) -> bool {
        self.after.hard > self.before.hard
            || (self.after.soft > self.before.soft && self.before.soft < self.wanted)
            || !self.enough()
    }
}

impl std::fmt::Display for LimitRaise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (b, a) = (self.before, self.after);
        let ceiling = self.kernel_ceiling.map_or(String::new(), |c| {
            format!(", the kernel's fs.nr_open = {c}")
        });
        if a.hard > b.hard {
            write!(
                f,
                "open files: raised the limit from {} (hard {}) to {} (hard {}): {} wanted; as \
                 root the hard limit may be raised, up to fs.nr_open",
                b.soft, b.hard, a.soft, a.hard, self.wanted
            )?;
        } else if a.soft > b.soft {
            write!(
                f,
                "open files: raised the soft limit from {} to the hard limit {}",
                b.soft, a.hard
            )?;
        } else {
            write!(f, "open files: the limit is {} (hard {})", a.soft, a.hard)?;
        }
        if let (false, Some(why)) = (self.enough(), &self.hard_refused) {
            write!(
                f,
                "; {} wanted, so fewer sandboxes fit at once; raising the hard limit was \
                 refused ({why}): it needs CAP_SYS_RESOURCE, which this process lacks (root in \
                 a container often does){ceiling}",
                self.wanted
            )?;
        } else if !self.enough() {
            write!(
                f,
                "; {} wanted, so fewer sandboxes fit at once: raise the hard limit (`ulimit -Hn`; \
                 only root or CAP_SYS_RESOURCE may{ceiling})",
                self.wanted
            )?;
        }
        Ok(())
    }
}

/// Raise this process's limit on open files towards `wanted` (see [`files_wanted`]): the soft
/// limit up to the hard one (as build tools do), and when that is still short of `wanted` and
/// the process may (root, `CAP_SYS_RESOURCE`), the hard limit too, up to `wanted` but never
/// past the kernel's `fs.nr_open`. Never lowers anything. The guests' share (half the soft
/// limit) follows.
///
/// # Errors
/// The OS error of `getrlimit`, or of `setrlimit` when even the soft limit could not be raised.
pub fn raise_open_file_limit(wanted: u64) -> std::io::Result<LimitRaise> {
    let before = current_limit()?;
    let kernel_ceiling = kernel_ceiling();
    let mut after = before;
    let mut hard_refused = None;
    if wanted > before.hard {
        let target = kernel_ceiling
            .map_or(wanted, |c| wanted.min(c))
            .max(before.hard);
        let raised = OpenFileLimit {
            soft: target,
            hard: target,
        };
        // Without the privilege this fails (EPERM): the soft limit is raised below.
        if target > before.hard {
            match set_limit(raised) {
                Ok(()) => after = raised,
                Err(e) => hard_refused = Some(e.to_string()),
            }
        }
    }
    if after.soft < after.hard {
        let raised = OpenFileLimit {
            soft: after.hard,
            ..after
        };
        set_limit(raised)?;
        after = raised;
    }
    CAP.store(guest_share(after.soft), Ordering::Relaxed);
    Ok(LimitRaise {
        before,
        after,
        wanted,
        kernel_ceiling,
        hard_refused,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_sandboxes_want_leaves_their_guests_as_much_again() {
        assert_eq!(files_wanted(0, 0), 2 * FOR_THE_PROCESS);
        assert_eq!(
            files_wanted(10_000, 4096),
            2 * (10_000 * PER_SANDBOX + 4096 + FOR_THE_PROCESS)
        );
    }

    #[test]
    fn the_soft_limit_goes_up_to_the_hard_one_and_the_guests_share_follows() {
        let raise = raise_open_file_limit(0).expect("raise");
        assert_eq!(raise.after.soft, raise.after.hard, "{raise}");
        assert!(raise.enough());
        assert!(process_cap() >= guest_share(raise.before.soft));
    }

    #[test]
    fn as_root_the_hard_limit_goes_up_too_but_not_past_the_kernel() {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let (Ok(before), Some(ceiling)) = (current_limit(), kernel_ceiling()) else {
            return;
        };
        if !root || before.hard >= ceiling {
            eprintln!("skipped: needs root and a hard limit below fs.nr_open");
            return;
        }
        let wanted = before.hard.saturating_add(1000).min(ceiling);
        let raise = raise_open_file_limit(wanted).expect("raise");
        if let Some(why) = &raise.hard_refused {
            // Root without CAP_SYS_RESOURCE (a container): what it says is checked below.
            eprintln!("skipped: raising the hard limit was refused: {why}");
            assert!(raise.to_string().contains("CAP_SYS_RESOURCE"), "{raise}");
            return;
        }
        assert_eq!(raise.after.hard, wanted, "{raise}");
        assert!(raise.enough() && raise.worth_saying());
        let text = raise.to_string();
        assert!(text.contains("raised the limit from"), "{text}");
        // Never past the kernel's ceiling, however much is wanted.
        let raise = raise_open_file_limit(u64::MAX).expect("raise");
        assert_eq!(raise.after.hard, ceiling, "{raise}");
    }

    #[test]
    fn a_limit_short_of_what_is_wanted_says_which_limit_and_by_how_much() {
        let short = LimitRaise {
            before: OpenFileLimit {
                soft: 1024,
                hard: 20_000,
            },
            after: OpenFileLimit {
                soft: 20_000,
                hard: 20_000,
            },
            wanted: 60_512,
            kernel_ceiling: Some(1 << 20),
            hard_refused: None,
        };
        assert!(!short.enough() && short.worth_saying());
        let text = short.to_string();
        for part in [
            "raised the soft limit from 1024 to the hard limit 20000",
            "60512 wanted",
            "ulimit -Hn",
            "fs.nr_open = 1048576",
        ] {
            assert!(text.contains(part), "{part:?} missing from: {text}");
        }
        let refused = LimitRaise {
            hard_refused: Some("Operation not permitted (os error 1)".into()),
            ..short
        };
        let text = refused.to_string();
        for part in [
            "60512 wanted",
            "refused (Operation not permitted (os error 1))",
            "CAP_SYS_RESOURCE",
        ] {
            assert!(text.contains(part), "{part:?} missing from: {text}");
        }
    }
}
