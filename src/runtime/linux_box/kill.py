

# ---- Signals to processes: os.kill, os.killpg, signal.raise_signal, signal.pthread_kill -------
# WASI has no signals between processes. A signal to the program itself is delivered here, at
# once, as Linux delivers it before kill() returns: a Python handler runs (CPython's own
# machinery for the signals it handles; ours for the timer signals of signals.py), SIG_IGN
# drops it, and a default action that ends the program ends it through the host door (`end`,
# runtime/modes.rs): nothing more of the program runs, as with a real signal, and the shell
# sees 128 + N (the program that started it with an argument list sees returncode -N).
# A signal to a command started by `subprocess` that has not run yet (commands run when their
# result is first needed) means it never runs. See docs/linux-compatibility.md, Signals.

# Default action "ignore", and the stop/continue signals (a program cannot be stopped here).
_LIS_SIG_IGNORED = frozenset((17, 18, 19, 20, 21, 22, 23, 28))
# What bash prints for a command a signal ended (glibc's strsignal); nothing for INT and PIPE.
# The same table is in shell/processes.rs (`signal_message`).
_LIS_SIG_TEXT = {
    1: "Hangup", 3: "Quit", 4: "Illegal instruction", 5: "Trace/breakpoint trap",
    6: "Aborted", 7: "Bus error", 8: "Floating point exception", 9: "Killed",
    10: "User defined signal 1", 11: "Segmentation fault", 12: "User defined signal 2",
    14: "Alarm clock", 15: "Terminated", 16: "Stack fault", 24: "CPU time limit exceeded",
    25: "File size limit exceeded", 26: "Virtual timer expired", 27: "Profiling timer expired",
    29: "I/O possible", 30: "Power failure", 31: "Bad system call",
}


class _LisSignalState:
    # Signals blocked by pthread_sigmask and those pending while blocked.
    blocked = set()
    pending = set()


def _lis_end(status, signum=0):
    # End the program now with `status` (0-255), as _exit does: no finally blocks, no atexit,
    # no buffered output written. WASI's own exit refuses statuses over 125.
    try:
        _lis_host.call(b"end\0%d\0%d" % (status & 0xFF, signum))
    except ConnectionRefusedError:
        pass
    raise SystemExit(status & 0xFF)  # no host door (not reached with one)


def _lis_die(signum):
    # The default action of a signal that ends the program.
    text = _LIS_SIG_TEXT.get(signum)
    if text:
        try:
            _lis_os.write(2, (text + "\n").encode())
        except OSError:
            pass
    _lis_end(128 + signum, signum)


def _lis_handler_of(signum):
    signal = _lis_sys.modules["signal"]
    if signum in (14, 26, 27):  # the timer signals' handlers live in signals.py
        return _lis_th.handlers.get(signum, 0)
    if signum in (9, 19):
        return 0
    try:
        handler = signal.getsignal(signum)
    except (ValueError, OSError):
        return 0
    if handler is None or callable(handler):
        return 0 if handler is None else handler
    # 0 (SIG_DFL) or 1 (SIG_IGN); WASI's SIG_IGN is not 1.
    return 1 if handler == signal.SIG_IGN else 0


def _lis_deliver(signum, frame=None):
    # Deliver `signum` to this program, now.
    if signum == 0:
        return
    S = _LisSignalState
    if signum in S.blocked and signum not in (9, 19):
        S.pending.add(signum)
        return
    handler = _lis_handler_of(signum)
    if not callable(handler):
        if handler == 1:  # SIG_IGN
            return
        if signum in _LIS_SIG_IGNORED:
            return
        _lis_die(signum)
    # The handler runs before the call returns, given the sender's frame, as CPython runs it
    # at the next bytecode on Linux (default_int_handler raises KeyboardInterrupt).
    handler(signum, frame if frame is not None else _lis_sys._getframe(2))


def _lis_signum(sig):
    import operator

    return operator.index(sig)


def _lis_children():
    subprocess = _lis_sys.modules.get("subprocess")
    return getattr(subprocess, "_lis_children", {})


