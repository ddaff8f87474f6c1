//! Reading a host-door request out of the guest's memory, for every kind of request
//! (`door.rs`, `modes.rs`, `sock_door.rs`): the length is checked against the kind's cap before
//! anything is read, and a range outside the guest's memory is a fault, never a panic.

use wasmtime::Caller;

use super::GuestState;

/// Why a request could not be read.
pub(super) enum Unreadable {
    /// Not in the guest's memory (or no memory export).
    Fault,
    /// Longer than the cap; the length asked.
    TooLarge(usize),
}

/// The `len` bytes at `ptr` in the guest's memory, if they are at most `cap` long.
pub(super) fn request_bytes(
    caller: &mut Caller<'_, GuestState>,
    ptr: i32,
    len: i32,
    cap: usize,
) -> Result<Vec<u8>, Unreadable> {
    let (Ok(at), Ok(len)) = (usize::try_from(ptr), usize::try_from(len)) else {
        return Err(Unreadable::Fault);
    };
    if len > cap {
        return Err(Unreadable::TooLarge(len));
    }
    let memory = caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or(Unreadable::Fault)?;
    let mut bytes = vec![0u8; len];
    memory
        .read(&*caller, at, &mut bytes)
        .map_err(|_| Unreadable::Fault)?;
    Ok(bytes)
}
