

# ---- Sockets on the sandbox's own loopback ---------------------------------------------------
# WASI preview 1 has no sockets. `socket.socket` for AF_INET/AF_INET6 stream and datagram
# sockets is this class: each operation asks the host door (`sock`, src/runtime/sock_door.rs),
# which keeps the sandbox's loopback (127.0.0.0/8 and ::1) shared by its programs: a thread's
# server and another thread's client, or a background job's server and a later command's
# client. Nothing reaches the host's network this way (urllib's HTTP(S) to other hosts goes
# through the host's client as before). A blocking operation is a blocking point of the
# cooperative threads (threads.py): other threads run, and when none can, the host waits for
# another program to make the socket ready, at most until the call's deadline.
# Descriptors are guest numbers (from 1024, system.py's table), so `select`, `selectors`,
# `os.read`/`os.write`/`os.close` accept them.

_LIS_POLLIN, _LIS_POLLOUT, _LIS_POLLHUP = 1, 4, 16
_lis_sock_kept = []  # sockets of stopped threads, open until the program ends
_LIS_LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


_LIS_LINUX_ERRNO = {
    9: "EBADF", 11: "EAGAIN", 22: "EINVAL", 24: "EMFILE", 32: "EPIPE", 89: "EDESTADDRREQ",
    90: "EMSGSIZE", 95: "EOPNOTSUPP", 97: "EAFNOSUPPORT", 98: "EADDRINUSE",
    99: "EADDRNOTAVAIL", 101: "ENETUNREACH", 106: "EISCONN", 107: "ENOTCONN",
    111: "ECONNREFUSED",
}


def _lis_sock_call(op, meta=None, data=b""):
    meta = dict(meta or (), op=op)
    out = _lis_host.call(b"sock\0" + _lis_json.dumps(meta).encode() + b"\0" + bytes(data))
    if not isinstance(out, bytes):
        raise OSError(_lis_errno.EAFNOSUPPORT, "Address family not supported by protocol")
    head, _, rest = out.partition(b"\0")
    answer = _lis_json.loads(head)
    if not answer.get("ok"):
        # The host answers Linux's number; the guest's errno module has WASI's, which
        # OSError maps to its subclasses (BlockingIOError, ConnectionRefusedError, ...).
        linux = answer.get("errno", 5)
        num = getattr(_lis_errno, _LIS_LINUX_ERRNO.get(linux, "EIO"), linux)
        message = answer.get("message", "socket error")
        if linux == 101:
            message += (
                " (this sandbox's sockets reach only its own loopback, 127.0.0.1 and ::1; "
                "other hosts are reached through HTTP(S) clients such as urllib)"
            )
        raise OSError(num, message)
    return answer, rest


def _lis_sock_ready(items):
    if not items:
        return []
    return _lis_sock_call("poll", {"items": items, "timeout": 0})[0]["ready"]


def _lis_sock_wait(items, timeout, what):
    # Wait until one of `items` ([id, bits]) is ready or `timeout` passes (None: no limit).
    S = _lis_th
    if not S.pending and not S.stack and S.alarm_at is None:
        if timeout is None and _lis_sock_forever(items):
            raise RuntimeError(
                "deadlock: the program waits in %s for a socket that only its own threads "
                "could make ready, and none of them can run. Threads in this sandbox run one "
                "at a time (WASI has no threads), so a thread that had to wait while another "
                "went on was stopped; a conversation between two threads of one program over "
                "a socket cannot work here (one request per connection, asyncio, or a server "
                "in another program can)" % what
            )
        left = timeout
        end = None if timeout is None else _lis_mono() + timeout
        while True:
            if _lis_sock_call("poll", {"items": items, "timeout": left})[0]["ready"]:
                return True
            if end is not None:
                left = end - _lis_mono()
                if left <= 0:
                    return False

    def ready():
        return bool(_lis_sock_ready(items))

    ready._lis_poll = items
    return _lis_wait(ready, timeout, what)


def _lis_sock_idle(S, wake, now):
    # The scheduler has nothing to run until `wake` (None: ever). If its waits are on sockets
    # another program may make ready, wait for them in the host (until `wake`) and answer
    # True; answer False when there are none (the caller sleeps or reports the deadlock).
    items = []
    for ready, _deadline in S.waits:
        poll = getattr(ready, "_lis_poll", None)
        if poll and not ready():
            items.extend(poll)
    if not items or (wake is None and _lis_sock_forever(items)):
        return False
    _lis_sock_call("poll", {"items": items, "timeout": None if wake is None else wake - now})
    return True


