//! The host door (`host::call`): the one way the guest asks the host for anything. A request
//! is bytes, its first word the kind:
//!
//! - `request`: the driver's run request. `turn` parses its code with `ast.parse`, which in
//!   WASM costs about a millisecond per kilobyte of literal, so the call's code is a constant
//!   `_lis_main()` and the driver fetches the request (in `marshal` format, see driver.rs)
//!   through the door. Answered once per run; a later ask (e.g. from user code) is refused as
//!   when no host is bound. `request\0N` (N in decimal, at most [`MAX_ENTROPY`]) answers the
//!   same followed by N random bytes (the thread's ChaCha generator, seeded from the OS, as
//!   the guest's own `random_get` is): the driver refreshes its random
//!   generators from them in one go, where `os.urandom` takes a WASI call per 256 bytes.
//! - `http-check\0{"url": ...}`: whether the sandbox's network would allow the URL. Answer
//!   `{"ok": true}` or a refusal (below). Nothing is sent anywhere.
//! - `http\0{"method", "url", "headers": [[name, value], ...], "timeout": seconds|null}\0BODY`:
//!   one HTTP request, made by the host with its own client and TLS ([`GuestNetwork`]).
//!   Answer `{"ok": true, "status", "reason", "version", "headers"}\0BODY`, or a refusal
//!   `{"ok": false, "error": KIND, "message": ...}` (KIND as [`HttpRefusal::kind`]).
//!
//! - `proc\0{"script", "program": name|null, "timeout": seconds|null}\0STDIN`: run a command
//!   in the sandbox's shell ([`GuestProcesses`]). Answer `{"ok": true, "status", "stdout": N,
//!   "timed_out"}\0` then N bytes of stdout and the rest stderr; or `{"ok": false, "error":
//!   "notfound"|"refused", "message"}`.
//! - `which\0{"name"}`: where the shell finds a command. Answer `{"ok": true, "path": ...}`.
//! - `system\0{"op": ...}`: the virtual Linux system ([`super::linux_files`]).
//!   `{"op": "file", "path", "pid", "name", "argv"}` answers `{"ok": true, "dir": [names]}`
//!   for a directory, `{"ok": true, "dir": null}\0CONTENT` for a file, or `{"ok": false}`;
//!   `{"op": "limits"}` answers the call's figures (`memory_limit`, `memory_cap`,
//!   `memory_used`, `memory_peak`, `elapsed`, `timeout`, `quota_bytes`, `quota_used`,
//!   `quota_files`, `quota_files_used`, `open_files`); `{"op": "memory-cap", "cap": N|null}`
//!   sets the program's own memory cap (`RLIMIT_AS`; never above the sandbox's limit) and
//!   answers the figures.
//!
//! - `sock\0{"op": ...}\0DATA`: a socket on the sandbox's own loopback network
//!   ([`super::sock_door`]).
//! - `gemm\0\0\0\0` then a product's arguments: a matrix product the host does in the
//!   guest's memory ([`super::gemm`]); answers 0 when done, 1 when the guest's own code is to
//!   run. The guest's OpenBLAS asks this itself (`relink/gemm.rs`).
//!
//! Header values travel as JSON strings of the bytes read as Latin-1 (one char per byte).
//! JSON escapes NUL, so the first NUL after the JSON always ends it. Any other request gets
//! `-1`, as when no host is bound.
//!
//! Safety against a hostile guest: the request is read from guest memory only after its
//! length is checked against the network's cap; answers are written only into memory the
//! guest's own `host_alloc` returned; an HTTP request is awaited (never blocking a thread) and
//! bounded by what is left of the command's deadline, which also cancels it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use wasmtime::{Caller, Linker};

use super::GuestState;
use super::guest_mem::Unreadable;
use super::linux_files;
use super::net::{GuestNetwork, HttpRefusal, HttpRequest, HttpResponse};
use super::procs::{GuestProcesses, ProcessAnswer, ProcessRequest};

/// `host::call` results, as the guest's `_host` module reads them.
const OK: i32 = 0;
const NO_HOST: i32 = -1;
const FAULT: i32 = -2;

const RUN_REQUEST: &[u8] = b"request";
/// The most random bytes a run request gets (four Mersenne Twisters take 9,984; the driver asks
/// for none past this and uses `os.urandom` instead, as it does when it gets fewer).
const MAX_ENTROPY: usize = 1 << 20;
const HTTP_CHECK: &[u8] = b"http-check\0";
const HTTP: &[u8] = b"http\0";
const PROC: &[u8] = b"proc\0";
const WHICH: &[u8] = b"which\0";
const SYSTEM: &[u8] = b"system\0";
/// The largest `system` request read (a path and a command line).
const MAX_SYSTEM_BYTES: usize = 1 << 20;
/// The largest `proc` request read (script and stdin).
const MAX_PROC_BYTES: usize = 64 << 20;
/// The largest `http-check` request read (a URL).
const MAX_CHECK_BYTES: usize = 64 << 10;

