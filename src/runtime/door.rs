//! The host door (`host::call`): how the driver gets its run request without parsing it.
//!
//! `turn` parses its code with `ast.parse`, which in WASM costs about a millisecond per
//! kilobyte of literal (every dict entry becomes AST objects). So the call's code is a constant
//! `_lis_main()`, and the driver fetches the request as JSON bytes through `_host.call`,
//! decoding it with the C `json` scanner. The door answers exactly one request per run; any
//! later call (e.g. from user code) is refused, as when no host is bound.

use wasmtime::{Caller, Linker};

use super::GuestState;

/// `host::call` results, as the guest's `_host` module reads them.
const OK: i32 = 0;
const NO_HOST: i32 = -1;
const FAULT: i32 = -2;

/// Bind `host::call` in `linker`.
pub(super) fn add_to_linker(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap_async(
        "host",
        "call",
        |mut caller: Caller<'_, GuestState>,
         (_req, _len, out_ptr, out_len): (i32, i32, i32, i32)| {
            Box::new(async move {
                let Some(frame) = caller.data_mut().request.take() else {
                    return Ok(NO_HOST);
                };
                answer(&mut caller, &frame, out_ptr, out_len).await
            })
        },
    )?;
    Ok(())
}

/// Copy `frame` into guest memory from the guest's own allocator and store where it is.
async fn answer(
    caller: &mut Caller<'_, GuestState>,
    frame: &[u8],
    out_ptr: i32,
    out_len: i32,
) -> wasmtime::Result<i32> {
    let Some(alloc) = caller
        .get_export("host_alloc")
        .and_then(|e| e.into_func())
        .and_then(|f| f.typed::<i32, i32>(&*caller).ok())
    else {
        return Ok(FAULT);
    };
    let Some(memory) = caller.get_export("memory").and_then(|e| e.into_memory()) else {
        return Ok(FAULT);
    };
    let Ok(len) = i32::try_from(frame.len()) else {
        return Ok(FAULT);
    };
    let ptr = alloc.call_async(&mut *caller, len).await?;
    let (Ok(at), Ok(ptr_at), Ok(len_at)) = (
        usize::try_from(ptr),
        usize::try_from(out_ptr),
        usize::try_from(out_len),
    ) else {
        return Ok(FAULT);
    };
    if ptr == 0 && len > 0 {
        return Ok(FAULT);
    }
    let ptr_bytes = u32::try_from(ptr).unwrap_or_default().to_le_bytes();
    let len_bytes = u32::try_from(len).unwrap_or_default().to_le_bytes();
    for (offset, bytes) in [
        (at, frame),
        (ptr_at, &ptr_bytes[..]),
        (len_at, &len_bytes[..]),
    ] {
        if memory.write(&mut *caller, offset, bytes).is_err() {
            return Ok(FAULT);
        }
    }
    Ok(OK)
}