def _lis_sock_forever(items):
    # Whether the sockets can only be made ready by this program (each is a stream whose
    # other end it holds): then, with no thread left to run, nothing can.
    for sid, _bits in items:
        try:
            if not _lis_sock_call("peer", {"id": sid})[0]["own"]:
                return False
        except OSError:
            return False
    return True


def _lis_sock_addr(sock, address, passive):
    # A (host, port[, flow, scope]) tuple as the host door's numeric host and port.
    v6 = sock._lis_v6
    if not isinstance(address, tuple) or len(address) not in ((4, 2) if v6 else (2,)):
        raise TypeError(
            "%s address must be a tuple (host, port%s)"
            % ("AF_INET6" if v6 else "AF_INET", ", flowinfo, scope_id" if v6 else "")
        )
    host, port = address[0], address[1]
    if not isinstance(port, int):
        raise TypeError("'%s' object cannot be interpreted as an integer" % type(port).__name__)
    if not 0 <= port <= 65535:
        raise OverflowError("%s(): port must be 0-65535." % ("bind" if passive else "connect"))
    if isinstance(host, (bytes, bytearray)):
        host = bytes(host).decode("idna")
    if not isinstance(host, str):
        raise TypeError("str, bytes or bytearray expected, not %s" % type(host).__name__)
    return {"host": _lis_sock_numeric(host, v6, passive), "port": port}


def _lis_sock_numeric(host, v6, passive):
    import ipaddress
    import socket

    if host == "" or host == "<any>":
        return "::" if v6 else "0.0.0.0"
    if host == "<broadcast>":
        return "255.255.255.255"
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    else:
        if ip.version == 6 and not v6:
            raise socket.gaierror(-9, "Address family for hostname not supported")
        if ip.version == 4 and v6:
            return "::ffff:" + str(ip)
        return str(ip)
    if host.lower().rstrip(".") in _LIS_LOOPBACK_NAMES or host == socket.gethostname():
        return "::1" if v6 else "127.0.0.1"
    raise socket.gaierror(
        -3,
        "Temporary failure in name resolution (this sandbox's sockets reach only its own "
        "loopback; other hosts are reached through HTTP(S) clients such as urllib)",
    )


def _lis_sock_pyaddr(sock, pair):
    host, port = pair
    if host.startswith("::ffff:") and "." in host:
        host = host[7:] if not sock._lis_v6 else host
    if sock._lis_v6:
        return (host, port, 0, 0)
    return (host, port)


class _LisSockFd:
    # The descriptor table's entry for a socket (os.read/os.write/os.close on its number). It
    # holds the socket weakly, so a socket dropped without close() is collected and closed as
    # on Linux; a detached one (socket.detach()) is held until a new socket object adopts it.
    __slots__ = ("ref", "held")

    def __init__(self, sock):
        import weakref

        self.ref = weakref.ref(sock)
        self.held = None

    @property
    def sock(self):
        sock = self.ref()
        if sock is None:
            raise OSError(_lis_errno.EBADF, "Bad file descriptor")
        return sock

    def read(self, n):
        return self.sock.recv(n)

    def write(self, data):
        return self.sock.send(data)

    def close(self):
        sock = self.ref()
        if sock is not None:
            sock._lis_fd = -1
            sock.close()

    def isatty(self):
        return False

    def fstat(self):
        return _lis_os.stat_result((0o140777, 0, 0, 1, 0, 0, 0, 0, 0, 0))

    def seek(self, *args):
        raise OSError(_lis_errno.ESPIPE, "Illegal seek")