def _lis_kill(pid, sig):
    pid, sig = _lis_signum(pid), _lis_signum(sig)
    if not 0 <= sig < 65:
        raise OSError(_lis_errno.EINVAL, "Invalid argument")
    os = _lis_os
    me = os.getpid()
    children = _lis_children()
    if pid in (me, 0, -me):
        if pid != me:  # the process group: the children started so far are in it
            for child in list(children.values()):
                child._lis_signal(sig)
        _lis_deliver(sig, _lis_sys._getframe(1))
        return
    child = children.get(abs(pid))
    if child is not None:
        child._lis_signal(sig)
        return
    if pid == -1:  # every process but init and this one: the children
        for child in list(children.values()):
            child._lis_signal(sig)
        return
    if pid == os.getppid():
        if sig == 0:
            return
        raise PermissionError(
            _lis_errno.EPERM,
            "Operation not permitted: signals to the shell that started this program are "
            "not delivered in this sandbox (use the shell's own kill, or exit with a status)")
    raise ProcessLookupError(_lis_errno.ESRCH, "No such process")


def _lis_killpg(pgid, sig):
    pgid = _lis_signum(pgid)
    if pgid < 0:
        raise OSError(_lis_errno.EINVAL, "Invalid argument")
    if pgid in (0, _lis_os.getpgrp()):
        return _lis_kill(0, sig)
    return _lis_kill(-pgid, sig)


def _lis_patch_kill(signal):
    if getattr(signal, "_lis_real_raise", None) is not None:
        return
    signal._lis_real_raise = getattr(signal, "raise_signal", None)
    nsig = getattr(signal, "NSIG", 65)

    def raise_signal(signalnum):
        num = _lis_signum(signalnum)
        if not 0 <= num < nsig:
            raise OSError(_lis_errno.EINVAL, "Invalid argument")
        _lis_deliver(num, _lis_sys._getframe(1))

    def pthread_kill(thread_id, signalnum):
        num = _lis_signum(signalnum)
        _lis_signum(thread_id)
        if not 0 <= num < nsig:
            raise OSError(_lis_errno.EINVAL, "Invalid argument")
        # Every thread of this program runs on its one real thread; handlers run in the main
        # thread on Linux as well.
        _lis_deliver(num, _lis_sys._getframe(1))

    def valid_signals():
        return {_lis_as_signal(signal, n) for n in range(1, nsig) if n not in (32, 33)}

    def pthread_sigmask(how, mask):
        S = _LisSignalState
        old = {_lis_as_signal(signal, n) for n in S.blocked}
        wanted = {_lis_signum(n) for n in mask}
        for n in wanted:
            if not 1 <= n < nsig:
                raise ValueError("signal number %d out of range [1; %d]" % (n, nsig - 1))
        if how == signal.SIG_BLOCK:
            S.blocked |= wanted
        elif how == signal.SIG_UNBLOCK:
            S.blocked -= wanted
        elif how == signal.SIG_SETMASK:
            S.blocked = set(wanted)
        else:
            raise OSError(_lis_errno.EINVAL, "Invalid argument")
        S.blocked -= {9, 19}
        for n in sorted(S.pending - S.blocked):
            S.pending.discard(n)
            _lis_deliver(n, _lis_sys._getframe(1))
        return old

    def sigpending():
        return {_lis_as_signal(signal, n) for n in _LisSignalState.pending}

    def sigwait(sigset):
        wanted = {_lis_signum(n) for n in sigset}
        S = _LisSignalState
        found = sorted(S.pending & wanted)
        if not found:
            raise RuntimeError(
                "deadlock: sigwait() waits for a signal nobody can send: in this sandbox only "
                "the program itself (os.kill, raise_signal) sends it signals")
        S.pending.discard(found[0])
        return _lis_as_signal(signal, found[0])

    for name, value in (("SIG_BLOCK", 0), ("SIG_UNBLOCK", 1), ("SIG_SETMASK", 2),
                        ("SIGRTMIN", 34), ("SIGRTMAX", 64)):
        if not hasattr(signal, name):
            setattr(signal, name, value)
    for name, fn in (("raise_signal", raise_signal), ("pthread_kill", pthread_kill),
                     ("valid_signals", valid_signals), ("pthread_sigmask", pthread_sigmask),
                     ("sigpending", sigpending), ("sigwait", sigwait)):
        fn.__module__ = "signal"
        fn.__name__ = fn.__qualname__ = name
        setattr(signal, name, fn)


