

# ---- The system: Linux's identity, /etc and /proc, `resource` (issue 46) --------------------
# What the program sees of the OS is the reference container's (Debian 12, Linux, x86_64):
# `sys.platform`, `os.uname()`, `platform`, `sysconfig.get_platform()`. The texts of /etc and
# /proc come from the host (runtime/linux_files.rs, through the door's `system` kind), the same
# texts the shell mounts, so both agree; `open`, `os.stat`, `os.listdir`, `os.scandir` and
# what builds on them (`os.path`, `pathlib`, `glob`) serve them. `resource` reports the
# sandbox's limits and the call's use of them, and a lowered RLIMIT_AS/RLIMIT_DATA or
# RLIMIT_CPU takes effect. docs/linux-compatibility.md lists each module's choice.

# The platform the interpreter was built for: its own files keep that name
# (`_sysconfigdata__wasi_...`), whatever `sys.platform` says afterwards.
_LIS_BUILD_PLATFORM = globals().get("_LIS_BUILD_PLATFORM") or _lis_sys.platform
_LIS_GLIBC = "2.36"  # what the reference's Python reports (`platform.libc_ver()`)
_LIS_PAGE = 4096  # Linux x86_64's page; sysconf figures are counted in it
_LIS_RLIM_INF = -1
# Seconds this call spent not running: asleep, or waiting for a command (children's time).
_lis_idle = [0.0, 0.0]
_lis_uname_value = None


def _lis_clock():
    # CPython's clock() here: the instance's run time (install keeps the real one here).
    import time

    return time.process_time()


def _lis_system(meta):
    # (answer, rest) of a `system` door request; (None, b"") when no host answers.
    try:
        out = _lis_host.call(b"system\0" + _lis_json.dumps(meta).encode())
    except ConnectionRefusedError:
        return None, b""
    head, _, rest = out.partition(b"\0")
    try:
        return _lis_json.loads(head), rest
    except ValueError:
        return None, b""


def _lis_limits():
    answer, _ = _lis_system({"op": "limits"})
    return answer if answer and answer.get("ok") else None


# -- virtual files ----------------------------------------------------------------------------

def _lis_vpath(path):
    # The normalized virtual path `path` names (under /etc or /proc), or None. Cheap for the
    # common case: a str that mentions neither.
    if path.__class__ is str:
        p = path
        if "etc" not in p and "proc" not in p and "dev" not in p:
            return None
    elif isinstance(path, int):
        return None
    else:
        try:
            p = _lis_os.fspath(path)
        except TypeError:
            return None
        if isinstance(p, bytes):
            p = p.decode("utf-8", "surrogateescape")
        if "etc" not in p and "proc" not in p and "dev" not in p:
            return None
    if not p.startswith("/"):
        if ".." not in p:
            return None
        try:
            p = _lis_os.getcwd() + "/" + p
        except OSError:
            return None
    import posixpath

    p = posixpath.normpath(p)
    if p.startswith("//"):
        p = "/" + p.lstrip("/")
    if p in ("/etc", "/proc", "/dev") or p.startswith(("/etc/", "/proc/", "/dev/")):
        pid = "/proc/%d" % _lis_os.getpid()
        if p == pid or p.startswith(pid + "/"):
            p = "/proc/self" + p[len(pid):]
        return p
    return None


def _lis_vnode(p):
    # (is_dir, names or content) of the virtual node at `p`, or None when there is none.
    if p.startswith("/dev"):
        if p == "/dev":
            return True, sorted(_LIS_DEVICES)
        return (False, b"") if p[5:] in _LIS_DEVICES else None
    if p == "/proc/self/cmdline":
        argv = ["python3"] + list(_lis_sys.argv)
    else:
        argv = []
    answer, rest = _lis_system({"op": "file", "path": p, "pid": _lis_os.getpid(),
                                "name": "python3", "argv": argv})
    if not answer or not answer.get("ok"):
        return None
    names = answer.get("dir")
    if names is not None:
        return True, names
    return False, rest


def _lis_enoent(path):
    return FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", path)


def _lis_vstat(p, path):
    if p.startswith("/dev/"):
        return _lis_dev_stat(p, path)
    node = _lis_vnode(p)
    if node is None:
        raise _lis_enoent(path)
    is_dir, data = node
    import stat

    if is_dir:
        mode, size, nlink = stat.S_IFDIR | (0o555 if p.startswith("/proc") else 0o755), 4096, 2
    elif p.startswith("/proc"):
        mode, size, nlink = stat.S_IFREG | 0o444, 0, 1  # procfs files report size 0
    else:
        mode, size, nlink = stat.S_IFREG | 0o644, len(data), 1
    ino = (hash(p) & 0x7FFFFFFF) or 1
    dev = 3 if p.startswith("/proc") else 1
    return _lis_os.stat_result((mode, ino, dev, nlink, 0, 0, size, 0, 0, 0))


