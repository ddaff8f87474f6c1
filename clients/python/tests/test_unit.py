"""Client-side behaviour that needs no sandbox server: error parsing, retries, tar safety,
and the mapping to the reference's return conventions."""

from __future__ import annotations

import io
import json
import os
import tarfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from llm_in_sandbox_client import (
    Client,
    ExecResult,
    SandboxAPIError,
    SandboxConnectionError,
    SandboxUnavailableError,
    UnsafeArchiveError,
    pack_dir,
    safe_extract,
)
from llm_in_sandbox_client.errors import error_from_response, parse_retry_after
from llm_in_sandbox_client.runtime import _memory_mb, reference_result


# -- error parsing ---------------------------------------------------------------------------


def test_error_body_is_parsed():
    body = json.dumps(
        {"error": {"code": "not_found", "message": "no sandbox sb-12", "retryable": False}}
    ).encode()
    e = error_from_response(404, body, {})
    assert (e.status, e.code, e.message, e.retryable) == (404, "not_found", "no sandbox sb-12", False)
    assert "404" in str(e) and "no sandbox sb-12" in str(e)


def test_retryable_error_with_retry_after():
    body = b'{"error": {"code": "too_many_requests", "message": "full", "retryable": true}}'
    e = error_from_response(429, body, {"Retry-After": "2"})
    assert e.retryable and e.code == "too_many_requests" and e.retry_after == 2.0


def test_non_json_error_still_gives_a_code():
    e = error_from_response(503, b"<html>bad gateway</html>", {})
    assert (e.code, e.retryable) == ("unavailable", True)
    assert "bad gateway" in e.message
    e = error_from_response(418, b"", {})
    assert e.code == "http_418" and e.retryable is False


def test_error_pickles():
    import pickle

    e = pickle.loads(pickle.dumps(SandboxAPIError(413, "payload_too_large", "big", False)))
    assert (e.status, e.code, e.message) == (413, "payload_too_large", "big")
    # Ray and multiprocessing move a trajectory's error between processes.
    u = pickle.loads(pickle.dumps(SandboxUnavailableError("s1", "the server no longer has it")))
    assert (u.session, u.cause) == ("s1", "the server no longer has it")
    assert isinstance(u, RuntimeError) and "s1" in str(u)


@pytest.mark.parametrize("value,expected", [("3", 3.0), (" 0 ", 0.0), ("-1", None), ("soon", None), (None, None)])
def test_retry_after_values(value, expected):
    assert parse_retry_after(value) == expected


# -- retries against a scripted HTTP server ----------------------------------------------------


class _Scripted(BaseHTTPRequestHandler):
    script: list = []
    seen: list = []
    session_keys: list = []

    def log_message(self, *args):
        pass

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        type(self).seen.append((self.command, self.path, self.headers.get("Authorization"), body))
        type(self).session_keys.append(self.headers.get("X-Session-Key"))
        status, headers, payload = type(self).script.pop(0)
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = _answer


@pytest.fixture
def scripted():
    _Scripted.script = []
    _Scripted.seen = []
    _Scripted.session_keys = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", _Scripted
    httpd.shutdown()
    httpd.server_close()


BUSY = {"error": {"code": "too_many_requests", "message": "busy", "retryable": True}}


def test_429_is_retried_honouring_retry_after(scripted):
    url, h = scripted
    h.script = [
        (429, {"Retry-After": "0"}, BUSY),
        (503, {"Retry-After": "0"}, {"error": {"code": "unavailable", "message": "x", "retryable": True}}),
        (201, {}, {"id": "sb-1", "key": None, "created": True}),
    ]
    t0 = time.monotonic()
    sb = Client(url, token="t0k", retries=3).create(env={"A": "1"})
    assert sb.id == "sb-1" and sb.created
    assert time.monotonic() - t0 < 2
    assert len(h.seen) == 3
    method, path, auth, body = h.seen[-1]
    assert (method, path, auth) == ("POST", "/v1/sandboxes", "Bearer t0k")
    assert json.loads(body) == {"env": {"A": "1"}}