# The constants Linux's `socket` module has (WASI's differ: AF_INET is 1 there, SOCK_STREAM 6,
# MSG_PEEK 1, and SO_REUSEADDR is missing), as the host door's operations and programs that
# print or compare them expect.
_LIS_SOCKET_LINUX = dict(
    AF_UNSPEC=0, AF_UNIX=1, AF_INET=2, AF_INET6=10, AF_NETLINK=16, AF_PACKET=17,
    SOCK_STREAM=1, SOCK_DGRAM=2, SOCK_RAW=3, SOCK_RDM=4, SOCK_SEQPACKET=5,
    SOCK_NONBLOCK=2048, SOCK_CLOEXEC=524288,
    SOL_SOCKET=1, SO_DEBUG=1, SO_REUSEADDR=2, SO_TYPE=3, SO_ERROR=4, SO_DONTROUTE=5,
    SO_BROADCAST=6, SO_SNDBUF=7, SO_RCVBUF=8, SO_KEEPALIVE=9, SO_OOBINLINE=10, SO_LINGER=13,
    SO_REUSEPORT=15, SO_RCVLOWAT=18, SO_SNDLOWAT=19, SO_RCVTIMEO=20, SO_SNDTIMEO=21,
    SO_ACCEPTCONN=30, SO_PROTOCOL=38, SO_DOMAIN=39,
    MSG_OOB=1, MSG_PEEK=2, MSG_DONTROUTE=4, MSG_CTRUNC=8, MSG_TRUNC=32, MSG_DONTWAIT=64,
    MSG_EOR=128, MSG_WAITALL=256, MSG_NOSIGNAL=16384, MSG_MORE=32768,
    SHUT_RD=0, SHUT_WR=1, SHUT_RDWR=2, SOMAXCONN=4096,
    AI_PASSIVE=1, AI_CANONNAME=2, AI_NUMERICHOST=4, AI_V4MAPPED=8, AI_ALL=16,
    AI_ADDRCONFIG=32, AI_NUMERICSERV=1024,
    NI_NUMERICHOST=1, NI_NUMERICSERV=2, NI_NOFQDN=4, NI_NAMEREQD=8, NI_DGRAM=16,
    EAI_BADFLAGS=-1, EAI_NONAME=-2, EAI_AGAIN=-3, EAI_FAIL=-4, EAI_NODATA=-5, EAI_FAMILY=-6,
    EAI_SOCKTYPE=-7, EAI_SERVICE=-8, EAI_ADDRFAMILY=-9, EAI_MEMORY=-10, EAI_SYSTEM=-11,
    EAI_OVERFLOW=-12,
)
_LIS_SOCKET_WASI_ONLY = ("AI_DEFAULT", "AI_MASK", "AI_V4MAPPED_CFG", "EAI_BADHINTS",
                         "EAI_PROTOCOL", "EAI_MAX")


def _lis_socket_constants(socket):
    import enum

    names = vars(socket)
    # Defaults bound when socket.py was run (create_server's family=AF_INET, ...) take the
    # new values too.
    old = tuple(getattr(socket, n) for n in ("AddressFamily", "SocketKind"))
    for fn in list(names.values()):
        if not isinstance(fn, _lis_types.FunctionType):
            continue
        if fn.__defaults__:
            fn.__defaults__ = tuple(
                _LIS_SOCKET_LINUX.get(v.name, v) if isinstance(v, old) else v
                for v in fn.__defaults__
            )
        if fn.__kwdefaults__:
            for k, v in fn.__kwdefaults__.items():
                if isinstance(v, old):
                    fn.__kwdefaults__[k] = _LIS_SOCKET_LINUX.get(v.name, v)
    for name in _LIS_SOCKET_WASI_ONLY:
        names.pop(name, None)
    names.update(_LIS_SOCKET_LINUX)
    all_ = getattr(socket, "__all__", None)
    if all_ is not None:
        all_.extend(n for n in _LIS_SOCKET_LINUX if n not in all_)
    for enum_name, prefix, kind in (("AddressFamily", "AF_", enum.IntEnum),
                                    ("SocketKind", "SOCK_", enum.IntEnum),
                                    ("MsgFlag", "MSG_", enum.IntFlag),
                                    ("AddressInfo", "AI_", enum.IntFlag)):
        kind._convert_(enum_name, "socket", lambda c, p=prefix: c.isupper() and c.startswith(p))


def _lis_patch_sockets(socket):
    if getattr(socket.socket, "_lis_loop", False):
        return
    _lis_socket_constants(socket)
    _lis_socket_class(socket)
    _lis_socket_functions(socket)
    select = _lis_sys.modules.get("select")
    if select is not None:
        _lis_patch_select(select)
    selectors = _lis_sys.modules.get("selectors")
    if selectors is not None:
        _lis_patch_selectors(selectors)