def _lis_vopen(p, path, mode, buffering, encoding, errors, newline):
    import io

    if p.startswith("/dev/"):
        return _lis_dev_open(p, path, mode, buffering, encoding, errors, newline)
    if any(c in mode for c in "wax+"):
        node = _lis_vnode(p)
        if node is None and p.startswith("/proc"):
            raise _lis_enoent(path)
        if node is not None and node[0]:
            raise IsADirectoryError(_lis_errno.EISDIR, "Is a directory", path)
        raise PermissionError(_lis_errno.EACCES, "Permission denied", path)
    node = _lis_vnode(p)
    if node is None:
        raise _lis_enoent(path)
    if node[0]:
        raise IsADirectoryError(_lis_errno.EISDIR, "Is a directory", path)
    raw = io.BytesIO(node[1])
    raw.name = path
    raw.mode = "rb"
    if "b" in mode:
        if buffering == 0:
            return raw
        buffered = io.BufferedReader(raw)
        return buffered
    text = io.TextIOWrapper(io.BufferedReader(raw), encoding=encoding or "utf-8",
                            errors=errors, newline=newline)
    text.mode = mode
    return text


class _LisDirEntry:
    # What os.scandir yields for a virtual directory's entry.
    __slots__ = ("name", "path", "_p")

    def __init__(self, top, name, p):
        self.name = name
        self.path = top.rstrip("/") + "/" + name if isinstance(top, str) else top + b"/" + name
        self._p = p

    def is_dir(self, *, follow_symlinks=True):
        return _lis_vstat(self._p, self.path).st_mode & 0o170000 == 0o040000

    def is_file(self, *, follow_symlinks=True):
        return _lis_vstat(self._p, self.path).st_mode & 0o170000 == 0o100000

    def is_symlink(self):
        return False

    def is_junction(self):
        return False

    def stat(self, *, follow_symlinks=True):
        return _lis_vstat(self._p, self.path)

    def inode(self):
        return self.stat().st_ino

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return "<DirEntry %r>" % (self.name,)


class _LisScandir:
    def __init__(self, entries):
        self._it = iter(entries)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._it = iter(())


def _lis_install_files():
    import builtins
    import io

    os = _lis_os
    real_open = io.open
    if getattr(real_open, "_lis_vfs", False):
        return
    real_stat, real_lstat, real_listdir = os.stat, os.lstat, os.listdir
    real_scandir, real_access, real_readlink = os.scandir, os.access, os.readlink

    def open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None,
             closefd=True, opener=None):
        if file.__class__ is int and file in _lis_fds:
            return _lis_fd_file(file, file, mode, buffering, encoding, errors, newline,
                                closefd)
        p = _lis_vpath(file)
        if p is None:
            return real_open(file, mode, buffering, encoding, errors, newline, closefd, opener)
        return _lis_vopen(p, file, mode, buffering, encoding, errors, newline)

    def stat(path, *, dir_fd=None, follow_symlinks=True):
        p = _lis_vpath(path) if dir_fd is None else None
        if p is None:
            return real_stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        return _lis_vstat(p, path)

    def lstat(path, *, dir_fd=None):
        p = _lis_vpath(path) if dir_fd is None else None
        if p is None:
            return real_lstat(path, dir_fd=dir_fd)
        return _lis_vstat(p, path)

    def listdir(path="."):
        p = _lis_vpath(path)
        if p is None:
            return real_listdir(path)
        node = _lis_vnode(p)
        if node is None:
            raise _lis_enoent(path)
        if not node[0]:
            raise NotADirectoryError(_lis_errno.ENOTDIR, "Not a directory", path)
        names = list(node[1])
        if p == "/proc":
            names.append(str(os.getpid()))
        if isinstance(path, bytes):
            return [os.fsencode(n) for n in names]
        return names

    def scandir(path="."):
        p = _lis_vpath(path)
        if p is None:
            return real_scandir(path)
        top = os.fspath(path)
        entries = []
        for name in listdir(path):
            text = os.fsdecode(name)
            entries.append(_LisDirEntry(top, name, p.rstrip("/") + "/" + text))
        return _LisScandir(entries)

    def access(path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True):
        p = _lis_vpath(path) if dir_fd is None else None
        if p is None:
            return real_access(path, mode, dir_fd=dir_fd, effective_ids=effective_ids,
                               follow_symlinks=follow_symlinks)
        node = _lis_vnode(p)
        if node is None:
            return False
        if p.startswith("/dev/"):
            return True
        return not (mode & os.W_OK) or (not node[0] and not p.startswith("/proc"))

    def readlink(path, *, dir_fd=None):
        p = _lis_vpath(path) if dir_fd is None else None
        if p == "/proc/self/exe":
            return _lis_sys.executable
        if p is not None and p[5:] in ("stdin", "stdout", "stderr") and p[:5] == "/dev/":
            return "/proc/self/fd/%d" % _LIS_DEVICES[p[5:]]
        return real_readlink(path, dir_fd=dir_fd)

    open._lis_vfs = True
    for fn, name, real in ((open, "open", real_open), (stat, "stat", real_stat),
                           (lstat, "lstat", real_lstat), (listdir, "listdir", real_listdir),
                           (scandir, "scandir", real_scandir), (access, "access", real_access),
                           (readlink, "readlink", real_readlink)):
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = real.__doc__
        fn.__module__ = real.__module__
    io.open = builtins.open = open
    os.stat, os.lstat, os.listdir, os.scandir = stat, lstat, listdir, scandir
    os.access, os.readlink = access, readlink
    _lis_install_fds(os)
    # os.path.exists & co. call os.stat / os.lstat by name: they follow.


