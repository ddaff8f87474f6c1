//! The host door's `sock` request: the guest's sockets on the sandbox's own loopback
//! ([`super::loopback`]), served for `door.rs`.
//!
//! `sock\0{"op": OP, ...}\0DATA`. Answer `{"ok": true, ...}\0DATA`, or
//! `{"ok": false, "errno": N, "message": TEXT}` with Linux's errno, which the guest raises as
//! `OSError(N, TEXT)` (so `ConnectionRefusedError`, `BlockingIOError`, ... as on Linux).
//! Addresses travel as `"host"` (a numeric IPv4 or IPv6 address; the guest resolves names)
//! and `"port"`, and come back as `[host, port]`.
//!
//! | op | fields | answer |
//! |---|---|---|
//! | `socket` | `dgram`, `v6` | `id` |
//! | `pair` | | `ids` |
//! | `bind` | `id`, `host`, `port`, `v6only` | `local` |
//! | `connect` | `id`, `host`, `port` | `local` |
//! | `listen` | `id`, `n` (backlog) | `local` |
//! | `accept` | `id` | `id`, `local`, `peer` |
//! | `send` | `id`, DATA | `n` |
//! | `sendto` | `id`, `host`, `port`, DATA | `n`, `local` |
//! | `recv` | `id`, `n`, `peek` | `from` (datagrams), DATA |
//! | `shutdown` | `id`, `how` | |
//! | `close` | `id` | |
//! | `peer` | `id` | `peer`, `own` (the peer is this program's) |
//! | `listening` | `host`, `port` | `yes` |
//! | `poll` | `items` (`[[id, bits], ...]`), `timeout` (seconds or null) | `ready` |
//!
//! Operations never wait; `poll` waits for a change, at most until the call's deadline.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};
use wasmtime::Caller;

use super::GuestState;
use super::loopback::{Errno, Lease, Loopback, MAX_POLL_ITEMS, STREAM_BUFFER, Transport};

pub(super) const SOCK: &[u8] = b"sock\0";
/// The largest request read: one send's data (the guest sends in pieces of at most this).
const MAX_BYTES: usize = STREAM_BUFFER + (64 << 10);

#[derive(Deserialize)]
struct Meta {
    op: String,
    #[serde(default)]
    id: u64,
    #[serde(default)]
    dgram: bool,
    #[serde(default)]
    v6only: bool,
    #[serde(default)]
    v6: bool,
    host: Option<String>,
    #[serde(default)]
    port: u16,
    #[serde(default)]
    n: usize,
    #[serde(default)]
    peek: bool,
    #[serde(default)]
    how: u8,
    #[serde(default)]
    items: Vec<(u64, u8)>,
    timeout: Option<f64>,
}

fn failure(e: Errno) -> Vec<Vec<u8>> {
    vec![
        json!({"ok": false, "errno": e.0, "message": e.1})
            .to_string()
            .into_bytes(),
    ]
}

fn ok(mut fields: Value, data: Vec<u8>) -> Vec<Vec<u8>> {
    fields["ok"] = Value::Bool(true);
    vec![fields.to_string().into_bytes(), vec![0], data]
}

fn addr_json(a: SocketAddr) -> Value {
    json!([a.ip().to_string(), a.port()])
}

fn addr_of(meta: &Meta) -> Result<SocketAddr, Errno> {
    let host = meta.host.as_deref().unwrap_or("");
    let ip: IpAddr = match host {
        "" => "0.0.0.0"
            .parse()
            .map_err(|_| Errno(22, "Invalid argument"))?,
        h => h
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| Errno(22, "Invalid argument"))?,
    };
    Ok(SocketAddr::new(ip, meta.port))
}