def _lis_socket_class(socket):
    base = socket.socket
    stream, dgram = socket.SOCK_STREAM, socket.SOCK_DGRAM
    flags_mask = ~(getattr(socket, "SOCK_NONBLOCK", 0) | getattr(socket, "SOCK_CLOEXEC", 0))
    AF_INET, AF_INET6 = socket.AF_INET, socket.AF_INET6
    sol = getattr(socket, "SOL_SOCKET", 1)
    v6only_key = (getattr(socket, "IPPROTO_IPV6", 41), getattr(socket, "IPV6_V6ONLY", 26))
    so = {name: (sol, getattr(socket, name)) for name in
          ("SO_TYPE", "SO_ERROR", "SO_SNDBUF", "SO_RCVBUF", "SO_DOMAIN", "SO_PROTOCOL")
          if hasattr(socket, name)}

    class LoopSocket(base):
        _lis_loop = True

        def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
            self._io_refs = 0
            self._closed = False
            self._lis_id = None
            self._lis_fd = -1
            if fileno is not None:
                entry = _lis_fds.get(fileno) if isinstance(fileno, int) else None
                if not isinstance(entry, _LisSockFd):
                    raise OSError(_lis_errno.ENOTSOCK, "Socket operation on non-socket")
                other = entry.sock
                entry.held = None
                family, type, proto = other._lis_family, other._lis_type, other._lis_proto
                self._lis_adopt(other._lis_id, family, type, proto)
                other._lis_id, other._lis_fd = None, -1
                _lis_fds[fileno] = _LisSockFd(self)
                self._lis_fd = fileno
                return
            family = AF_INET if family == -1 else family
            type = stream if type == -1 else type
            if family not in (AF_INET, AF_INET6):
                raise OSError(
                    _lis_errno.EAFNOSUPPORT,
                    "Address family not supported by protocol (this sandbox has TCP and UDP "
                    "sockets on its own loopback only)",
                )
            kind = type & flags_mask
            if kind not in (stream, dgram):
                raise OSError(_lis_errno.ESOCKTNOSUPPORT, "Socket type not supported")
            proto = 0 if proto == -1 else proto
            answer = _lis_sock_call("socket", {"dgram": kind == dgram, "v6": family == AF_INET6})
            self._lis_adopt(answer[0]["id"], family, kind, proto)
            self._lis_fd = _lis_fd_new(_LisSockFd(self))

        def _lis_adopt(self, sid, family, kind, proto):
            self._lis_id = sid
            self._lis_family, self._lis_type, self._lis_proto = family, kind, proto
            self._lis_v6 = family == AF_INET6
            self._lis_timeout = socket.getdefaulttimeout()
            self._lis_local = None
            self._lis_peer = None
            self._lis_opts = {}

        # -- identity
        family = property(lambda self: socket.AddressFamily(self._lis_family))
        type = property(lambda self: socket.SocketKind(self._lis_type))
        proto = property(lambda self: self._lis_proto)
        timeout = property(lambda self: self._lis_timeout)

        def fileno(self):
            return self._lis_fd if self._lis_id is not None else -1

        def _lis_sid(self):
            if self._lis_id is None:
                raise OSError(_lis_errno.EBADF, "Bad file descriptor")
            return self._lis_id

        def _real_close(self, _ss=None):
            sid, self._lis_id = self._lis_id, None
            fd, self._lis_fd = self._lis_fd, -1
            if fd >= 0 and isinstance(_lis_fds.get(fd), _LisSockFd):
                del _lis_fds[fd]
            if sid is not None:
                try:
                    _lis_sock_call("close", {"id": sid})
                except OSError:
                    pass

        def __del__(self):
            if getattr(self, "_lis_id", None) is not None:
                if _lis_th.stopping:
                    # Dropped while a stopped thread unwinds (threads.py): it stays open
                    # until the program ends, so its peer's next wait is reported as the
                    # deadlock it is, not as a connection the program never closed.
                    _lis_sock_kept.append(self)
                    return
                try:
                    self._real_close()
                except Exception:  # noqa: BLE001 - as a finalizer: never raise
                    pass

        def detach(self):
            fd = self.fileno()
            entry = _lis_fds.get(fd)
            if isinstance(entry, _LisSockFd):
                entry.held = self  # kept open for `socket.socket(fileno=fd)`
            self._closed = True
            return fd

        def dup(self):
            raise OSError(_lis_errno.EOPNOTSUPP, "socket.dup() is not supported in this sandbox")

        # -- time-outs
        def settimeout(self, value):
            if value is not None:
                value = float(value)
                if value < 0:
                    raise ValueError("Timeout value out of range")
            self._lis_timeout = value

        def gettimeout(self):
            return self._lis_timeout

        def setblocking(self, flag):
            self._lis_timeout = None if flag else 0.0

        def getblocking(self):
            return self._lis_timeout != 0.0

        def _lis_block(self, bits, what, attempt):
            timeout = self._lis_timeout
            end = None if not timeout else _lis_mono() + timeout
            while True:
                try:
                    return attempt()
                except BlockingIOError:
                    if timeout == 0.0:
                        raise
                left = None if end is None else end - _lis_mono()
                if left is not None and left <= 0:
                    raise TimeoutError("timed out")
                _lis_sock_wait([[self._lis_sid(), bits]], left, what)

        # -- addresses and options
        def bind(self, address):
            meta = _lis_sock_addr(self, address, True)
            meta["id"] = self._lis_sid()
            meta["v6only"] = bool(self._lis_opts.get(v6only_key, 0))
            self._lis_local = _lis_sock_call("bind", meta)[0]["local"]

        def getsockname(self):
            if self._lis_local is None:
                return _lis_sock_pyaddr(self, ("::" if self._lis_v6 else "0.0.0.0", 0))
            return _lis_sock_pyaddr(self, self._lis_local)

        def getpeername(self):
            if self._lis_peer is None:
                raise OSError(_lis_errno.ENOTCONN, "Transport endpoint is not connected")
            return _lis_sock_pyaddr(self, self._lis_peer)

        def setsockopt(self, level, option, value, optlen=None):
            self._lis_sid()
            self._lis_opts[(level, option)] = value

        def getsockopt(self, level, option, buflen=None):
            self._lis_sid()
            figures = {"SO_TYPE": self._lis_type, "SO_ERROR": 0, "SO_SNDBUF": 262144,
                       "SO_RCVBUF": 131072, "SO_DOMAIN": self._lis_family,
                       "SO_PROTOCOL": self._lis_proto}
            defaults = {key: figures[name] for name, key in so.items()}
            value = self._lis_opts.get((level, option), defaults.get((level, option), 0))
            if buflen is None:
                return value if isinstance(value, int) else int.from_bytes(value[:4], "little")
            if isinstance(value, int):
                value = value.to_bytes(4, "little", signed=True)
            return bytes(value[:buflen])

        # -- streams
        def listen(self, backlog=None):
            n = min(socket.SOMAXCONN, 128) if backlog is None else max(int(backlog), 0)
            self._lis_local = _lis_sock_call("listen", {"id": self._lis_sid(), "n": n})[0][
                "local"
            ]

        def _lis_accept_once(self):
            a = _lis_sock_call("accept", {"id": self._lis_sid()})[0]
            conn = LoopSocket.__new__(LoopSocket)
            conn._io_refs, conn._closed = 0, False
            conn._lis_adopt(a["id"], self._lis_family, self._lis_type, self._lis_proto)
            conn._lis_local, conn._lis_peer = a["local"], a["peer"]
            if socket.getdefaulttimeout() is None and self._lis_timeout is not None:
                conn._lis_timeout = None
            conn._lis_fd = _lis_fd_new(_LisSockFd(conn))
            return conn, conn.getpeername()

        def accept(self):
            return self._lis_block(_LIS_POLLIN, "socket.accept()", self._lis_accept_once)

        def connect(self, address):
            meta = _lis_sock_addr(self, address, False)
            meta["id"] = self._lis_sid()
            self._lis_local = _lis_sock_call("connect", meta)[0]["local"]
            self._lis_peer = [meta["host"], meta["port"]]

        def connect_ex(self, address):
            try:
                self.connect(address)
            except OSError as e:
                if e.errno is None:
                    raise
                return e.errno
            return 0

        def send(self, data, flags=0):
            data = memoryview(data).cast("B")[:262144]
            sid = self._lis_sid()

            def once():
                return _lis_sock_call("send", {"id": sid}, data)[0]["n"]

            return self._lis_block(_LIS_POLLOUT, "socket.send()", once)

        def sendall(self, data, flags=0):
            view = memoryview(data).cast("B")
            while view:
                view = view[self.send(view, flags):]

        def sendto(self, data, flags_or_address, address=None):
            address = flags_or_address if address is None else address
            data = memoryview(data).cast("B")
            if self._lis_type == dgram and len(data) > 65507:
                raise OSError(_lis_errno.EMSGSIZE, "Message too long")
            if len(data) > 262144:
                return self.send(data)
            meta = _lis_sock_addr(self, address, False)
            meta["id"] = self._lis_sid()
            answer = _lis_sock_call("sendto", meta, data)[0]
            self._lis_local = answer["local"]
            return answer["n"]

        def _lis_recv(self, bufsize, flags, what):
            if bufsize < 0:
                raise ValueError("negative buffersize in recv")
            sid, peek = self._lis_sid(), bool(flags & socket.MSG_PEEK)

            def once():
                answer, data = _lis_sock_call("recv", {"id": sid, "n": bufsize, "peek": peek})
                return data, answer.get("from")

            return self._lis_block(_LIS_POLLIN, what, once)

        def recv(self, bufsize, flags=0):
            return self._lis_recv(bufsize, flags, "socket.recv()")[0]

        def recvfrom(self, bufsize, flags=0):
            data, sender = self._lis_recv(bufsize, flags, "socket.recvfrom()")
            return data, (None if sender is None else _lis_sock_pyaddr(self, sender))

        def recv_into(self, buffer, nbytes=0, flags=0):
            view = memoryview(buffer).cast("B")
            if nbytes < 0:
                raise ValueError("negative buffersize in recv_into")
            if nbytes > len(view):
                raise ValueError("buffer too small for requested bytes")
            data = self._lis_recv(nbytes or len(view), flags, "socket.recv_into()")[0]
            view[: len(data)] = data
            return len(data)

        def recvfrom_into(self, buffer, nbytes=0, flags=0):
            view = memoryview(buffer).cast("B")
            if nbytes > len(view):
                raise ValueError("nbytes is greater than the length of the buffer")
            data, sender = self._lis_recv(nbytes or len(view), flags, "socket.recvfrom_into()")
            view[: len(data)] = data
            return len(data), (None if sender is None else _lis_sock_pyaddr(self, sender))

        def shutdown(self, how):
            _lis_sock_call("shutdown", {"id": self._lis_sid(), "how": int(how)})

    LoopSocket.__name__ = LoopSocket.__qualname__ = "socket"
    LoopSocket.__module__ = "socket"
    socket.socket = socket.SocketType = LoopSocket