# -- /dev and descriptors the guest makes itself -----------------------------------------------
# WASI has no /dev. open(), os.open() and io serve the few device files programs use: /dev/null
# (writes discarded, reads at end of file), /dev/zero, /dev/random and /dev/urandom, and
# /dev/stdin, /dev/stdout, /dev/stderr (the program's own descriptors 0, 1, 2). os.open() of
# one, and os.dup() (which WASI lacks), give a descriptor number of the guest's own
# (`_LIS_FD_BASE` and up, past any real one): os.read, os.write, os.close, os.fstat, os.lseek,
# os.isatty, os.fdopen and open(fd) accept it. Other calls given such a number fail (EBADF).

_LIS_DEVICES = {"null": None, "zero": None, "random": None, "urandom": None,
                "stdin": 0, "stdout": 1, "stderr": 2}
_LIS_DEV_RDEV = {"null": 0x103, "zero": 0x105, "random": 0x108, "urandom": 0x109}
_LIS_FD_BASE = 1024  # RLIMIT_NOFILE: no real descriptor gets this number
_lis_fds = {}  # guest descriptor -> _LisDevice or _LisAlias


class _LisDevice:
    # /dev/null, /dev/zero, /dev/random, /dev/urandom.
    def __init__(self, name):
        self.name = name

    def read(self, n):
        if self.name == "null":
            return b""
        if self.name == "zero":
            return bytes(n)
        return _lis_os.urandom(n)

    def write(self, data):
        return len(memoryview(data).cast("B"))

    def seek(self, pos, how):
        return 0

    def fstat(self):
        import stat

        return _lis_os.stat_result((stat.S_IFCHR | 0o666, _LIS_DEV_RDEV[self.name], 5, 1, 0, 0,
                                    0, 0, 0, 0))

    def isatty(self):
        return False

    def close(self):
        pass


class _LisAlias:
    # A duplicate of a real descriptor (os.dup, /dev/stdout): it shares its file offset. The
    # real one stays open while a duplicate of it is (closing the original only forgets it).
    def __init__(self, fd):
        self.fd = fd
        _lis_fd_refs[fd] = _lis_fd_refs.get(fd, 0) + 1

    def read(self, n):
        return _lis_real_fd["read"](self.fd, n)

    def write(self, data):
        return _lis_real_fd["write"](self.fd, data)

    def seek(self, pos, how):
        return _lis_real_fd["lseek"](self.fd, pos, how)

    def fstat(self):
        return _lis_real_fd["fstat"](self.fd)

    def isatty(self):
        return _lis_real_fd["isatty"](self.fd)

    def close(self):
        _lis_fd_release(self.fd)


class _LisClosed:
    # A real descriptor the program closed while a duplicate keeps it open.
    def _bad(self, *args):
        raise OSError(_lis_errno.EBADF, "Bad file descriptor")

    read = write = seek = fstat = isatty = _bad

    def close(self):
        pass


_lis_fd_refs = {}  # real descriptor -> duplicates of it still open
_lis_real_fd = {}  # the real os functions


def _lis_fd_release(fd):
    left = _lis_fd_refs.get(fd, 0) - 1
    if left > 0:
        _lis_fd_refs[fd] = left
        return
    _lis_fd_refs.pop(fd, None)
    if isinstance(_lis_fds.get(fd), _LisClosed):
        del _lis_fds[fd]
        try:
            _lis_real_fd["close"](fd)
        except OSError:
            pass


def _lis_fd_new(obj):
    fd = _LIS_FD_BASE
    while fd in _lis_fds:
        fd += 1
    _lis_fds[fd] = obj
    return fd


def _lis_bad_fd():
    return OSError(_lis_errno.EBADF, "Bad file descriptor")


def _lis_dev_stat(p, path):
    name = p[5:]
    if name not in _LIS_DEVICES:
        raise _lis_enoent(path)
    fd = _LIS_DEVICES[name]
    if fd is not None:
        return _lis_real_fd["fstat"](fd)
    return _LisDevice(name).fstat()


def _lis_dev_fd(p, path, flags_write):
    # A new guest descriptor for the device at `p`.
    name = p[5:]
    if name not in _LIS_DEVICES:
        if flags_write:
            raise PermissionError(_lis_errno.EACCES, "Permission denied", path)
        raise _lis_enoent(path)
    fd = _LIS_DEVICES[name]
    return _lis_fd_new(_LisDevice(name) if fd is None else _LisAlias(fd))


def _lis_dev_open(p, path, mode, buffering, encoding, errors, newline):
    if p == "/dev":
        raise IsADirectoryError(_lis_errno.EISDIR, "Is a directory", path)
    fd = _lis_dev_fd(p, path, any(c in mode for c in "wax+"))
    return _lis_fd_file(fd, path, mode, buffering, encoding, errors, newline, True)


def _lis_fd_file(fd, name, mode, buffering, encoding, errors, newline, closefd):
    # A file object over a guest descriptor, as io.open makes one over a real one.
    import io

    if not isinstance(mode, str):
        raise TypeError("open() argument 'mode' must be str, not %s" % type(mode).__name__)
    modes = set(mode)
    if modes - set("axrwb+t") or len(mode) > len(modes) or "b" in modes and "t" in modes:
        raise ValueError("invalid mode: '%s'" % mode)
    if sum(c in modes for c in "rwax") != 1:
        raise ValueError("must have exactly one of create/read/write/append mode")
    raw = _LisFdRaw(fd, name, mode, closefd)
    if buffering == 0:
        if "b" not in modes:
            raw.close()
            raise ValueError("can't have unbuffered text I/O")
        return raw
    if "+" in modes:
        buffered = io.BufferedRandom(raw)
    elif "r" in modes:
        buffered = io.BufferedReader(raw)
    else:
        buffered = io.BufferedWriter(raw)
    if "b" in modes:
        return buffered
    text = io.TextIOWrapper(buffered, encoding=encoding or "utf-8", errors=errors,
                            newline=newline, line_buffering=buffering == 1)
    text.mode = mode
    return text


