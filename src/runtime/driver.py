# Runs one `python3 ...` command inside a fresh instance of the snapshot, through its `turn`
# export. `turn` has REPL semantics; this gives script semantics instead: sys.argv, cwd, env,
# a clean __main__, tracebacks without our frames, and the exit status raised as SystemExit at
# the end of the turn (whose result carries it). The preloaded snapshot defines it (and has
# the imports below done); with the stock snapshot it is marshalled and run on every call.
# The request (in `marshal` format) comes through the host door, not as code: `turn` parses
# code slowly.
import _host as _lis_host
import atexit as _lis_atexit
import errno as _lis_errno
import json as _lis_json
import marshal as _lis_marshal
import os as _lis_os
import sys as _lis_sys
import types as _lis_types


class _LisExit:
    # The signal that ends the program once its exit steps ran (0: none).
    signal = 0


def _lis_main():
    os, sys = _lis_os, _lis_sys
    status = 0
    _LisExit.signal = 0
    try:
        # The random bytes the generators need come with the request, in the same door call
        # (`marshal.loads` ignores what follows the request).
        need = _lis_rng_bytes()
        raw = _lis_host.call(b"request\0%d" % need if need else b"request")
        req = _lis_marshal.loads(raw)
        entropy = memoryview(raw)[len(raw) - need :] if need else None
        if _LisNetFinder not in sys.meta_path:
            _lis_net_install(sys)
        status = _lis_run(req, os, sys, entropy)
        _lis_threads_exit()
        _lis_commands_exit()
    except BaseException as e:  # noqa: BLE001 - the driver itself must never die silently
        sys.stderr.write("llm-in-sandbox driver error: %r\n" % (e,))
        status = 70
    try:
        _lis_atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass
    if _LisExit.signal and status == 128 + _LisExit.signal:
        try:
            _lis_host.call(b"end\0%d\0%d" % (status, _LisExit.signal))
        except ConnectionRefusedError:
            pass
    raise SystemExit(status)


def _lis_fast_turns():
    # The host hands `turn` the same source every call: "_lis_main()". The runtime's reactor
    # would parse it with `ast`, compile it twice (statement and echoed expression), register
    # both in linecache and eval it: a few hundred microseconds and many written pages per
    # call. Exactly that source goes straight to `_lis_main` (which never returns: it raises
    # SystemExit with the status, as before); any other source takes the reactor's own path.
    # Done when the snapshot is made, so calls start with it in place.
    try:
        import _reactor
    except ImportError:
        return
    slow = _reactor._run_turn
    if getattr(slow, "_lis_fast", False):
        return

    def _run_turn(text, name):
        if text == "_lis_main()":
            _lis_main()
        if text == "_lis_last_step()":
            # The preloaded snapshot's last step (preload.rs), with nothing parsed or
            # compiled around it: what a turn makes and frees afterwards would leave free
            # chunks behind the heap fill.
            return _lis_last_step()
        return slow(text, name)

    _run_turn._lis_fast = True
    _reactor._run_turn = _run_turn


_lis_fast_turns()


def _lis_no_site_hint():
    # The guest runs with site initialization off (its packages are on sys.path already), and
    # CPython 3.13+ then ends every ModuleNotFoundError with a hint about site-packages and
    # virtual environments. The reference's Python (site on) never prints it, and it would send
    # a model looking for a venv: every formatting of the error (an uncaught one, a thread's,
    # traceback.print_exc, logging) goes through TracebackException, so it is cut there.
    import traceback

    init = traceback.TracebackException.__init__
    if getattr(init, "_lis_no_site_hint", False):
        return
    hint = ". Site initialization is disabled,"

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        text = getattr(self, "_str", None)
        if isinstance(text, str) and hint in text:
            self._str = text[: text.index(hint)]

    __init__._lis_no_site_hint = True
    traceback.TracebackException.__init__ = __init__


_lis_no_site_hint()


def _lis_status(code, sys):
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except BaseException:  # noqa: BLE001
        pass
    return 1