def test_retry_after_sets_the_wait(scripted):
    url, h = scripted
    h.script = [(429, {"Retry-After": "1"}, BUSY), (200, {}, "pong")]
    t0 = time.monotonic()
    assert Client(url).ping() == "pong"
    assert 0.9 <= time.monotonic() - t0 < 3


def test_retries_give_up_and_raise(scripted):
    url, h = scripted
    h.script = [(429, {"Retry-After": "0"}, BUSY)] * 3
    with pytest.raises(SandboxAPIError) as ei:
        Client(url, retries=2).ping()
    assert ei.value.status == 429 and ei.value.retryable and len(h.seen) == 3


def test_no_retry_when_disabled_or_not_retryable(scripted):
    url, h = scripted
    h.script = [(429, {"Retry-After": "0"}, BUSY)]
    with pytest.raises(SandboxAPIError):
        Client(url, retries=0).ping()
    assert len(h.seen) == 1
    h.script = [(404, {}, {"error": {"code": "not_found", "message": "no sandbox x", "retryable": False}})]
    with pytest.raises(SandboxAPIError) as ei:
        Client(url).get("x")
    assert ei.value.code == "not_found" and len(h.seen) == 2


def test_paths_are_sent_as_query_parameters(scripted):
    url, h = scripted
    h.script = [(200, {}, {"path": "/testbed/a b/ü.txt", "size": 3}), (200, {}, b"abc")]
    sb = __import__("llm_in_sandbox_client").Sandbox(Client(url), {"id": "sb 1"})
    sb.write_file("a b/ü.txt", "abc")
    assert sb.read_file("a b/ü.txt") == b"abc"
    method, path, _, body = h.seen[0]
    assert method == "PUT" and body == b"abc"
    assert path == "/v1/sandboxes/sb%201/files?path=a%20b/%C3%BC.txt" or path.startswith(
        "/v1/sandboxes/sb%201/files?path=a%20b%2F%C3%BC.txt"
    )


def test_keyed_session_calls_carry_the_key_header(scripted):
    # A proxy routing by X-Session-Key must see the key on the create and on every later call.
    url, h = scripted
    exec_answer = {"exit_code": 0, "stdout": "", "stderr": "", "timed_out": False}
    h.script = [
        (201, {}, {"id": "sb-7", "key": "rollout-3", "created": True}),
        (200, {}, exec_answer),
        (200, {}, {"path": "/testbed/a", "size": 1}),
        (200, {}, b"x"),
        (200, {}, {"deleted": 1}),
        (201, {}, {"id": "sb-8", "key": None, "created": True}),
        (200, {}, exec_answer),
    ]
    c = Client(url)
    sb = c.create(key="rollout-3")
    sb.exec("true")
    sb.write_file("a", "x")
    assert sb.read_file("a") == b"x"
    sb.delete()
    assert h.session_keys == ["rollout-3"] * 5
    c.create().exec("true")
    assert h.session_keys[5:] == [None, None]
    # Any key becomes a valid header value (percent-encoded).
    h.script = [(201, {}, {"id": "sb-9", "key": "日本 a/b", "created": True})]
    c.create(key="日本 a/b")
    assert h.session_keys[-1] == "%E6%97%A5%E6%9C%AC%20a%2Fb"


def test_connection_refused_is_a_connection_error():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(SandboxConnectionError):
        Client(f"http://127.0.0.1:{port}", timeout=2).health()


# -- tar safety --------------------------------------------------------------------------------


