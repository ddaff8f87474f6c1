//! What a function that shadows one of wasmtime-wasi's WASI calls needs to call the original:
//! the guest's WASI context and memory (the write guard and the open-files guard use it).

use wasmtime::{AsContextMut, Caller};
use wasmtime_wasi::p1::wasi_snapshot_preview1::WasiSnapshotPreview1 as _;

use super::GuestState;

/// The guest's WASI context and memory for calling wasmtime-wasi's own implementation from a
/// shadowing function, with the host-call fuel set as wiggle's wrapper sets it (without it the
/// copy limit is 0 and large writes fail with ENOMEM).
pub(super) fn wasi_and_memory<'a>(
    caller: &'a mut Caller<'_, GuestState>,
) -> wasmtime::Result<(
    &'a mut wasmtime_wasi::p1::WasiP1Ctx,
    wiggle::GuestMemory<'a>,
)> {
    let memory = memory_of(caller)?;
    let fuel = caller.as_context_mut().hostcall_fuel();
    let (data, state) = memory.data_and_store_mut(&mut *caller);
    state.wasi.set_hostcall_fuel(fuel);
    Ok((&mut state.wasi, wiggle::GuestMemory::Unshared(data)))
}

pub(super) fn memory_of(caller: &mut Caller<'_, GuestState>) -> wasmtime::Result<wasmtime::Memory> {
    caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::format_err!("guest exports no memory"))
}
