"""``WasmRuntime`` against the reference ``DockerRuntime``'s behaviour (REFERENCE_FACTS.md):
string exit codes, the timeout text, combined and split output, copies in and out, close."""

from __future__ import annotations

import gc
import logging
import threading
import time

import pytest

from llm_in_sandbox_client import SandboxAPIError, SandboxUnavailableError, WasmRuntime

pytestmark = pytest.mark.server

TIMEOUT_TEXT = "The command took too long to execute (>{}s)"


@pytest.fixture
def runtime(server):
    rt = WasmRuntime("python:3.11-slim", base_url=server.url, logger=False)
    yield rt
    rt.close()


def test_constructor_takes_the_reference_arguments(server):
    # Positional order as the reference: docker_image, repo_path, command, logger; Docker-only
    # keywords are accepted; `environment` reaches the commands.
    rt = WasmRuntime(
        "ubuntu:22.04", "/testbed", "sleep infinity", logging.getLogger("test"),
        base_url=server.url, environment={"TASK_ID": "t-7"}, volumes={"/x": {"bind": "/y"}},
        privileged=False, network_mode="none", mem_limit="1g",
    )
    try:
        assert rt.repo_path == "/testbed" and rt.docker_image == "ubuntu:22.04"
        assert rt.container_name.startswith("ubuntu-22.04-")
        assert rt.run("echo $TASK_ID") == ("t-7\n", "0")
    finally:
        rt.close()


def test_url_and_token_from_the_environment(token_server, monkeypatch):
    monkeypatch.setenv("LLM_IN_SANDBOX_URL", token_server.url)
    monkeypatch.setenv("LLM_IN_SANDBOX_TOKEN", token_server.token)
    with WasmRuntime("img", logger=False) as rt:
        assert rt.run("echo ok") == ("ok\n", "0")
    monkeypatch.setenv("LLM_IN_SANDBOX_TOKEN", "wrong")
    with pytest.raises(SandboxAPIError) as ei:
        WasmRuntime("img", logger=False)
    assert ei.value.status == 401


def test_setup_env_makes_input_and_output(runtime):
    names = {e["name"]: e["type"] for e in runtime.sandbox.list_dir("/testbed")}
    assert names.get("input") == "dir" and names.get("output") == "dir"


def test_run_success_gives_string_zero(runtime):
    out, code = runtime.run("echo hello; echo world")
    assert (out, code) == ("hello\nworld\n", "0")
    assert isinstance(code, str)


def test_run_failure_gives_error_text_and_combined_output(runtime):
    out, code = runtime.run("echo out; echo err >&2; exit 3")
    assert code == "Error: Exit code 3"
    assert out == "out\nerr\n"


def test_demux_run_splits_the_streams(runtime):
    assert runtime.demux_run("echo out; echo err >&2; exit 3") == ("out\n", "err\n", "Error: Exit code 3")
    assert runtime.demux_run("echo fine") == ("fine\n", "", "0")


def test_timeout_reads_as_the_reference(server):
    # The session limit (5 s) bounds the wait if the per-call timeout were not honoured.
    with WasmRuntime(base_url=server.url, logger=False, limits={"timeout_s": 5}) as runtime:
        t0 = time.monotonic()
        out, code = runtime.run("echo before; while true; do :; done", timeout=1)
        took = time.monotonic() - t0
        assert (out, code) == (TIMEOUT_TEXT.format(1), "-1")
        assert took < 4, f"run(timeout=1) took {took:.1f} s: the per-call timeout was not honoured"
        assert runtime.demux_run("while true; do :; done", timeout=1) == (TIMEOUT_TEXT.format(1), "", "-1")
        # The session is still usable afterwards.
        assert runtime.run("echo alive") == ("alive\n", "0")


def test_colours_and_carriage_returns_are_removed(runtime):
    out, code = runtime.run(r"printf '\033[1;32mgreen\033[0m\r\n50%%\r100%%\n'")
    assert (out, code) == ("green\n50%100%\n", "0")


