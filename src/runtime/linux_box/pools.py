

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
