//! A per-run budget for bytes written to files, enforced inside `fd_write`/`fd_pwrite`.
//!
//! WASI has no disk quota; without this a guest could fill the host disk before anyone looks.
//! We shadow the two WASI write calls: writes to stdout/stderr (fds 1 and 2) are captured and
//! capped elsewhere; writes to any other descriptor are counted, and once the budget is spent
//! the call fails with `ENOSPC` ("No space left on device") as a full disk would.

use wasmtime::{AsContextMut, Caller, Linker};
use wasmtime_wasi::p1::wasi_snapshot_preview1 as p1;
use wasmtime_wasi::p1::wasi_snapshot_preview1::WasiSnapshotPreview1;

use super::GuestState;

/// `__WASI_ERRNO_NOSPC`.
const ERRNO_NOSPC: i32 = 51;

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

/// Whether this write fits the budget; charges it if so.
fn charge(caller: &mut Caller<'_, GuestState>, fd: i32, iovs: i32, count: i32) -> bool {
    if fd <= 2 || caller.data().write_budget.is_none() {
        return true;
    }
    let Some(memory) = caller.get_export("memory").and_then(|e| e.into_memory()) else {
        return true; // let WASI itself report the fault
    };
    let Some(want) = iovec_bytes(memory.data(&caller), iovs, count) else {
        return true;
    };
    let state = caller.data_mut();
    match state.write_budget {
        Some(left) if want > left => false,
        Some(left) => {
            state.write_budget = Some(left - want);
            true
        }
        None => true,
    }
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
    linker.allow_shadowing(false);
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