def _lis_as_signal(signal, n):
    try:
        return signal.Signals(n)
    except ValueError:
        return n


# ---- File modes: os.stat, os.lstat, os.chmod, os.access, os.mkdir, os.open -------------------
# WASI preview 1's filestat has no permission bits (st_mode & 0o777 read 0) and its chmod
# changes nothing. The truth is the host's mode of the file, which the shell's chmod, ls -l,
# test -x and ./script read and set (shell/fs.rs): the guest asks it through the host door
# (`mode`, runtime/modes.rs), for the sandbox's folders (/testbed, /tmp, /root). Set-id and
# sticky bits are never set, and the owner keeps read and write (the security rules): the
# guest is root, which may read and write any file anyway.


def _lis_guest_path(path):
    os = _lis_os
    if isinstance(path, int):
        return None
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return os.path.abspath(path)


def _lis_host_mode(path, follow=True):
    full = _lis_guest_path(path)
    if full is None:
        return None
    try:
        answer = _lis_host.call(
            b"mode\0" + (b"stat" if follow else b"lstat") + b"\0" + full.encode("utf-8", "surrogateescape"))
    except ConnectionRefusedError:
        return None
    return int(answer) if answer else None


def _lis_with_mode(st, bits):
    cls, (seq, extra) = st.__reduce__()
    seq = ((seq[0] & ~0o7777) | bits,) + tuple(seq[1:])
    return cls(seq, extra)


