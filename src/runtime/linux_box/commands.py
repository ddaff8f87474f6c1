

# ---- Commands: subprocess, os.system, os.popen, shutil.which -------------------------------
# WASI has no processes: a command goes through the host door (`proc`) to a fresh in-process
# shell over the same sandbox (docs/linux-compatibility.md). It runs when its result is first
# needed (communicate, wait, poll, reading a pipe, the end of the program), so the timeout
# of communicate/run bounds it; it cannot run alongside the Python program.

_LIS_DEFAULT_ENV = ("HOME", "TMPDIR", "PATH", "LANG", "MPLBACKEND", "PYTHONTZPATH")
# Variables the command's shell has of its own.
_LIS_SHELL_ENV = ("OLDPWD", "USER")
# First line of the script of a command given as an argument list: no shell stands between
# the program and Python on Linux, so a program a signal ended shows as returncode -N
# (shell/processes.rs).
_LIS_NO_SHELL = "#lis:no-shell\n"


class _LisInteractiveError(BrokenPipeError):
    # Raised for back-and-forth with a child (docs/linux-compatibility.md, Commands).
    pass


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
            raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", program)
        raise OSError(answer.get("message", "the command could not be run"))
    n = answer["stdout"]
    return answer["status"], rest[:n], rest[n:], answer["timed_out"]


def _lis_program(program):
    # The shell's commands stand for the container's programs (which() gives them as
    # /usr/bin/NAME, python3 as sys.executable): a path there names the command itself.
    head, _, name = program.rpartition("/")
    if head in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"):
        return "python3" if name == "python.wasm" else name
    return program


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
        program = _lis_program(decode(executable) if executable is not None else argv[0])
        command = " ".join(_lis_quote(a) for a in [program] + argv[1:])
    environ = os.environ if env is None else env
    if env is None:
        # The C environment, which children inherit: os.environ and what os.putenv and
        # os.unsetenv changed past it.
        changed = {k: v for k, v in _lis_c_env.items() if environ.get(k) != v}
        if changed:
            environ = dict(environ)
            for key, value in changed.items():
                if value is None:
                    environ.pop(key, None)
                else:
                    environ[key] = value
    lines = ["cd -- %s || exit 1" % _lis_quote(cwd)]
    # The shell's own variables are not the program's (`cd` sets PWD and OLDPWD): a program
    # started without a shell sees exactly its environment; one with a shell gets PWD, as
    # the container's /bin/sh sets it.
    for key in _LIS_DEFAULT_ENV + _LIS_SHELL_ENV + (() if shell else ("PWD",)):
        if key not in environ:
            lines.append("unset %s" % key)
    for key, value in environ.items():
        key, value = decode(key), decode(value)
        if key.isidentifier() and key.isascii():
            lines.append("export %s=%s" % (key, _lis_quote(value)))
    lines.append(command)
    script = "\n".join(lines)
    return (script if shell else _LIS_NO_SHELL + script), program


# What os.putenv / os.unsetenv set (None: unset), os.environ's changes included (they go
# through them): children inherit this, not os.environ, where the two differ.
_lis_c_env = {}


def _lis_install_putenv():
    os = _lis_os
    real_putenv, real_unsetenv = os.putenv, os.unsetenv
    if getattr(real_putenv, "_lis", False):
        return
    text = lambda k: os.fsdecode(k) if isinstance(k, (bytes, bytearray)) else k  # noqa: E731

    def putenv(name, value, /):
        real_putenv(name, value)
        _lis_c_env[text(name)] = text(value)

    def unsetenv(name, /):
        real_unsetenv(name)
        _lis_c_env[text(name)] = None

    for fn, real in ((putenv, real_putenv), (unsetenv, real_unsetenv)):
        fn.__module__ = "posix"
        fn.__doc__ = real.__doc__
    putenv._lis = True
    os.putenv, os.unsetenv = putenv, unsetenv


_LIS_INSTALLS.append(_lis_install_putenv)


def _lis_patch_subprocess(subprocess):
    import io
    import itertools
    import os

    PIPE, STDOUT, DEVNULL = subprocess.PIPE, subprocess.STDOUT, subprocess.DEVNULL
    pids = itertools.count(1000)
    waiting = []
    children = {}  # pid -> Popen, until waited for (os.kill finds them here)

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
            if self._proc._ran:
                # The command already ran on what was written before (it cannot run alongside
                # the program): more input would be lost, and waiting for an answer would hang.
                raise _LisInteractiveError(
                    32, "Broken pipe: the command already ran (it ran when its output was "
                    "first read, on the input written before); this sandbox runs a command "
                    "to its end, not alongside Python, so writing to a running child's stdin "
                    "after reading from it (back-and-forth) is not supported: write all the "
                    "input first, or use communicate(input)")
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
                raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", cwd)
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
                if "/" in self._program:
                    _lis_exec_check(self._program, cwd)
                elif shutil_which(self._program) is None:
                    raise FileNotFoundError(_lis_errno.ENOENT, "No such file or directory", self._program)
            waiting.append(self)
            children[self.pid] = self

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
            self._lis_reaped()
            return self._decoded(self._out, 1), self._decoded(self._err, 2)

        def wait(self, timeout=None):
            if self.returncode is None:
                self._run(timeout)
            self._lis_reaped()
            return self.returncode

        def poll(self):
            if self.returncode is None and not self._timed_out:
                self._run(None)
            self._lis_reaped()
            return self.returncode

        def _lis_signal(self, sig):
            # os.kill(pid, sig): a command that has not run yet never runs (unless the signal
            # is one whose default is to do nothing); one that ran and was waited for is gone.
            if self.pid not in children:
                raise ProcessLookupError(_lis_errno.ESRCH, "No such process")
            # A command stopped at its timeout counts as still running (run() kills it).
            if self.returncode is None and (not self._ran or self._timed_out) \
                    and sig not in _LIS_SIG_IGNORED and sig != 0:
                self._ran = True
                if self in waiting:
                    waiting.remove(self)
                self.returncode = -int(sig)

        def _lis_reaped(self):
            if self.returncode is not None:
                children.pop(self.pid, None)

        def send_signal(self, sig):
            if self.returncode is None and self.pid in children:
                self._lis_signal(int(sig))

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
    subprocess._lis_children = children

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
        if "/" in name or path is not None:
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
    "locale": _lis_patch_locale,
    "hashlib": _lis_patch_hashlib,
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
    for install in _LIS_INSTALLS:
        install()