/// Bind `host::call` in `linker`.
pub(super) fn add_to_linker(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap_async(
        "host",
        "call",
        |mut caller: Caller<'_, GuestState>, (req, len, out_ptr, out_len): (i32, i32, i32, i32)| {
            Box::new(async move {
                let Some(kind) = read_kind(&mut caller, req, len) else {
                    return Ok(FAULT);
                };
                let answer_parts: Vec<Vec<u8>> = match kind {
                    Kind::Gemm => return Ok(super::gemm::serve(&mut caller, req, len).await),
                    Kind::Run(entropy) => match caller.data_mut().request.take() {
                        Some(frame) => {
                            let mut random = vec![0u8; entropy];
                            rand::Rng::fill_bytes(&mut rand::rng(), &mut random);
                            vec![frame, random]
                        }
                        None => return Ok(NO_HOST),
                    },
                    Kind::Check => {
                        let network = caller.data().network.clone();
                        let body = match read_guest(&mut caller, req, len, MAX_CHECK_BYTES) {
                            Ok(bytes) => check(network.as_deref(), &bytes[HTTP_CHECK.len()..]),
                            Err(refusal) => refusal_json(&refusal),
                        };
                        vec![body]
                    }
                    Kind::Http => {
                        let (network, deadline) =
                            (caller.data().network.clone(), caller.data().deadline);
                        http(&mut caller, network, deadline, req, len).await
                    }
                    Kind::Proc | Kind::Which => {
                        // A command may change files: the quota is measured again after.
                        caller.data_mut().touched_disk = true;
                        let (processes, deadline) =
                            (caller.data().processes.clone(), caller.data().deadline);
                        let bytes = match read_guest(&mut caller, req, len, MAX_PROC_BYTES) {
                            Ok(bytes) => bytes,
                            Err(_) => return Ok(FAULT),
                        };
                        if matches!(kind, Kind::Proc) {
                            proc(processes, deadline, &bytes[PROC.len()..]).await
                        } else {
                            vec![which(processes, &bytes[WHICH.len()..]).await]
                        }
                    }
                    Kind::Sock => match super::sock_door::serve(&mut caller, req, len).await {
                        Some(parts) => parts,
                        None => return Ok(FAULT),
                    },
                    Kind::Modes(request) => super::modes::serve(&mut caller, request, req, len)?,
                    Kind::System => match read_guest(&mut caller, req, len, MAX_SYSTEM_BYTES) {
                        Ok(bytes) => system(&mut caller, &bytes[SYSTEM.len()..]),
                        Err(_) => return Ok(FAULT),
                    },
                    Kind::Other => return Ok(NO_HOST),
                };
                answer(&mut caller, &answer_parts, out_ptr, out_len).await
            })
        },
    )?;
    Ok(())
}

enum Kind {
    /// The run request, then this many random bytes.
    Run(usize),
    Check,
    Http,
    Proc,
    Which,
    /// File modes and the program's end (`modes.rs`).
    Modes(super::modes::Request),
    System,
    /// A socket on the sandbox's loopback (`sock_door.rs`).
    Sock,
    /// A matrix product (`gemm.rs`).
    Gemm,
    Other,
}

/// The request's kind, from its first bytes (the longest prefix is all that is read).
fn read_kind(caller: &mut Caller<'_, GuestState>, ptr: i32, len: i32) -> Option<Kind> {
    let (Ok(at), Ok(len)) = (usize::try_from(ptr), usize::try_from(len)) else {
        return None;
    };
    let memory = caller.get_export("memory")?.into_memory()?;
    let mut head = [0u8; 16];
    let n = len.min(head.len());
    memory.read(&*caller, at, &mut head[..n]).ok()?;
    let head = &head[..n];
    Some(if let Some(count) = run_request(head, len) {
        Kind::Run(count)
    } else if head.starts_with(HTTP_CHECK) {
        Kind::Check
    } else if head.starts_with(HTTP) {
        Kind::Http
    } else if head.starts_with(PROC) {
        Kind::Proc
    } else if head.starts_with(WHICH) {
        Kind::Which
    } else if head.starts_with(SYSTEM) {
        Kind::System
    } else if head.starts_with(super::sock_door::SOCK) {
        Kind::Sock
    } else if super::gemm::is_request(head) {
        Kind::Gemm
    } else if let Some(request) = super::modes::kind(head) {
        Kind::Modes(request)
    } else {
        Kind::Other
    })
}