def _lis_fd_raw_class():
    import io

    class FileIO(io.RawIOBase):
        # Over a guest descriptor (`_lis_fds`).
        def __init__(self, fd, name, mode, closefd):
            self._fd, self.name, self._closefd = fd, name, closefd
            plus = "+" in mode
            self._r = "r" in mode or plus
            self._w = any(c in mode for c in "wax") or plus
            self.mode = ("rb+" if "r" in mode else "wb+") if plus else (
                "rb" if "r" in mode else "ab" if "a" in mode else "wb")

        def readable(self):
            self._checkClosed()
            return self._r

        def writable(self):
            self._checkClosed()
            return self._w

        def seekable(self):
            self._checkClosed()
            try:
                _lis_os.lseek(self._fd, 0, 1)
            except OSError:
                return False
            return True

        def fileno(self):
            self._checkClosed()
            return self._fd

        def isatty(self):
            self._checkClosed()
            return _lis_os.isatty(self._fd)

        def readinto(self, b):
            if not self._r:
                raise io.UnsupportedOperation("File not open for reading")
            data = _lis_os.read(self._fd, len(b))
            b[: len(data)] = data
            return len(data)

        def write(self, b):
            if not self._w:
                raise io.UnsupportedOperation("File not open for writing")
            return _lis_os.write(self._fd, b)

        def seek(self, pos, whence=0):
            return _lis_os.lseek(self._fd, pos, whence)

        def tell(self):
            return _lis_os.lseek(self._fd, 0, 1)

        def truncate(self, size=None):
            return self.tell() if size is None else size

        def close(self):
            if not self.closed:
                try:
                    super().close()
                finally:
                    if self._closefd:
                        _lis_os.close(self._fd)

        def __repr__(self):
            return "<_io.FileIO name=%r mode=%r closefd=%r>" % (self.name, self.mode,
                                                               self._closefd)

    FileIO.__module__ = "_io"
    return FileIO


class _LisFdRawHolder:
    cls = None


def _LisFdRaw(fd, name, mode, closefd):
    cls = _LisFdRawHolder.cls
    if cls is None:
        cls = _LisFdRawHolder.cls = _lis_fd_raw_class()
    return cls(fd, name, mode, closefd)


def _lis_install_fds(os):
    if getattr(os.read, "_lis_fds", False):
        return
    real = _lis_real_fd
    for name in ("read", "write", "close", "fstat", "lseek", "isatty", "fsync", "ftruncate",
                 "get_inheritable", "set_inheritable", "open", "dup"):
        real[name] = getattr(os, name, None)
    fds = _lis_fds

    def read(fd, n, /):
        obj = fds.get(fd) if fd.__class__ is int and fd >= _LIS_FD_BASE else None
        if obj is None:
            if fd in fds:  # a real descriptor closed while duplicated
                raise _lis_bad_fd()
            return real["read"](fd, n)
        if n < 0:
            raise ValueError("negative count")
        return obj.read(n)

    def write(fd, data, /):
        obj = fds.get(fd) if fd.__class__ is int and fd >= _LIS_FD_BASE else None
        if obj is None:
            if fd in fds:
                raise _lis_bad_fd()
            return real["write"](fd, data)
        return obj.write(data)

    def close(fd):
        obj = fds.get(fd)
        if obj is None:
            if fd in _lis_fd_refs:
                # Duplicated: it stays open for the duplicates, closed for the program.
                fds[fd] = _LisClosed()
                return None
            return real["close"](fd)
        if isinstance(obj, _LisClosed):
            raise _lis_bad_fd()
        del fds[fd]
        obj.close()
        return None

    def guest(name, method):
        def fn(fd, *args, **kwargs):
            obj = fds.get(fd) if isinstance(fd, int) else None
            if obj is None:
                return real[name](fd, *args, **kwargs)
            return getattr(obj, method)(*args) if method else None
        return fn

    def open_(path, flags, mode=0o777, *, dir_fd=None):
        p = _lis_vpath(path) if dir_fd is None else None
        if p is None or not p.startswith("/dev"):
            return real["open"](path, flags, mode, dir_fd=dir_fd)
        if p == "/dev":
            raise IsADirectoryError(_lis_errno.EISDIR, "Is a directory", path)
        return _lis_dev_fd(p, path, flags & 3 != os.O_RDONLY)

    def dup(fd, /):
        obj = fds.get(fd)
        if isinstance(obj, _LisClosed):
            raise _lis_bad_fd()
        if isinstance(obj, _LisAlias):
            return _lis_fd_new(_LisAlias(obj.fd))
        if obj is not None:
            return _lis_fd_new(obj)
        real["fstat"](fd)  # EBADF for a descriptor that is not open
        return _lis_fd_new(_LisAlias(fd))

    made = {"read": read, "write": write, "close": close, "open": open_, "dup": dup,
            "fstat": guest("fstat", "fstat"), "lseek": guest("lseek", "seek"),
            "isatty": guest("isatty", "isatty"), "fsync": guest("fsync", None),
            "ftruncate": guest("ftruncate", None)}
    for name, fn in made.items():
        if real[name] is None and name != "dup":
            continue
        fn.__name__ = fn.__qualname__ = name
        fn.__module__ = "posix"
        if real[name] is not None:
            fn.__doc__ = real[name].__doc__
        setattr(os, name, fn)
    read._lis_fds = True