def _tar(*members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, kind, payload in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                data = payload.encode() if isinstance(payload, str) else payload
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            elif kind == "dir":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif kind == "sym":
                info.type = tarfile.SYMTYPE
                info.linkname = payload
                tar.addfile(info)
            elif kind == "hard":
                info.type = tarfile.LNKTYPE
                info.linkname = payload
                tar.addfile(info)
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
                tar.addfile(info)
    return buf.getvalue()


@pytest.mark.parametrize(
    "members",
    [
        [("/etc/evil", "file", "x")],
        [("../evil", "file", "x")],
        [("a/../../evil", "file", "x")],
        [("link", "sym", "/etc")],
        [("link", "sym", "../outside")],
        [("d/link", "sym", "../../outside")],
        [("hard", "hard", "/etc/passwd")],
        [("hard", "hard", "../x")],
        [("fifo", "fifo", None)],
    ],
)
def test_unsafe_members_are_refused_before_writing(tmp_path, members):
    dest = tmp_path / "dest"
    with pytest.raises(UnsafeArchiveError):
        safe_extract(_tar(("ok.txt", "file", "fine"), *members), dest)
    assert not (dest / "ok.txt").exists()
    assert not (tmp_path / "evil").exists() and not (tmp_path / "outside").exists()


def test_symlink_tricks_cannot_write_outside(tmp_path):
    dest = tmp_path / "dest"
    # "s" -> "." passes, "a" -> "s/s/.." looks inside lexically but resolves above dest.
    data = _tar(("s", "sym", "."), ("a", "sym", "s/s/.."), ("a/pwned.txt", "file", "x"))
    with pytest.raises(UnsafeArchiveError):
        safe_extract(data, dest)
    assert not (tmp_path / "pwned.txt").exists()


def test_file_over_an_existing_symlink_replaces_it(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    dest = tmp_path / "dest"
    dest.mkdir()
    os.symlink(outside, dest / "f.txt")
    safe_extract(_tar(("f.txt", "file", "new")), dest)
    assert outside.read_text() == "keep"
    assert (dest / "f.txt").read_text() == "new" and not (dest / "f.txt").is_symlink()


def test_pack_and_extract_round_trip(tmp_path):
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "top.txt").write_text("top")
    (src / "a" / "b" / "deep.bin").write_bytes(bytes(range(256)) * 10)
    (src / "empty").mkdir()
    os.symlink("a/b/deep.bin", src / "link")
    data = pack_dir(src)
    names = tarfile.open(fileobj=io.BytesIO(data)).getnames()
    assert all(not n.startswith(("/", "./", "src")) for n in names), names
    counts = safe_extract(data, tmp_path / "out")
    out = tmp_path / "out"
    assert counts == {"files": 2, "bytes": 3 + 2560}
    assert (out / "top.txt").read_text() == "top"
    assert (out / "a" / "b" / "deep.bin").read_bytes() == bytes(range(256)) * 10
    assert (out / "empty").is_dir()
    assert os.readlink(out / "link") == "a/b/deep.bin"


def test_hard_link_to_an_earlier_file_is_copied(tmp_path):
    safe_extract(_tar(("a.txt", "file", "same"), ("b.txt", "hard", "a.txt")), tmp_path)
    assert (tmp_path / "b.txt").read_text() == "same"


# -- the reference's conventions -----------------------------------------------------------------


def test_reference_result_mapping():
    ok = ExecResult(0, "a\x1b[1;32mb\x1b[0m\r\n", "", False, 0.1, "/testbed")
    assert reference_result(ok, 120) == ("ab\n", "", "0")
    bad = ExecResult(3, "out\n", "err\n", False, 0.1, "/testbed")
    assert reference_result(bad, 120) == ("out\n", "err\n", "Error: Exit code 3")
    late = ExecResult(-1, "partial", "x", True, 1.0, "/testbed")
    assert reference_result(late, 5) == ("The command took too long to execute (>5s)", "", "-1")
    assert reference_result(ExecResult(124, "", "", False), 7)[2] == "-1"


def test_docker_mem_limit_parsing():
    assert _memory_mb("512m") == 512
    assert _memory_mb("4g") == 4096
    assert _memory_mb(256 * 1024 * 1024) == 256
    assert _memory_mb("lots") is None