/// A run request's count of random bytes: `request` (none) or `request\0N` with N in decimal,
/// the whole request within `head` (`len` is its full length). A count past [`MAX_ENTROPY`] is
/// cut to it: the driver then finds fewer bytes than it asked for and uses `os.urandom`.
fn run_request(head: &[u8], len: usize) -> Option<usize> {
    if len != head.len() {
        return None;
    }
    let rest = head.strip_prefix(RUN_REQUEST)?;
    if rest.is_empty() {
        return Some(0);
    }
    let digits = rest.strip_prefix(b"\0")?;
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let count = std::str::from_utf8(digits).ok()?.parse::<usize>().ok()?;
    Some(count.min(MAX_ENTROPY))
}

/// The guest's request bytes, if they are at most `cap` long.
fn read_guest(
    caller: &mut Caller<'_, GuestState>,
    ptr: i32,
    len: i32,
    cap: usize,
) -> Result<Vec<u8>, HttpRefusal> {
    super::guest_mem::request_bytes(caller, ptr, len, cap).map_err(|e| match e {
        Unreadable::TooLarge(len) => HttpRefusal::TooLarge(format!(
            "the request is {len} bytes; the sandbox passes at most {cap} bytes (URL, headers and \
             body) per HTTP request"
        )),
        Unreadable::Fault => {
            HttpRefusal::BadRequest("the request is not in the guest's memory".into())
        }
    })
}

fn no_network() -> HttpRefusal {
    HttpRefusal::Denied("this Python runtime has no network (no network policy is bound)".into())
}

#[derive(Deserialize)]
struct CheckMeta {
    url: String,
}

fn check(network: Option<&dyn GuestNetwork>, meta: &[u8]) -> Vec<u8> {
    let Some(network) = network else {
        return refusal_json(&no_network());
    };
    let result = serde_json::from_slice::<CheckMeta>(meta)
        .map_err(|e| HttpRefusal::BadRequest(format!("malformed http-check request: {e}")))
        .and_then(|m| network.check(&m.url));
    match result {
        Ok(()) => br#"{"ok":true}"#.to_vec(),
        Err(refusal) => refusal_json(&refusal),
    }
}

#[derive(Deserialize)]
struct HttpMeta {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    timeout: Option<f64>,
}

/// Serve an `http` request: parse it, bound its time, fetch, and frame the answer.
async fn http(
    caller: &mut Caller<'_, GuestState>,
    network: Option<Arc<dyn GuestNetwork>>,
    deadline: Instant,
    ptr: i32,
    len: i32,
) -> Vec<Vec<u8>> {
    let Some(network) = network else {
        return vec![refusal_json(&no_network())];
    };
    let request = read_guest(caller, ptr, len, network.max_request_bytes())
        .and_then(|bytes| parse_http(&bytes[HTTP.len()..], deadline));
    let result = match request {
        Ok(request) => network.fetch(request).await,
        Err(refusal) => Err(refusal),
    };
    match result {
        Ok(response) => {
            let meta = response_json(&response);
            vec![meta, vec![0], response.body]
        }
        Err(refusal) => vec![refusal_json(&refusal)],
    }
}

fn parse_http(bytes: &[u8], deadline: Instant) -> Result<HttpRequest, HttpRefusal> {
    let bad = |why: String| HttpRefusal::BadRequest(format!("malformed http request: {why}"));
    let split = bytes
        .iter()
        .position(|b| *b == 0)
        .ok_or_else(|| bad("no end of the header part".into()))?;
    let meta: HttpMeta = serde_json::from_slice(&bytes[..split]).map_err(|e| bad(e.to_string()))?;
    let headers = meta
        .headers
        .into_iter()
        .map(|(name, value)| {
            Ok((
                name,
                latin1_bytes(&value)
                    .ok_or_else(|| bad(format!("header {value:?} is not Latin-1")))?,
            ))
        })
        .collect::<Result<Vec<_>, HttpRefusal>>()?;
    let left = deadline.saturating_duration_since(Instant::now());
    let timeout = match meta.timeout {
        Some(t) if t.is_finite() && t > 0.0 => {
            Duration::try_from_secs_f64(t).map_or(left, |t| t.min(left))
        }
        _ => left,
    };
    if timeout.is_zero() {
        return Err(HttpRefusal::Timeout(
            "the command's deadline has passed".into(),
        ));
    }
    Ok(HttpRequest {
        method: meta.method,
        url: meta.url,
        headers,
        body: bytes[split + 1..].to_vec(),
        timeout,
    })
}