# -- identity: sys.platform, os.uname, platform, sysconfig ------------------------------------

def _lis_text(path):
    node = _lis_vnode(path)
    if node is None or node[0]:
        return None
    return node[1].decode("utf-8", "replace").strip()


def _lis_uname():
    """Return an object identifying the current operating system.

The object behaves like a named tuple with the following fields:
  (sysname, nodename, release, version, machine)

"""
    global _lis_uname_value
    value = _lis_uname_value
    if value is None:
        parts = [_lis_text("/proc/sys/kernel/" + n)
                 for n in ("ostype", "hostname", "osrelease", "version")]
        if None in parts:
            # No host to ask (while the snapshot is made): the interpreter's own answer.
            return _lis_real_uname()
        # The machine: the reference's. Pointers here are 32 bits wide (sys.maxsize,
        # platform.architecture()), as a 32-bit program's are on that machine.
        value = _lis_uname_value = _lis_os.uname_result(tuple(parts) + ("x86_64",))
    return value


def _lis_patch_platform(platform):
    if getattr(platform, "_lis_linux", False):
        return
    real_libc_ver = platform.libc_ver

    def libc_ver(executable=None, lib="", version="", chunksize=16384):
        # The reference answers from its glibc (os.confstr); this guest has no ELF
        # executable to scan.
        if executable in (None, "", _lis_sys.executable):
            return ("glibc", _LIS_GLIBC)
        return real_libc_ver(executable, lib, version, chunksize)

    libc_ver.__doc__ = real_libc_ver.__doc__
    platform.libc_ver = libc_ver
    processor = getattr(platform, "_Processor", None)
    if processor is not None:
        # Debian's `uname -p` says "unknown", which platform shows as ''.
        processor.from_subprocess = staticmethod(lambda: "")
    for cache in ("_uname_cache", "_os_release_cache"):
        if hasattr(platform, cache):
            setattr(platform, cache, None)
    if hasattr(platform, "_platform_cache"):
        platform._platform_cache.clear()
    platform._lis_linux = True


def _lis_patch_sysconfig(sysconfig):
    # Its build data keeps the name it was built under.
    name = "_sysconfigdata_%s_%s_%s" % (getattr(_lis_sys, "abiflags", ""), _LIS_BUILD_PLATFORM,
                                        getattr(_lis_sys.implementation, "_multiarch", ""))
    if hasattr(sysconfig, "_get_sysconfigdata_name"):
        sysconfig._get_sysconfigdata_name = lambda: _lis_os.environ.get(
            "_PYTHON_SYSCONFIGDATA_NAME", name)


def _lis_chain_patch(name, patch):
    prev = _LIS_PATCHES.get(name)
    if prev is None:
        _LIS_PATCHES[name] = patch
    else:
        def both(module, prev=prev):
            prev(module)
            patch(module)

        _LIS_PATCHES[name] = both


def _lis_patch_socket(socket):
    # WASI's gethostname answers "(none)" and it has no resolver: the node's name, as Linux's
    # getfqdn gives in a container whose name does not resolve further.
    if getattr(socket.gethostname, "_lis", False):
        return

    def gethostname():
        """Return the current host name."""
        return _lis_os.uname().nodename

    real_getfqdn = socket.getfqdn

    def getfqdn(name=""):
        name = name.strip()
        if not name or name in ("0.0.0.0", "::"):
            return gethostname()
        try:
            return real_getfqdn(name)
        except NameError:  # no gethostbyaddr in this build
            return name

    getfqdn.__doc__ = real_getfqdn.__doc__
    gethostname._lis = True
    socket.gethostname, socket.getfqdn = gethostname, getfqdn


_lis_chain_patch("platform", _lis_patch_platform)
_lis_chain_patch("socket", _lis_patch_socket)
_lis_chain_patch("sysconfig", _lis_patch_sysconfig)