def _lis_patch_modes(os):
    if getattr(os, "_lis_modes", False):
        return
    os._lis_modes = True
    real_stat, real_lstat, real_chmod = os.stat, os.lstat, os.chmod
    real_access, real_mkdir, real_open = os.access, os.mkdir, os.open
    import stat as stat_mod

    def stat(path, *, dir_fd=None, follow_symlinks=True):
        st = real_stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        if dir_fd is None and not isinstance(path, int):
            bits = _lis_host_mode(path, follow_symlinks)
            if bits is not None:
                return _lis_with_mode(st, bits)
        return st

    def lstat(path, *, dir_fd=None):
        return stat(path, dir_fd=dir_fd, follow_symlinks=False)

    def chmod(path, mode, *, dir_fd=None, follow_symlinks=True):
        import operator

        mode = operator.index(mode)
        if dir_fd is not None or isinstance(path, int) or not follow_symlinks:
            return real_chmod(path, mode, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        real_stat(path)  # FileNotFoundError & co., as chmod(2) fails
        full = _lis_guest_path(path)
        try:
            answer = _lis_host.call(b"mode\0chmod\0%o\0" % (mode & 0o7777)
                                    + full.encode("utf-8", "surrogateescape"))
        except ConnectionRefusedError:
            answer = b""
        if answer in (b"ok", b""):
            return None
        if answer == b"e:notfound":
            raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", path)
        if answer == b"e:denied":
            raise PermissionError(_lis_errno.EPERM, "Operation not permitted", path)
        raise OSError(_lis_errno.EIO, "Input/output error", path)

    def access(path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True):
        found = real_access(path, mode, dir_fd=dir_fd, effective_ids=effective_ids,
                            follow_symlinks=follow_symlinks)
        if not found or not mode & os.X_OK or dir_fd is not None or isinstance(path, int):
            return found
        # root may execute a file when any execute bit is set, and search any folder.
        try:
            st = stat(path, follow_symlinks=follow_symlinks)
        except OSError:
            return found
        return stat_mod.S_ISDIR(st.st_mode) or bool(st.st_mode & 0o111)

    def umask_now():
        mask = os.umask(0)
        os.umask(mask)
        return mask

    def mkdir(path, mode=0o777, *, dir_fd=None):
        real_mkdir(path, mode, dir_fd=dir_fd)
        if dir_fd is None and not isinstance(path, int):
            # The host made it with its own default (0o755); the asked mode less the umask,
            # as mkdir(2).
            want = mode & ~umask_now() & 0o777
            if want != 0o755:
                try:
                    chmod(path, want)
                except OSError:
                    pass

    def open_(path, flags, mode=0o777, *, dir_fd=None):
        new = False
        if flags & os.O_CREAT and dir_fd is None and not isinstance(path, int):
            try:
                real_stat(path)
            except OSError:
                new = True
        fd = real_open(path, flags, mode, dir_fd=dir_fd)
        if new:
            # The host made it with its default (0o666 less the umask); the asked mode less
            # the umask, as open(2).
            mask = umask_now()
            if mode & ~mask & 0o777 != 0o666 & ~mask:
                try:
                    chmod(path, mode & ~mask & 0o777)
                except OSError:
                    pass
        return fd

    for name, fn, real in (("stat", stat, real_stat), ("lstat", lstat, real_lstat),
                           ("chmod", chmod, real_chmod), ("access", access, real_access),
                           ("mkdir", mkdir, real_mkdir), ("open", open_, real_open)):
        fn.__module__ = "os"
        fn.__name__ = fn.__qualname__ = name
        setattr(os, name, fn)
        for support in ("supports_dir_fd", "supports_fd", "supports_follow_symlinks",
                        "supports_effective_ids"):
            group = getattr(os, support, None)
            if isinstance(group, set) and real in group:
                group.add(fn)
    _lis_patch_path_tests(os, real_stat, real_lstat)


def _lis_patch_path_tests(os, real_stat, real_lstat):
    # os.path's tests need no permission bits: they keep WASI's stat (one host call less).
    import genericpath
    import posixpath

    def exists(path):
        try:
            real_stat(path)
        except (OSError, ValueError):
            return False
        return True

    def lexists(path):
        try:
            real_lstat(path)
        except (OSError, ValueError):
            return False
        return True

    def kind(test, stat_fn):
        def check(path):
            try:
                st = stat_fn(path)
            except (OSError, ValueError):
                return False
            return test(st.st_mode)

        return check

    import stat as stat_mod

    fast = {
        "exists": exists,
        "lexists": lexists,
        "isfile": kind(stat_mod.S_ISREG, real_stat),
        "isdir": kind(stat_mod.S_ISDIR, real_stat),
        "islink": kind(stat_mod.S_ISLNK, real_lstat),
        "getsize": lambda path: real_stat(path).st_size,
        "getmtime": lambda path: real_stat(path).st_mtime,
        "getatime": lambda path: real_stat(path).st_atime,
        "getctime": lambda path: real_stat(path).st_ctime,
    }
    for module in (genericpath, posixpath):
        for name, fn in fast.items():
            old = module.__dict__.get(name)
            if old is None or not hasattr(old, "__code__"):
                continue  # absent, or a C function that does not use os.stat
            fn.__name__ = fn.__qualname__ = name
            fn.__module__ = module.__name__
            fn.__doc__ = old.__doc__
            setattr(module, name, fn)


def _lis_patch_shutil_modes(shutil):
    # copymode/copystat (copy, copy2, copytree) read a DirEntry's own stat, whose mode is
    # WASI's (no permission bits): they are given the entry's path instead.
    if getattr(shutil, "_lis_modes", False):
        return
    shutil._lis_modes = True
    os = _lis_os
    plain = lambda fn: fn.path if isinstance(fn, os.DirEntry) else fn
    if hasattr(shutil, "_stat"):
        shutil._stat = lambda fn: os.stat(plain(fn))
    copystat = shutil.copystat

    def copystat_(src, dst, *, follow_symlinks=True):
        return copystat(plain(src), dst, follow_symlinks=follow_symlinks)

    copystat_.__name__ = copystat_.__qualname__ = "copystat"
    copystat_.__module__ = "shutil"
    copystat_.__doc__ = copystat.__doc__
    shutil.copystat = copystat_


# ---- os.execv and friends, os._exit ------------------------------------------------------------
# WASI cannot replace a program. os.execv* runs the new program as a command (through the
# sandbox's shell, as subprocess does), its output going straight out, and then ends this
# program with its status, as if the new program had been this process. Python's buffered
# output is lost, as on Linux (flush before exec).


def _lis_exec_check(program, cwd):
    # What execve(2) would refuse for a path: missing, a folder, no execute bit, no "#!".
    os = _lis_os
    path = program if program.startswith("/") else os.path.join(cwd, program)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", program) from None
    except NotADirectoryError:
        raise NotADirectoryError(_lis_errno.ENOTDIR, "Not a directory", program) from None
    import stat as stat_mod

    if stat_mod.S_ISDIR(st.st_mode) or not st.st_mode & 0o111:
        raise PermissionError(_lis_errno.EACCES, "Permission denied", program)
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return
    # A script, or a program the sandbox's compiler built (a WebAssembly module).
    if not head.startswith(b"#!") and head != b"\0asm":
        raise OSError(_lis_errno.ENOEXEC, "Exec format error", program)


def _lis_execve(path, args, env):
    os = _lis_os
    if isinstance(args, (str, bytes)) or not hasattr(args, "__len__"):
        raise TypeError("execv() arg 2 must be a tuple or list")
    if not args:
        raise ValueError("execv() arg 2 must not be empty")
    decode = lambda a: os.fsdecode(a) if isinstance(a, (bytes, bytearray)) else os.fspath(a)
    args = [decode(a) for a in args]
    if not args[0]:
        raise ValueError("execv() arg 2 first element cannot be empty")
    program = _lis_program(decode(path))
    cwd = os.getcwd()
    if "/" in program:
        _lis_exec_check(program, cwd)
    else:
        import shutil

        if shutil.which(program) is None:
            raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", decode(path))
    script, _ = _lis_command([program] + args[1:], False, None, cwd, env)
    stdin = b""
    try:
        chunks = []
        while True:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        stdin = b"".join(chunks)
    except OSError:
        pass
    status, out, err, _ = _lis_proc(script, None, stdin, None)
    if out:
        os.write(1, out)
    if err:
        os.write(2, err)
    if status < 0:
        _lis_die(-status)
    _lis_end(status)


def _lis_install_exec(os):
    def execv(path, argv):
        _lis_execve(path, argv, None)

    def execve(path, argv, env):
        _lis_execve(path, argv, env)

    real_exit = os._exit

    def _exit(status):
        import operator

        status = operator.index(status)
        if 0 <= status <= 125:
            real_exit(status)
        _lis_end(status)

    for name, fn in (("execv", execv), ("execve", execve), ("_exit", _exit)):
        fn.__module__ = "os"
        fn.__name__ = fn.__qualname__ = name
        setattr(os, name, fn)


def _lis_kill_install():
    import signal

    os = _lis_os
    os.kill = _lis_kill
    os.killpg = _lis_killpg
    for fn, name in ((_lis_kill, "kill"), (_lis_killpg, "killpg")):
        fn.__module__ = "os"
        fn.__name__ = fn.__qualname__ = name
    _lis_patch_kill(signal)
    # As CPython on Linux sets at startup: writing to a closed pipe raises BrokenPipeError.
    try:
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    except (AttributeError, OSError, ValueError):
        pass
    _lis_patch_modes(os)
    _lis_install_exec(os)
    shutil = _lis_sys.modules.get("shutil")
    if shutil is not None:
        _lis_patch_shutil_modes(shutil)


_LIS_PATCHES["shutil"] = _lis_patch_shutil_modes
_LIS_INSTALLS.append(_lis_kill_install)