def test_each_call_starts_in_the_working_folder(runtime):
    assert runtime.run("pwd") == ("/testbed\n", "0")
    runtime.run("cd /tmp")
    assert runtime.run("pwd") == ("/testbed\n", "0")
    assert runtime.run("pwd", workdir="/tmp") == ("/tmp\n", "0")
    assert runtime.run("pwd") == ("/testbed\n", "0")


def test_copy_to_and_from_container_round_trip(runtime, tmp_path):
    src = tmp_path / "report.txt"
    src.write_bytes(b"line 1\nline 2\n")
    runtime.copy_to_container(str(src), "/testbed/output/sub/report.txt")
    assert runtime.run("cat /testbed/output/sub/report.txt") == ("line 1\nline 2\n", "0")
    runtime.run("echo 42 > /testbed/output/answer.txt")

    local = tmp_path / "files"
    runtime.copy_from_container("/testbed/output", str(local))
    assert (local / "answer.txt").read_text() == "42\n"
    assert (local / "sub" / "report.txt").read_bytes() == b"line 1\nline 2\n"
    assert not (local / "output").exists()  # the folder's contents, not the folder


def test_copy_from_container_single_file(runtime, tmp_path):
    runtime.run("echo solo > /testbed/output/solo.txt")
    runtime.copy_from_container("/testbed/output/solo.txt", str(tmp_path / "x"))
    assert (tmp_path / "x" / "solo.txt").read_text() == "solo\n"


def test_copy_from_missing_path_raises(runtime, tmp_path):
    with pytest.raises(SandboxAPIError):
        runtime.copy_from_container("/testbed/nope", str(tmp_path / "y"))


def test_copy_dir_to_container(runtime, tmp_path):
    src = tmp_path / "inputs"
    (src / "nested" / "deeper").mkdir(parents=True)
    (src / "data.csv").write_text("a,b\n1,2\n")
    (src / "nested" / "deeper" / "note.md").write_text("# hi\n")
    runtime.copy_dir_to_container(str(src), "/testbed/input")
    assert runtime.run("cat /testbed/input/data.csv") == ("a,b\n1,2\n", "0")
    out, code = runtime.run("cat input/nested/deeper/note.md")
    assert (out, code) == ("# hi\n", "0")
    assert runtime.run("test -d /testbed/input/inputs && echo yes || echo no")[0] == "no\n"


def test_get_task_instruction_returns_the_text(runtime):
    assert runtime.get_task_instruction("Solve x + 1 = 2") == "Solve x + 1 = 2"


def test_close_deletes_the_session(server):
    rt = WasmRuntime(base_url=server.url, logger=False)
    sid = rt.container.id
    client = server.client()
    assert client.get(sid).id == sid
    rt.close()
    assert rt.container is None
    with pytest.raises(SandboxAPIError) as ei:
        client.get(sid)
    assert ei.value.status == 404
    rt.close()  # twice is fine
    # A closed runtime cannot run anything: an exception, never an "Error: ..." text that a
    # reward could read as the answer.
    with pytest.raises(SandboxUnavailableError, match="closed"):
        rt.run("echo after close")
    with pytest.raises(SandboxUnavailableError, match="closed"):
        rt.demux_run("echo after close")


def test_names_are_128_random_bits():
    a, b = (WasmRuntime._get_container_name("python:3.11-slim") for _ in range(2))
    assert a != b
    for name in (a, b):
        prefix, digest = name.rsplit("-", 1)
        assert prefix == "python-3.11-slim"
        assert len(digest) == 32 and int(digest, 16) >= 0


def test_a_session_deleted_under_the_runtime_raises_instead_of_answering(server):
    rt = WasmRuntime(base_url=server.url, logger=False)
    try:
        assert rt.run("echo 42 > /testbed/answer.txt") == ("", "0")
        sid = rt.container.id
        server.client().get(sid).delete()
        # What a reward function runs to read the answer: it must not get the error as text.
        for call in (rt.run, rt.demux_run):
            with pytest.raises(SandboxUnavailableError) as ei:
                call("cat /testbed/answer.txt")
            assert ei.value.session == sid
            assert "no longer has it" in str(ei.value) and "404" in str(ei.value)
    finally:
        rt.close()