def _lis_install_identity():
    global _lis_real_uname
    os, sys = _lis_os, _lis_sys
    if os.uname is not _lis_uname:
        _lis_real_uname = os.uname
    _lis_uname.__name__ = _lis_uname.__qualname__ = "uname"
    _lis_uname.__module__ = "posix"
    os.uname = _lis_uname
    sys.platform = "linux"
    real_confstr = os.confstr

    def confstr(name):
        key = name if isinstance(name, str) else None
        if key is None:
            for k, v in os.confstr_names.items():
                if v == name:
                    key = k
        if key == "CS_GNU_LIBC_VERSION":
            return "glibc " + _LIS_GLIBC
        if key == "CS_GNU_LIBPTHREAD_VERSION":
            return "NPTL " + _LIS_GLIBC
        return real_confstr(name)

    confstr.__doc__ = real_confstr.__doc__
    os.confstr = confstr
    real_sysconf = os.sysconf

    def sysconf(name):
        key = name
        if not isinstance(name, str):
            key = next((k for k, v in os.sysconf_names.items() if v == name), None)
        if key in ("SC_PAGE_SIZE", "SC_PAGESIZE"):
            return _LIS_PAGE
        if key in ("SC_NPROCESSORS_ONLN", "SC_NPROCESSORS_CONF"):
            return os.cpu_count()
        if key in ("SC_PHYS_PAGES", "SC_AVPHYS_PAGES"):
            f = _lis_limits()
            if f is not None:
                total = f["memory_cap"] or f["memory_limit"]
                if key == "SC_PHYS_PAGES":
                    return total // _LIS_PAGE
                return max(total - f["memory_used"], 0) // _LIS_PAGE
        if key == "SC_OPEN_MAX":
            f = _lis_limits()
            if f is not None:
                return f["open_files"]
        return real_sysconf(name)

    sysconf.__doc__ = real_sysconf.__doc__
    os.sysconf = sysconf

    def getloadavg():
        text = _lis_text("/proc/loadavg")
        if text is None:
            raise OSError("Load averages are unobtainable")
        return tuple(float(x) for x in text.split()[:3])

    os.getloadavg = getloadavg
    _lis_install_wait_status(os)
    _lis_install_disk(os)
    _lis_install_cpu_clock(os)


def _lis_install_wait_status(os):
    # Decoding wait statuses (os.system, os.popen's close(), os.waitpid elsewhere), as
    # glibc's macros: the build has no waitpid, so it left them out.
    def WIFEXITED(status):
        """Return True if the process returning status exited via the exit() system call."""
        return _lis_index(status, "status") & 0x7F == 0

    def WEXITSTATUS(status):
        """Return the process return code from status."""
        return (_lis_index(status, "status") >> 8) & 0xFF

    def WIFSIGNALED(status):
        """Return True if the process returning status was terminated by a signal."""
        return (_lis_index(status, "status") & 0x7F) not in (0, 0x7F)

    def WTERMSIG(status):
        """Return the signal that terminated the process that provided the status value."""
        return _lis_index(status, "status") & 0x7F

    def WIFSTOPPED(status):
        """Return True if the process returning status was stopped."""
        return _lis_index(status, "status") & 0xFF == 0x7F

    def WSTOPSIG(status):
        """Return the signal that stopped the process that provided the status value."""
        return (_lis_index(status, "status") >> 8) & 0xFF

    def WCOREDUMP(status):
        """Return True if the process returning status was dumped to a core file."""
        return bool(_lis_index(status, "status") & 0x80)

    def WIFCONTINUED(status):
        """Return True if a particular process was continued from a job control stop."""
        return _lis_index(status, "status") == 0xFFFF

    def waitstatus_to_exitcode(status):
        """Convert a wait status to an exit code.

On Unix:

* If WIFEXITED(status) is true, return WEXITSTATUS(status).
* If WIFSIGNALED(status) is true, return -WTERMSIG(status).
* Otherwise, raise a ValueError.

On Windows, return status shifted right by 8 bits.

On Unix, if the process is being traced or if waitpid() was called with
WUNTRACED option, the caller must first check if WIFSTOPPED(status) is true.
This function must not be called if WIFSTOPPED(status) is true."""
        status = _lis_index(status, "status")
        if not -(1 << 31) <= status < (1 << 31):
            raise OverflowError("Python int too large to convert to C int")
        if WIFEXITED(status):
            return WEXITSTATUS(status)
        if WIFSIGNALED(status):
            return -WTERMSIG(status)
        if WIFSTOPPED(status):
            raise ValueError("process stopped by delivery of signal %i" % WSTOPSIG(status))
        raise ValueError("invalid wait status: %i" % status)

    for fn in (WIFEXITED, WEXITSTATUS, WIFSIGNALED, WTERMSIG, WIFSTOPPED, WSTOPSIG, WCOREDUMP,
               WIFCONTINUED, waitstatus_to_exitcode):
        if not hasattr(os, fn.__name__):
            fn.__module__ = "posix"
            setattr(os, fn.__name__, fn)
    for name, value in (("WNOHANG", 1), ("WUNTRACED", 2), ("WCONTINUED", 8)):
        if not hasattr(os, name):
            setattr(os, name, value)


def _lis_patch_threadpoolctl(threadpoolctl):
    # threadpoolctl lists the process's native libraries (OpenBLAS, OpenMP, ...) through ctypes,
    # which this build lacks; the guest's numpy and scipy are linked statically, one thread,
    # with no pool to control: it finds none, as on a machine without them, and limits
    # (threadpool_limits, scikit-learn's KMeans) are accepted and change nothing.
    controller = getattr(threadpoolctl, "ThreadpoolController", None)
    if controller is not None and hasattr(controller, "_load_libraries"):
        controller._load_libraries = lambda self: None


_lis_chain_patch("threadpoolctl", _lis_patch_threadpoolctl)


