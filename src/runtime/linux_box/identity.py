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

# Installers the later files add (called by `_lis_linux_install`, after identity, threads and
# the import-time patches), so each part of the box keeps to its own file.
_LIS_INSTALLS = []

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
    if not hasattr(os, "chown"):
        # One user: everything belongs to root, so a chown (tarfile extracting as root,
        # shutil.chown) is accepted and changes nothing; a missing path fails as on Linux.
        def chown(path, uid, gid, *, dir_fd=None, follow_symlinks=True):
            os.stat(path, follow_symlinks=follow_symlinks)

        def lchown(path, uid, gid):
            os.lstat(path)

        def fchown(fd, uid, gid):
            os.fstat(fd)

        os.chown, os.lchown, os.fchown = chown, lchown, fchown
    # The container's interpreter (this one is started as python.wasm): `subprocess.run(
    # [sys.executable, ...])` then runs python3 in the shell.
    sys.executable = sys._base_executable = "/usr/local/bin/python3"
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


# The reference's image (python:3.11-slim) has no locales beyond C and C.UTF-8: asking for
# another fails there with `locale.Error`, and a program's fallback takes over. wasi-libc
# accepts any name (and answers composite names for LC_ALL), so the names are kept here.
_LIS_LOCALE_NAMES = {"C": "C", "POSIX": "C", "C.UTF-8": "C.UTF-8", "C.utf8": "C.UTF-8",
                     "C.utf-8": "C.UTF-8", "C.UTF8": "C.UTF-8"}


def _lis_patch_locale(locale):
    real = locale._setlocale  # the C function (locale.setlocale and getlocale call it)
    if getattr(locale.setlocale, "_lis", False):
        return
    cats = [getattr(locale, n) for n in ("LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
                                         "LC_MONETARY", "LC_MESSAGES") if hasattr(locale, n)]
    # At start-up CPython sets LC_CTYPE from the environment (LANG=C.UTF-8); the rest are C.
    current = {c: "C" for c in cats}
    current[locale.LC_CTYPE] = "C.UTF-8"
    glibc_order = ("LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY",
                   "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
                   "LC_MEASUREMENT", "LC_IDENTIFICATION")
    rest = ["C"]  # the categories Python does not name, set only through LC_ALL

    def query(category):
        if category != locale.LC_ALL:
            return current.get(category, "C")
        values = [current.get(c) for c in cats] + rest
        if len(set(values)) == 1:
            return values[0]
        parts = []
        for n in glibc_order:
            c = getattr(locale, n, None)
            parts.append("%s=%s" % (n, current[c] if c in current else rest[0]))
        return ";".join(parts)

    def setlocale(category, locale_name=None):
        if locale_name is None:
            if category != locale.LC_ALL and category not in current:
                return real(category)
            return query(category)
        if not isinstance(locale_name, str):
            locale_name = locale._build_localename(locale_name)
        name = locale_name
        if name == "":
            env = _lis_os.environ
            name = env.get("LC_ALL") or env.get("LANG") or "C"
        name = _LIS_LOCALE_NAMES.get(name)
        if name is None:
            raise locale.Error("unsupported locale setting")
        real(category, name)
        if category == locale.LC_ALL:
            for c in cats:
                current[c] = name
            rest[0] = name
        else:
            current[category] = name
        return name

    setlocale._lis = True
    setlocale.__doc__ = locale.setlocale.__doc__
    locale.setlocale = locale._setlocale = setlocale


def _lis_patch_hashlib(hashlib):
    # CPython's hashlib takes pbkdf2_hmac from OpenSSL, which this build lacks (the pure-Python
    # fallback left the stdlib in 3.12); models use it for password hashing. RFC 8018 over
    # hmac's construction, with the keyed inner/outer states computed once.
    if hasattr(hashlib, "pbkdf2_hmac"):
        return

    def pbkdf2_hmac(hash_name, password, salt, iterations, dklen=None):
        if not isinstance(hash_name, str):
            raise TypeError("pbkdf2_hmac() argument 'hash_name' must be str")
        password, salt = bytes(memoryview(password)), bytes(memoryview(salt))
        if iterations < 1:
            raise ValueError("iteration value must be greater than 0.")
        inner, outer = hashlib.new(hash_name), hashlib.new(hash_name)
        width = inner.block_size
        if len(password) > width:
            password = hashlib.new(hash_name, password).digest()
        password = password.ljust(width, b"\0")
        inner.update(password.translate(bytes(b ^ 0x36 for b in range(256))))
        outer.update(password.translate(bytes(b ^ 0x5C for b in range(256))))
        size = outer.digest_size
        dklen = size if dklen is None else dklen
        if dklen < 1:
            raise ValueError("key length must be greater than 0.")

        def prf(message):
            i, o = inner.copy(), outer.copy()
            i.update(message)
            o.update(i.digest())
            return o.digest()

        key, block = b"", 1
        while len(key) < dklen:
            u = prf(salt + block.to_bytes(4, "big"))
            acc = int.from_bytes(u, "big")
            for _ in range(iterations - 1):
                u = prf(u)
                acc ^= int.from_bytes(u, "big")
            key += acc.to_bytes(size, "big")
            block += 1
        return key[:dklen]

    hashlib.pbkdf2_hmac = pbkdf2_hmac
