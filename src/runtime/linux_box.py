
# ---- The Linux box (design.md 4b): what models expect of the reference's container ----------
# Appended to the driver (one code object): it runs where the driver is defined, so with the
# preloaded snapshot everything below is done once, at snapshot time, and costs a call nothing.
# Modules imported later (asyncio, concurrent.futures, multiprocessing, ...) are patched when
# they are imported (`_LIS_PATCHES`, applied by the driver's import hook).
#
# - Identity: uid/gid 0, user root, HOME /root: `os.getuid` & co., `pwd`, `grp`.
# - Threads: wasm32-wasip1 has none, so a started thread runs when the thread that started it
#   first blocks (join, a lock or condition that would wait, Event/Queue waits, time.sleep,
#   a future's result, the event loop's idle wait, interpreter exit). A thread that runs
#   inside another's wait cannot be suspended: when it would wait while the thread below it
#   could go on, it is stopped there (`_LisAbandon`); when no thread at all can go on and no
#   time-out is pending, the wait raises a RuntimeError naming the limitation (Linux would
#   hang). docs/linux-compatibility.md says what this gives and what differs.
# - Signals: `signal.alarm`/`setitimer(ITIMER_REAL)` with a handler fire at blocking points
#   and, while a timer is armed, between lines (a monitoring hook that costs only then).

_LIS_PASSWD = (
    ("root", 0, 0, "root", "/root", "/bin/bash"),
    ("daemon", 1, 1, "daemon", "/usr/sbin", "/usr/sbin/nologin"),
    ("bin", 2, 2, "bin", "/bin", "/usr/sbin/nologin"),
    ("sys", 3, 3, "sys", "/dev", "/usr/sbin/nologin"),
    ("sync", 4, 65534, "sync", "/bin", "/bin/sync"),
    ("games", 5, 60, "games", "/usr/games", "/usr/sbin/nologin"),
    ("man", 6, 12, "man", "/var/cache/man", "/usr/sbin/nologin"),
    ("lp", 7, 7, "lp", "/var/spool/lpd", "/usr/sbin/nologin"),
    ("mail", 8, 8, "mail", "/var/mail", "/usr/sbin/nologin"),
    ("news", 9, 9, "news", "/var/spool/news", "/usr/sbin/nologin"),
    ("uucp", 10, 10, "uucp", "/var/spool/uucp", "/usr/sbin/nologin"),
    ("proxy", 13, 13, "proxy", "/bin", "/usr/sbin/nologin"),
    ("www-data", 33, 33, "www-data", "/var/www", "/usr/sbin/nologin"),
    ("backup", 34, 34, "backup", "/var/backups", "/usr/sbin/nologin"),
    ("list", 38, 38, "Mailing List Manager", "/var/list", "/usr/sbin/nologin"),
    ("irc", 39, 39, "ircd", "/run/ircd", "/usr/sbin/nologin"),
    ("_apt", 42, 65534, "", "/nonexistent", "/usr/sbin/nologin"),
    ("nobody", 65534, 65534, "nobody", "/nonexistent", "/usr/sbin/nologin"),
)
_LIS_GROUPS = (
    ("root", 0), ("daemon", 1), ("bin", 2), ("sys", 3), ("adm", 4), ("tty", 5), ("disk", 6),
    ("lp", 7), ("mail", 8), ("news", 9), ("uucp", 10), ("man", 12), ("proxy", 13),
    ("kmem", 15), ("dialout", 20), ("fax", 21), ("voice", 22), ("cdrom", 24), ("floppy", 25),
    ("tape", 26), ("sudo", 27), ("audio", 29), ("dip", 30), ("www-data", 33), ("backup", 34),
    ("operator", 37), ("list", 38), ("irc", 39), ("src", 40), ("shadow", 42), ("utmp", 43),
    ("video", 44), ("sasl", 45), ("plugdev", 46), ("staff", 50), ("games", 60),
    ("users", 100), ("nogroup", 65534),
)
# What `nproc` says in the shell (bashkit's virtual machine): os.cpu_count() agrees.
_LIS_CPUS = 4


def _lis_struct(module, name, fields):
    # A structseq look-alike: a tuple with named fields and CPython's repr.
    import collections

    base = collections.namedtuple(name, fields)

    class Struct(base):
        __slots__ = ()
        n_fields = n_sequence_fields = len(fields)
        n_unnamed_fields = 0

        def __repr__(self):
            inner = ", ".join("%s=%r" % (f, getattr(self, f)) for f in fields)
            return "%s.%s(%s)" % (module, name, inner)

    Struct.__name__ = Struct.__qualname__ = name
    Struct.__module__ = module
    return Struct


