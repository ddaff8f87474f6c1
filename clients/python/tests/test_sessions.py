"""The session API of docs/serve.md against the real server."""

from __future__ import annotations

import os
import time
import uuid
import urllib.request

import pytest

from llm_in_sandbox_client import Client, SandboxAPIError

from conftest import TOKEN, reference_text

pytestmark = pytest.mark.server


def _status(excinfo) -> int:
    return excinfo.value.status


# -- service -----------------------------------------------------------------------------------


def test_health_and_ping(client):
    assert client.health() is True
    assert client.ping() == "pong"


# -- running things ----------------------------------------------------------------------------


def test_create_exec_and_info(client):
    with client.create() as sb:
        assert sb.id and sb.created is True
        info = sb.info()
        assert info["id"] == sb.id
        assert info["workdir"] == "/testbed"
        assert set(info["limits"]) >= {"timeout_s", "memory_mb", "output_bytes", "disk_mb", "max_files"}
        r = sb.exec("echo hello; echo oops >&2")
        assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (0, "hello\n", "oops\n", False)
        assert r.cwd == "/testbed" and r.duration_s >= 0
        r = sb.exec("exit 7")
        assert r.exit_code == 7 and not r.timed_out


def test_exec_timeout_is_a_result_not_an_error(client):
    # The session's own limit (5 s) bounds the wait if the per-call timeout were not honoured.
    with client.create(limits={"timeout_s": 5}) as sb:
        t0 = time.monotonic()
        r = sb.exec("echo before; while true; do :; done", timeout=1)
        took = time.monotonic() - t0
        assert r.timed_out is True and r.exit_code == -1
        assert took < 4, f"exec timeout_s=1 not honoured: the call took {took:.1f} s"
        assert sb.exec("echo still usable").stdout == "still usable\n"


def test_cwd_and_exports_persist_across_exec(sandbox):
    r = sandbox.exec("mkdir -p work/sub && cd work/sub && export GREETING=hi-there")
    assert r.exit_code == 0, r
    assert r.cwd == "/testbed/work/sub"
    r = sandbox.exec('pwd; echo "$GREETING"')
    assert r.stdout == "/testbed/work/sub\nhi-there\n"
    assert r.cwd == "/testbed/work/sub"
    assert sandbox.info()["cwd"] == "/testbed/work/sub"


def test_exec_stream_yields_ndjson_events(sandbox):
    events = list(sandbox.exec_stream("echo one; echo two >&2; echo three"))
    assert events[-1]["type"] == "exit"
    assert events[-1]["exit_code"] == 0 and events[-1]["timed_out"] is False
    out = "".join(e["data"] for e in events if e["type"] == "stdout")
    err = "".join(e["data"] for e in events if e["type"] == "stderr")
    assert (out, err) == ("one\nthree\n", "two\n")
    assert {e["type"] for e in events} <= {"stdout", "stderr", "heartbeat", "exit"}


