//! The sandbox's own loopback network: TCP-like streams and UDP-like datagrams between the
//! programs of one sandbox (and the threads of one program), on `127.0.0.0/8` and `::1`.
//!
//! WASI preview 1 has no sockets, so the guest's `socket` module (`linux_box/sockets.py`)
//! asks the host door for each operation, and this keeps the state: bound ports, listeners
//! and their queues of connections, each direction's bytes in flight. Nothing here touches a
//! host socket: a sandbox's loopback reaches neither the host's loopback nor another
//! sandbox's (each sandbox has its own [`Loopback`]). Operations never block; a guest that
//! must wait asks [`Loopback::poll`], which awaits a change (never blocking a thread).
//!
//! Each program holds its sockets through a [`Lease`]: a socket id is usable only by the
//! program that made or accepted it, and all of a program's sockets close when it ends (its
//! peers then read the end of the stream), as the kernel closes a process's descriptors.
//!
//! Bounded, as a kernel's socket buffers are: at most [`MAX_SOCKETS`] sockets per sandbox,
//! [`STREAM_BUFFER`] bytes in flight per stream direction (a sender waits for room), and
//! [`DGRAM_QUEUE`] bytes of datagrams queued per socket (more are dropped, as UDP does). The
//! worst case is about 256 MiB per sandbox (a buffer's memory grows by doubling up to its
//! bound), outside the guest's own memory limit.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Sockets one sandbox may hold open at once (`EMFILE` past it).
pub const MAX_SOCKETS: usize = 512;
/// Bytes in flight in one direction of a stream before its sender must wait.
pub const STREAM_BUFFER: usize = 256 << 10;
/// Bytes of datagrams queued on one socket before more are dropped, each datagram counted
/// with [`DGRAM_OVERHEAD`] more (so empty ones cannot queue without end).
pub const DGRAM_QUEUE: usize = 256 << 10;
/// What one queued datagram costs besides its bytes (its sender, its buffer).
pub const DGRAM_OVERHEAD: usize = 128;
/// The most items one `poll` may ask about.
pub const MAX_POLL_ITEMS: usize = MAX_SOCKETS;
/// The largest datagram (as UDP over IPv4).
pub const MAX_DGRAM: usize = 65_507;
/// The longest queue of connections a listener keeps.
const MAX_BACKLOG: usize = 4096;
/// Linux's ephemeral port range (`ip_local_port_range`).
const EPHEMERAL: (u16, u16) = (32768, 60999);

/// Readiness bits, as `select.poll`'s.
pub const POLLIN: u8 = 1;
pub const POLLOUT: u8 = 4;
pub const POLLHUP: u8 = 16;

/// A failed operation: Linux's errno and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{1}")]
pub struct Errno(pub i32, pub &'static str);

const EBADF: Errno = Errno(9, "Bad file descriptor");
const EAGAIN: Errno = Errno(11, "Resource temporarily unavailable");
const EINVAL: Errno = Errno(22, "Invalid argument");
const EMFILE: Errno = Errno(24, "Too many open files");
const EPIPE: Errno = Errno(32, "Broken pipe");
const EMSGSIZE: Errno = Errno(90, "Message too long");
const EOPNOTSUPP: Errno = Errno(95, "Operation not supported");
const EADDRINUSE: Errno = Errno(98, "Address already in use");
const EADDRNOTAVAIL: Errno = Errno(99, "Cannot assign requested address");
const ENETUNREACH: Errno = Errno(101, "Network is unreachable");
const EISCONN: Errno = Errno(106, "Transport endpoint is already connected");
const ENOTCONN: Errno = Errno(107, "Transport endpoint is not connected");
const ECONNREFUSED: Errno = Errno(111, "Connection refused");

/// A socket's transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stream,
    Datagram,
}

#[derive(Debug)]
enum State {
    /// Made, not listening or connected.
    Fresh,
    Listening {
        queue: VecDeque<u64>,
        backlog: usize,
    },
    Connected(Box<Stream>),
}

#[derive(Debug)]
struct Stream {
    /// The other end's socket id (gone once it closed).
    peer: u64,
    peer_addr: SocketAddr,
    /// Bytes the peer sent and this end has not read.
    rx: VecDeque<u8>,
    /// The peer will send no more (it closed or shut its writing down).
    rx_ended: bool,
    /// This end shut its writing down.
    tx_shut: bool,
}