def _lis_identity(os, sys, types):
    def zero():
        return 0

    for name in ("getuid", "geteuid", "getgid", "getegid"):
        if not hasattr(os, name):
            setattr(os, name, zero)
    if not hasattr(os, "getgroups"):
        os.getgroups = lambda: [0]
    if not hasattr(os, "getlogin"):
        os.getlogin = lambda: "root"
    if not hasattr(os, "getresuid"):
        os.getresuid = lambda: (0, 0, 0)
        os.getresgid = lambda: (0, 0, 0)
    if not hasattr(os, "getppid"):
        os.getppid = lambda: 1
    if not hasattr(os, "getpgrp"):
        os.getpgrp = os.getpid if hasattr(os, "getpid") else zero
    if not hasattr(os, "getpid"):
        os.getpid = lambda: 1

    def setter(what):
        def set_id(value):
            if value != 0:
                raise PermissionError(1, "Operation not permitted (this sandbox has one user, root)")

        set_id.__name__ = what
        return set_id

    for name in ("setuid", "seteuid", "setgid", "setegid"):
        if not hasattr(os, name):
            setattr(os, name, setter(name))
    if not hasattr(os, "umask"):
        mask = [0o022]

        def umask(new):
            old, mask[0] = mask[0], _lis_index(new, "mask") & 0o777
            return old

        os.umask = umask
    os.cpu_count = lambda: _LIS_CPUS
    os.process_cpu_count = lambda: _LIS_CPUS
    if not hasattr(os, "sched_getaffinity"):
        os.sched_getaffinity = lambda pid: set(range(_LIS_CPUS))

    if "pwd" not in sys.modules:
        pwd = types.ModuleType("pwd", "Access to the password database (this sandbox's).")
        Passwd = _lis_struct(
            "pwd",
            "struct_passwd",
            ("pw_name", "pw_passwd", "pw_uid", "pw_gid", "pw_gecos", "pw_dir", "pw_shell"),
        )
        entries = [Passwd(n, "x", u, g, c, d, s) for n, u, g, c, d, s in _LIS_PASSWD]

        def getpwuid(uid):
            uid = _lis_index(uid, "uid")
            for e in entries:
                if e.pw_uid == uid:
                    return e
            raise KeyError("getpwuid(): uid not found: %d" % uid)

        def getpwnam(name):
            if not isinstance(name, str):
                raise TypeError("getpwnam() argument must be str, not %s" % type(name).__name__)
            for e in entries:
                if e.pw_name == name:
                    return e
            raise KeyError("getpwnam(): name not found: %r" % name)

        pwd.struct_passwd = Passwd
        pwd.getpwuid, pwd.getpwnam = getpwuid, getpwnam
        pwd.getpwall = lambda: list(entries)
        sys.modules["pwd"] = pwd
    if "grp" not in sys.modules:
        grp = types.ModuleType("grp", "Access to the group database (this sandbox's).")
        Group = _lis_struct("grp", "struct_group", ("gr_name", "gr_passwd", "gr_gid", "gr_mem"))
        groups = [Group(n, "x", g, []) for n, g in _LIS_GROUPS]

        def getgrgid(gid):
            gid = _lis_index(gid, "gid")
            for e in groups:
                if e.gr_gid == gid:
                    return e
            raise KeyError("getgrgid(): gid not found: %d" % gid)

        def getgrnam(name):
            if not isinstance(name, str):
                raise TypeError("getgrnam() argument must be str, not %s" % type(name).__name__)
            for e in groups:
                if e.gr_name == name:
                    return e
            raise KeyError("getgrnam(): name not found: %r" % name)

        grp.struct_group = Group
        grp.getgrgid, grp.getgrnam = getgrgid, getgrnam
        grp.getgrall = lambda: list(groups)
        sys.modules["grp"] = grp


def _lis_index(value, what):
    try:
        return value.__index__()
    except AttributeError:
        raise TypeError("%s should be integer, not %s" % (what, type(value).__name__)) from None


# ---- Threads (cooperative) -------------------------------------------------------------------


class _LisAbandon(BaseException):
    # Unwinds a thread that cannot be suspended (see the top of this file). Caught by the
    # thread's own run wrapper; user code sees it only if it catches BaseException.
    pass


# How long a thread running inside another's wait may go on waiting on timers once that other
# thread could go on, before it is stopped (a loop that sleeps until its starter sets a flag
# would otherwise never give control back).
_LIS_LATE = 1.0


class _LisThreads:
    # The scheduler's state: threads started and not yet run (in start order), the virtual
    # threads running (innermost last: each runs inside a wait of the one below it), the waits
    # in progress (outermost first), the timer of signal.alarm/setitimer.
    def __init__(self, real_ident):
        import collections

        self.pending = collections.deque()
        self.stack = []
        self.waits = []
        self.stopping = set()
        self.lost = []
        self.main_ident = real_ident
        self.count = 0
        self.used = False
        self.alarm_at = None
        self.alarm_interval = 0.0
        self.alarm_signal = 14
        self.handlers = {}
        self.monitoring = False
        self.fired = 0


def _lis_never():
    return False


def _lis_thread_name(S):
    if S.stack:
        return "thread %r" % S.stack[-1].name
    return "the main thread"


def _lis_wait(ready, timeout, what):
    # Block the current (virtual) thread until `ready()` (True) or `timeout` seconds pass
    # (False; None: no limit). Runs the threads started so far meanwhile; see the top of this
    # file for when a thread is stopped and when this raises instead of hanging.
    if ready():
        return True
    S = _lis_th
    if timeout is not None and timeout <= 0 and S.alarm_at is None:
        return False
    mono = _lis_mono
    me = S.stack[-1] if S.stack else None
    if me is not None and me in S.stopping:
        raise _LisAbandon()
    deadline = None if timeout is None else mono() + max(timeout, 0.0)
    S.waits.append((ready, deadline))
    try:
        while True:
            if S.alarm_at is not None:
                _lis_alarm_check(S)
                if ready():
                    return True
            if S.pending:
                _lis_run_thread(S, S.pending.popleft())
                if ready():
                    return True
                continue
            now = mono()
            if deadline is not None and now >= deadline:
                return False
            if me is not None:
                outer_can, outer_later = False, False
                for r, d in S.waits[:-1]:
                    if (d is not None and d <= now) or r():
                        outer_can = True
                        break
                    if d is not None:
                        outer_later = True
                if deadline is None and (outer_can or outer_later):
                    _lis_stop(S, me, what)
                if outer_can:
                    late = getattr(me, "_lis_late_since", None)
                    if late is None:
                        me._lis_late_since = now
                    elif now - late >= _LIS_LATE:
                        _lis_stop(S, me, what)
            wake = deadline
            if S.alarm_at is not None and (wake is None or S.alarm_at < wake):
                wake = S.alarm_at
            if wake is None:
                raise RuntimeError(
                    "deadlock: %s waits in %s and no other thread can run, so it would wait "
                    "forever. Threads in this sandbox run one at a time (WASI has no threads: a "
                    "started thread runs when the thread that started it blocks), so a program "
                    "whose threads must run at the same time cannot work here"
                    % (_lis_thread_name(S), what)
                )
            if wake > now:
                _lis_real_sleep(wake - now)
            if ready():
                return True
    finally:
        S.waits.pop()


def _lis_stop(S, me, what):
    S.stopping.add(me)
    me._lis_stopped_in = what
    raise _LisAbandon()


def _lis_run_thread(S, t):
    S.stack.append(t)
    events = _lis_sys.modules.get("asyncio.events")
    loop = None
    if events is not None:
        # The running loop is kept per OS thread: a thread run here must not see its starter's.
        loop = events._get_running_loop()
        events._set_running_loop(None)
    try:
        t._bootstrap_inner()
    except _LisAbandon:
        pass
    finally:
        S.stack.pop()
        S.stopping.discard(t)
        if events is not None:
            events._set_running_loop(loop)
        t._lis_handle._done = True