def _lis_socket_functions(socket):
    real_getaddrinfo = socket.getaddrinfo
    AF_INET, AF_INET6, AF_UNSPEC = socket.AF_INET, socket.AF_INET6, socket.AF_UNSPEC
    kinds = ((socket.SOCK_STREAM, 6), (socket.SOCK_DGRAM, 17), (getattr(socket, "SOCK_RAW", 3), 0))

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        if isinstance(host, (bytes, bytearray)):
            host = bytes(host).decode("idna")
        try:
            v4 = _lis_sock_numeric(host or "127.0.0.1", False, True) if family != AF_INET6 else None
        except (OSError, ValueError):
            v4 = None
        try:
            v6 = _lis_sock_numeric(host or "::1", True, True) if family != AF_INET else None
        except (OSError, ValueError):
            v6 = None
        if host and v4 is None and v6 is None:
            # Only the sandbox's loopback has addresses here: any other name raises as
            # _lis_sock_numeric says.
            _lis_sock_numeric(host, family == AF_INET6, False)
        if port is None:
            port = 0
        elif isinstance(port, (str, bytes)):
            text = port.decode() if isinstance(port, bytes) else port
            try:
                port = int(text) if text.isdigit() else socket.getservbyname(text)
            except OSError:
                raise socket.gaierror(-8, "Servname not supported for ai_socktype") from None
        passive = not host and flags & getattr(socket, "AI_PASSIVE", 1)
        if passive:
            v4, v6 = "0.0.0.0", "::"
        out = []
        name = host if flags & getattr(socket, "AI_CANONNAME", 2) and host else ""
        addrs = []
        if v4 is not None and not (family == AF_UNSPEC and v4.startswith("::ffff:")):
            addrs.append((AF_INET, (v4, port)))
        loopback_v6 = v6 is not None and (family == AF_INET6 or v4 is None or passive)
        if loopback_v6:
            addrs.append((AF_INET6, (v6, port, 0, 0)))
        for fam, sockaddr in addrs:
            for kind, kproto in kinds:
                if (type and type != kind) or (proto and proto != kproto):
                    continue
                out.append((socket.AddressFamily(fam), socket.SocketKind(kind), kproto, name,
                            sockaddr))
        if not out:
            raise socket.gaierror(-8, "Servname not supported for ai_socktype")
        return out

    def gethostbyname(host):
        return getaddrinfo(host, 0, AF_INET, socket.SOCK_STREAM)[0][4][0]

    def socketpair(family=None, type=socket.SOCK_STREAM, proto=0):
        a, b = _lis_sock_call("pair")[0]["ids"]
        fam = AF_INET if family is None else family
        made = []
        for sid in (a, b):
            s = socket.socket.__new__(socket.socket)
            s._io_refs, s._closed = 0, False
            s._lis_adopt(sid, fam, socket.SOCK_STREAM, proto)
            s._lis_fd = _lis_fd_new(_LisSockFd(s))
            made.append(s)
        return tuple(made)

    def fromfd(fd, family, type, proto=0):
        raise OSError(_lis_errno.EOPNOTSUPP, "socket.fromfd() is not supported in this sandbox")

    def inet_pton(family, ip_string):
        import ipaddress

        kind = {AF_INET: ipaddress.IPv4Address, AF_INET6: ipaddress.IPv6Address}.get(family)
        if kind is None:
            raise OSError(_lis_errno.EAFNOSUPPORT, "Address family not supported by protocol")
        try:
            return kind(ip_string).packed
        except ValueError:
            raise OSError("illegal IP address string passed to inet_pton") from None

    def inet_ntop(family, packed_ip):
        import ipaddress

        size = {AF_INET: 4, AF_INET6: 16}.get(family)
        if size is None:
            raise ValueError("unknown address family %d" % family)
        packed_ip = bytes(packed_ip)
        if len(packed_ip) != size:
            raise ValueError("invalid length of packed IP address string")
        return str(ipaddress.ip_address(packed_ip))

    socket.inet_pton, socket.inet_ntop = inet_pton, inet_ntop
    getaddrinfo.__doc__ = real_getaddrinfo.__doc__
    socket.getaddrinfo, socket.gethostbyname = getaddrinfo, gethostbyname
    socket.socketpair, socket.fromfd = socketpair, fromfd