def _lis_collect_rngs(sys):
    # Seedable generators held in loaded modules' globals (not ones kept inside other objects).
    # Run once when the snapshot is made (scanning every module's globals per call would dirty
    # pages); with the stock snapshot only the few modules it already holds are looked at.
    # SystemRandom needs no seed. A module whose attributes misbehave is skipped.
    random = sys.modules.get("random")
    np = sys.modules.get("numpy") if "numpy.random" in sys.modules else None
    kinds = [random.Random] if random is not None else []
    if np is not None:
        kinds.append(np.random.RandomState)
    if not kinds:
        return []
    kinds = tuple(kinds)
    system = random.SystemRandom if random is not None else ()
    found, seen = [], set()
    for module in list(sys.modules.values()):
        try:
            names = getattr(module, "__dict__", None)
            if not isinstance(names, dict):
                continue
            for value in list(names.values()):
                if (
                    isinstance(value, kinds)
                    and not isinstance(value, system)
                    and id(value) not in seen
                ):
                    seen.add(id(value))
                    # numpy's RandomState takes an array of words, `random`'s an int.
                    is_std = random is not None and isinstance(value, random.Random)
                    found.append((value, None if is_std else np))
        except Exception:  # noqa: BLE001
            continue
    return found


def _lis_rng_state_views(rngs, sys):
    # Run once when the snapshot is made. For each Mersenne Twister generator (an exact
    # `random.Random`, or numpy's RandomState over MT19937), find its 624 state words and its
    # position in the guest's memory, and keep byte views of them: (keys, pos). Found
    # by matching the state the generator reports against the words at and after its object;
    # its objects are immortal in the snapshot, so they never move. Returns (views, rest):
    # generators not found this way (other types, no numpy, not a 32-bit build) are seeded.
    np = sys.modules.get("numpy")
    random = sys.modules.get("random")
    if np is None or sys.maxsize != (1 << 31) - 1:
        return [], list(rngs)

    class Words:
        def __init__(self, address, count):
            self.__array_interface__ = {
                "shape": (count,),
                "typestr": "<u4",
                "data": (address, False),
                "version": 3,
            }

    views, rest = [], []
    for rng, rng_np in rngs:
        try:
            if rng_np is None:
                if random is None or type(rng) is not random.Random:
                    raise LookupError
                state = rng.getstate()
                if state[2] is not None:
                    raise LookupError
                obj, keys, pos, pos_at = rng, list(state[1][:624]), state[1][624], -1
            else:
                obj = rng._bit_generator
                state = rng.get_state()
                if state[0] != "MT19937" or state[3] != 0:
                    raise LookupError
                keys, pos, pos_at = [int(k) for k in state[1]], int(state[2]), 624
            words = np.asarray(Words(id(obj), 1024))
            want = np.array(keys, dtype=np.uint32)
            at = None
            for k in np.nonzero(words == want[0])[0]:
                k = int(k)
                if k + 625 <= len(words) and k >= 1 and (words[k : k + 624] == want).all():
                    if words[k + pos_at] == pos:
                        at = k
                        break
            if at is None:
                raise LookupError
            # As byte views (memoryview): filling one is a plain copy, where a numpy slice
            # assignment costs a few microseconds of numpy's own dispatch on every call.
            views.append(
                (
                    memoryview(words[at : at + 624]).cast("B"),
                    memoryview(words[at + pos_at : at + pos_at + 1]).cast("B"),
                )
            )
        except Exception:  # noqa: BLE001 - not found: seeded on each call instead
            rest.append((rng, rng_np))
    return views, rest


# A Mersenne Twister's position word when all 624 state words are unused: its next draw
# regenerates from fresh words (little-endian, as wasm is).
_LIS_MT_FULL = (624).to_bytes(4, "little")