def _lis_install_disk(os):
    # statvfs / shutil.disk_usage: the sandbox's disk quota (what `df` would show of it).
    import collections
    import shutil

    if not hasattr(os, "statvfs_result"):
        os.statvfs_result = _lis_struct(
            "os", "statvfs_result",
            ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree",
             "f_favail", "f_flag", "f_namemax"))

    def statvfs(path):
        os.stat(path)
        f = _lis_limits()
        if f is None or f["quota_bytes"] is None:
            raise OSError(_lis_errno.ENOSYS, "Function not implemented", path)
        blocks = f["quota_bytes"] // _LIS_PAGE
        free = max(f["quota_bytes"] - f["quota_used"], 0) // _LIS_PAGE
        files = f["quota_files"]
        ffree = max(files - f["quota_files_used"], 0)
        return os.statvfs_result((_LIS_PAGE, _LIS_PAGE, blocks, free, free, files, ffree,
                                  ffree, 0, 255))

    usage = getattr(shutil, "_ntuple_diskusage", None) or collections.namedtuple(
        "usage", "total used free")
    usage.__module__ = "shutil"

    def disk_usage(path):
        """Return disk usage statistics about the given path (the sandbox's quota).

        Returned value is a named tuple with attributes 'total', 'used' and
        'free', which are the amount of total, used and free space, in bytes.
        """
        st = statvfs(path)
        free = st.f_bavail * st.f_frsize
        total = st.f_blocks * st.f_frsize
        used = (st.f_blocks - st.f_bfree) * st.f_frsize
        return usage(total, used, free)

    if not hasattr(os, "statvfs"):
        os.statvfs = statvfs
    shutil._ntuple_diskusage = usage
    if not hasattr(shutil, "disk_usage"):
        shutil.disk_usage = disk_usage
        if "disk_usage" not in shutil.__all__:
            shutil.__all__.append("disk_usage")


def _lis_cpu_time():
    # The call's CPU time: the guest runs one thread, so its run time (CPython's clock(),
    # from the instance's start) less what it spent asleep or waiting for commands.
    return max(_lis_clock() - _lis_idle[0] - _lis_idle[1], 0.0)


def _lis_install_cpu_clock(os):
    global _lis_real_sleep, _lis_proc, _lis_clock
    import time

    _lis_clock = getattr(time.process_time, "_lis_real", time.process_time)
    sleep, proc = _lis_real_sleep, _lis_proc
    if not getattr(sleep, "_lis_counted", False):
        def counted_sleep(secs):
            t = _lis_clock()
            try:
                return sleep(secs)
            finally:
                _lis_idle[0] += _lis_clock() - t

        counted_sleep._lis_counted = True
        _lis_real_sleep = counted_sleep
    if not getattr(proc, "_lis_counted", False):
        def counted_proc(*args, **kwargs):
            t = _lis_clock()
            try:
                return proc(*args, **kwargs)
            finally:
                _lis_idle[1] += _lis_clock() - t

        counted_proc._lis_counted = True
        _lis_proc = counted_proc

    def process_time():
        return _lis_cpu_time()

    def process_time_ns():
        return int(_lis_cpu_time() * 1e9)

    process_time._lis_real = _lis_clock
    process_time.__doc__ = time.process_time.__doc__
    process_time_ns.__doc__ = time.process_time_ns.__doc__
    time.process_time, time.process_time_ns = process_time, process_time_ns
    real_times = os.times

    def times():
        t = real_times()
        return os.times_result((_lis_cpu_time(), 0.0, _lis_idle[1], 0.0, t.elapsed))

    times.__doc__ = real_times.__doc__
    os.times = times


# -- resource ---------------------------------------------------------------------------------

_LIS_RLIMITS = ("CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK",
                "AS", "LOCKS", "SIGPENDING", "MSGQUEUE", "NICE", "RTPRIO", "RTTIME")
# Per call (each call is a fresh instance): the limits the program lowered, {res: (soft, hard)}.
_lis_rlimit_set = {}
_lis_cpu_limit = [None, None]  # [soft seconds, hard seconds] while RLIMIT_CPU is lowered
_LIS_CPU_TOOL = 4