# -- select and selectors over the sandbox's sockets ------------------------------------------


def _lis_sock_of(fd):
    entry = _lis_fds.get(fd) if isinstance(fd, int) else None
    return entry.ref() if isinstance(entry, _LisSockFd) else None


def _lis_fd_of(obj):
    if isinstance(obj, int):
        return obj
    fd = obj.fileno()
    if not isinstance(fd, int):
        raise TypeError("fileno() returned a non-integer")
    return fd


def _lis_poll_fds(wanted, timeout, what):
    # wanted: {fd: bits}. Answers {fd: bits ready}. Real descriptors are always ready, as a
    # regular file is to select() on Linux.
    ours, out, by_id = [], {}, {}
    for fd, mask in wanted.items():
        # POLLRDNORM (64) reads as POLLIN, POLLWRNORM (256) as POLLOUT; the host knows these two.
        bits = (_LIS_POLLIN if mask & 65 else 0) | (_LIS_POLLOUT if mask & 260 else 0)
        sock = _lis_sock_of(fd)
        if sock is None or sock._lis_id is None:
            out[fd] = bits
        else:
            ours.append([sock._lis_id, bits])
            by_id[sock._lis_id] = fd
    if ours:
        ready = _lis_sock_ready(ours)
        if not ready and not out and (timeout is None or timeout > 0):
            _lis_sock_wait(ours, timeout, what)
            ready = _lis_sock_ready(ours)
        for sid, bits in ready:
            out[by_id[sid]] = bits
    elif not out and timeout:
        _lis_sleep(timeout)
    return out