class _LisHandle:
    # Stands for the OS thread handle `Thread.join`/`is_alive` ask.
    __slots__ = ("ident", "_done")

    def __init__(self, ident):
        self.ident = ident
        self._done = False

    def is_done(self):
        return self._done

    def _set_done(self):
        self._done = True

    def join(self, timeout=None):
        _lis_wait(self.is_done, timeout, "Thread.join()")


def _lis_thread_start(self):
    threading = _lis_sys.modules["threading"]
    if not self._initialized:
        raise RuntimeError("thread.__init__() not called")
    if self._started.is_set():
        raise RuntimeError("threads can only be started once")
    S = _lis_th
    S.used = True
    with threading._active_limbo_lock:
        threading._limbo[self] = self
    if hasattr(self, "_context") and self._context is None:
        import contextvars

        inherit = getattr(_lis_sys.flags, "thread_inherit_context", False)
        self._context = contextvars.copy_context() if inherit else contextvars.Context()
    S.count += 1
    self._ident = S.main_ident + S.count
    if hasattr(self, "_native_id"):
        self._native_id = self._ident
    handle = _LisHandle(self._ident)
    self._lis_handle = handle
    for name in ("_os_thread_handle", "_handle"):
        if hasattr(self, name):
            setattr(self, name, handle)
    run = self.run
    target = getattr(self, "_target", None)
    quiet = getattr(target, "__module__", "") in ("concurrent.futures.thread",)

    def run_here():
        try:
            run()
        except _LisAbandon:
            if not self.daemon and not quiet:
                S.lost.append(self)

    self.run = run_here
    self._started.set()
    S.pending.append(self)


def _lis_get_ident():
    S = _lis_th
    return S.stack[-1]._ident if S.stack else S.main_ident


class _LisLock:
    # threading.Lock for cooperative threads: acquiring a held lock is a blocking point.
    __slots__ = ("_held", "__weakref__")

    def __init__(self):
        self._held = False

    def acquire(self, blocking=True, timeout=-1):
        if not self._held:
            self._held = True
            return True
        if not blocking:
            if timeout != -1:
                raise ValueError("can't specify a timeout for a non-blocking call")
            return False
        if timeout != -1 and timeout < 0:
            raise ValueError("timeout value must be a non-negative number")
        if _lis_wait(self._free, None if timeout == -1 else timeout, "Lock.acquire()"):
            self._held = True
            return True
        return False

    def _free(self):
        return not self._held

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()

    def release(self):
        if not self._held:
            raise RuntimeError("release unlocked lock")
        self._held = False

    def locked(self):
        return self._held

    def _at_fork_reinit(self):
        self._held = False

    acquire_lock = acquire
    release_lock = release
    locked_lock = locked

    def __repr__(self):
        return "<%s _thread.lock object at %#x>" % (
            "locked" if self._held else "unlocked",
            id(self),
        )


_LisLock.__name__ = _LisLock.__qualname__ = "lock"
_LisLock.__module__ = "_thread"


def _lis_sleep(secs):
    S = _lis_th
    if not S.pending and not S.stack and S.alarm_at is None:
        return _lis_real_sleep(secs)
    if not isinstance(secs, (int, float)):
        secs = float(secs)
    if secs != secs or secs < 0:
        raise ValueError("sleep length must be non-negative")
    _lis_wait(_lis_never, secs, "time.sleep()")


def _lis_patch_threading(threading):
    if getattr(threading, "_lis_patched", False):
        return
    threading._lis_patched = True
    threading.Thread.start = _lis_thread_start
    threading.get_ident = _lis_get_ident
    if hasattr(threading, "get_native_id"):
        threading.get_native_id = _lis_get_ident
    threading.Lock = _LisLock
    threading._allocate_lock = _LisLock
    threading._CRLock = None
    import _threading_local

    threading.local = _threading_local.local
    # Thread names count from 1 in a fresh process ("Thread-1 (work)").
    import itertools

    threading._counter = itertools.count(1).__next__


def _lis_patch_queue(queue):
    queue.SimpleQueue = queue._PySimpleQueue
    put = queue.Queue.put

    def elastic_put(self, item, block=True, timeout=None):
        # A blocking put into a full queue does not wait: the consumer that would make room
        # may be the thread this one runs inside (it cannot run until this returns), or may
        # run only once this thread blocks. maxsize still answers full() and put(block=False).
        if not block or self.maxsize <= 0:
            return put(self, item, block, timeout)
        with self.not_full:
            if self.is_shutdown if hasattr(self, "is_shutdown") else False:
                raise queue.ShutDown
            self._put(item)
            self.unfinished_tasks += 1
            self.not_empty.notify()

    queue.Queue.put = elastic_put


def _lis_threads_exit():
    # What the interpreter does at exit (threading._shutdown): the threading atexit calls
    # (executors' shutdown), then every non-daemon thread runs to its end.
    S = _lis_th
    if not S.used:
        return
    threading = _lis_sys.modules["threading"]
    threading._SHUTTING_DOWN = True
    for call in reversed(list(getattr(threading, "_threading_atexits", ()))):
        try:
            call()
        except BaseException:  # noqa: BLE001 - reported as CPython reports it
            import traceback

            traceback.print_exc()
    while True:
        waiting = [t for t in S.pending if not t.daemon]
        if not waiting:
            break
        try:
            waiting[-1].join()
        except BaseException:  # noqa: BLE001
            import traceback

            traceback.print_exc()
            break
    for t in S.lost:
        _lis_sys.stderr.write(
            "note: %r was stopped in %s before its end: threads in this sandbox run one at a "
            "time, and it could not go on once the thread that started it had to\n"
            % (t.name, getattr(t, "_lis_stopped_in", "a wait"))
        )


# ---- signal.alarm / setitimer ----------------------------------------------------------------
# WASI delivers no signals. The timer lives here: it fires at blocking points (time.sleep, the
# waits above, the event loop's idle wait) and, while armed, at function starts and loop jumps
# through sys.monitoring (which costs only while a timer is armed).

_LIS_TIMER_SIGNALS = {0: 14, 1: 26, 2: 27}  # ITIMER_REAL/VIRTUAL/PROF -> SIGALRM/VTALRM/PROF
_LIS_MONITOR_TOOL = 5


def _lis_arm(S, delay, interval, signum):
    S.alarm_at = None if not delay or delay <= 0 else _lis_mono() + delay
    S.alarm_interval = interval if S.alarm_at is not None else 0.0
    S.alarm_signal = signum
    if S.alarm_at is not None:
        S.used = True
    _lis_monitor(S, S.alarm_at is not None)