def _lis_warm_up(cwd):
    # Run once when the snapshot is made: three calls' worth of the driver's own path (the
    # request parsed, environment compared, generators refreshed, `pass` compiled and run in a
    # fresh `__main__`, exit steps, streams flushed), then everything it changed put back.
    # CPython rewrites a function's bytecode in place the first times it runs (quickening and
    # its inline caches): done here, calls start with that code already specialized and stop
    # copying those pages each time.
    # Then the same for what calls commonly do, as code and as a script file: write, read,
    # test and remove a file, list a folder, read the clock, sleep, print.
    os, sys = _lis_os, _lis_sys
    saved = (sys.modules.get("__main__"), list(sys.path), list(sys.argv))
    common = (
        "import os, time\n"
        "p = '.lis-warm-up'\n"
        "with open(p, 'w') as f: f.write('x\\n')\n"
        "with open(p) as f: f.read()\n"
        "os.path.exists(p); os.path.isfile(p); os.listdir('.'); os.stat(p)\n"
        "os.remove(p)\n"
        "time.time(); time.sleep(0)\n"
        "print(end='')\n"
    )
    script = os.path.join(cwd, ".lis-warm-up.py")
    requests = [
        {"argv": ["-c"], "mode": "code", "code": code}
        for code in ("pass", common)
    ] + [{"argv": [".lis-warm-up.py"], "mode": "file", "path": ".lis-warm-up.py"}]
    frames = [
        _lis_marshal.dumps(dict(req, env=dict(os.environ), cwd=cwd, site=[])) for req in requests
    ]
    try:
        with open(script, "w") as f:
            f.write(common)
        for frame in frames * 3:
            _lis_run(_lis_marshal.loads(frame), os, sys, memoryview(os.urandom(_lis_rng_bytes())))
            _lis_threads_exit()
            _lis_commands_exit()
            _lis_atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
    finally:
        try:
            os.remove(script)
        except OSError:
            pass
        main, path, argv = saved
        if main is not None:
            sys.modules["__main__"] = main
        sys.path[:] = path
        sys.argv[:] = argv
        # The working directory stays the workspace (the snapshot started in "/", which no
        # preopen holds): a call that runs there need not enter it again (`_lis_run`).
        os.chdir(cwd)


def _lis_trimmed(tb):
    # Drop our own frames and runpy's so the traceback reads like CPython's.
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name == "<lis-driver>" or name.endswith("runpy.py"):
            tb = tb.tb_next
        else:
            break
    return tb


def _lis_rng_bytes():
    # The random bytes a call's Mersenne Twisters take (624 words each), asked for with the
    # request up to the door's cap (`MAX_ENTROPY` in door.rs); past it, `os.urandom` serves.
    found = globals().get("_lis_rng_words")
    need = 2496 * len(found[0]) if found else 0
    return need if need <= 1 << 20 else 0