def _lis_patch_select(select):
    if getattr(select.select, "_lis", False):
        return
    real_select = select.select

    def select_(rlist, wlist, xlist, timeout=None):
        if timeout is not None and timeout < 0:
            raise ValueError("timeout must be non-negative")
        fds = [_lis_fd_of(o) for o in list(rlist) + list(wlist)]
        if not any(_lis_sock_of(fd) for fd in fds):
            return real_select(rlist, wlist, xlist, timeout)
        wanted = {}
        for o in rlist:
            wanted[_lis_fd_of(o)] = wanted.get(_lis_fd_of(o), 0) | _LIS_POLLIN
        for o in wlist:
            wanted[_lis_fd_of(o)] = wanted.get(_lis_fd_of(o), 0) | _LIS_POLLOUT
        got = _lis_poll_fds(wanted, timeout, "select.select()")
        hup = _LIS_POLLHUP
        return (
            [o for o in rlist if got.get(_lis_fd_of(o), 0) & (_LIS_POLLIN | hup)],
            [o for o in wlist if got.get(_lis_fd_of(o), 0) & (_LIS_POLLOUT | hup)],
            [],
        )

    class poll:
        def __init__(self):
            self._fds = {}

        def register(self, fd, eventmask=_LIS_POLLIN | 2 | _LIS_POLLOUT):
            self._fds[_lis_fd_of(fd)] = eventmask

        def modify(self, fd, eventmask):
            fd = _lis_fd_of(fd)
            if fd not in self._fds:
                raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory")
            self._fds[fd] = eventmask

        def unregister(self, fd):
            del self._fds[_lis_fd_of(fd)]

        def poll(self, timeout=None):
            if timeout is not None and timeout >= 0:
                timeout = timeout / 1000.0
            elif timeout is not None:
                timeout = None
            got = _lis_poll_fds(dict(self._fds), timeout, "poll()")
            out = []
            for fd, bits in got.items():
                mask = self._fds.get(fd, 0)
                # As Linux: the *NORM bits asked for come with their plain ones.
                bits |= (64 if bits & 1 and mask & 64 else 0) | (256 if bits & 4 and mask & 256 else 0)
                if bits:
                    out.append((fd, bits))
            return out

    select_.__doc__ = real_select.__doc__
    select_._lis = True
    poll.__module__ = "select"
    select.select, select.poll = select_, poll
    # Linux's values (WASI's POLLOUT is 2, its POLLHUP 0x2000).
    for name, value in (("POLLIN", 1), ("POLLPRI", 2), ("POLLOUT", 4), ("POLLERR", 8),
                        ("POLLHUP", 16), ("POLLNVAL", 32), ("POLLRDNORM", 64),
                        ("POLLRDBAND", 128), ("POLLWRNORM", 256), ("POLLWRBAND", 512),
                        ("POLLMSG", 1024), ("POLLRDHUP", 8192)):
        setattr(select, name, value)