def _lis_monitor(S, on):
    monitoring = getattr(_lis_sys, "monitoring", None)
    if monitoring is None or on == S.monitoring:
        return
    tool = _LIS_MONITOR_TOOL
    events = monitoring.events
    wanted = events.PY_START | events.JUMP | events.PY_RESUME
    if on:
        try:
            monitoring.use_tool_id(tool, "llm-in-sandbox timers")
        except ValueError:
            return
        for event in (events.PY_START, events.JUMP, events.PY_RESUME):
            monitoring.register_callback(tool, event, _lis_timer_tick)
        monitoring.set_events(tool, wanted)
        S.monitoring = True
    else:
        monitoring.set_events(tool, 0)
        for event in (events.PY_START, events.JUMP, events.PY_RESUME):
            monitoring.register_callback(tool, event, None)
        monitoring.free_tool_id(tool)
        S.monitoring = False


def _lis_timer_tick(*args):
    S = _lis_th
    at = S.alarm_at
    if at is not None and _lis_mono() >= at:
        _lis_alarm_check(S, _lis_sys._getframe(1))


def _lis_remaining(S):
    if S.alarm_at is None:
        return 0.0
    return max(S.alarm_at - _lis_mono(), 0.0)


def _lis_alarm_check(S, frame=None):
    at = S.alarm_at
    if at is None or _lis_mono() < at:
        return
    signum = S.alarm_signal
    if S.alarm_interval > 0:
        S.alarm_at = at + S.alarm_interval
    else:
        _lis_arm(S, None, 0.0, signum)
    S.fired += 1
    handler = S.handlers.get(signum, 0)
    if handler == 1:  # SIG_IGN
        return
    if not callable(handler):
        # SIG_DFL: the program ends as killed by the signal, with the status and message
        # bash gives (WASI's exit cannot carry a status over 125: it ends by SystemExit).
        _lis_sys.stderr.write({14: "Alarm clock", 26: "Virtual timer expired"}.get(
            signum, "Profiling timer expired") + "\n")
        raise SystemExit(128 + signum)
    if frame is None:
        frame = _lis_sys._getframe(2)
    handler(signum, frame)


def _lis_patch_signal(signal):
    S = _lis_th
    real_signal = getattr(signal, "signal", None)
    real_getsignal = getattr(signal, "getsignal", None)
    for name, value in (("SIGALRM", 14), ("SIGVTALRM", 26), ("SIGPROF", 27),
                        ("ITIMER_REAL", 0), ("ITIMER_VIRTUAL", 1), ("ITIMER_PROF", 2)):
        if not hasattr(signal, name):
            setattr(signal, name, value)
    if not hasattr(signal, "ItimerError"):
        class ItimerError(OSError):
            pass

        ItimerError.__module__ = "signal"
        signal.ItimerError = ItimerError
    timers = set(_LIS_TIMER_SIGNALS.values())

    def signal_(signalnum, handler):
        num = int(signalnum)
        if num in timers:
            if not (callable(handler) or handler in (0, 1)):
                raise TypeError(
                    "signal handler must be signal.SIG_IGN, signal.SIG_DFL, or a callable object"
                )
            old = S.handlers.get(num, 0)
            S.handlers[num] = handler
            return _lis_handler_value(signal, old)
        return real_signal(signalnum, handler)

    def getsignal(signalnum):
        num = int(signalnum)
        if num in timers:
            return _lis_handler_value(signal, S.handlers.get(num, 0))
        return real_getsignal(signalnum)

    def alarm(seconds):
        seconds = _lis_index(seconds, "an integer")
        left = _lis_remaining(S)
        _lis_arm(S, seconds, 0.0, 14)
        return 0 if left <= 0 else max(1, int(left + 0.5))

    def setitimer(which, seconds, interval=0.0):
        if which not in _LIS_TIMER_SIGNALS:
            raise signal.ItimerError(22, "Invalid argument")
        old = (_lis_remaining(S), S.alarm_interval)
        _lis_arm(S, float(seconds), float(interval), _LIS_TIMER_SIGNALS[which])
        return old

    def getitimer(which):
        if which not in _LIS_TIMER_SIGNALS:
            raise signal.ItimerError(22, "Invalid argument")
        return (_lis_remaining(S), S.alarm_interval)

    def pause():
        fired = S.fired
        _lis_wait(lambda: S.fired != fired, None, "signal.pause()")

    signal_.__name__, alarm.__name__ = "signal", "alarm"
    for name, fn in (("signal", signal_), ("getsignal", getsignal), ("alarm", alarm),
                     ("setitimer", setitimer), ("getitimer", getitimer), ("pause", pause)):
        fn.__module__ = "signal"
        setattr(signal, name, fn)


def _lis_handler_value(signal, h):
    if h == 0:
        return getattr(signal, "SIG_DFL", 0)
    if h == 1:
        return getattr(signal, "SIG_IGN", 1)
    return h


# ---- asyncio ---------------------------------------------------------------------------------
# The selector event loop wakes itself through a socket pair, which WASI cannot make. Here the
# loop's idle wait is a blocking point of the scheduler above: it ends at the next timer or
# when another thread hands the loop a callback (call_soon_threadsafe sets a flag).


def _lis_patch_selector_events(mod):
    import selectors

    class _LisSelector(selectors.BaseSelector):
        def __init__(self):
            self._keys = {}
            self._lis_woken = False

        def register(self, fileobj, events, data=None):
            fd = selectors._fileobj_to_fd(fileobj)
            if fd in self._keys:
                raise KeyError("%r (FD %d) is already registered" % (fileobj, fd))
            key = selectors.SelectorKey(fileobj, fd, events, data)
            self._keys[fd] = key
            return key

        def unregister(self, fileobj):
            fd = selectors._fileobj_to_fd(fileobj)
            try:
                return self._keys.pop(fd)
            except KeyError:
                raise KeyError("%r is not registered" % (fileobj,)) from None

        def _woken(self):
            return self._lis_woken

        def select(self, timeout=None):
            if not self._lis_woken and (timeout is None or timeout > 0):
                _lis_wait(self._woken, timeout, "the asyncio event loop (nothing left to wake it)")
            self._lis_woken = False
            return []

        def close(self):
            self._keys.clear()

        def get_map(self):
            return dict(self._keys)

    base = mod.BaseSelectorEventLoop
    init = base.__init__

    def __init__(self, selector=None):
        init(self, _LisSelector() if selector is None else selector)

    def _make_self_pipe(self):
        self._ssock = self._csock = None

    def _close_self_pipe(self):
        pass

    def _write_to_self(self):
        selector = self._selector
        if selector is not None:
            selector._lis_woken = True

    base.__init__ = __init__
    base._make_self_pipe = _make_self_pipe
    base._close_self_pipe = _close_self_pipe
    base._write_to_self = _write_to_self