#[derive(Debug)]
struct Sock {
    owner: u64,
    transport: Transport,
    v6: bool,
    /// An IPv6 socket that takes no IPv4 (`IPV6_V6ONLY`).
    v6only: bool,
    local: Option<SocketAddr>,
    state: State,
    /// Datagram sockets: what arrived, and the default destination (`connect`).
    datagrams: VecDeque<(SocketAddr, Vec<u8>)>,
    queued: usize,
    default_dest: Option<SocketAddr>,
}

#[derive(Debug, Default)]
struct Net {
    next_id: u64,
    next_port: u16,
    sockets: HashMap<u64, Sock>,
}

/// One sandbox's loopback network. Cheap to share behind an `Arc`.
#[derive(Debug, Default)]
pub struct Loopback {
    net: Mutex<Net>,
    changed: tokio::sync::Notify,
    owners: AtomicU64,
}

/// A program's hold on the loopback: its sockets close when this drops.
#[derive(Debug)]
pub struct Lease {
    loopback: Arc<Loopback>,
    owner: u64,
}

/// What `accept` gives: the new socket and the addresses of both ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    pub id: u64,
    pub local: SocketAddr,
    pub peer: SocketAddr,
}

/// What `recv` gives: the bytes, and for a datagram who sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub data: Vec<u8>,
    pub from: Option<SocketAddr>,
}

impl Loopback {
    /// A new, empty loopback network.
    pub fn new() -> Arc<Loopback> {
        Arc::new(Loopback::default())
    }