def test_exec_stream_body_ends_after_exit(client, sandbox):
    # Read the raw body: after the `exit` line the server must end the response, or plain
    # HTTP clients (curl, requests' iter_lines) wait forever.
    import json as _json
    import socket

    req = urllib.request.Request(
        f"{client.base_url}/v1/sandboxes/{sandbox.id}/exec",
        data=_json.dumps({"command": "echo hi", "stream": True}).encode(),
        headers={"Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    lines = []
    with opener.open(req, timeout=8) as resp:
        assert resp.headers.get("Content-Type", "").startswith("application/x-ndjson")
        try:
            for line in resp:
                if lines and lines[-1]["type"] == "exit":
                    pytest.fail(f"the NDJSON body goes on after its exit line: {line!r} after {lines}")
                lines.append(_json.loads(line))
        except (socket.timeout, TimeoutError):
            pytest.fail(f"the NDJSON body did not end after its exit line: got {lines}")
    assert lines[-1]["type"] == "exit"


def test_python_stream(sandbox):
    events = list(sandbox.python_stream("print('py stream')"))
    assert events[-1]["type"] == "exit" and events[-1]["exit_code"] == 0
    assert "".join(e["data"] for e in events if e["type"] == "stdout") == "py stream\n"


def test_python_code_stdin_and_args(sandbox):
    r = sandbox.python("import sys; print(6 * 7); print('warn', file=sys.stderr)")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "42\n", "warn\n")
    r = sandbox.python("import sys; print(sys.stdin.read().upper())", stdin="shout\n")
    assert r.stdout == "SHOUT\n\n"
    sandbox.write_file("script.py", "import sys\nprint(sys.argv[1:])\n")
    r = sandbox.python(args=["script.py", "a", "b c"])
    assert r.exit_code == 0, r
    assert r.stdout == "['a', 'b c']\n"
    r = sandbox.python("raise SystemExit(5)")
    assert r.exit_code == 5
    r = sandbox.python("1/0")
    assert r.exit_code == 1 and "ZeroDivisionError" in r.stderr


def test_python_sees_files_written_by_exec(sandbox):
    sandbox.exec("echo 'from exec' > shared.txt")
    r = sandbox.python("print(open('/testbed/shared.txt').read().strip())")
    assert r.stdout == "from exec\n"


def test_create_with_files_env_and_limits(client):
    with client.create(
        files={"data/in.txt": b"payload", "notes.md": "text"},
        env={"MY_VAR": "value-1"},
        limits={"timeout_s": 5, "memory_mb": 10_000_000},
    ) as sb:
        assert sb.read_file("data/in.txt") == b"payload"
        assert sb.read_file("/testbed/notes.md") == b"text"
        assert sb.exec('echo "$MY_VAR"').stdout == "value-1\n"
        limits = sb.info()["limits"]
        assert limits["timeout_s"] <= 5
        # A larger value than the server's is clamped, not honoured.
        assert limits["memory_mb"] < 10_000_000


# -- files -------------------------------------------------------------------------------------


def test_files_put_get_list(sandbox):
    ans = sandbox.write_file("dir/sub/hello.txt", "hi there")
    assert ans == {"path": "/testbed/dir/sub/hello.txt", "size": 8}
    binary = bytes(range(256)) * 4
    sandbox.write_file("/testbed/dir/blob.bin", binary)
    sandbox.write_file("/tmp/scratch.txt", b"tmp")
    assert sandbox.read_file("dir/sub/hello.txt") == b"hi there"
    assert sandbox.read_file("dir/blob.bin") == binary
    assert sandbox.read_file("/tmp/scratch.txt") == b"tmp"
    entries = {e["name"]: e for e in sandbox.list_dir("dir")}
    assert entries["sub"]["type"] == "dir"
    assert entries["blob.bin"]["type"] == "file" and entries["blob.bin"]["size"] == 1024
    # What the shell sees is the same workspace.
    assert sandbox.exec("cat dir/sub/hello.txt").stdout == "hi there"


def test_missing_file_is_404(sandbox):
    with pytest.raises(SandboxAPIError) as ei:
        sandbox.read_file("no/such/file.txt")
    assert _status(ei) == 404 and ei.value.code == "not_found"


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "sub/../../../etc/passwd"])
def test_path_escape_is_refused(sandbox, path):
    with pytest.raises(SandboxAPIError) as ei:
        sandbox.read_file(path)
    assert _status(ei) == 400 and ei.value.code == "bad_request"
    with pytest.raises(SandboxAPIError) as ei:
        sandbox.write_file(path, "x")
    assert _status(ei) == 400
    with pytest.raises(SandboxAPIError) as ei:
        sandbox.list_dir(path.rsplit("/", 1)[0] or "/")
    assert _status(ei) == 400


def test_symlink_leaving_the_workspace_is_refused(sandbox):
    r = sandbox.exec("ln -s /etc/passwd escape.txt")
    if r.exit_code == 0:
        # Made: reading through it must still be refused.
        with pytest.raises(SandboxAPIError) as ei:
            sandbox.read_file("escape.txt")
        assert _status(ei) in (400, 404)
    else:
        # Refused when made: nothing was created.
        assert "escape.txt" not in {e["name"] for e in sandbox.list_dir(".")}


def test_tar_with_escaping_members_is_refused(sandbox):
    import io
    import tarfile

    def tar_with(info: tarfile.TarInfo, data: bytes = b"") -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    link = tarfile.TarInfo("passwd")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    up = tarfile.TarInfo("../../outside.txt")
    for bad in (tar_with(link), tar_with(up, b"x")):
        with pytest.raises(SandboxAPIError) as ei:
            sandbox.put_archive("in", bad)
        assert _status(ei) == 400
    assert sandbox.exec("ls /testbed/in 2>/dev/null | wc -l").stdout.strip() in ("", "0")