def _lis_patch_futures_thread(mod):
    # A worker stopped in its idle wait (see _LisAbandon) is not an error worth logging.
    class Quiet:
        @staticmethod
        def filter(record):
            info = record.exc_info
            return not (info and info[0] is _LisAbandon)

    mod._base.LOGGER.addFilter(Quiet)
    adjust = mod.ThreadPoolExecutor._adjust_thread_count

    def _adjust_thread_count(self):
        # A worker that went idle was stopped in its wait (see _LisAbandon) but counted itself
        # idle: forget it, so that new work gets a worker, unless one is still to run or
        # running (it takes the new work when it gets to it).
        S = _lis_th
        for t in list(self._threads):
            handle = getattr(t, "_lis_handle", None)
            if handle is not None and handle._done:
                self._threads.discard(t)
                mod._threads_queues.pop(t, None)
        if any(t in S.pending or t in S.stack for t in self._threads):
            return
        while self._idle_semaphore.acquire(timeout=0):
            pass
        adjust(self)

    mod.ThreadPoolExecutor._adjust_thread_count = _adjust_thread_count


# ---- Process pools and multiprocessing, as the cooperative threads above -------------------
# There are no processes: a "process" is a thread here (module state is shared, arguments are
# not pickled). Results and the usual APIs are those of Linux.


def _lis_patch_futures(mod):
    from concurrent.futures.thread import ThreadPoolExecutor

    class ProcessPoolExecutor(ThreadPoolExecutor):
        def __init__(self, max_workers=None, mp_context=None, initializer=None, initargs=(),
                     *, max_tasks_per_child=None):
            if max_workers is None:
                max_workers = _LIS_CPUS
            elif max_workers <= 0:
                raise ValueError("max_workers must be greater than 0")
            super().__init__(max_workers, "ProcessPoolExecutor", initializer, initargs)

    ProcessPoolExecutor.__module__ = "concurrent.futures.process"
    mod.ProcessPoolExecutor = ProcessPoolExecutor


def _lis_patch_futures_process(mod):
    futures = _lis_sys.modules.get("concurrent.futures")
    if futures is not None and "ProcessPoolExecutor" in futures.__dict__:
        mod.ProcessPoolExecutor = futures.ProcessPoolExecutor


def _lis_mp_pool(mp):
    from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout

    class AsyncResult:
        def __init__(self, futures, single, callback, error_callback):
            self._futures, self._single = futures, single
            self._callback, self._error_callback = callback, error_callback
            self._reported = False

        def _report(self):
            if self._reported or not self.ready():
                return
            self._reported = True
            error = next((f.exception() for f in self._futures if f.exception()), None)
            if error is not None:
                if self._error_callback is not None:
                    self._error_callback(error)
            elif self._callback is not None:
                self._callback(self._value())

        def _value(self):
            values = [f.result() for f in self._futures]
            return values[0] if self._single else values

        def ready(self):
            return all(f.done() for f in self._futures)

        def successful(self):
            if not self.ready():
                raise ValueError("%r not ready" % self)
            return all(f.exception() is None for f in self._futures)

        def wait(self, timeout=None):
            import concurrent.futures as cf

            cf.wait(self._futures, timeout)
            self._report()

        def get(self, timeout=None):
            self.wait(timeout)
            if not self.ready():
                raise mp.TimeoutError
            return self._value()

    class Pool:
        def __init__(self, processes=None, initializer=None, initargs=(),
                     maxtasksperchild=None, context=None):
            if processes is None:
                processes = _LIS_CPUS
            if processes < 1:
                raise ValueError("Number of processes must be at least 1")
            if initializer is not None and not callable(initializer):
                raise TypeError("initializer must be a callable")
            self._processes = processes
            self._executor = ThreadPoolExecutor(processes, "ForkPoolWorker", initializer,
                                                initargs)
            self._state = "RUN"

        def _check_running(self):
            if self._state != "RUN":
                raise ValueError("Pool not running")

        def _submit(self, func, calls, single, callback, error_callback):
            self._check_running()
            futures = [self._executor.submit(func, *a, **k) for a, k in calls]
            result = AsyncResult(futures, single, callback, error_callback)
            if callback is not None or error_callback is not None:
                for f in futures:
                    f.add_done_callback(lambda _f: result._report())
            return result

        def apply_async(self, func, args=(), kwds={}, callback=None, error_callback=None):
            return self._submit(func, [(args, kwds)], True, callback, error_callback)

        def apply(self, func, args=(), kwds={}):
            return self.apply_async(func, args, kwds).get()

        def map_async(self, func, iterable, chunksize=None, callback=None, error_callback=None):
            return self._submit(func, [((x,), {}) for x in iterable], False, callback,
                                error_callback)

        def map(self, func, iterable, chunksize=None):
            return self.map_async(func, iterable, chunksize).get()

        def starmap_async(self, func, iterable, chunksize=None, callback=None,
                          error_callback=None):
            return self._submit(func, [(tuple(a), {}) for a in iterable], False, callback,
                                error_callback)

        def starmap(self, func, iterable, chunksize=None):
            return self.starmap_async(func, iterable, chunksize).get()

        def imap(self, func, iterable, chunksize=1):
            self._check_running()
            futures = [self._executor.submit(func, x) for x in iterable]
            return (f.result() for f in futures)

        def imap_unordered(self, func, iterable, chunksize=1):
            import concurrent.futures as cf

            self._check_running()
            futures = [self._executor.submit(func, x) for x in iterable]
            return (f.result() for f in cf.as_completed(futures))

        def close(self):
            if self._state == "RUN":
                self._state = "CLOSE"

        def terminate(self):
            self._state = "TERMINATE"
            self._executor.shutdown(wait=True, cancel_futures=True)

        def join(self):
            if self._state == "RUN":
                raise ValueError("Pool is still running")
            self._executor.shutdown(wait=True)

        def __enter__(self):
            self._check_running()
            return self

        def __exit__(self, *exc):
            self.terminate()

        def __repr__(self):
            return "<multiprocessing.pool.Pool state=%s pool_size=%d>" % (
                self._state, self._processes)

    Pool.__module__ = AsyncResult.__module__ = "multiprocessing.pool"

    class ThreadPool(Pool):
        def __init__(self, processes=None, initializer=None, initargs=()):
            super().__init__(processes, initializer, initargs)

    ThreadPool.__module__ = "multiprocessing.pool"
    return Pool, ThreadPool, AsyncResult