def _lis_patch_selectors(selectors):
    select = __import__("select")
    _lis_patch_select(select)
    if getattr(selectors, "_lis", False):
        return
    selectors._lis = True
    if hasattr(selectors, "PollSelector"):
        selectors.PollSelector._selector_cls = select.poll
        selectors.PollSelector._EVENT_READ = select.POLLIN
        selectors.PollSelector._EVENT_WRITE = select.POLLOUT
    else:

        class PollSelector(selectors._PollLikeSelector):
            _selector_cls = select.poll
            _EVENT_READ = select.POLLIN
            _EVENT_WRITE = select.POLLOUT

        PollSelector.__module__ = "selectors"
        selectors.PollSelector = PollSelector
    selectors.DefaultSelector = selectors.PollSelector


def _lis_patch_socketserver(socketserver):
    # A thread whose target is a server's `serve_forever` waits for the next request in
    # select(): when the thread that started it could go on, the loop gives way at once and
    # runs again from the top at the next blocking point (its state is the server object's),
    # instead of being stopped for good (threads.py). Only that exact target: a target that
    # does more, or `handle_request()` loops, would repeat their other work.
    if getattr(socketserver, "_lis", False):
        return
    socketserver._lis = True
    base = socketserver._ServerSelector
    real_serve = socketserver.BaseServer.serve_forever

    def serving_thread(server):
        S = _lis_th
        me = S.stack[-1] if S.stack else None
        target = getattr(me, "_lis_target", (None,))[0]
        if me is None or getattr(target, "__self__", None) is not server:
            return None
        return me if getattr(target, "__name__", "") == "serve_forever" else None

    def serve_forever(self, poll_interval=0.5):
        me = serving_thread(self)
        if me is not None and getattr(me, "_lis_rerun", False):
            me._lis_rerun = False
            # Shut down or closed while it waited to run again: the loop has ended.
            if self._BaseServer__shutdown_request or self.fileno() < 0:
                self._BaseServer__shutdown_request = False
                return None
        if me is not None:
            me._lis_serving = True
        try:
            return real_serve(self, poll_interval)
        finally:
            if me is not None:
                me._lis_serving = False

    class _ServerSelector(base):
        def select(self, timeout=None):
            S = _lis_th
            me = S.stack[-1] if S.stack else None
            if me is None or not getattr(me, "_lis_serving", False):
                return super().select(timeout)
            me._lis_restartable = True
            try:
                return super().select(timeout)
            finally:
                me._lis_restartable = False

    serve_forever.__doc__ = real_serve.__doc__
    socketserver.BaseServer.serve_forever = serve_forever
    socketserver._ServerSelector = _ServerSelector


_lis_chain_patch("socket", _lis_patch_sockets)
_lis_chain_patch("select", _lis_patch_select)
_lis_chain_patch("selectors", _lis_patch_selectors)
_lis_chain_patch("socketserver", _lis_patch_socketserver)


def _lis_sock_loopback_listening(host, port):
    # Whether an HTTP connection to host:port is for a server on the sandbox's loopback
    # (then http.client uses a socket; otherwise the host door and the network policy).
    try:
        ip = _lis_sock_numeric(host.strip("[]"), ":" in host, False)
    except (OSError, ValueError):
        return False
    if not (ip.startswith("127.") or ip == "::1"):
        return False
    try:
        return _lis_sock_call("listening", {"host": ip, "port": port})[0]["yes"]
    except OSError:
        return False