/// Serve one `sock` request read from the guest's memory at `ptr`/`len`.
pub(super) async fn serve(
    caller: &mut Caller<'_, GuestState>,
    ptr: i32,
    len: i32,
) -> Option<Vec<Vec<u8>>> {
    let bytes = read(caller, ptr, len)?;
    let rest = &bytes[SOCK.len()..];
    let split = rest.iter().position(|b| *b == 0).unwrap_or(rest.len());
    let data = rest.get(split + 1..).unwrap_or(&[]);
    let meta: Meta = match serde_json::from_slice(&rest[..split]) {
        Ok(m) => m,
        Err(_) => return Some(failure(Errno(22, "Invalid argument"))),
    };
    let deadline = caller.data().deadline;
    let Some(lease) = caller.data().loopback.as_ref() else {
        return Some(failure(Errno(
            97,
            "Address family not supported by protocol (no sandbox network is bound)",
        )));
    };
    if meta.items.len() > MAX_POLL_ITEMS {
        return Some(failure(Errno(22, "Invalid argument")));
    }
    if meta.op == "poll" {
        let (loopback, owner) = (lease.loopback().clone(), lease.owner());
        return Some(poll(loopback, owner, &meta, deadline).await);
    }
    Some(match op(lease, &meta, data) {
        Ok(answer) => answer,
        Err(e) => failure(e),
    })
}

fn read(caller: &mut Caller<'_, GuestState>, ptr: i32, len: i32) -> Option<Vec<u8>> {
    super::guest_mem::request_bytes(caller, ptr, len, MAX_BYTES).ok()
}

async fn poll(loopback: Arc<Loopback>, owner: u64, meta: &Meta, deadline: Instant) -> Vec<Vec<u8>> {
    let left = deadline.saturating_duration_since(Instant::now());
    let timeout = match meta.timeout {
        Some(t) if t.is_finite() && t >= 0.0 => {
            Duration::try_from_secs_f64(t).map_or(left, |t| t.min(left))
        }
        _ => left,
    };
    let ready = loopback.poll(owner, &meta.items, Some(timeout)).await;
    ok(json!({ "ready": ready }), Vec::new())
}

fn op(lease: &Lease, meta: &Meta, data: &[u8]) -> Result<Vec<Vec<u8>>, Errno> {
    let id = meta.id;
    let none = Vec::new;
    Ok(match meta.op.as_str() {
        "socket" => {
            let transport = if meta.dgram {
                Transport::Datagram
            } else {
                Transport::Stream
            };
            ok(json!({ "id": lease.socket(transport, meta.v6)? }), none())
        }
        "pair" => {
            let (a, b) = lease.pair()?;
            ok(json!({ "ids": [a, b] }), none())
        }
        "bind" => ok(
            json!({ "local": addr_json(lease.bind(id, addr_of(meta)?, meta.v6only)?) }),
            none(),
        ),
        "connect" => ok(
            json!({ "local": addr_json(lease.connect(id, addr_of(meta)?)?) }),
            none(),
        ),
        "listen" => ok(
            json!({ "local": addr_json(lease.listen(id, meta.n)?) }),
            none(),
        ),
        "accept" => {
            let a = lease.accept(id)?;
            let fields =
                json!({"id": a.id, "local": addr_json(a.local), "peer": addr_json(a.peer)});
            ok(fields, none())
        }
        "send" => ok(json!({ "n": lease.send(id, data)? }), none()),
        "sendto" => {
            let n = lease.send_to(id, data, addr_of(meta)?)?;
            let local = lease.local(id)?.map(addr_json).unwrap_or(Value::Null);
            ok(json!({ "n": n, "local": local }), none())
        }
        "recv" => {
            let got = lease.recv(id, meta.n.min(STREAM_BUFFER), meta.peek)?;
            let from = got.from.map(addr_json).unwrap_or(Value::Null);
            ok(json!({ "from": from }), got.data)
        }
        "shutdown" => {
            lease.shutdown(id, meta.how)?;
            ok(json!({}), none())
        }
        "close" => {
            lease.close(id)?;
            ok(json!({}), none())
        }
        "peer" => {
            let peer = lease.peer(id)?;
            ok(
                json!({"peer": addr_json(peer), "own": lease.peer_is_own(id)}),
                none(),
            )
        }
        "listening" => {
            let yes = lease.loopback().is_listening(addr_of(meta)?);
            ok(json!({ "yes": yes }), none())
        }
        _ => return Err(Errno(95, "Operation not supported")),
    })
}