def _lis_run(req, os, sys, entropy=None):
    # Make the environment exactly the request's, touching only what differs (each change is
    # a WASI libc call). Every call starts with the snapshot's environment, which the
    # preloaded snapshot keeps as a plain dict (`_lis_base_env`): comparing with it costs no
    # encoding and decoding of each name (`os.environ` does that on every access).
    env, environ = req["env"], os.environ
    base = globals().get("_lis_base_env")
    if base is None:
        base = dict(environ)
    if env != base:
        for key in [k for k in base if k not in env]:
            del environ[key]
        for key, value in env.items():
            if base.get(key) != value:
                environ[key] = value
    try:
        # The snapshot is made in the workspace, where most calls run: entering it again
        # would only repeat the same lookup (a WASI call) to set the same path.
        if req["cwd"] != os.getcwd():
            os.chdir(req["cwd"])
    except OSError as e:
        sys.stderr.write("python3: cannot enter %s: %s\n" % (req["cwd"], e.strerror))
        return 2
    # The snapshot froze every random generator it holds (stdlib `random`, numpy's global
    # RandomState, sympy's own `random.Random`s, ...): give each call fresh state, as a new
    # process would have. The preloaded snapshot found each Mersenne Twister's 624 state words
    # in memory (`_lis_rng_words`, see `_lis_rng_state_views`): they get fresh words from the
    # OS (`entropy`, which came with the request, or `os.urandom`) and their position is set
    # to 624, so the first draw regenerates from them (a few microseconds for all of them;
    # seeding costs ~10 us for each `random.Random` and ~20 us for numpy's).
    # Generators not found there are seeded with 256 bits from the OS each.
    found = globals().get("_lis_rng_words")
    if found is None:
        views, rngs = (), _lis_collect_rngs(sys)
    else:
        views, rngs = found
    if views:
        fresh = entropy
        if fresh is None or len(fresh) != 2496 * len(views):
            fresh = memoryview(os.urandom(2496 * len(views)))
        for i, (keys, pos) in enumerate(views):
            keys[:] = fresh[i * 2496 : i * 2496 + 2496]
            pos[:] = _LIS_MT_FULL
    for rng, np in rngs:
        words = os.urandom(32)
        try:
            if np is None:
                rng.seed(int.from_bytes(words, "little"))
            else:
                rng.seed(np.frombuffer(words, dtype=np.uint32))
        except Exception:  # noqa: BLE001 - a subclass with its own seed(); leave it be
            pass
    # Site folders (the read-only layer, the sandbox's own installs) go after the stdlib, so
    # they never shadow a built-in package; forget what an earlier lookup found there.
    for site in req.get("site", ()):
        if site not in sys.path:
            sys.path.append(site)
        sys.path_importer_cache.pop(site, None)
    sys.argv = list(req["argv"])
    main = _lis_types.ModuleType("__main__")
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    mode = req["mode"]
    try:
        if mode == "code":
            sys.path.insert(0, "")
            exec(compile(req["code"], "<string>", "exec"), main.__dict__)
        elif mode == "stdin":
            sys.path.insert(0, "")
            source = sys.stdin.read()
            exec(compile(source, "<stdin>", "exec"), main.__dict__)
        elif mode == "file":
            import runpy

            path = req["path"]
            if not os.path.exists(path):
                full = os.path.join(os.getcwd(), path)
                sys.stderr.write(
                    "python3: can't open file %r: [Errno 2] No such file or directory\n" % (full,)
                )
                return 2
            full = os.path.abspath(path)
            sys.path.insert(0, os.path.dirname(full))
            source = None
            if not os.path.isdir(full):
                with open(full, "rb") as f:
                    source = f.read()
            if source is None or source[:4] == b"PK\x03\x04":
                runpy.run_path(path, run_name="__main__")
            else:
                # As CPython (3.9+) runs a script: `__file__` and tracebacks name its absolute
                # path, sys.argv[0] stays as given, and `__main__` is the module it runs in.
                import importlib.machinery

                main.__dict__.update(
                    __file__=full,
                    __cached__=None,
                    __loader__=importlib.machinery.SourceFileLoader("__main__", full),
                )
                exec(compile(source, full, "exec"), main.__dict__)
        elif mode == "module":
            import runpy

            sys.path.insert(0, os.getcwd())
            runpy._run_module_as_main(req["module"], alter_argv=True)
        else:
            sys.stderr.write("python3: unknown mode %r\n" % (mode,))
            return 2
    except SystemExit as e:
        return _lis_status(e.code, sys)
    except BaseException as e:  # noqa: BLE001
        import traceback

        traceback.print_exception(type(e), e, _lis_trimmed(e.__traceback__))
        if isinstance(e, KeyboardInterrupt):
            # CPython ends an uncaught KeyboardInterrupt by SIGINT, after its exit steps:
            # the shell sees 128 + 2, a parent without a shell between -2 (_lis_main).
            _LisExit.signal = 2
            return 130
        return 1
    return 0


# Network for Python through the host door (see door.rs): `http.client`'s connections never
# open a socket (WASI preview 1 has none). `connect()` asks the host whether the sandbox's policy
# allows the origin (a denied host fails here, before any request exists); the request bytes
# http.client writes are collected, and once complete handed to the host as data, which makes
# the request with its own client and TLS and answers status, headers and body; the answer is
# fed back to http.client's own response parser. urllib.request (and pandas, ...) use these
# connections, and follow redirects themselves: every hop is a new, checked request. The
# patch is applied when http.client is imported (or at once if it already is).
def _lis_net_install(sys):
    client = sys.modules.get("http.client")
    if client is not None:
        _lis_patch_http(client, sys)
    sys.meta_path.insert(0, _LisNetFinder)


class _LisNetFinder:
    # Patches the modules named in `_LIS_PATCHES` (linux_box/commands.py) as they are imported,
    # and makes `ssl`, `fcntl` and `termios` (linux_box/ssl.py).
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in _LisStubLoader.fill:
            import importlib.machinery

            return importlib.machinery.ModuleSpec(name, _LisStubLoader, origin="built-in")
        if name not in _LIS_PATCHES:
            return None
        for finder in _lis_sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is _LisNetFinder or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _LisPatchingLoader(spec.loader)
                return spec
        return None