def _lis_rlimit_defaults(f):
    inf = _LIS_RLIM_INF
    memory = f["memory_limit"] if f else inf
    cpu = int(-(-f["timeout"] // 1)) if f else inf
    fsize = f["quota_bytes"] if f and f["quota_bytes"] is not None else inf
    nofile = f["open_files"] if f else 1024
    return {
        0: (cpu, cpu), 1: (fsize, fsize), 2: (memory, memory), 3: (8388608, inf), 4: (0, inf),
        5: (memory, memory), 6: (inf, inf), 7: (nofile, nofile), 8: (8388608, 8388608),
        9: (memory, memory), 10: (inf, inf), 11: (63704, 63704), 12: (819200, 819200),
        13: (0, 0), 14: (0, 0), 15: (inf, inf),
    }


def _lis_cpu_tick(*args):
    soft, hard = _lis_cpu_limit
    if soft is None:
        return
    used = _lis_cpu_time()
    if used < soft and (hard is None or used < hard):
        return
    # SIGXCPU's default action ends the program (bash: "CPU time limit exceeded", 152).
    _lis_cpu_monitor(False)
    _lis_cpu_limit[0] = None
    _lis_sys.stderr.write("CPU time limit exceeded\n")
    raise SystemExit(128 + 24)


def _lis_cpu_monitor(on):
    monitoring = getattr(_lis_sys, "monitoring", None)
    if monitoring is None:
        return
    events = monitoring.events
    kinds = (events.PY_START, events.JUMP, events.PY_RESUME)
    armed = monitoring.get_tool(_LIS_CPU_TOOL) is not None
    if on and not armed:
        try:
            monitoring.use_tool_id(_LIS_CPU_TOOL, "llm-in-sandbox RLIMIT_CPU")
        except ValueError:
            return
        for event in kinds:
            monitoring.register_callback(_LIS_CPU_TOOL, event, _lis_cpu_tick)
        monitoring.set_events(_LIS_CPU_TOOL, events.PY_START | events.JUMP | events.PY_RESUME)
    elif not on and armed:
        monitoring.set_events(_LIS_CPU_TOOL, 0)
        for event in kinds:
            monitoring.register_callback(_LIS_CPU_TOOL, event, None)
        monitoring.free_tool_id(_LIS_CPU_TOOL)


def _lis_resource_module(ns):
    inf = _LIS_RLIM_INF
    ns["__doc__"] = ("Resource usage and limits (this sandbox's: its memory limit, deadline, "
                     "disk quota and open files).")
    for i, name in enumerate(_LIS_RLIMITS):
        ns["RLIMIT_" + name] = i
    ns.update(RLIM_INFINITY=inf, RLIM_NLIMITS=len(_LIS_RLIMITS), RUSAGE_SELF=0,
              RUSAGE_CHILDREN=-1, RUSAGE_THREAD=1, error=OSError)
    fields = ("ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss",
              "ru_minflt", "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd",
              "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw")
    Rusage = _lis_struct("resource", "struct_rusage", fields)
    ns["struct_rusage"] = Rusage

    def getrusage(who):
        who = _lis_index(who, "who")
        if who not in (0, -1, 1):
            raise ValueError("invalid who parameter")
        if who == -1:
            # Commands run in the shell, not as processes of this one: their time is known,
            # their memory is not.
            return Rusage(_lis_idle[1], 0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        f = _lis_limits()
        maxrss = f["memory_peak"] // 1024 if f else 0
        return Rusage(_lis_cpu_time(), 0.0, maxrss, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    def check(res):
        res = _lis_index(res, "resource")
        if not 0 <= res < len(_LIS_RLIMITS):
            raise ValueError("invalid resource specified")
        return res

    def getrlimit(resource):
        res = check(resource)
        if res in _lis_rlimit_set:
            return _lis_rlimit_set[res]
        return _lis_rlimit_defaults(_lis_limits())[res]

    def setrlimit(resource, limits):
        res = check(resource)
        try:
            soft, hard = limits
        except (TypeError, ValueError):
            raise ValueError("expected a tuple of 2 integers") from None
        soft, hard = _lis_index(soft, "soft"), _lis_index(hard, "hard")
        old_soft, old_hard = getrlimit(res)
        big = lambda v: float("inf") if v == inf or v < 0 else v  # noqa: E731
        if big(soft) > big(hard):
            raise ValueError("current limit exceeds maximum limit")
        if big(hard) > big(old_hard):
            raise ValueError("not allowed to raise maximum limit")
        soft, hard = (inf if soft < 0 else soft), (inf if hard < 0 else hard)
        if res in (2, 9):  # RLIMIT_DATA, RLIMIT_AS: the guest's linear memory
            caps = [(soft, hard)] + [_lis_rlimit_set[r] for r in (2, 9)
                                     if r in _lis_rlimit_set and r != res]
            cap = min((s for s, _ in caps if s != inf), default=None)
            answer, _ = _lis_system({"op": "memory-cap", "cap": cap})
            if not answer or not answer.get("ok"):
                raise OSError(_lis_errno.EPERM, "Operation not permitted")
        elif res == 0:
            _lis_cpu_limit[0] = None if soft == inf else soft
            _lis_cpu_limit[1] = None if hard == inf else hard
            _lis_cpu_monitor(soft != inf or hard != inf)
        _lis_rlimit_set[res] = (soft, hard)

    def prlimit(pid, resource, limits=None):
        if pid not in (0, _lis_os.getpid()):
            raise ProcessLookupError(_lis_errno.ESRCH, "No such process")
        old = getrlimit(resource)
        if limits is not None:
            setrlimit(resource, limits)
        return old

    def getpagesize():
        return _LIS_PAGE

    for fn in (getrusage, getrlimit, setrlimit, prlimit, getpagesize):
        fn.__module__ = "resource"
        ns[fn.__name__] = fn


_LisStubLoader.fill["resource"] = _lis_resource_module


class _LisBuildSys:
    # `sys` as the runtime's build named its platform, for the modules whose WASI branches
    # must stay taken (below); everything else is the real `sys`.
    platform = "wasi"

    def __getattr__(self, name):
        return getattr(_lis_sys, name)


def _lis_patch_numpy_format(module):
    # numpy's build writes `.npy` files through `fp.write` on WASI; its Linux branch hands the
    # file to C (`tofile`), which needs `dup`, which WASI lacks.
    module.sys = _LisBuildSys()


_lis_chain_patch("numpy.lib._format_impl", _lis_patch_numpy_format)


def _lis_system_install():
    _lis_install_identity()
    _lis_install_files()
    # `platform` and `sysconfig` are in the snapshot: patched (again) now that os.uname is
    # Linux's, so their caches are filled from it.
    for name, patch in (("platform", _lis_patch_platform), ("sysconfig", _lis_patch_sysconfig)):
        module = _lis_sys.modules.get(name)
        if module is not None:
            module.__dict__.pop("_lis_linux", None)
            patch(module)


_LIS_INSTALLS.append(_lis_system_install)
