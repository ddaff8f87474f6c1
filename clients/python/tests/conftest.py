"""Fixtures that start the real ``llm-in-sandbox serve``.

The binary is ``$LLM_IN_SANDBOX_BIN`` (default ``<repo>/target/release/llm-in-sandbox``). Each
server fixture starts ``[bin, "serve", "--bind", "127.0.0.1:0", ...]``, reads the first stdout
line (``listening on http://ADDR``), waits for ``GET /healthz`` and stops the server at the end
of the session. When a test fails, what the servers wrote on stderr during it is attached to
the report. A missing binary fails the server tests at once with a message saying so (the
unit tests need no server).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import List, Optional

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # clients/python/tests -> repo root
FIXTURES = REPO / "tests" / "fixtures" / "reference"
TOKEN = "secret"

# Loopback never goes through a proxy (sandbox_fusion uses requests, which reads these).
for _var in ("NO_PROXY", "no_proxy"):
    _cur = os.environ.get(_var, "")
    if "127.0.0.1" not in _cur:
        os.environ[_var] = ",".join(p for p in (_cur, "127.0.0.1", "localhost") if p)


def server_binary() -> Path:
    return Path(os.environ.get("LLM_IN_SANDBOX_BIN") or REPO / "target" / "release" / "llm-in-sandbox")


def require_binary() -> Path:
    """The binary, or fail the calling test at once with what to do."""
    b = server_binary()
    if not b.is_file() or not os.access(b, os.X_OK):
        pytest.fail(
            f"llm-in-sandbox binary not found at {b}: build it (`cargo build --release` in "
            f"{REPO}) or set LLM_IN_SANDBOX_BIN to its path",
            pytrace=False,
        )
    return b


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: the server gets SIGTERM if pytest dies without running its finalizers."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def server_env() -> dict:
    """The environment for a server we start: ours, minus ``LLM_IN_SANDBOX_TOKEN`` (which
    ``serve`` would take as its token); the fixtures pass ``--token`` when they want one."""
    env = dict(os.environ)
    env.pop("LLM_IN_SANDBOX_TOKEN", None)
    return env


START_TIMEOUT = float(os.environ.get("LLM_IN_SANDBOX_START_TIMEOUT", "300"))
_SERVERS: List["Server"] = []


class Server:
    """One running ``llm-in-sandbox serve``."""

    def __init__(self, name: str, args: List[str], token: Optional[str] = None) -> None:
        self.name = name
        self.token = token
        binary = require_binary()
        # Without a token of its own, a test server runs with --no-token (the server would
        # otherwise make one and print it).
        no_token = [] if token is not None else ["--no-token"]
        self.cmd = [str(binary), "serve", "--bind", "127.0.0.1:0", *no_token, *args]
        self.stderr_file = tempfile.NamedTemporaryFile(
            prefix=f"llm-in-sandbox-{name}-", suffix=".stderr", delete=False
        )
        self.proc = subprocess.Popen(
            self.cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.stderr_file,
            env=server_env(),
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            text=True,
            bufsize=1,
        )
        self._first_line: Optional[str] = None
        self._got_line = threading.Event()
        threading.Thread(target=self._drain_stdout, daemon=True).start()
        problem = None
        try:
            self.url = self._wait_listening()
            self._wait_healthy()
        except Exception as e:  # noqa: BLE001
            problem = str(e)
        if problem is not None:
            self.stop()
            pytest.fail(
                f"server {name!r} did not start ({problem}): {' '.join(self.cmd)}\n"
                f"--- its stderr ---\n{self.stderr_text()[-4000:]}",
                pytrace=False,
            )
        _SERVERS.append(self)

    def _drain_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if self._first_line is None:
                self._first_line = line.strip()
                self._got_line.set()
        self._got_line.set()

    def _wait_listening(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        while not self._got_line.wait(0.05):
            if self.proc.poll() is not None:
                raise RuntimeError(f"exited with {self.proc.returncode} before listening")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no 'listening on' line after {START_TIMEOUT:.0f} s")
        if self._first_line is None:
            self.proc.wait(timeout=5)
            raise RuntimeError(f"exited with {self.proc.returncode} before printing its address")
        m = re.match(r"listening on (http://\S+)", self._first_line)
        if not m:
            raise RuntimeError(f"first stdout line is {self._first_line!r}, not 'listening on http://ADDR'")
        return m.group(1).rstrip("/")

    def _wait_healthy(self) -> None:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + 30
        last: Optional[BaseException] = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"exited with {self.proc.returncode}")
            try:
                with opener.open(self.url + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return
            except Exception as e:  # noqa: BLE001
                last = e
            time.sleep(0.05)
        raise TimeoutError(f"GET /healthz never answered 200: {last!r}")

    def stderr_offset(self) -> int:
        try:
            return os.path.getsize(self.stderr_file.name)
        except OSError:
            return 0

    def stderr_text(self, start: int = 0) -> str:
        try:
            with open(self.stderr_file.name, "rb") as f:
                f.seek(start)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def client(self, **kwargs):
        from llm_in_sandbox_client import Client

        kwargs.setdefault("token", self.token)
        return Client(self.url, **kwargs)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self in _SERVERS:
            _SERVERS.remove(self)


def _start(request, name: str, args: List[str], token: Optional[str] = None) -> Server:
    server = Server(name, args, token)

    def finish() -> None:
        server.stop()
        if request.session.testsfailed:
            sys.stderr.write(f"\n[server {name} stderr: {server.stderr_file.name}]\n")
        else:
            try:
                os.unlink(server.stderr_file.name)
            except OSError:
                pass

    request.addfinalizer(finish)
    return server


@pytest.fixture(scope="session")
def server(request) -> Server:
    """The plain server: loopback, no token."""
    return _start(request, "main", [])


@pytest.fixture(scope="session")
def token_server(request) -> Server:
    """A server started with ``--token secret``."""
    return _start(request, "token", ["--token", TOKEN], token=TOKEN)


@pytest.fixture(scope="session")
def small_body_server(request) -> Server:
    """A server that takes request bodies of at most 1 MiB."""
    return _start(request, "small-body", ["--max-body-mb", "1"])


@pytest.fixture(scope="session")
def two_sandbox_server(request) -> Server:
    """A server with at most two live sessions."""
    return _start(request, "two-sandboxes", ["--max-sandboxes", "2"])


@pytest.fixture(scope="session")
def short_ttl_server(request) -> Server:
    """A server that deletes a session idle for 2 s."""
    return _start(request, "short-ttl", ["--idle-ttl", "2"])


@pytest.fixture
def client(server):
    return server.client()


@pytest.fixture
def sandbox(client):
    sb = client.create()
    yield sb
    sb.delete(missing_ok=True)


def reference_text(name: str) -> str:
    """One of the reference's observation texts (tests/fixtures/reference), byte for byte."""
    path = FIXTURES / name
    if not path.is_file():
        pytest.skip(f"reference fixture {path} not found")
    return path.read_bytes().decode("utf-8")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    item._server_offsets = {id(s): s.stderr_offset() for s in _SERVERS}
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when in ("call", "setup"):
        offsets = getattr(item, "_server_offsets", {})
        for s in list(_SERVERS):
            text = s.stderr_text(offsets.get(id(s), 0))
            if text.strip():
                report.sections.append((f"server {s.name} stderr", text[-8000:]))
