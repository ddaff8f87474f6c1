# Runs one `python3 ...` command inside a fresh instance of the snapshot, through its `turn`
# export. `turn` has REPL semantics; this gives script semantics instead: sys.argv, cwd, env,
# a clean __main__, tracebacks without our frames, and the exit status raised as SystemExit at
# the end of the turn (whose result carries it). The preloaded snapshot defines it (and has
# the imports below done); with the stock snapshot it is marshalled and run on every call.
# The request (JSON) comes through the host door, not as code: `turn` parses code slowly.
import _host as _lis_host
import atexit as _lis_atexit
import json as _lis_json
import os as _lis_os
import sys as _lis_sys
import types as _lis_types
import signal as _lis_signal

if not hasattr(_lis_signal, "alarm"):
    # WASI has no alarms. Code that arms a timeout with `signal.alarm` (math_verify does, by
    # default) runs without one instead of failing: the host's per-call deadline still stops
    # it. Returns 0, as when no alarm was set.
    def _lis_alarm(seconds):
        return 0

    _lis_signal.alarm = _lis_alarm


def _lis_main():
    os, sys = _lis_os, _lis_sys
    status = 0
    try:
        req = _lis_json.loads(_lis_host.call(b"request"))
        status = _lis_run(req, os, sys)
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
    raise SystemExit(status)


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


def _lis_trimmed(tb):
    # Drop our own frames and runpy's so the traceback reads like CPython's.
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name == "<lis-driver>" or name.endswith("runpy.py"):
            tb = tb.tb_next
        else:
            break
    return tb


def _lis_run(req, os, sys):
    # Make the environment exactly the request's, touching only what differs (each change is
    # a WASI libc call).
    env, environ = req["env"], os.environ
    for key in [k for k in environ if k not in env]:
        del environ[key]
    for key, value in env.items():
        if environ.get(key) != value:
            environ[key] = value
    try:
        os.chdir(req["cwd"])
    except OSError as e:
        sys.stderr.write("python3: cannot enter %s: %s\n" % (req["cwd"], e.strerror))
        return 2
    # The snapshot froze every random generator it holds (stdlib `random`, numpy's global
    # RandomState, sympy's own `random.Random`s, ...): give each call fresh seeds, as a new
    # process would have. The preloaded snapshot lists them in `_lis_rngs`. 256 bits from the
    # OS each: `seed()` without an argument costs ~18 us (random) and ~230 us (numpy).
    rngs = globals().get("_lis_rngs")
    if rngs is None:
        rngs = _lis_collect_rngs(sys)
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
            sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
            runpy.run_path(path, run_name="__main__")
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
        return 1
    return 0