def test_keep_alive_outlasts_the_idle_ttl_and_without_it_the_session_is_gone(short_ttl_server):
    # The server deletes a session idle for 2 s (its reaper runs every second). A slow model
    # generation between two tool calls is such an idle time.
    kept = WasmRuntime(base_url=short_ttl_server.url, logger=False)
    bare = WasmRuntime(base_url=short_ttl_server.url, logger=False, keep_alive=False)
    sid = kept.container.id
    try:
        for rt in (kept, bare):
            assert rt.run("echo 42 > /testbed/answer.txt") == ("", "0")
        time.sleep(6)
        assert kept.run("cat /testbed/answer.txt") == ("42\n", "0")
        with pytest.raises(SandboxUnavailableError, match="no longer has it"):
            bare.run("cat /testbed/answer.txt")
    finally:
        kept.close()
        bare.close()
    # close() ends the keep-alive thread and deletes the session.
    assert not [t for t in threading.enumerate() if t.name == f"keep-alive {sid}"]
    with pytest.raises(SandboxAPIError) as ei:
        short_ttl_server.client().get(sid)
    assert ei.value.status == 404


def test_a_runtime_dropped_without_close_is_not_kept_alive(short_ttl_server):
    # The keep-alive thread holds the runtime weakly: dropping the runtime deletes its session
    # (as before keep-alive) and ends the thread, so a forgotten close() leaks nothing.
    rt = WasmRuntime(base_url=short_ttl_server.url, logger=False)
    sid = rt.container.id
    del rt
    gc.collect()
    client = short_ttl_server.client()
    with pytest.raises(SandboxAPIError) as ei:
        client.get(sid)
    assert ei.value.status == 404
    deadline = time.monotonic() + 30
    while [t for t in threading.enumerate() if t.name == f"keep-alive {sid}"]:
        assert time.monotonic() < deadline, "the keep-alive thread outlived its runtime"
        time.sleep(0.1)


def test_each_command_is_a_fresh_bash_c_as_the_references_docker_exec(runtime):
    # Nothing carries over: variables, functions, the current folder (the reference's
    # `docker exec` starts a new `bash -c` in /testbed every time).
    assert runtime.run("export X=1; Y=2; f() { echo hi; }; cd /tmp") == ("", "0")
    out, code = runtime.run("echo ${X:-unset} ${Y:-unset}; type f >/dev/null 2>&1 && echo fn || echo no-fn; pwd")
    assert (out, code) == ("unset unset\nno-fn\n/testbed\n", "0")
    # Files do carry over: it is the same computer.
    assert runtime.run("echo kept > /testbed/f.txt; cat /testbed/f.txt") == ("kept\n", "0")
    assert runtime.run("cat f.txt") == ("kept\n", "0")
    # Another working folder, as `docker exec -w`.
    assert runtime.run("pwd", workdir="/tmp") == ("/tmp\n", "0")


def test_errors_read_as_bash_c_prints_them(runtime):
    # `bash -c 'nosuchcmd'` prints `bash: line 1: nosuchcmd: command not found` and exits 127;
    # a name close to a real command gets no "Did you mean" (bash prints none).
    for workdir in (None, "/tmp"):
        for name in ("nosuchcmd", "ech"):
            out, err, code = runtime.demux_run(f"{name} hi", workdir=workdir)
            assert (out, err, code) == ("", f"bash: line 1: {name}: command not found\n", "Error: Exit code 127")
    out, err, code = runtime.demux_run("true\nfalse_cmd_here")
    assert err == "bash: line 2: false_cmd_here: command not found\n"


def test_a_persistent_shell_is_still_there_when_asked(server):
    rt = WasmRuntime(base_url=server.url, logger=False, shell="persistent")
    try:
        assert rt.sandbox.data.get("shell") == "persistent"
        rt.run("export X=1")
        assert rt.run("echo $X") == ("1\n", "0")
    finally:
        rt.close()


def test_the_working_folder_is_set_up_as_the_references(runtime):
    # input/ and output/, and the repository `git init` makes, as the reference's setup_env.
    assert runtime.run("ls -A /testbed") == (".git\ninput\noutput\n", "0")
    out, code = runtime.run("git status --short && git rev-parse --is-inside-work-tree")
    assert (out, code) == ("true\n", "0")