    /// A hold for one program.
    pub fn lease(self: &Arc<Self>) -> Lease {
        Lease {
            loopback: self.clone(),
            owner: self.owners.fetch_add(1, Ordering::Relaxed) + 1,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Net> {
        // A panic while holding it cannot leave a half-made change that matters more than
        // losing the network: go on with the state as it is.
        self.net.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a stream listener would take a connection to `addr` now (the guest's HTTP
    /// client asks before choosing the sandbox's loopback over the host's network).
    pub fn is_listening(&self, addr: SocketAddr) -> bool {
        self.lock()
            .find_bound(Transport::Stream, addr, true)
            .is_some()
    }

    /// The sockets ready among `items` (id and the bits asked for), waiting up to `timeout`
    /// (`None`: until one is) for one to be. A socket that is not the owner's is ready with
    /// [`POLLHUP`], as a closed descriptor's `POLLNVAL` would end a wait.
    pub async fn poll(
        &self,
        owner: u64,
        items: &[(u64, u8)],
        timeout: Option<Duration>,
    ) -> Vec<(u64, u8)> {
        let until = timeout.map(|t| Instant::now() + t);
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let ready = self.lock().ready(owner, items);
            if !ready.is_empty() {
                return ready;
            }
            match until {
                None => notified.await,
                Some(until) => {
                    if Instant::now() >= until
                        || tokio::time::timeout_at(until.into(), notified)
                            .await
                            .is_err()
                    {
                        return Vec::new();
                    }
                }
            }
        }
    }

    /// Run a change; waiters are woken when it succeeded (a refused one changed nothing).
    fn with<T>(&self, f: impl FnOnce(&mut Net) -> Result<T, Errno>) -> Result<T, Errno> {
        let out = f(&mut self.lock());
        if out.is_ok() {
            self.changed.notify_waiters();
        }
        out
    }

    /// Read without changing anything (no waiter is woken).
    fn look<T>(&self, f: impl FnOnce(&mut Net) -> Result<T, Errno>) -> Result<T, Errno> {
        f(&mut self.lock())
    }
}

impl Lease {
    /// The owner id of this program's sockets.
    pub fn owner(&self) -> u64 {
        self.owner
    }

    /// The network this lease holds.
    pub fn loopback(&self) -> &Arc<Loopback> {
        &self.loopback
    }

    /// A new socket (`v6`: `AF_INET6`).
    pub fn socket(&self, transport: Transport, v6: bool) -> Result<u64, Errno> {
        self.loopback
            .with(|n| n.insert(self.owner, transport, v6, None))
    }

    /// Two connected stream sockets (`socket.socketpair`).
    pub fn pair(&self) -> Result<(u64, u64), Errno> {
        self.loopback.with(|n| {
            let a = n.insert(self.owner, Transport::Stream, false, None)?;
            let listener = n.insert(self.owner, Transport::Stream, false, None);
            let listener = match listener {
                Ok(l) => l,
                Err(e) => {
                    n.sockets.remove(&a);
                    return Err(e);
                }
            };
            let addr = match n.bind(listener, loopback_v4(0)) {
                Ok(addr) => addr,
                Err(e) => {
                    n.close(a);
                    n.close(listener);
                    return Err(e);
                }
            };
            n.get(self.owner, listener)?.state = State::Listening {
                queue: VecDeque::new(),
                backlog: 1,
            };
            let connected = n.connect(self.owner, a, addr);
            let b = connected.and_then(|()| n.accept(self.owner, listener));
            n.close(listener);
            match b {
                Ok(b) => Ok((a, b.id)),
                Err(e) => {
                    n.close(a);
                    Err(e)
                }
            }
        })
    }

    /// Bind to `addr` (port 0: an ephemeral one); answers the address bound. `v6only`: an
    /// IPv6 socket bound to `::` takes no IPv4 (`IPV6_V6ONLY`).
    pub fn bind(&self, id: u64, addr: SocketAddr, v6only: bool) -> Result<SocketAddr, Errno> {
        self.loopback.with(|n| {
            let sock = n.get(self.owner, id)?;
            if sock.local.is_some() {
                return Err(EINVAL);
            }
            sock.v6only = v6only && addr.is_ipv6();
            n.bind(id, addr)
        })
    }

    /// Listen for connections, queueing at most `backlog`.
    pub fn listen(&self, id: u64, backlog: usize) -> Result<SocketAddr, Errno> {
        self.loopback.with(|n| {
            let sock = n.get(self.owner, id)?;
            if sock.transport != Transport::Stream {
                return Err(EOPNOTSUPP);
            }
            match &mut sock.state {
                State::Listening { backlog: b, .. } => {
                    *b = backlog.clamp(1, MAX_BACKLOG);
                }
                State::Connected(_) => return Err(EINVAL),
                State::Fresh => {
                    sock.state = State::Listening {
                        queue: VecDeque::new(),
                        backlog: backlog.clamp(1, MAX_BACKLOG),
                    };
                }
            }
            match n.sockets.get(&id).and_then(|s| s.local) {
                Some(local) => Ok(local),
                None => {
                    let any = if n.sockets.get(&id).is_some_and(|s| s.v6) {
                        SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), 0)
                    } else {
                        SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)
                    };
                    n.bind(id, any)
                }
            }
        })
    }

    /// Connect: a stream at once to a listener's queue (as the kernel completes the
    /// handshake before `accept`), or set a datagram socket's default destination. Answers
    /// the local address.
    pub fn connect(&self, id: u64, to: SocketAddr) -> Result<SocketAddr, Errno> {
        self.loopback.with(|n| {
            n.connect(self.owner, id, to)?;
            n.get(self.owner, id)?.local.ok_or(EINVAL)
        })
    }

    /// Take a connection from a listener's queue (`EAGAIN` when none is there).
    pub fn accept(&self, id: u64) -> Result<Accepted, Errno> {
        self.loopback.with(|n| n.accept(self.owner, id))
    }

    /// Send on a connected stream (or a datagram to the default destination): answers how
    /// many bytes were taken, `EAGAIN` when there is no room.
    pub fn send(&self, id: u64, data: &[u8]) -> Result<usize, Errno> {
        self.loopback.with(|n| n.send(self.owner, id, data))
    }

    /// Send one datagram to `to`.
    pub fn send_to(&self, id: u64, data: &[u8], to: SocketAddr) -> Result<usize, Errno> {
        self.loopback.with(|n| n.send_to(self.owner, id, data, to))
    }

    /// Read up to `max` bytes (a stream: empty at its end; a datagram: one, cut to `max`).
    /// `peek` leaves them there.
    pub fn recv(&self, id: u64, max: usize, peek: bool) -> Result<Received, Errno> {
        self.loopback.with(|n| n.recv(self.owner, id, max, peek))
    }