#[derive(Deserialize)]
struct ProcMeta {
    script: String,
    program: Option<String>,
    timeout: Option<f64>,
}

fn proc_refusal(kind: &str, message: &str) -> Vec<Vec<u8>> {
    vec![
        serde_json::json!({"ok": false, "error": kind, "message": message})
            .to_string()
            .into_bytes(),
    ]
}

/// Serve a `proc` request: run the command in the sandbox's shell, bounded by the guest's
/// timeout and what is left of the Python call's deadline.
async fn proc(
    processes: Option<Arc<dyn GuestProcesses>>,
    deadline: Instant,
    bytes: &[u8],
) -> Vec<Vec<u8>> {
    let Some(processes) = processes else {
        return proc_refusal(
            "refused",
            "this Python call has no shell to run commands in (only `python3` run from the \
             sandbox's shell can start commands)",
        );
    };
    let Some(split) = bytes.iter().position(|b| *b == 0) else {
        return proc_refusal("refused", "malformed proc request");
    };
    let meta: ProcMeta = match serde_json::from_slice(&bytes[..split]) {
        Ok(meta) => meta,
        Err(e) => return proc_refusal("refused", &format!("malformed proc request: {e}")),
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let timeout = match meta.timeout {
        Some(t) if t.is_finite() && t >= 0.0 => {
            Duration::try_from_secs_f64(t).map_or(left, |t| t.min(left))
        }
        _ => left,
    };
    let request = ProcessRequest {
        script: meta.script,
        program: meta.program,
        stdin: bytes[split + 1..].to_vec(),
        timeout,
    };
    match processes.run(request).await {
        ProcessAnswer::Done {
            status,
            stdout,
            stderr,
            timed_out,
        } => {
            let head = serde_json::json!({
                "ok": true, "status": status, "stdout": stdout.len(), "timed_out": timed_out,
            });
            vec![head.to_string().into_bytes(), vec![0], stdout, stderr]
        }
        ProcessAnswer::NotFound => proc_refusal("notfound", "No such file or directory"),
        ProcessAnswer::Refused(why) => proc_refusal("refused", &why),
    }
}

#[derive(Deserialize)]
struct WhichMeta {
    name: String,
}

async fn which(processes: Option<Arc<dyn GuestProcesses>>, bytes: &[u8]) -> Vec<u8> {
    let path = match (processes, serde_json::from_slice::<WhichMeta>(bytes)) {
        (Some(p), Ok(meta)) => p.which(meta.name).await,
        _ => None,
    };
    serde_json::json!({"ok": true, "path": path})
        .to_string()
        .into_bytes()
}

#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
enum SystemOp {
    File {
        path: String,
        #[serde(default)]
        pid: u32,
        #[serde(default)]
        name: String,
        #[serde(default)]
        argv: Vec<String>,
    },
    Limits,
    MemoryCap {
        cap: Option<u64>,
    },
}

/// Serve a `system` request: a virtual file or the call's figures (see the module's doc).
fn system(caller: &mut Caller<'_, GuestState>, meta: &[u8]) -> Vec<Vec<u8>> {
    let Ok(op) = serde_json::from_slice::<SystemOp>(meta) else {
        return vec![br#"{"ok":false}"#.to_vec()];
    };
    let used = caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .map_or(0, |m| m.data_size(&*caller) as u64);
    match op {
        SystemOp::File {
            path,
            pid,
            name,
            argv,
        } => {
            let limiter = &caller.data().limiter;
            let figures = linux_files::SystemFigures {
                memory_limit: limiter.cap().unwrap_or(limiter.limit()),
                memory_used: used,
                memory_peak: limiter.peak().max(used),
                uptime: limiter.started().elapsed(),
                process: linux_files::ProcessView { pid, name, argv },
            };
            match linux_files::lookup(&path, &figures) {
                Some(linux_files::Node::Dir(names)) => {
                    vec![
                        serde_json::json!({"ok": true, "dir": names})
                            .to_string()
                            .into_bytes(),
                    ]
                }
                Some(linux_files::Node::File(content)) => {
                    vec![br#"{"ok":true,"dir":null}"#.to_vec(), vec![0], content]
                }
                None => vec![br#"{"ok":false}"#.to_vec()],
            }
        }
        SystemOp::Limits => vec![figures_json(caller.data(), used)],
        SystemOp::MemoryCap { cap } => {
            caller.data_mut().limiter.set_cap(cap);
            vec![figures_json(caller.data(), used)]
        }
    }
}

/// The call's limits and its use of them, as JSON (see the module's doc).
fn figures_json(state: &GuestState, used: u64) -> Vec<u8> {
    let limiter = &state.limiter;
    let timeout = state.deadline.saturating_duration_since(limiter.started());
    let (quota_bytes, quota_used, quota_files, quota_files_used) =
        state.quota.as_ref().map_or((None, 0, None, 0), |q| {
            let u = q.usage();
            (
                Some(q.max_bytes()),
                u.bytes,
                Some(q.max_files()),
                u.files.saturating_add(u.dirs),
            )
        });
    serde_json::json!({
        "ok": true,
        "memory_limit": limiter.limit(),
        "memory_cap": limiter.cap(),
        "memory_used": used,
        "memory_peak": limiter.peak().max(used),
        "elapsed": limiter.started().elapsed().as_secs_f64(),
        "timeout": timeout.as_secs_f64(),
        "quota_bytes": quota_bytes,
        "quota_used": quota_used,
        "quota_files": quota_files,
        "quota_files_used": quota_files_used,
        "open_files": super::open_files::PER_CALL,
    })
    .to_string()
    .into_bytes()
}

fn latin1_bytes(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

fn latin1_string(b: &[u8]) -> String {
    b.iter().map(|&b| char::from(b)).collect()
}

fn response_json(r: &HttpResponse) -> Vec<u8> {
    let headers: Vec<(&str, String)> = r
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), latin1_string(v)))
        .collect();
    serde_json::json!({
        "ok": true,
        "status": r.status,
        "reason": r.reason,
        "version": r.version,
        "headers": headers,
    })
    .to_string()
    .into_bytes()
}

fn refusal_json(r: &HttpRefusal) -> Vec<u8> {
    serde_json::json!({"ok": false, "error": r.kind(), "message": r.to_string()})
        .to_string()
        .into_bytes()
}

/// Copy `parts` (one after the other) into guest memory from the guest's own allocator and
/// store where they are.
async fn answer(
    caller: &mut Caller<'_, GuestState>,
    parts: &[Vec<u8>],
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
    let total: usize = parts.iter().map(Vec::len).sum();
    let Ok(len) = i32::try_from(total) else {
        return Ok(FAULT);
    };
    let ptr = alloc.call_async(&mut *caller, len).await?;
    // That call ran on a second fiber stack, which the store would keep until the call ends:
    // back to the pool now, so a running call holds one stack, not two (see
    // `engine::fiber_stacks`; vendor/README.md).
    #[cfg(not(feature = "stock-wasmtime"))]
    caller.release_cached_fiber_stack();
    let (Ok(mut at), Ok(ptr_at), Ok(len_at)) = (
        usize::try_from(ptr),
        usize::try_from(out_ptr),
        usize::try_from(out_len),
    ) else {
        return Ok(FAULT);
    };
    if ptr == 0 && len > 0 {
        return Ok(FAULT);
    }
    for part in parts {
        if memory.write(&mut *caller, at, part).is_err() {
            return Ok(FAULT);
        }
        at += part.len();
    }
    let ptr_bytes = u32::try_from(ptr).unwrap_or_default().to_le_bytes();
    let len_bytes = u32::try_from(len).unwrap_or_default().to_le_bytes();
    for (offset, bytes) in [(ptr_at, &ptr_bytes[..]), (len_at, &len_bytes[..])] {
        if memory.write(&mut *caller, offset, bytes).is_err() {
            return Ok(FAULT);
        }
    }
    Ok(OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_requests_are_read_exactly() {
        let read = |b: &[u8]| run_request(b, b.len());
        assert_eq!(read(b"request"), Some(0));
        assert_eq!(read(b"request\x009984"), Some(9984));
        assert_eq!(read(b"request\x000"), Some(0));
        // Past the cap: cut to it, never refused (the driver falls back to `os.urandom`).
        assert_eq!(read(b"request\x0099999999"), Some(MAX_ENTROPY));
        for bad in [
            &b"request\x00"[..],
            b"request\x00-1",
            b"request\x00+5",
            b"request\x00 5",
            b"request\x005x",
            b"request5",
            b"requests",
            b"reques",
            b"http\x00request",
        ] {
            assert_eq!(read(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        // A request longer than the head read is not a run request, whatever it starts with.
        assert_eq!(run_request(b"request\x0012345678", 40), None);
    }
}
