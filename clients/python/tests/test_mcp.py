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