def _lis_patch_multiprocessing(mp):
    if getattr(mp, "_lis_patched", False):
        return
    mp._lis_patched = True
    import itertools
    import queue as queue_mod
    import threading

    counter = itertools.count(1)
    S = _lis_th

    class Process(threading.Thread):
        def __init__(self, group=None, target=None, name=None, args=(), kwargs={}, *,
                     daemon=None):
            number = next(counter)
            super().__init__(None, target, name or "Process-%d" % number, args,
                             dict(kwargs), daemon=daemon)
            self._lis_number = number
            self._lis_exitcode = None
            self._lis_pid = None
            self.authkey = b""

        @property
        def pid(self):
            return self._lis_pid

        ident = pid

        @property
        def exitcode(self):
            return self._lis_exitcode

        def start(self):
            run = self.run

            def run_as_process():
                try:
                    run()
                    self._lis_exitcode = 0
                except SystemExit as e:
                    code = e.code
                    self._lis_exitcode = code if isinstance(code, int) else (0 if code is None
                                                                            else 1)
                    if code is not None and not isinstance(code, int):
                        _lis_sys.stderr.write(str(code) + "\n")
                except _LisAbandon:
                    raise
                except BaseException:  # noqa: BLE001 - a process prints and exits 1
                    import traceback

                    _lis_sys.stderr.write("Process %s:\n" % self.name)
                    traceback.print_exc()
                    self._lis_exitcode = 1

            self.run = run_as_process
            threading.Thread.start(self)
            self._lis_pid = 100 + self._lis_number

        def terminate(self):
            if self in S.pending:
                S.pending.remove(self)
                self._lis_handle._done = True
                self._lis_exitcode = -15
                with threading._active_limbo_lock:
                    threading._limbo.pop(self, None)

        kill = terminate

        def close(self):
            pass

        @property
        def sentinel(self):
            return self._lis_pid

    Process.__module__ = "multiprocessing.context"

    class Queue(queue_mod.Queue):
        def __init__(self, maxsize=0, *, ctx=None):
            super().__init__(maxsize)

        def close(self):
            pass

        def join_thread(self):
            pass

        def cancel_join_thread(self):
            pass

    class JoinableQueue(Queue):
        pass

    class SimpleQueue(Queue):
        pass

    for cls in (Queue, JoinableQueue, SimpleQueue):
        cls.__module__ = "multiprocessing.queues"

    class Value:
        def __init__(self, typecode_or_type, *args, lock=True, ctx=None):
            self._typecode = typecode_or_type
            self.value = args[0] if args else (0.0 if typecode_or_type in "fd" else 0)
            self._lock = threading.RLock() if lock is True else lock

        def get_lock(self):
            return self._lock

        def get_obj(self):
            return self

        def __repr__(self):
            return "<Synchronized wrapper for c_%s(%r)>" % (self._typecode, self.value)

    class Array(list):
        def __init__(self, typecode_or_type, size_or_initializer, *, lock=True, ctx=None):
            if isinstance(size_or_initializer, int):
                zero = 0.0 if typecode_or_type in "fd" else 0
                super().__init__([zero] * size_or_initializer)
            else:
                super().__init__(size_or_initializer)
            self._lock = threading.RLock() if lock is True else lock

        def get_lock(self):
            return self._lock

        def get_obj(self):
            return self

    class Connection:
        def __init__(self, inbox, outbox):
            self._in, self._out = inbox, outbox
            self.closed = False

        def send(self, obj):
            if self.closed:
                raise OSError("handle is closed")
            self._out.append(obj)

        send_bytes = send

        def recv(self):
            if not _lis_wait(lambda: bool(self._in) or self._peer_closed(), None,
                             "Connection.recv()") or not self._in:
                raise EOFError
            return self._in.popleft()

        recv_bytes = recv

        def poll(self, timeout=0.0):
            return _lis_wait(lambda: bool(self._in), timeout, "Connection.poll()")

        def _peer_closed(self):
            return getattr(self, "_peer", None) is not None and self._peer.closed

        def close(self):
            self.closed = True

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

    def Pipe(duplex=True):
        import collections

        a, b = collections.deque(), collections.deque()
        left, right = Connection(a, b), Connection(b, a)
        left._peer, right._peer = right, left
        return left, right

    class Manager:
        def __init__(self, *args, **kwargs):
            pass

        def start(self, *args):
            pass

        def shutdown(self):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        dict = staticmethod(dict)
        list = staticmethod(list)
        Queue = staticmethod(lambda maxsize=0: Queue(maxsize))
        JoinableQueue = Queue
        Value = staticmethod(lambda typecode, value, lock=True: Value(typecode, value,
                                                                        lock=lock))
        Array = staticmethod(lambda typecode, seq, lock=True: Array(typecode, seq, lock=lock))
        Lock = staticmethod(threading.Lock)
        RLock = staticmethod(threading.RLock)
        Event = staticmethod(threading.Event)
        Semaphore = staticmethod(threading.Semaphore)
        Condition = staticmethod(threading.Condition)
        Barrier = staticmethod(threading.Barrier)

        @staticmethod
        def Namespace(**kwargs):
            import types

            return types.SimpleNamespace(**kwargs)

    main_process = getattr(mp, "current_process", lambda: None)()

    def current_process():
        t = threading.current_thread()
        return t if isinstance(t, Process) else main_process

    def active_children():
        return [t for t in threading.enumerate() if isinstance(t, Process) and t.is_alive()]

    Pool, ThreadPool, _ = _lis_mp_pool(mp)

    def get_context(method=None):
        return mp

    def set_start_method(method, force=False):
        pass

    names = dict(
        Process=Process, Queue=Queue, JoinableQueue=JoinableQueue, SimpleQueue=SimpleQueue,
        Value=Value, Array=Array, RawValue=Value, RawArray=Array, Pipe=Pipe, Manager=Manager,
        Pool=Pool, cpu_count=lambda: _LIS_CPUS, current_process=current_process,
        active_children=active_children, parent_process=lambda: None,
        get_context=get_context, set_start_method=set_start_method,
        get_start_method=lambda allow_none=False: "fork",
        get_all_start_methods=lambda: ["fork", "spawn", "forkserver"],
        freeze_support=lambda: None, Lock=threading.Lock, RLock=threading.RLock,
        Event=threading.Event, Semaphore=threading.Semaphore,
        BoundedSemaphore=threading.BoundedSemaphore, Condition=threading.Condition,
        Barrier=threading.Barrier,
    )
    for name, value in names.items():
        setattr(mp, name, value)
    if not hasattr(mp, "TimeoutError"):
        mp.TimeoutError = TimeoutError
    mp._lis_pools = (Pool, ThreadPool)