def test_tar_round_trip_of_a_folder(sandbox, tmp_path):
    src = tmp_path / "src"
    (src / "pkg" / "sub" / "deeper").mkdir(parents=True)
    (src / "empty").mkdir()
    files = {
        "README.md": b"# top\n",
        "pkg/__init__.py": b"",
        "pkg/sub/mod.py": b"X = 1\n",
        "pkg/sub/deeper/far.bin": os.urandom(5000),
        "pkg/.hidden": b"h",
    }
    for rel, data in files.items():
        (src / rel).write_bytes(data)
    ans = sandbox.upload_dir(src, "project")
    assert ans["files"] == len(files) and ans["bytes"] == sum(len(v) for v in files.values())
    assert sandbox.exec("cat project/pkg/sub/mod.py").stdout == "X = 1\n"
    assert sandbox.read_file("project/pkg/sub/deeper/far.bin") == files["pkg/sub/deeper/far.bin"]

    out = tmp_path / "out"
    sandbox.download_dir("project", out)
    got = {
        p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()
    }
    assert got == files
    assert (out / "empty").is_dir()


def test_upload_into_tmp_and_download_back(sandbox, tmp_path):
    src = tmp_path / "s"
    src.mkdir()
    (src / "a.txt").write_text("A")
    sandbox.upload_dir(src, "/tmp/stage")
    sandbox.download_dir("/tmp/stage", tmp_path / "d")
    assert (tmp_path / "d" / "a.txt").read_text() == "A"


# -- get-or-create, listing, deletion ----------------------------------------------------------


def test_get_or_create_by_key(client):
    key = "key-" + uuid.uuid4().hex
    first = client.create(key=key)
    try:
        assert first.created is True and first.key == key
        first.exec("echo remembered > mark.txt")
        again = client.create(key=key)
        assert again.id == first.id and again.created is False
        assert again.read_file("mark.txt") == b"remembered\n"
        assert client.get(first.id).key == key
    finally:
        first.delete(missing_ok=True)


def test_list_shows_live_sessions(client):
    with client.create() as sb:
        assert sb.id in {s.id for s in client.list()}
    assert sb.id not in {s.id for s in client.list()}


def test_delete_then_404(client):
    sb = client.create()
    sb.delete()
    for call in (lambda: client.get(sb.id), lambda: sb.exec("true"), lambda: sb.read_file("x"),
                 lambda: sb.delete(), lambda: sb.tool("submit")):
        with pytest.raises(SandboxAPIError) as ei:
            call()
        assert _status(ei) == 404 and ei.value.code == "not_found"
    assert sb.delete(missing_ok=True) is False


def test_bulk_delete_by_ids_and_keys(client):
    tag = uuid.uuid4().hex
    a, b = client.create(), client.create()
    k1, k2 = client.create(key=f"{tag}-1"), client.create(key=f"{tag}-2")
    keep = client.create()
    try:
        assert client.delete_many(ids=[a.id, b.id]) == 2
        assert client.delete_many(keys=[f"{tag}-1", f"{tag}-2", f"{tag}-absent"]) == 2
        live = {s.id for s in client.list()}
        assert not live & {a.id, b.id, k1.id, k2.id}
        assert keep.id in live
        assert client.delete_many(ids=[a.id]) == 0
    finally:
        keep.delete(missing_ok=True)


def test_bulk_delete_all(small_body_server):
    # On its own server, so that deleting everything does not disturb other tests.
    c = small_body_server.client()
    made = [c.create() for _ in range(3)]
    assert c.delete_many(all=True) >= 3
    assert {s.id for s in c.list()}.isdisjoint(s.id for s in made)


def test_idle_session_is_reaped(client):
    sb = client.create(idle_ttl_s=1)
    assert sb.info()["idle_ttl_s"] == 1
    time.sleep(3)
    deadline = time.monotonic() + 5
    while sb.id in {s.id for s in client.list()} and time.monotonic() < deadline:
        time.sleep(0.25)
    with pytest.raises(SandboxAPIError) as ei:
        client.get(sb.id)
    assert _status(ei) == 404


# -- tools -------------------------------------------------------------------------------------