    /// Shut reading (0), writing (1) or both (2) down.
    pub fn shutdown(&self, id: u64, how: u8) -> Result<(), Errno> {
        self.loopback.with(|n| n.shutdown(self.owner, id, how))
    }

    /// Close a socket.
    pub fn close(&self, id: u64) -> Result<(), Errno> {
        self.loopback.with(|n| {
            n.get(self.owner, id)?;
            n.close(id);
            Ok(())
        })
    }

    /// The address a socket is bound to, if it is.
    pub fn local(&self, id: u64) -> Result<Option<SocketAddr>, Errno> {
        self.loopback.look(|n| Ok(n.get(self.owner, id)?.local))
    }

    /// The peer's address of a connected socket.
    pub fn peer(&self, id: u64) -> Result<SocketAddr, Errno> {
        self.loopback.look(|n| match &n.get(self.owner, id)?.state {
            State::Connected(s) => Ok(s.peer_addr),
            _ => match n.get(self.owner, id)?.default_dest {
                Some(d) => Ok(d),
                None => Err(ENOTCONN),
            },
        })
    }

    /// Whether the other end of this connected stream belongs to the same program: then only
    /// that program can make it ready, and a wait with nothing else to run would be forever.
    pub fn peer_is_own(&self, id: u64) -> bool {
        let n = self.loopback.lock();
        let Some(sock) = n.sockets.get(&id).filter(|s| s.owner == self.owner) else {
            return false;
        };
        match &sock.state {
            State::Connected(s) => n
                .sockets
                .get(&s.peer)
                .is_some_and(|p| p.owner == self.owner),
            _ => false,
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let _ = self.loopback.with(|n| {
            let mine: Vec<u64> = n
                .sockets
                .iter()
                .filter(|(_, s)| s.owner == self.owner)
                .map(|(id, _)| *id)
                .collect();
            for id in mine {
                n.close(id);
            }
            Ok(())
        });
    }
}

fn loopback_v4(port: u16) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
}

/// Whether a socket bound to `bound` takes what is sent to `to` (same port checked apart).
fn takes(bound: IpAddr, v6only: bool, to: IpAddr) -> bool {
    match bound {
        IpAddr::V4(b) if b.is_unspecified() => to.is_ipv4(),
        IpAddr::V6(b) if b.is_unspecified() => !v6only || to.is_ipv6(),
        b => b == to,
    }
}

/// Whether two bound addresses overlap (the second bind then fails).
fn overlaps(a: IpAddr, a_v6only: bool, b: IpAddr, b_v6only: bool) -> bool {
    a == b || takes(a, a_v6only, b) || takes(b, b_v6only, a)
}

impl Net {
    fn get(&mut self, owner: u64, id: u64) -> Result<&mut Sock, Errno> {
        match self.sockets.get_mut(&id) {
            Some(s) if s.owner == owner => Ok(s),
            _ => Err(EBADF),
        }
    }

    fn insert(
        &mut self,
        owner: u64,
        transport: Transport,
        v6: bool,
        local: Option<SocketAddr>,
    ) -> Result<u64, Errno> {
        if self.sockets.len() >= MAX_SOCKETS {
            return Err(EMFILE);
        }
        self.next_id += 1;
        let id = self.next_id;
        self.sockets.insert(
            id,
            Sock {
                owner,
                transport,
                v6,
                v6only: false,
                local,
                state: State::Fresh,
                datagrams: VecDeque::new(),
                queued: 0,
                default_dest: None,
            },
        );
        Ok(id)
    }

    fn in_use(&self, transport: Transport, addr: SocketAddr, v6only: bool) -> bool {
        self.sockets.values().any(|s| {
            s.transport == transport
                && s.local.is_some_and(|l| {
                    l.port() == addr.port() && overlaps(l.ip(), s.v6only, addr.ip(), v6only)
                })
                && (transport == Transport::Datagram || !matches!(s.state, State::Connected(_)))
        })
    }

