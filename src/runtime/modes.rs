//! Two host-door requests of the Linux box (`linux_box/kill.py`), served for `door.rs`:
//!
//! - `mode\0stat\0PATH`, `mode\0lstat\0PATH`: the permission bits of the guest's absolute
//!   `PATH` as the host keeps them (WASI preview 1's `filestat` has no mode, so `os.stat`
//!   asks here). Answer: the bits in decimal, or empty when unknown (not a sandbox folder,
//!   no shell behind the call, no such file): the guest then keeps WASI's answer.
//! - `mode\0chmod\0MODE\0PATH` (MODE in octal): `os.chmod`, by the shell's `chmod` rule (no
//!   set-id or sticky bits, the owner's access kept; `shell/fs.rs`). Answer `ok`, empty when
//!   the path is not in a sandbox folder, or `e:` and the error's kind (`notfound`,
//!   `denied`, `other`).
//! - `end\0STATUS\0SIGNAL`: the program ends here with `STATUS` (0 to 255), as `_exit` would:
//!   nothing more of it runs (no `finally`, no `atexit`, no buffered output written). WASI's
//!   `proc_exit` refuses statuses over 125, which a program killed by a signal (128 + N) or
//!   an `os._exit(200)` needs. `SIGNAL` (0: none) says it was a signal's default action; the
//!   shell that started the program is told ([`GuestProcesses::ended_by_signal`]).
//!
//! Both go through the call's [`GuestProcesses`], which knows the sandbox's folders; the host
//! resolves the path beneath them with cap-std, so nothing outside the sandbox is reached.

use wasmtime::Caller;
use wasmtime_wasi::I32Exit;

use super::GuestState;
use super::procs::GuestProcesses;

const MODE: &[u8] = b"mode\0";
const END: &[u8] = b"end\0";
/// The longest request read (a path).
const MAX_BYTES: usize = 64 << 10;

/// Which of this file's requests a door request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Request {
    /// `mode\0...`
    Mode,
    /// `end\0...`
    End,
}

/// The request's kind from its first bytes, if it is one of this file's.
pub(super) fn kind(head: &[u8]) -> Option<Request> {
    if head.starts_with(MODE) {
        Some(Request::Mode)
    } else if head.starts_with(END) {
        Some(Request::End)
    } else {
        None
    }
}

/// Serve one request: the answer's parts, or the error that ends the program (`end`).
///
/// # Errors
/// An [`I32Exit`] for `end` (the call's exit status); never otherwise.
pub(super) fn serve(
    caller: &mut Caller<'_, GuestState>,
    request: Request,
    ptr: i32,
    len: i32,
) -> wasmtime::Result<Vec<Vec<u8>>> {
    let processes = caller.data().processes.clone();
    let Some(bytes) = read(caller, ptr, len) else {
        return Ok(vec![Vec::new()]);
    };
    match request {
        Request::Mode => Ok(vec![mode(
            processes.as_deref(),
            &bytes[MODE.len().min(bytes.len())..],
        )]),
        Request::End => {
            let (status, signal) = end(&bytes[END.len().min(bytes.len())..]);
            if let (Some(p), Some(signal)) = (&processes, signal) {
                p.ended_by_signal(signal);
            }
            Err(wasmtime::Error::new(I32Exit(status)))
        }
    }
}

fn read(caller: &mut Caller<'_, GuestState>, ptr: i32, len: i32) -> Option<Vec<u8>> {
    super::guest_mem::request_bytes(caller, ptr, len, MAX_BYTES).ok()
}

/// `STATUS\0SIGNAL`: the status cut to a byte (as `_exit` does), and the signal if any.
fn end(rest: &[u8]) -> (i32, Option<i32>) {
    let text = String::from_utf8_lossy(rest);
    let mut words = text.split('\0');
    let status = words
        .next()
        .and_then(|w| w.trim().parse::<i64>().ok())
        .map_or(1, |s| i32::try_from(s & 0xFF).unwrap_or(1));
    let signal = words
        .next()
        .and_then(|w| w.trim().parse::<i32>().ok())
        .filter(|s| (1..=64).contains(s));
    (status, signal)
}

fn mode(processes: Option<&dyn GuestProcesses>, rest: &[u8]) -> Vec<u8> {
    let Some(processes) = processes else {
        return Vec::new();
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return Vec::new();
    };
    let mut words = text.splitn(3, '\0');
    match (words.next(), words.next(), words.next()) {
        (Some(op @ ("stat" | "lstat")), Some(path), None) => processes
            .file_mode(path, op == "stat")
            .map(|m| m.to_string().into_bytes())
            .unwrap_or_default(),
        (Some("chmod"), Some(bits), Some(path)) => {
            let Ok(bits) = u32::from_str_radix(bits, 8) else {
                return b"e:other".to_vec();
            };
            match processes.set_file_mode(path, bits) {
                None => Vec::new(),
                Some(Ok(())) => b"ok".to_vec(),
                Some(Err(e)) => match e.kind() {
                    std::io::ErrorKind::NotFound => b"e:notfound".to_vec(),
                    std::io::ErrorKind::PermissionDenied => b"e:denied".to_vec(),
                    _ => b"e:other".to_vec(),
                },
            }
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_requests_carry_a_byte_status_and_a_signal() {
        assert_eq!(end(b"143\x0015"), (143, Some(15)));
        assert_eq!(end(b"200\x000"), (200, None));
        assert_eq!(end(b"256"), (0, None));
        assert_eq!(end(b"-1\x00"), (255, None));
        assert_eq!(end(b"x\x0099"), (1, None));
    }

    #[test]
    fn kinds_are_told_by_their_first_word() {
        assert_eq!(kind(b"mode\0stat\0/testbed"), Some(Request::Mode));
        assert_eq!(kind(b"end\x00143"), Some(Request::End));
        assert_eq!(kind(b"ending"), None);
        assert_eq!(kind(b"proc\0{}"), None);
    }
}