def test_tool_execute_bash_matches_the_reference(sandbox):
    r = sandbox.tool("execute_bash", command="echo hello; echo world")
    assert r.output.startswith("Exit code: 0\n")
    assert r.output == reference_text("bash_ok.txt")
    assert r.done is False
    r = sandbox.tool("execute_bash", command="echo out; echo 'something failed' >&2; exit 3")
    assert r.output == reference_text("bash_error_stderr.txt")


def test_tool_str_replace_editor(sandbox):
    hello = "def greet(name):\n\treturn 'hi ' + name\n"
    r = sandbox.tool("str_replace_editor", command="create", path="/testbed/hello.py", file_text=hello)
    assert r.output == reference_text("editor_create.txt") and r.done is False
    assert sandbox.read_file("hello.py").decode() == hello
    r = sandbox.tool("str_replace_editor", command="view", path="/testbed/hello.py")
    assert r.output == reference_text("editor_view.txt")
    r = sandbox.tool(
        "str_replace_editor", command="str_replace", path="/testbed/hello.py",
        old_str="'hi '", new_str="'hello '",
    )
    assert r.output.startswith("Execution output of \\[str_replace_editor]:\n")
    assert "hello " in sandbox.read_file("hello.py").decode()


def test_tool_submit_is_done(sandbox):
    r = sandbox.tool("submit")
    assert r.done is True
    assert r.output == reference_text("submit.txt")


def test_tool_unknown_name(sandbox):
    r = sandbox.tool("launch_rockets", count=3)
    assert r.output == reference_text("unknown_tool.txt") and r.done is False


# -- auth and limits ---------------------------------------------------------------------------


def test_token_required(token_server):
    anonymous = token_server.client(token=None)
    wrong = token_server.client(token="not-" + TOKEN)
    for c in (anonymous, wrong):
        for call in (c.list, c.ping, lambda: c.create()):
            with pytest.raises(SandboxAPIError) as ei:
                call()
            assert _status(ei) == 401 and ei.value.code == "unauthorized"
    # /healthz needs no token.
    assert anonymous.health() is True
    with token_server.client() as c, c.create() as sb:
        assert sb.exec("echo authorised").stdout == "authorised\n"


def test_token_is_checked_on_raw_requests(token_server):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    req = urllib.request.Request(
        token_server.url + "/v1/sandboxes", headers={"Authorization": "Bearer " + TOKEN}
    )
    with opener.open(req, timeout=10) as r:
        assert r.status == 200
    req = urllib.request.Request(token_server.url + "/v1/sandboxes", headers={"Authorization": "Basic eDp5"})
    with pytest.raises(urllib.error.HTTPError) as ei:
        opener.open(req, timeout=10)
    assert ei.value.code == 401


def test_too_big_upload_is_413(small_body_server):
    c = small_body_server.client()
    with c.create() as sb:
        sb.write_file("small.bin", b"x" * 1000)
        with pytest.raises(SandboxAPIError) as ei:
            sb.write_file("big.bin", b"x" * (2 * 1024 * 1024))
        assert _status(ei) == 413 and ei.value.code == "payload_too_large"
        with pytest.raises(SandboxAPIError) as ei:
            sb.put_archive("dir", b"\0" * (2 * 1024 * 1024))
        assert _status(ei) == 413


def test_over_max_sandboxes_is_429(two_sandbox_server):
    c = two_sandbox_server.client(retries=0)
    c.delete_many(all=True)
    a, b = c.create(), c.create()
    try:
        with pytest.raises(SandboxAPIError) as ei:
            c.create()
        e = ei.value
        assert (e.status, e.code, e.retryable) == (429, "too_many_requests", True)
        assert e.retry_after is not None
        # Once one is gone there is room again.
        a.delete()
        c.create().delete()
    finally:
        c.delete_many(ids=[a.id, b.id])


def test_a_shell_mode_other_than_the_two_is_refused(client):
    with pytest.raises(SandboxAPIError) as ei:
        client.create(shell="sticky")
    assert ei.value.status == 400 and "reference" in ei.value.message
    with client.create(shell="reference") as sb:
        assert sb.data["shell"] == "reference"
        sb.exec("export X=1; cd /tmp")
        r = sb.exec("echo ${X:-unset}; pwd")
        assert r.stdout == "unset\n/testbed\n"
    with client.create() as sb:
        assert sb.data["shell"] == "persistent"