    fn bind(&mut self, id: u64, addr: SocketAddr) -> Result<SocketAddr, Errno> {
        let (transport, bound, v6only) = match self.sockets.get(&id) {
            Some(s) => (s.transport, s.local.is_some(), s.v6only),
            None => return Err(EBADF),
        };
        if bound {
            return Err(EINVAL);
        }
        if !(addr.ip().is_loopback() || addr.ip().is_unspecified()) {
            return Err(EADDRNOTAVAIL);
        }
        let addr = if addr.port() == 0 {
            SocketAddr::new(addr.ip(), self.ephemeral(transport, addr.ip(), v6only)?)
        } else if self.in_use(transport, addr, v6only) {
            return Err(EADDRINUSE);
        } else {
            addr
        };
        if let Some(s) = self.sockets.get_mut(&id) {
            s.local = Some(addr);
        }
        Ok(addr)
    }

    fn ephemeral(&mut self, transport: Transport, ip: IpAddr, v6only: bool) -> Result<u16, Errno> {
        let span = EPHEMERAL.1 - EPHEMERAL.0 + 1;
        for _ in 0..span {
            if self.next_port < EPHEMERAL.0 || self.next_port > EPHEMERAL.1 {
                self.next_port = EPHEMERAL.0;
            }
            let port = self.next_port;
            self.next_port = self.next_port.wrapping_add(1);
            if !self.in_use(transport, SocketAddr::new(ip, port), v6only) {
                return Ok(port);
            }
        }
        Err(EADDRINUSE)
    }

    /// The socket bound to take `to` (a listener for streams when `listening`).
    fn find_bound(&self, transport: Transport, to: SocketAddr, listening: bool) -> Option<u64> {
        self.sockets.iter().find_map(|(id, s)| {
            let local = s.local?;
            let fits = s.transport == transport
                && local.port() == to.port()
                && takes(local.ip(), s.v6only, to.ip())
                && (!listening || matches!(s.state, State::Listening { .. }));
            fits.then_some(*id)
        })
    }

    fn auto_bind(&mut self, id: u64, to: SocketAddr) -> Result<SocketAddr, Errno> {
        match self.sockets.get(&id).and_then(|s| s.local) {
            Some(local) => Ok(local),
            None => {
                let ip = if to.is_ipv4() {
                    IpAddr::V4(Ipv4Addr::LOCALHOST)
                } else {
                    IpAddr::V6(Ipv6Addr::LOCALHOST)
                };
                self.bind(id, SocketAddr::new(ip, 0))
            }
        }
    }

    fn connect(&mut self, owner: u64, id: u64, to: SocketAddr) -> Result<(), Errno> {
        let sock = self.get(owner, id)?;
        if !to.ip().is_loopback() {
            return Err(ENETUNREACH);
        }
        if sock.transport == Transport::Datagram {
            self.auto_bind(id, to)?;
            self.get(owner, id)?.default_dest = Some(to);
            return Ok(());
        }
        match sock.state {
            State::Fresh => {}
            State::Connected(_) => return Err(EISCONN),
            State::Listening { .. } => return Err(EINVAL),
        }
        let Some(listener) = self.find_bound(Transport::Stream, to, true) else {
            return Err(ECONNREFUSED);
        };
        let full = match &self.sockets.get(&listener).map(|l| &l.state) {
            Some(State::Listening { queue, backlog }) => queue.len() >= *backlog,
            _ => true,
        };
        if full {
            return Err(ECONNREFUSED);
        }
        let local = self.auto_bind(id, to)?;
        let listener_owner = self.sockets.get(&listener).map_or(0, |l| l.owner);
        let server = self.insert(listener_owner, Transport::Stream, to.is_ipv6(), Some(to))?;
        let stream = |peer, peer_addr| {
            State::Connected(Box::new(Stream {
                peer,
                peer_addr,
                rx: VecDeque::new(),
                rx_ended: false,
                tx_shut: false,
            }))
        };
        if let Some(s) = self.sockets.get_mut(&server) {
            s.state = stream(id, local);
        }
        if let Some(s) = self.sockets.get_mut(&id) {
            s.state = stream(server, to);
        }
        if let Some(State::Listening { queue, .. }) =
            self.sockets.get_mut(&listener).map(|l| &mut l.state)
        {
            queue.push_back(server);
        }
        Ok(())
    }