class _LisPatchingLoader:
    def __init__(self, loader):
        self._lis_loader = loader

    def __getattr__(self, name):
        return getattr(self._lis_loader, name)

    def create_module(self, spec):
        return self._lis_loader.create_module(spec)

    def exec_module(self, module):
        # The module's import-time branches are the build's (WASI's), as for the modules the
        # snapshot imported: `subprocess` on "linux" would import `_posixsubprocess`, which
        # this build lacks. What it does later sees the platform programs see (Linux).
        shown = _lis_sys.platform
        _lis_sys.platform = globals().get("_LIS_BUILD_PLATFORM", shown)
        try:
            self._lis_loader.exec_module(module)
        finally:
            _lis_sys.platform = shown
        _LIS_PATCHES[module.__name__](module)


def _lis_door_call(kind, meta, body=b""):
    frame = kind + b"\0" + _lis_json.dumps(meta).encode()
    if kind == b"http":
        frame += b"\0" + body
    out = _lis_host.call(frame)
    head, _, rest = out.partition(b"\0")
    answer = _lis_json.loads(head)
    if not answer.get("ok"):
        kind, message = answer.get("error"), answer.get("message", "request failed")
        cls = {
            "denied": PermissionError,
            "timeout": TimeoutError,
            "refused": ConnectionRefusedError,
        }.get(kind, OSError)
        raise cls(message)
    return answer, rest


def _lis_origin(scheme, host, port, default):
    if ":" in host and not host.startswith("["):
        host = "[%s]" % host
    if port is None or port == default:
        return "%s://%s" % (scheme, host)
    return "%s://%s:%d" % (scheme, host, port)


class _LisSocket:
    # What http.client writes to and reads from instead of a socket.
    def __init__(self, conn, origin):
        self._conn, self._origin = conn, origin
        self._out = bytearray()
        self._head = None
        self._answer = None

    def sendall(self, data):
        self._out += data
        if self._answer is None:
            request = self._complete(False)
            if request is not None:
                self._answer = self._exchange(*request)

    def send(self, data):
        self.sendall(data)
        return len(data)

    def makefile(self, mode="rb", *args, **kwargs):
        import io

        answer, self._answer = self._answer, None
        if answer is None:
            answer = self._exchange(*self._complete(True))
        return io.BufferedReader(io.BytesIO(answer))

    def close(self):
        self._out = bytearray()

    def settimeout(self, timeout):
        pass

    def setsockopt(self, *args):
        pass

    def shutdown(self, how):
        pass

    def _complete(self, final):
        # (method, target, headers, body) once the request written so far is whole, else None
        # (or, when `final`, an error).
        out = self._out
        if self._head is None:
            end = out.find(b"\r\n\r\n")
            if end < 0:
                if final:
                    raise OSError("incomplete HTTP request: no end of headers was sent")
                return None
            lines = bytes(out[:end]).decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            if len(parts) != 3:
                raise OSError("malformed HTTP request line %r" % lines[0])
            headers, length, chunked = [], None, False
            for line in lines[1:]:
                if line[:1] in (" ", "\t") and headers:
                    headers[-1][1] += " " + line.strip()
                    continue
                name, _, value = line.partition(":")
                headers.append([name.strip(), value.strip()])
            for name, value in headers:
                if name.lower() == "content-length":
                    try:
                        length = int(value)
                    except ValueError:
                        raise OSError("bad Content-Length %r" % value) from None
                elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                    chunked = True
            self._head = (parts[0], parts[1], headers, length, chunked, end + 4)
        method, target, headers, length, chunked, start = self._head
        if chunked:
            body = _lis_dechunk(out, start) if final or out.endswith(b"0\r\n\r\n") else None
            if body is None:
                if final:
                    raise OSError("incomplete chunked HTTP request body")
                return None
            headers = [h for h in headers if h[0].lower() != "transfer-encoding"]
            headers.append(["Content-Length", str(len(body))])
        else:
            need = length or 0
            if len(out) - start < need:
                if final:
                    raise OSError("incomplete HTTP request body")
                return None
            body = bytes(out[start : start + need])
        self._out, self._head = bytearray(), None
        return method, target, headers, body

    def _exchange(self, method, target, headers, body):
        url = target if target.startswith(("http://", "https://")) else self._origin + target
        timeout = self._conn.timeout
        if not isinstance(timeout, (int, float)):
            timeout = None
        meta = {"method": method, "url": url, "headers": headers, "timeout": timeout}
        answer, rest = _lis_door_call(b"http", meta, body)
        status = answer["status"]
        version = "HTTP/1.0" if answer["version"] == 10 else "HTTP/1.1"
        lines = ["%s %d %s" % (version, status, answer["reason"])]
        # The host read the whole body (de-chunked): frame it by its length, except where the
        # status or method has none and the server's Content-Length means something else.
        no_body = method == "HEAD" or status in (204, 304) or 100 <= status < 200
        for name, value in answer["headers"]:
            low = name.lower()
            if low == "transfer-encoding" or (low == "content-length" and not no_body):
                continue
            lines.append("%s: %s" % (name, value))
        if not no_body:
            lines.append("Content-Length: %d" % len(rest))
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + rest