def _lis_patch_mp_pool(mod):
    mp = _lis_sys.modules.get("multiprocessing")
    if mp is not None and hasattr(mp, "_lis_pools"):
        mod.Pool, mod.ThreadPool = mp._lis_pools


def _lis_patch_mp_dummy(mod):
    mp = _lis_sys.modules.get("multiprocessing")
    if mp is not None and hasattr(mp, "_lis_pools"):
        pool = mp._lis_pools[1]
        mod.Pool = lambda processes=None, initializer=None, initargs=(): pool(
            processes, initializer, initargs)



# ---- Commands: subprocess, os.system, os.popen, shutil.which -------------------------------
# WASI has no processes: a command goes through the host door (`proc`) to a fresh in-process
# shell over the same sandbox (docs/linux-compatibility.md). It runs when its result is first
# needed (communicate, wait, poll, reading a pipe, the end of the program), so the timeout
# of communicate/run bounds it; it cannot run alongside the Python program.

_LIS_DEFAULT_ENV = ("HOME", "TMPDIR", "PATH", "LANG", "MPLBACKEND", "PYTHONTZPATH")


def _lis_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def _lis_proc(script, program, stdin, timeout):
    meta = {"script": script, "program": program, "timeout": timeout}
    frame = b"proc\0" + _lis_json.dumps(meta).encode() + b"\0" + stdin
    try:
        out = _lis_host.call(frame)
    except ConnectionRefusedError:
        raise OSError(
            "cannot start a command: this python3 was not started from the sandbox's shell"
        ) from None
    head, _, rest = out.partition(b"\0")
    answer = _lis_json.loads(head)
    if not answer.get("ok"):
        if answer.get("error") == "notfound":
            raise FileNotFoundError(2, "No such file or directory", program)
        raise OSError(answer.get("message", "the command could not be run"))
    n = answer["stdout"]
    return answer["status"], rest[:n], rest[n:], answer["timed_out"]


def _lis_command(args, shell, executable, cwd, env):
    # (bash script, program that must exist or None)
    os = _lis_os
    decode = lambda a: os.fsdecode(a) if isinstance(a, (bytes, bytearray)) else os.fspath(a)
    if isinstance(args, (str, bytes, bytearray)) or hasattr(args, "__fspath__"):
        argv = [decode(args)]
    else:
        argv = [decode(a) for a in args]
    if not argv:
        raise IndexError("list index out of range")
    program = None
    if shell:
        command = argv[0]
        if len(argv) > 1:
            command = "bash -c %s %s" % (_lis_quote(argv[0]), " ".join(map(_lis_quote, argv[1:])))
    else:
        program = decode(executable) if executable is not None else argv[0]
        command = " ".join(_lis_quote(a) for a in [program] + argv[1:])
    environ = os.environ if env is None else env
    lines = ["cd -- %s || exit 1" % _lis_quote(cwd)]
    for key in _LIS_DEFAULT_ENV:
        if key not in environ:
            lines.append("unset %s" % key)
    for key, value in environ.items():
        key, value = decode(key), decode(value)
        if key.isidentifier() and key.isascii():
            lines.append("export %s=%s" % (key, _lis_quote(value)))
    lines.append(command)
    return "\n".join(lines), program