    fn accept(&mut self, owner: u64, id: u64) -> Result<Accepted, Errno> {
        let State::Listening { queue, .. } = &mut self.get(owner, id)?.state else {
            return Err(EINVAL);
        };
        let conn = queue.pop_front().ok_or(EAGAIN)?;
        let sock = self.sockets.get_mut(&conn).ok_or(EAGAIN)?;
        sock.owner = owner;
        let (Some(local), State::Connected(s)) = (sock.local, &sock.state) else {
            return Err(EAGAIN);
        };
        Ok(Accepted {
            id: conn,
            local,
            peer: s.peer_addr,
        })
    }

    fn send(&mut self, owner: u64, id: u64, data: &[u8]) -> Result<usize, Errno> {
        let sock = self.get(owner, id)?;
        if sock.transport == Transport::Datagram {
            let to = sock
                .default_dest
                .ok_or(Errno(89, "Destination address required"))?;
            return self.send_to(owner, id, data, to);
        }
        let State::Connected(s) = &sock.state else {
            return Err(ENOTCONN);
        };
        if s.tx_shut {
            return Err(EPIPE);
        }
        let peer = s.peer;
        let Some(State::Connected(p)) = self.sockets.get_mut(&peer).map(|p| &mut p.state) else {
            return Err(EPIPE);
        };
        if p.rx_ended {
            // The peer shut its reading down or closed: Linux answers a reset, then EPIPE.
            return Err(EPIPE);
        }
        let room = STREAM_BUFFER.saturating_sub(p.rx.len());
        if room == 0 {
            return if data.is_empty() { Ok(0) } else { Err(EAGAIN) };
        }
        let n = room.min(data.len());
        // Grow by doubling, never past the bound (VecDeque alone may double past it).
        let want = (p.rx.len() + n)
            .max(p.rx.capacity().saturating_mul(2))
            .min(STREAM_BUFFER);
        if want > p.rx.capacity() {
            p.rx.reserve_exact(want - p.rx.len());
        }
        p.rx.extend(&data[..n]);
        Ok(n)
    }

    fn send_to(
        &mut self,
        owner: u64,
        id: u64,
        data: &[u8],
        to: SocketAddr,
    ) -> Result<usize, Errno> {
        let sock = self.get(owner, id)?;
        if sock.transport == Transport::Stream {
            return match sock.state {
                State::Connected(_) => self.send(owner, id, data),
                _ => Err(ENOTCONN),
            };
        }
        if data.len() > MAX_DGRAM {
            return Err(EMSGSIZE);
        }
        if !to.ip().is_loopback() {
            return Err(ENETUNREACH);
        }
        let from = self.auto_bind(id, to)?;
        if let Some(dest) = self.find_bound(Transport::Datagram, to, false)
            && let Some(d) = self.sockets.get_mut(&dest)
            && d.queued + data.len() + DGRAM_OVERHEAD <= DGRAM_QUEUE
        {
            d.queued += data.len() + DGRAM_OVERHEAD;
            d.datagrams.push_back((from, data.to_vec()));
        }
        Ok(data.len())
    }

    fn recv(&mut self, owner: u64, id: u64, max: usize, peek: bool) -> Result<Received, Errno> {
        let sock = self.get(owner, id)?;
        if sock.transport == Transport::Datagram {
            let (from, data) = if peek {
                sock.datagrams.front().cloned().ok_or(EAGAIN)?
            } else {
                let (from, data) = sock.datagrams.pop_front().ok_or(EAGAIN)?;
                sock.queued -= data.len() + DGRAM_OVERHEAD;
                (from, data)
            };
            let mut data = data;
            data.truncate(max);
            return Ok(Received {
                data,
                from: Some(from),
            });
        }
        let State::Connected(s) = &mut sock.state else {
            return Err(ENOTCONN);
        };
        if s.rx.is_empty() {
            return if s.rx_ended || max == 0 {
                Ok(Received {
                    data: Vec::new(),
                    from: None,
                })
            } else {
                Err(EAGAIN)
            };
        }
        let n = max.min(s.rx.len());
        let data: Vec<u8> = if peek {
            s.rx.iter().take(n).copied().collect()
        } else {
            s.rx.drain(..n).collect()
        };
        Ok(Received { data, from: None })
    }