def _lis_dechunk(out, at):
    body = bytearray()
    while True:
        eol = out.find(b"\r\n", at)
        if eol < 0:
            return None
        try:
            size = int(bytes(out[at:eol]).split(b";")[0].strip() or b"x", 16)
        except ValueError:
            raise OSError("malformed chunked HTTP request body") from None
        at = eol + 2
        if size == 0:
            return bytes(body)
        if len(out) < at + size + 2:
            return None
        body += out[at : at + size]
        at += size + 2


def _lis_patch_http(client, sys):
    if getattr(client, "_lis_door", False):
        return
    base = client.HTTPConnection

    class HTTPConnection(base):
        _lis_scheme = "http"

        def connect(self):
            sys.audit("http.client.connect", self, self.host, self.port)
            if self._tunnel_host:
                host, port = self._tunnel_host, self._tunnel_port
            else:
                host, port = self.host, self.port
            if self._lis_scheme == "http" and _lis_sock_loopback_listening(host, port):
                # A server of this sandbox (sockets.py): a real connection on its loopback.
                return base.connect(self)
            origin = _lis_origin(self._lis_scheme, host, port, self.default_port)
            _lis_door_call(b"http-check", {"url": origin + "/"})
            self.sock = _LisSocket(self, origin)

    class HTTPSConnection(HTTPConnection):
        # TLS is the host's (verified against its trusted roots); a context is accepted and
        # not used.
        default_port = client.HTTPS_PORT
        _lis_scheme = "https"

        def __init__(
            self, host, port=None, *args, context=None, check_hostname=None, key_file=None,
            cert_file=None, **kwargs
        ):
            super().__init__(host, port, *args, **kwargs)

    for cls, name in ((HTTPConnection, "HTTPConnection"), (HTTPSConnection, "HTTPSConnection")):
        cls.__name__ = cls.__qualname__ = name
        cls.__module__ = "http.client"
        setattr(client, name, cls)
    # urllib's HTTPS handler asks for an ssl context (the WASM CPython's `ssl` cannot load);
    # the host's TLS needs none.
    client._create_https_context = lambda *args, **kwargs: None
    if "HTTPSConnection" not in client.__all__:
        client.__all__.append("HTTPSConnection")
    client._lis_door = True
    # urllib.request defines its HTTPS handler only if http.client had HTTPS when it was
    # imported: give it one if it was imported before the patch (not while it is importing
    # http.client itself: then it defines its own).
    request = sys.modules.get("urllib.request")
    if (
        request is not None
        and hasattr(request, "AbstractHTTPHandler")
        and not hasattr(request, "HTTPSHandler")
    ):

        class HTTPSHandler(request.AbstractHTTPHandler):
            def __init__(self, debuglevel=None, context=None, check_hostname=None):
                super().__init__(debuglevel)

            def https_open(self, req):
                return self.do_open(client.HTTPSConnection, req)

            https_request = request.AbstractHTTPHandler.do_request_

        HTTPSHandler.__module__ = "urllib.request"
        request.HTTPSHandler = HTTPSHandler