def _lis_patch_subprocess(subprocess):
    import io
    import itertools
    import os

    PIPE, STDOUT, DEVNULL = subprocess.PIPE, subprocess.STDOUT, subprocess.DEVNULL
    pids = itertools.count(1000)
    waiting = []

    def read_source(source):
        if source is None or source == DEVNULL:
            return b""
        if isinstance(source, int):
            chunks = []
            while True:
                chunk = os.read(source, 1 << 16)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        data = source.read()
        return data.encode() if isinstance(data, str) else data

    class _StdinPipe:
        def __init__(self, proc, text, encoding, errors):
            self._proc, self._text = proc, text
            self._encoding, self._errors = encoding or "utf-8", errors or "strict"
            self.closed = False

        def write(self, data):
            if self.closed:
                raise ValueError("write to closed file")
            if self._text:
                data = data.encode(self._encoding, self._errors)
            self._proc._input += bytes(data)
            return len(data)

        def writelines(self, lines):
            for line in lines:
                self.write(line)

        def flush(self):
            pass

        def close(self):
            self.closed = True

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

    class _OutPipe:
        # A pipe end that is read after the command ran (reading runs it).
        def __init__(self, proc, which):
            self._proc, self._which, self._file = proc, which, None

        def _get(self):
            if self._file is None:
                self._proc._run(None)
                data = self._proc._out if self._which == 1 else self._proc._err
                self._proc._taken.add(self._which)
                raw = io.BytesIO(data)
                if self._proc.text_mode:
                    raw = io.TextIOWrapper(raw, encoding=self._proc._encoding,
                                           errors=self._proc._errors)
                self._file = raw
            return self._file

        def __getattr__(self, name):
            return getattr(self._get(), name)

        def __iter__(self):
            return iter(self._get())

        def close(self):
            if self._file is not None:
                self._file.close()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

    class Popen:
        def __init__(self, args, bufsize=-1, executable=None, stdin=None, stdout=None,
                     stderr=None, preexec_fn=None, close_fds=True, shell=False, cwd=None,
                     env=None, universal_newlines=None, startupinfo=None, creationflags=0,
                     restore_signals=True, start_new_session=False, pass_fds=(), *,
                     user=None, group=None, extra_groups=None, encoding=None, errors=None,
                     text=None, umask=-1, pipesize=-1, process_group=None):
            self.args = args
            self.returncode = None
            self.text_mode = bool(encoding or errors or text or universal_newlines)
            self._encoding = encoding or "utf-8"
            self._errors = errors or "strict"
            cwd = os.getcwd() if cwd is None else os.fsdecode(cwd)
            if not os.path.isdir(cwd):
                raise FileNotFoundError(2, "No such file or directory", cwd)
            self._script, self._program = _lis_command(args, shell, executable, cwd, env)
            self._modes = (stdin, stdout, stderr)
            self._input = b"" if stdin == PIPE else read_source(stdin)
            self._ran, self._timed_out, self._taken = False, False, set()
            self._out = self._err = b""
            self.stdin = (_StdinPipe(self, self.text_mode, encoding, errors)
                          if stdin == PIPE else None)
            self.stdout = _OutPipe(self, 1) if stdout == PIPE else None
            self.stderr = _OutPipe(self, 2) if stderr == PIPE else None
            self.pid = next(pids)
            if self._program is not None:
                # Fails now, as execve would.
                path = shutil_which(self._program)
                if path is None:
                    raise FileNotFoundError(2, "No such file or directory", self._program)
            waiting.append(self)

        def _run(self, timeout):
            if self._ran:
                if self._timed_out and self.returncode is None:
                    raise subprocess.TimeoutExpired(self.args, timeout, self._out, self._err)
                return
            self._ran = True
            if self in waiting:
                waiting.remove(self)
            status, out, err, timed_out = _lis_proc(self._script, None, self._input, timeout)
            _, stdout, stderr = self._modes
            if stderr == STDOUT:
                out, err = out + err, b""
            for fd, data, mode in ((1, out, stdout), (2, err, stderr)):
                if mode is None and data:
                    os.write(fd, data)
                elif mode not in (PIPE, DEVNULL, STDOUT, None):
                    if isinstance(mode, int):
                        os.write(mode, data)
                    elif "b" in getattr(mode, "mode", "b"):
                        mode.write(data)
                    else:
                        mode.write(data.decode(getattr(mode, "encoding", None) or "utf-8",
                                               "replace"))
            self._out = out if stdout == PIPE else b""
            self._err = err if stderr == PIPE else b""
            if timed_out:
                self._timed_out = True
                raise subprocess.TimeoutExpired(self.args, timeout, self._out, self._err)
            self.returncode = status

        def _decoded(self, data, which):
            if which not in self._taken and (self._modes[which] == PIPE):
                self._taken.add(which)
                if self.text_mode:
                    text = data.decode(self._encoding, self._errors)
                    return text.replace("\r\n", "\n").replace("\r", "\n")
                return data
            return None

        def communicate(self, input=None, timeout=None):
            if input is not None:
                if self.stdin is None:
                    raise ValueError("stdin was not a PIPE")
                self.stdin.write(input)
            if self.stdin is not None:
                self.stdin.closed = True
            self._run(timeout)
            return self._decoded(self._out, 1), self._decoded(self._err, 2)

        def wait(self, timeout=None):
            if self.returncode is None:
                self._run(timeout)
            return self.returncode

        def poll(self):
            if self.returncode is None and not self._timed_out:
                self._run(None)
            return self.returncode

        def send_signal(self, sig):
            if self.returncode is None:
                self._ran = True
                if self in waiting:
                    waiting.remove(self)
                self.returncode = -int(sig)

        def terminate(self):
            self.send_signal(15)

        def kill(self):
            self.send_signal(9)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            for pipe in (self.stdout, self.stderr, self.stdin):
                if pipe is not None:
                    pipe.close()
            if self.returncode is None and not self._timed_out:
                self.wait()

        def __repr__(self):
            return "<Popen: returncode: %s args: %r>" % (self.returncode, self.args)

    Popen.__module__ = "subprocess"
    subprocess.Popen = Popen
    subprocess._lis_waiting = waiting

    def system(command):
        status, out, err, _ = _lis_proc(
            _lis_command(command, True, None, os.getcwd(), None)[0], None, b"", None)
        if out:
            os.write(1, out)
        if err:
            os.write(2, err)
        return (status & 0xFF) << 8

    os.system = system

    import shutil

    real_which = shutil.which

    def shutil_which(cmd, mode=os.F_OK | os.X_OK, path=None):
        name = os.fsdecode(cmd)
        if "/" in name:
            return real_which(cmd, mode, path)
        try:
            answer = _lis_json.loads(_lis_host.call(
                b"which\0" + _lis_json.dumps({"name": name}).encode()))
        except ConnectionRefusedError:
            return None
        found = answer.get("path")
        return os.fsencode(found) if found and isinstance(cmd, bytes) else found

    shutil.which = shutil_which


def _lis_commands_exit():
    # A command started and never waited for still runs, at the end (as its own process would
    # have).
    subprocess = _lis_sys.modules.get("subprocess")
    for proc in list(getattr(subprocess, "_lis_waiting", ())):
        try:
            proc.wait()
        except BaseException:  # noqa: BLE001
            pass


# Applied when the module is imported (the driver's import hook), or at once if it already is.
_LIS_PATCHES = {
    "threading": _lis_patch_threading,
    "queue": _lis_patch_queue,
    "signal": _lis_patch_signal,
    "asyncio.selector_events": _lis_patch_selector_events,
    "concurrent.futures": _lis_patch_futures,
    "concurrent.futures.thread": _lis_patch_futures_thread,
    "concurrent.futures.process": _lis_patch_futures_process,
    "multiprocessing": _lis_patch_multiprocessing,
    "multiprocessing.pool": _lis_patch_mp_pool,
    "multiprocessing.dummy": _lis_patch_mp_dummy,
    "subprocess": _lis_patch_subprocess,
    "http.client": lambda module: _lis_patch_http(module, _lis_sys),
}


def _lis_linux_install():
    global _lis_th, _lis_real_sleep, _lis_mono
    import _thread
    import threading  # noqa: F401 - patched below
    import signal  # noqa: F401
    import time

    _lis_identity(_lis_os, _lis_sys, _lis_types)
    _lis_real_sleep, _lis_mono = time.sleep, time.monotonic
    _lis_th = _LisThreads(_thread.get_ident())
    time.sleep = _lis_sleep
    for name, patch in _LIS_PATCHES.items():
        module = _lis_sys.modules.get(name)
        if module is not None and name != "http.client":
            patch(module)


_lis_linux_install()