    fn shutdown(&mut self, owner: u64, id: u64, how: u8) -> Result<(), Errno> {
        if how > 2 {
            return Err(EINVAL);
        }
        let State::Connected(s) = &mut self.get(owner, id)?.state else {
            return Err(ENOTCONN);
        };
        if how != 1 {
            s.rx_ended = true;
        }
        if how != 0 {
            s.tx_shut = true;
            let peer = s.peer;
            if let Some(State::Connected(p)) = self.sockets.get_mut(&peer).map(|p| &mut p.state) {
                p.rx_ended = true;
            }
        }
        Ok(())
    }

    /// Remove a socket: its peer reads the end of the stream; a listener's queued
    /// connections close too.
    fn close(&mut self, id: u64) {
        let Some(sock) = self.sockets.remove(&id) else {
            return;
        };
        match sock.state {
            State::Connected(s) => {
                if let Some(State::Connected(p)) =
                    self.sockets.get_mut(&s.peer).map(|p| &mut p.state)
                {
                    p.rx_ended = true;
                }
            }
            State::Listening { queue, .. } => {
                for conn in queue {
                    self.close(conn);
                }
            }
            State::Fresh => {}
        }
    }

    fn ready(&self, owner: u64, items: &[(u64, u8)]) -> Vec<(u64, u8)> {
        items
            .iter()
            .filter_map(|&(id, want)| {
                let bits = match self.sockets.get(&id) {
                    Some(s) if s.owner == owner => self.bits(s),
                    _ => POLLHUP,
                };
                let got = bits & (want | POLLHUP);
                (got != 0).then_some((id, got))
            })
            .collect()
    }

