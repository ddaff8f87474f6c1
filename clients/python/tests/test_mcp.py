"""MCP, through the official ``mcp`` Python client: stdio (``llm-in-sandbox mcp``) and
streamable HTTP (``<url>/mcp``)."""

from __future__ import annotations

import uuid

import pytest

mcp = pytest.importorskip("mcp")
import anyio  # noqa: E402  (a dependency of mcp)
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

try:  # mcp >= 1.12 / 2.x
    from mcp.client.streamable_http import streamable_http_client as _http_client
except ImportError:  # older 1.x
    from mcp.client.streamable_http import streamablehttp_client as _http_client

from conftest import reference_text, require_binary, server_env  # noqa: E402

pytestmark = pytest.mark.server

EXPECTED_TOOLS = {
    "run_python", "run_bash", "read_file", "write_file", "execute_bash", "str_replace_editor", "submit",
}


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def _exercise(session: ClientSession) -> None:
    init = await session.initialize()
    info = _attr(init, "server_info", "serverInfo")
    assert info is not None and info.name

    tools = await session.list_tools()
    names = {t.name for t in tools.tools}
    assert EXPECTED_TOOLS <= names, names
    for t in tools.tools:
        schema = _attr(t, "input_schema", "inputSchema")
        assert schema and schema.get("type") == "object", t

    key = "mcp-" + uuid.uuid4().hex  # pins one session across the calls

    r = await session.call_tool("run_python", {"code": "print(6 * 7)"})
    assert "42" in _text(r) and not _is_error(r)

    r = await session.call_tool("run_bash", {"command": "echo from-bash; echo e >&2"})
    assert "from-bash" in _text(r)

    r = await session.call_tool("write_file", {"path": "notes/m.txt", "content": "mcp wrote this", "sandbox": key})
    assert not _is_error(r), _text(r)
    r = await session.call_tool("read_file", {"path": "notes/m.txt", "sandbox": key})
    assert "mcp wrote this" in _text(r)
    r = await session.call_tool("run_python", {"code": "print(open('/testbed/notes/m.txt').read())", "sandbox": key})
    assert "mcp wrote this" in _text(r)

    r = await session.call_tool("execute_bash", {"command": "echo hello; echo world", "sandbox": key})
    assert _text(r) == reference_text("bash_ok.txt")

    r = await session.call_tool(
        "str_replace_editor",
        {"command": "create", "path": "/testbed/hello.py",
         "file_text": "def greet(name):\n\treturn 'hi ' + name\n", "sandbox": key},
    )
    assert _text(r) == reference_text("editor_create.txt")

    r = await session.call_tool("submit", {"sandbox": key})
    assert _text(r) == reference_text("submit.txt")


def _attr(obj, *names):
    """A field under its mcp 2.x (snake_case) or 1.x (camelCase) name."""
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _is_error(result) -> bool:
    return bool(_attr(result, "is_error", "isError"))


def test_mcp_stdio(tmp_path):
    binary = require_binary()
    # A real file for the server's stderr: pytest's captured sys.stderr has no file descriptor.
    errlog = open(tmp_path / "mcp.stderr", "w+")

    async def main():
        # The whole environment (the mcp client passes only a few variables by default), so
        # the server finds the same runtime cache (LLM_IN_SANDBOX_CACHE, XDG_CACHE_HOME, ...).
        params = StdioServerParameters(command=str(binary), args=["mcp"], env=server_env())
        with anyio.fail_after(120):
            async with stdio_client(params, errlog=errlog) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await _exercise(session)

    try:
        anyio.run(main)
    except BaseException:
        errlog.seek(0)
        print("--- llm-in-sandbox mcp stderr ---\n" + errlog.read()[-8000:])
        raise
    finally:
        errlog.close()


def test_mcp_streamable_http(server):
    async def main():
        with anyio.fail_after(60):
            async with _http_client(server.url + "/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await _exercise(session)

    anyio.run(main)


def test_mcp_cancelled_calls_stop_and_the_session_goes_on(server):
    """A client that gives up on a tool call (the official client sends
    ``notifications/cancelled`` when its scope is cancelled): the call stops on the server
    (busy loops, ``time.sleep`` and ``sleep`` alike; the slot is free again, no call in
    flight) and the session's shell, with its state, answers the next call."""
    import time
    import urllib.request

    def in_flight() -> str:
        with urllib.request.urlopen(server.url + "/metrics", timeout=10) as r:
            text = r.read().decode()
        return [l for l in text.splitlines() if l.startswith("llm_in_sandbox_calls_in_flight ")][0]

    async def main():
        with anyio.fail_after(90):
            async with _http_client(server.url + "/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    r = await session.call_tool("run_bash", {"command": "mkdir -p k && cd k && export M=7"})
                    assert not _is_error(r), _text(r)
                    for tool, args in [
                        ("run_python", {"code": "while True: pass"}),
                        ("run_python", {"code": "import time; time.sleep(30)"}),
                        ("run_bash", {"command": "python3 -c 'while True: pass'"}),
                        ("run_bash", {"command": "sleep 30"}),
                        ("execute_bash", {"command": "while true; do :; done"}),
                        ("execute_bash", {"command": "sleep 30"}),
                    ]:
                        with anyio.move_on_after(1.5) as scope:
                            await session.call_tool(tool, args)
                        assert scope.cancelled_caught, f"{tool} finished instead of running on"
                        started = time.monotonic()
                        deadline = started + 20
                        while in_flight() != "llm_in_sandbox_calls_in_flight 0" and time.monotonic() < deadline:
                            await anyio.sleep(0.01)
                        stopped = time.monotonic() - started
                        print(f"{tool} {args}: stopped {stopped * 1e3:.1f} ms after the cancel")
                        assert in_flight() == "llm_in_sandbox_calls_in_flight 0", tool
                        # Generous: the machine may be busy; the print is the measurement.
                        assert stopped < 5, (tool, args, stopped)
                        r = await session.call_tool("run_bash", {"command": "pwd; echo $M"})
                        assert "/testbed/k\n7" in _text(r), (tool, _text(r))

    anyio.run(main)


def test_mcp_cancel_while_waiting_for_an_abandoned_http_call(server):
    """An MCP call on a keyed sandbox that is cancelled while it still waits for an HTTP exec
    whose client left (a ``sleep`` that runs out its time) is stopped as soon as it starts,
    instead of running its loop to the command timeout."""
    import json
    import socket
    import time
    import urllib.request

    key = "shared-" + uuid.uuid4().hex

    def post(path: str, body: dict, timeout: float):
        req = urllib.request.Request(
            server.url + path, data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"}, method="POST",
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    sid = post("/v1/sandboxes", {"key": key}, 30)["id"]
    with pytest.raises((socket.timeout, TimeoutError, OSError)):
        post(f"/v1/sandboxes/{sid}/exec", {"command": "sleep 4"}, 1)

    async def main():
        with anyio.fail_after(90):
            async with _http_client(server.url + "/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    with anyio.move_on_after(1) as scope:
                        await session.call_tool(
                            "run_bash", {"command": "while true; do :; done", "sandbox": key}
                        )
                    assert scope.cancelled_caught
                    started = time.monotonic()
                    r = await session.call_tool("run_bash", {"command": "echo after", "sandbox": key})
                    assert "after" in _text(r), _text(r)
                    assert time.monotonic() - started < 20, "the cancelled loop ran on"

    anyio.run(main)
