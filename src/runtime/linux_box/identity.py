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