    fn bits(&self, s: &Sock) -> u8 {
        if s.transport == Transport::Datagram {
            return POLLOUT | if s.datagrams.is_empty() { 0 } else { POLLIN };
        }
        match &s.state {
            State::Fresh => POLLOUT | POLLHUP,
            State::Listening { queue, .. } => {
                if queue.is_empty() {
                    0
                } else {
                    POLLIN
                }
            }
            State::Connected(st) => {
                let mut bits = 0;
                if !st.rx.is_empty() || st.rx_ended {
                    bits |= POLLIN;
                }
                let room = match self.sockets.get(&st.peer).map(|p| &p.state) {
                    Some(State::Connected(p)) => p.rx.len() < STREAM_BUFFER || p.rx_ended,
                    _ => true,
                };
                if room || st.tx_shut {
                    bits |= POLLOUT;
                }
                if st.rx_ended && st.tx_shut {
                    bits |= POLLHUP;
                }
                bits
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().expect("test address")
    }

    #[test]
    fn a_stream_carries_bytes_both_ways_and_ends() {
        let lb = Loopback::new();
        let (server, client) = (lb.lease(), lb.lease());
        let l = server.socket(Transport::Stream, false).expect("socket");
        let bound = server.bind(l, addr("127.0.0.1:0"), false).expect("bind");
        assert!((32768..=60999).contains(&bound.port()));
        server.listen(l, 5).expect("listen");
        let c = client.socket(Transport::Stream, false).expect("socket");
        client.connect(c, bound).expect("connect");
        let a = server.accept(l).expect("accept");
        assert_eq!(server.accept(l), Err(EAGAIN));
        assert_eq!(client.send(c, b"ping").expect("send"), 4);
        assert_eq!(server.recv(a.id, 2, true).expect("peek").data, b"pi");
        assert_eq!(server.recv(a.id, 100, false).expect("recv").data, b"ping");
        assert_eq!(server.recv(a.id, 100, false), Err(EAGAIN));
        server.send(a.id, b"pong").expect("send back");
        drop(server);
        assert_eq!(client.recv(c, 100, false).expect("recv").data, b"pong");
        assert_eq!(client.recv(c, 100, false).expect("eof").data, b"");
        assert_eq!(client.send(c, b"x"), Err(EPIPE));
    }

    #[test]
    fn ports_conflict_refuse_and_stay_inside() {
        let lb = Loopback::new();
        let p = lb.lease();
        let a = p.socket(Transport::Stream, false).expect("socket");
        p.bind(a, addr("0.0.0.0:8000"), false).expect("bind");
        let b = p.socket(Transport::Stream, false).expect("socket");
        assert_eq!(p.bind(b, addr("127.0.0.1:8000"), false), Err(EADDRINUSE));
        assert_eq!(p.bind(b, addr("[::]:8000"), false), Err(EADDRINUSE));
        assert_eq!(p.bind(b, addr("10.0.0.1:8001"), false), Err(EADDRNOTAVAIL));
        let c = p.socket(Transport::Stream, true).expect("socket");
        p.bind(c, addr("[::]:8000"), true)
            .expect("an IPv6-only socket beside IPv4's");
        assert_eq!(p.connect(b, addr("127.0.0.1:8000")), Err(ECONNREFUSED));
        assert_eq!(p.connect(b, addr("93.184.216.34:80")), Err(ENETUNREACH));
        p.listen(a, 1).expect("listen");
        assert!(lb.is_listening(addr("127.0.0.1:8000")));
        assert!(!lb.is_listening(addr("[::1]:8000")));
        // Another program cannot use this one's socket; another sandbox sees nothing.
        let other = lb.lease();
        assert_eq!(other.accept(a), Err(EBADF));
        assert!(!Loopback::new().is_listening(addr("127.0.0.1:8000")));
    }

    #[test]
    fn a_full_buffer_waits_for_the_reader() {
        let lb = Loopback::new();
        let p = lb.lease();
        let (a, b) = p.pair().expect("pair");
        let big = vec![7u8; STREAM_BUFFER + 10];
        assert_eq!(p.send(a, &big).expect("send"), STREAM_BUFFER);
        assert_eq!(p.send(a, b"x"), Err(EAGAIN));
        assert_eq!(lb.lock().ready(p.owner(), &[(a, POLLOUT)]), vec![]);
        p.recv(b, 10, false).expect("recv");
        assert_eq!(
            lb.lock().ready(p.owner(), &[(a, POLLOUT)]),
            vec![(a, POLLOUT)]
        );
    }

    #[test]
    fn datagrams_keep_their_bounds_and_sender() {
        let lb = Loopback::new();
        let p = lb.lease();
        let r = p.socket(Transport::Datagram, false).expect("socket");
        let to = p.bind(r, addr("127.0.0.1:0"), false).expect("bind");
        let s = p.socket(Transport::Datagram, false).expect("socket");
        p.send_to(s, b"one", to).expect("send");
        p.send_to(s, b"two!", to).expect("send");
        let got = p.recv(r, 2, false).expect("recv");
        assert_eq!(got.data, b"on");
        let from = got.from.expect("sender");
        assert_eq!(from.ip(), addr("127.0.0.1:1").ip());
        assert_eq!(p.recv(r, 100, false).expect("recv").data, b"two!");
        assert_eq!(p.recv(r, 100, false), Err(EAGAIN));
        assert_eq!(p.send_to(s, &vec![0; MAX_DGRAM + 1], to), Err(EMSGSIZE));
        // Empty datagrams count too: the queue stays bounded.
        for _ in 0..DGRAM_QUEUE {
            p.send_to(s, b"", to).expect("send");
        }
        assert_eq!(
            lb.lock().sockets.get(&r).map(|d| d.datagrams.len()),
            Some(DGRAM_QUEUE / DGRAM_OVERHEAD)
        );
    }

    #[tokio::test]
    async fn poll_wakes_when_another_program_writes() {
        let lb = Loopback::new();
        let (p, q) = (lb.lease(), lb.lease());
        let l = p.socket(Transport::Stream, false).expect("socket");
        let at = p.bind(l, addr("127.0.0.1:0"), false).expect("bind");
        p.listen(l, 4).expect("listen");
        let owner = p.owner();
        let waiter = {
            let lb = lb.clone();
            tokio::spawn(async move { lb.poll(owner, &[(l, POLLIN)], None).await })
        };
        tokio::task::yield_now().await;
        let c = q.socket(Transport::Stream, false).expect("socket");
        q.connect(c, at).expect("connect");
        assert_eq!(waiter.await.expect("poll"), vec![(l, POLLIN)]);
        let none = lb.poll(owner, &[(c, POLLIN)], Some(Duration::ZERO)).await;
        assert_eq!(
            none,
            vec![(c, POLLHUP)],
            "another program's socket is not this one's"
        );
    }
}
