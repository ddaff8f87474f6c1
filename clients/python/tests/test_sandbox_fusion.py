"""The SandboxFusion-compatible endpoints, driven by the published ``sandbox_fusion`` client."""

from __future__ import annotations

import base64
import json
import urllib.request

import pytest

sandbox_fusion = pytest.importorskip("sandbox_fusion")
from sandbox_fusion import (  # noqa: E402
    RunCodeRequest,
    RunJupyterRequest,
    run_code,
    run_jupyter,
    set_endpoint,
)
from sandbox_fusion.models import CommandRunStatus, RunStatus  # noqa: E402

pytestmark = pytest.mark.server


class RunCodeRequestWithMemory(RunCodeRequest):
    """The published client's request has no ``memory_limit_MB`` (SandboxFusion's server
    takes one); a subclass sends it."""

    memory_limit_MB: int = -1


@pytest.fixture(scope="module")
def endpoint(server):
    # The client's own way of being pointed at a server (also: SANDBOX_FUSION_ENDPOINT).
    set_endpoint(server.url)
    return server.url


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def rc(**kwargs):
    kwargs.setdefault("language", "python")
    return run_code(RunCodeRequest(**kwargs), max_attempts=1)


def test_ping(endpoint):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(endpoint + "/v1/ping", timeout=10) as r:
        assert json.loads(r.read()) == "pong"


def test_run_code_success(endpoint):
    r = rc(code="print('hello from fusion')")
    assert r.status == RunStatus.Success
    assert r.run_result.status == CommandRunStatus.Finished
    assert r.run_result.return_code == 0
    assert r.run_result.stdout == "hello from fusion\n"
    assert r.compile_result is None
    assert r.run_result.execution_time is not None and r.run_result.execution_time >= 0


def test_run_code_nonzero_exit(endpoint):
    r = rc(code="import sys\nprint('bye')\nsys.exit(1)")
    assert r.status == RunStatus.Failed
    assert r.run_result.return_code == 1
    assert r.run_result.stdout == "bye\n"


def test_run_code_exception_traceback(endpoint):
    r = rc(code="raise ValueError('nope')")
    assert r.status == RunStatus.Failed
    assert r.run_result.return_code == 1
    assert "ValueError: nope" in r.run_result.stderr


def test_run_code_timeout(endpoint):
    r = rc(code="while True:\n    pass", run_timeout=1)
    assert r.status != RunStatus.Success
    assert r.run_result.status == CommandRunStatus.TimeLimitExceeded


def test_run_code_files_in_and_out(endpoint):
    code = (
        "data = open('input/data.txt').read()\n"
        "open('result.txt', 'w').write(data.upper())\n"
        "print(len(data))\n"
    )
    r = rc(
        code=code,
        files={"input/data.txt": b64(b"some data")},
        fetch_files=["result.txt", "input/data.txt"],
    )
    assert r.status == RunStatus.Success, r
    assert r.run_result.stdout == "9\n"
    assert base64.b64decode(r.files["result.txt"]) == b"SOME DATA"
    assert base64.b64decode(r.files["input/data.txt"]) == b"some data"


def test_run_code_stdin(endpoint):
    r = rc(code="a, b = map(int, input().split())\nprint(a + b)", stdin="2 40\n")
    assert r.status == RunStatus.Success
    assert r.run_result.stdout == "42\n"


def test_run_code_memory_limit(endpoint):
    code = "b = bytearray(200 * 1024 * 1024)\nprint(len(b))"
    r = run_code(
        RunCodeRequestWithMemory(code=code, language="python", memory_limit_MB=64), max_attempts=1
    )
    assert r.status != RunStatus.Success
    assert r.run_result.stdout != str(200 * 1024 * 1024) + "\n"
    # The same allocation fits without the limit.
    r = rc(code=code)
    assert r.status == RunStatus.Success and r.run_result.stdout == "209715200\n"


def test_run_code_bash(endpoint):
    r = rc(code="echo hi from bash; x=$((6 * 7)); echo $x", language="bash")
    assert r.status == RunStatus.Success
    assert r.run_result.stdout == "hi from bash\n42\n"
    r = rc(code="echo err >&2; exit 3", language="bash")
    assert r.status == RunStatus.Failed and r.run_result.return_code == 3
    assert r.run_result.stderr == "err\n"


def test_each_call_is_a_fresh_sandbox(endpoint):
    rc(code="open('left.txt', 'w').write('x')")
    r = rc(code="import os; print(os.path.exists('left.txt'))")
    assert r.run_result.stdout == "False\n"


def test_unsupported_language_is_a_sandbox_error(endpoint):
    # The answer itself says SandboxError ...
    body = json.dumps({"code": "int main() {}", "language": "cpp"}).encode()
    req = urllib.request.Request(
        endpoint + "/run_code", data=body, headers={"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=30) as resp:
        answer = json.loads(resp.read())
    assert answer["status"] == "SandboxError"
    assert answer["message"]
    # ... which the published client turns into an exception.
    with pytest.raises(Exception, match="Sandbox responded with error"):
        rc(code="int main() {}", language="cpp")


def test_run_jupyter_cells_share_state(endpoint):
    r = run_jupyter(
        RunJupyterRequest(
            cells=[
                "a = 6 * 7",
                "print(a)",
                "import sys; sys.stderr.write('to stderr\\n')",
                "raise RuntimeError('cell failed')",
                "print(a + 1)",
            ],
        ),
        max_attempts=1,
    )
    assert r.status != RunStatus.SandboxError
    assert len(r.cells) == 5
    assert r.cells[1].stdout == "42\n"
    assert "to stderr" in r.cells[2].stderr
    assert r.cells[3].error, r.cells[3]
    assert "cell failed" in json.dumps(r.cells[3].error)
    # A failing cell does not stop the next.
    assert r.cells[4].stdout == "43\n"


def test_run_jupyter_files(endpoint):
    r = run_jupyter(
        RunJupyterRequest(
            cells=["s = open('in.txt').read()", "open('out.txt', 'w').write(s[::-1])"],
            files={"in.txt": b64(b"abc")},
            fetch_files=["out.txt"],
        ),
        max_attempts=1,
    )
    assert base64.b64decode(r.files["out.txt"]) == b"cba"


def test_a_token_in_the_url_lets_the_published_client_in(token_server):
    """The published client sends no headers of its own; a token server takes the token from
    the endpoint's URL (``http://:TOKEN@host:port``, sent as Basic auth), and refuses without."""
    host = token_server.url.split("://", 1)[1]
    with_token = f"http://:{token_server.token}@{host}"
    r = run_code(RunCodeRequest(language="python", code="print(6*7)"), endpoint=with_token, max_attempts=1)
    assert r.status == RunStatus.Success and r.run_result.stdout == "42\n"
    with pytest.raises(Exception):
        run_code(RunCodeRequest(language="python", code="print(1)"), endpoint=token_server.url, max_attempts=1)
    with pytest.raises(Exception):
        run_code(
            RunCodeRequest(language="python", code="print(1)"),
            endpoint=f"http://:wrong@{host}",
            max_attempts=1,
        )
