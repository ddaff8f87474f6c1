

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
                if outer_can and getattr(me, "_lis_restartable", False):
                    # A server loop waiting for its next request (sockets.py): it runs again
                    # from the top at the next blocking point.
                    me._lis_again = True
                    _lis_stop(S, me, what)
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
            if (wake is None or wake > now) and _lis_sock_idle(S, wake, now):
                if ready():
                    return True
                continue
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
        if getattr(t, "_lis_again", False):
            t._lis_again = False
            _lis_thread_requeue(S, t)
        else:
            t._lis_handle._done = True


def _lis_thread_requeue(S, t):
    # Run `t` again from its target's start (a server loop that gave way, see sockets.py).
    threading = _lis_sys.modules["threading"]
    t._target, t._args, t._kwargs = t._lis_target
    t._lis_rerun = True
    t._lis_late_since = None
    with threading._active_limbo_lock:
        threading._limbo[t] = t
    S.pending.append(t)


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
    self._lis_target = (target, getattr(self, "_args", ()), getattr(self, "_kwargs", {}))
    quiet = getattr(target, "__module__", "") in ("concurrent.futures.thread",)

    def run_here():
        try:
            run()
        except _LisAbandon:
            if not self.daemon and not quiet and not getattr(self, "_lis_again", False):
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
            items, keys = [], {}
            for fd, key in self._keys.items():
                sock = _lis_sock_of(fd)
                if sock is not None and sock._lis_id is not None:
                    bits = (1 if key.events & 1 else 0) | (4 if key.events & 2 else 0)
                    items.append([sock._lis_id, bits])
                    keys[sock._lis_id] = key
            if not items:
                if not self._lis_woken and (timeout is None or timeout > 0):
                    _lis_wait(self._woken, timeout, "the asyncio event loop (nothing left to wake it)")
                self._lis_woken = False
                return []
            ready = _lis_sock_ready(items)
            if not ready and not self._lis_woken and (timeout is None or timeout > 0):

                def woken_or_ready():
                    return self._lis_woken or bool(_lis_sock_ready(items))

                woken_or_ready._lis_poll = items
                _lis_wait(woken_or_ready, timeout, "the asyncio event loop")
                ready = _lis_sock_ready(items)
            self._lis_woken = False
            out = []
            for sid, bits in ready:
                key = keys[sid]
                events = (1 if bits & 17 else 0) | (2 if bits & 20 else 0)
                if events & key.events:
                    out.append((key, events & key.events))
            return out

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
