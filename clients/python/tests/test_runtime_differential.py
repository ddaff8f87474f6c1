"""The reference's own ``Agent`` on its ``DockerRuntime`` and on our ``WasmRuntime``, side by side.

Each scenario is a scripted model (an OpenAI-compatible endpoint on loopback that answers its
turns in order) driving ``llm_in_sandbox.Agent.run`` twice, with the package's own loop, tool
handling and observation formatting:

* over the reference ``DockerRuntime``, whose ``docker`` client is replaced by a stand-in (no
  Docker daemon): its container runs every exec as real ``bash -c`` on this machine, chrooted into
  a private folder (``/testbed``, ``/root``, ``/tmp`` of its own; ``/usr`` and ``/etc`` of the host,
  read-only) inside a private mount namespace, so the host's ``/testbed`` and ``/root`` are never
  touched;
* over ``WasmRuntime`` on ``llm-in-sandbox serve``.

Every runtime call the agent makes (method, arguments, what it returned) and every message of
the conversation must be identical. A failure shows a unified diff of the two records; the run
prints ``N of M scenarios identical``. Scenarios avoid what legitimately differs between the two
computers (the Python version, which programs are installed, ``ls -a`` of the home folder).
"""

from __future__ import annotations

import difflib
import hashlib
import io
import json
import logging
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional

import pytest

# litellm (imported by the reference's agent) otherwise fetches its price list from the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pytestmark = [
    pytest.mark.server,
    # Raised by pydantic while litellm (the reference agent's model client) imports.
    pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier:UserWarning"),
]

IMAGE = "cdx123/llm-in-sandbox:v0.1"

# --------------------------------------------------------------------------------------------
# The stand-in docker: a container is a private root folder; an exec is `bash -c` chrooted into
# it inside a private mount namespace.
# --------------------------------------------------------------------------------------------

# Runs on the host inside `unshare`: mount the host's system folders read-only into the
# container's root, then chroot there and start the command in its working folder. A failure
# of the stand-in itself exits 125 with a line starting "stand-in docker:", never a command's.
_ENTER = r"""
fail() { echo "stand-in docker: $*" >&2; exit 125; }
root=$1; workdir=$2; shift 2
chroot=$(command -v chroot) || fail "no chroot"
for d in $BIND_RO; do
    mount --bind "/$d" "$root/$d" || fail "bind /$d"
    mount -o remount,bind,ro "$root/$d" || fail "remount /$d read-only"
done
mount --rbind /dev "$root/dev" || fail "bind /dev"
mount --rbind /proc "$root/proc" || fail "bind /proc"
# The command gets the container's variables only (docker exec sets no PWD or OLDPWD).
PATH=$STANDIN_PATH; unset STANDIN_PATH BIND_RO
exec "$chroot" "$root" /bin/sh -c 'cd "$1" || exit 126; shift; unset OLDPWD PWD; exec "$@"' sh "$workdir" "$@"
"""

_SYSTEM_FOLDERS = ("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32")


def _unshare_prefixes() -> List[List[str]]:
    """How to get a private mount namespace here: as root `unshare -m`; otherwise a user
    namespace that maps us to root."""
    plain = ["unshare", "--mount", "--propagation", "private"]
    mapped = ["unshare", "--mount", "--map-root-user", "--propagation", "private"]
    return [plain, mapped] if os.geteuid() == 0 else [mapped]


class StandInContainer:
    """What ``DockerRuntime`` uses of a container: ``id``, ``status``, ``exec_run``,
    ``put_archive``, ``get_archive``, ``stop``, ``remove``."""

    def __init__(self, name: str, environment: Dict[str, str], working_dir: str, tty: bool, unshare: List[str]):
        self.name = name
        self.id = hashlib.sha256(name.encode()).hexdigest()
        self.status = "running"
        self._unshare = unshare
        self._base = tempfile.mkdtemp(prefix="standin-docker-")
        self.root = os.path.join(self._base, "rootfs")
        self._bind_ro: List[str] = []
        os.makedirs(self.root)
        for name_ in _SYSTEM_FOLDERS:
            host = "/" + name_
            if os.path.islink(host):
                os.symlink(os.readlink(host), os.path.join(self.root, name_))
            elif os.path.isdir(host):
                os.mkdir(os.path.join(self.root, name_))
                self._bind_ro.append(name_)
        for name_, mode in (("dev", 0o755), ("proc", 0o555), ("tmp", 0o1777), ("root", 0o700)):
            os.mkdir(os.path.join(self.root, name_))
            os.chmod(os.path.join(self.root, name_), mode)
        os.makedirs(self._host_path(working_dir), exist_ok=True)  # docker makes -w's folder
        # What docker gives a root container besides its own variables.
        self.environment = {"HOSTNAME": self.id[:12], "HOME": "/root", **({"TERM": "xterm"} if tty else {})}
        self.environment.update(environment)

    def _host_path(self, path: str) -> str:
        return os.path.join(self.root, path.lstrip("/"))

    def spawn(self, cmd: List[str], workdir: str, env: Dict[str, str], stderr) -> subprocess.CompletedProcess:
        argv = [*self._unshare, "/bin/sh", "-c", _ENTER, "sh", self.root, workdir, *cmd]
        host_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        full_env = {**env, "PATH": host_path, "STANDIN_PATH": env.get("PATH", ""), "BIND_RO": " ".join(self._bind_ro)}
        # The reference's own `timeout` ends its commands; this only bounds a stuck stand-in.
        return subprocess.run(argv, env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=stderr, timeout=900)

    def exec_run(self, cmd, workdir=None, environment=None, demux=False, **_ignored):
        from docker.models.containers import ExecResult

        env = {**self.environment, **(environment or {})}
        stderr = subprocess.PIPE if demux else subprocess.STDOUT  # one stream, in write order
        p = self.spawn(list(cmd), workdir or "/", env, stderr)
        # Docker reports a process ended by signal N as 128 + N (Python says -N).
        code = p.returncode if p.returncode >= 0 else 128 - p.returncode
        err = p.stderr or b""
        if code == 125 and b"stand-in docker:" in (err if demux else p.stdout):
            raise RuntimeError((err if demux else p.stdout).decode(errors="replace"))
        if demux:
            return ExecResult(code, (p.stdout or None, err or None))
        return ExecResult(code, p.stdout)

    def put_archive(self, path: str, data) -> bool:
        raw = data.read() if hasattr(data, "read") else bytes(data)
        # Python's extraction filters where it has them (3.12, and 3.8-3.11 security releases).
        safe = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
        with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
            tar.extractall(self._host_path(path), **safe)
        return True

    def get_archive(self, path: str, **_ignored):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            tar.add(self._host_path(path), arcname=os.path.basename(path.rstrip("/")))
        return iter([buf.getvalue()]), {"name": os.path.basename(path)}

    def start(self) -> None:
        self.status = "running"

    def stop(self, timeout: int = 10) -> None:
        self.status = "exited"

    def remove(self, force: bool = False) -> None:
        if not os.path.isdir(self._base):
            return
        # Mounts live only in each exec's namespace; still, never recurse into a mount point.
        for name_ in self._bind_ro + ["dev", "proc"]:
            p = os.path.join(self.root, name_)
            if os.path.ismount(p):
                raise RuntimeError(f"stand-in docker: {p} is still mounted")
            os.rmdir(p)
        shutil.rmtree(self._base)


class StandInDocker:
    """``docker.from_env()``'s client, as much as ``DockerRuntime`` uses of it."""

    def __init__(self, unshare: List[str]):
        self._unshare = unshare
        self.made: List[StandInContainer] = []
        self.containers = self
        self.images = self

    # containers.get / images.get
    def get(self, name: str):
        import docker.errors

        if name == IMAGE or any(c.name == name for c in self.made):
            return next((c for c in self.made if c.name == name), name)
        raise docker.errors.NotFound(f"no such container: {name}")

    def pull(self, image: str) -> str:
        return image

    # containers.run
    def run(self, image, command=None, name=None, detach=False, stdin_open=False, tty=False,
            environment=None, working_dir="/", **_ignored):
        c = StandInContainer(name, dict(environment or {}), working_dir, tty, self._unshare)
        self.made.append(c)
        return c


def _missing(why: str) -> None:
    """Skip loudly; under CI (where everything the test needs is installed) fail instead."""
    if os.environ.get("CI"):
        pytest.fail(why, pytrace=False)
    pytest.skip("SKIPPED LOUDLY: " + why)


@pytest.fixture(scope="module")
def reference_package() -> None:
    """The reference package (the `test` extra pins `llm-in-sandbox==0.2.0`)."""
    try:
        import llm_in_sandbox.agent  # noqa: F401
        import llm_in_sandbox.docker_runtime  # noqa: F401
    except ImportError as e:
        _missing(f"the differential test drives the reference package's own Agent: {e} "
                 "(pip install './clients/python[test]')")


@pytest.fixture(scope="module")
def unshare_prefix() -> List[str]:
    """A way into a private mount namespace that works here: skip loudly (fail under CI)
    when there is none."""
    tried = []
    for prefix in _unshare_prefixes():
        try:
            c = StandInContainer("probe", {}, "/testbed", False, prefix)
        except OSError as e:  # pragma: no cover - a host without a writable temporary folder
            tried.append(f"{prefix}: {e}")
            continue
        try:
            p = c.spawn(["bash", "-c", "pwd > probe.txt; echo $HOME"], "/testbed", {"HOME": "/root", "PATH": "/usr/bin:/bin"},
                        subprocess.PIPE)
            ok = p.returncode == 0 and p.stdout == b"/root\n" and os.path.isfile(c._host_path("/testbed/probe.txt"))
            tried.append(f"{' '.join(prefix)}: exit {p.returncode}, {p.stderr.decode(errors='replace').strip()!r}")
        except (OSError, subprocess.SubprocessError) as e:
            ok = False
            tried.append(f"{' '.join(prefix)}: {e!r}")
        finally:
            c.remove()
        if ok:
            return prefix
    _missing("the differential test needs a private mount namespace to run the reference's "
             "commands as real `bash -c` in a private /testbed; none works here: " + "; ".join(tried))


# --------------------------------------------------------------------------------------------
# The scripted model: an OpenAI-compatible endpoint that answers its turns in order.
# --------------------------------------------------------------------------------------------


def bash(command: str) -> Dict[str, Any]:
    return {"name": "execute_bash", "arguments": {"command": command}}


def edit(**arguments: Any) -> Dict[str, Any]:
    return {"name": "str_replace_editor", "arguments": arguments}


def submit() -> Dict[str, Any]:
    return {"name": "submit", "arguments": {}}


def text(content: str) -> Dict[str, Any]:
    """A turn with no tool call (the agent answers it with its reminder)."""
    return {"text": content}


class ScriptedModel:
    """Serves ``turns`` in order at ``/v1/chat/completions`` and keeps every request body."""

    def __init__(self, turns: List[Dict[str, Any]]):
        self.turns = list(turns)
        self.requests: List[Dict[str, Any]] = []
        self.problems: List[str] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                answer = model.answer(self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(200 if "choices" in answer else 500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def answer(self, path: str, body: Dict[str, Any]) -> Dict[str, Any]:
        self.requests.append(body)
        n = len(self.requests)
        if not path.endswith("/chat/completions"):
            self.problems.append(f"request {n} to {path}")
            return {"error": {"message": f"unexpected path {path}"}}
        if n > len(self.turns):
            self.problems.append(f"request {n} after the script's {len(self.turns)} turns")
            return {"error": {"message": "the script has no more turns"}}
        turn = self.turns[n - 1]
        message: Dict[str, Any] = {"role": "assistant", "content": turn.get("text", f"Turn {n}.")}
        if "name" in turn:
            message["tool_calls"] = [{
                "id": f"call_{n}", "type": "function",
                "function": {"name": turn["name"], "arguments": json.dumps(turn["arguments"])},
            }]
        return {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": body.get("model"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if "name" in turn else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --------------------------------------------------------------------------------------------
# Recording the agent's calls to its runtime.
# --------------------------------------------------------------------------------------------


class RecordingRuntime:
    """Passes the agent's ``run`` / ``demux_run`` calls to a runtime and keeps each one with
    what it returned. ``timeout``, when set, is given to calls that name none: the agent always
    uses the runtime's default (120 s), and a scenario about the deadline needs a short one."""

    def __init__(self, runtime: Any, timeout: Optional[int] = None):
        self._runtime = runtime
        self._timeout = timeout
        self.calls: List[Dict[str, Any]] = []

    def _call(self, method: str, args: tuple, kwargs: Dict[str, Any]):
        if self._timeout is not None and len(args) < 2 and "timeout" not in kwargs:
            kwargs = {**kwargs, "timeout": self._timeout}
        returned = getattr(self._runtime, method)(*args, **kwargs)
        self.calls.append({"method": method, "args": list(args), "kwargs": kwargs, "returned": list(returned)})
        return returned

    def run(self, *args: Any, **kwargs: Any):
        return self._call("run", args, kwargs)

    def demux_run(self, *args: Any, **kwargs: Any):
        return self._call("demux_run", args, kwargs)

    def __getattr__(self, name: str):
        self.calls.append({"method": f"<attribute {name}>", "args": [], "kwargs": {}, "returned": []})
        return getattr(self._runtime, name)


# --------------------------------------------------------------------------------------------
# Scenarios.
# --------------------------------------------------------------------------------------------


@dataclass
class Scenario:
    name: str
    turns: List[Dict[str, Any]]
    timeout: Optional[int] = None  # given to the runtime by the recorder (see RecordingRuntime)


PY_FILE = "def greet(name):\n    return 'Hello, ' + name + '!'\n\nprint(greet(\"world\"))\n"

SCENARIOS = [
    Scenario("variables_and_functions_do_not_carry_over", [
        bash('export GREETING=hello; counter=3; greet() { echo "hi $1"; }; greet there; echo "$GREETING $counter"'),
        bash('echo "${GREETING:-unset} ${counter:-unset}"; greet again'),
        bash("type greet"),
        bash("alias ll='echo aliased'; ll"),
        bash("ll"),
        submit(),
    ]),
    Scenario("cd_does_not_carry_over", [
        bash("mkdir -p sub/deeper && cd sub/deeper && pwd && touch here.txt"),
        bash("pwd; ls sub/deeper"),
        bash("cd /tmp; pwd"),
        bash("pwd && cd - ; pwd"),
        bash('echo "[$OLDPWD]"; cd input && echo "[$OLDPWD]"'),
        submit(),
    ]),
    Scenario("exit_codes_of_failing_commands", [
        bash("exit 3"),
        bash("false"),
        bash("echo abc | grep zzz"),
        bash('(exit 42); echo "status $?"'),
        bash("true && false || echo recovered"),
        bash("ls /no_such_dir_here"),
        bash("bash -c 'exit 7'"),
        bash("set -o pipefail; false | true"),
        submit(),
    ]),
    Scenario("missing_command", [
        bash("nosuchcommand"),
        bash("echo before; definitely-not-a-command --flag; echo after"),
        bash("echo one\nmissing_two arg\necho three"),
        bash("pythn3 -c 'print(1)'"),
        bash("x=$(nosuch_in_substitution); echo \"[$x]\""),
        submit(),
    ]),
    Scenario("cd_to_missing_folder", [
        bash("cd /no/such/folder"),
        bash("cd missing && echo unreachable"),
        bash("cd nope; pwd"),
        bash('cd input/nope 2>&1; echo "rc=$?"'),
        submit(),
    ]),
    Scenario("home_folder", [
        bash("echo $HOME"),
        bash("cd ~ && pwd"),
        bash("cd && pwd && ls"),
        bash("echo ~ ~/x"),
        bash("touch ~/note.txt && ls ~ && ls ~/missing"),
        submit(),
    ]),
    Scenario("writing_and_reading_files", [
        bash("echo 'line one' > notes.txt; printf 'a\\nb\\n' >> notes.txt; cat notes.txt; wc -l notes.txt"),
        bash("ls"),
        bash("cat missing.txt"),
        bash("mkdir -p output && echo 42 > output/answer.txt && cat /testbed/output/answer.txt"),
        bash("cp notes.txt copy.txt && mv copy.txt moved.txt && ls && rm moved.txt && ls"),
        bash("head -n 1 notes.txt; tail -n 1 notes.txt; grep -n b notes.txt"),
        submit(),
    ]),
    Scenario("stdout_and_stderr", [
        bash("echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 5"),
        bash("ls /testbed/input /nope"),
        bash("{ echo a; echo b >&2; } 2>&1"),
        bash('cat nofile 2>/dev/null; echo "rc=$?"'),
        bash("echo only-err >&2"),
        submit(),
    ]),
    Scenario("python3_one_liners", [
        bash("python3 -c 'print(sum(range(10)))'"),
        bash("python3 -c 'import sys; print(\"to err\", file=sys.stderr); sys.exit(3)'"),
        bash("python3 -c 'print(1/0)'"),
        bash("printf 'x = 6 * 7\\nprint(x)\\n' > calc.py && python3 calc.py"),
        bash("python3 -c 'import json; print(json.dumps({\"a\": [1, 2]}))'"),
        submit(),
    ]),
    Scenario("python3_missing_module", [
        # A module the guest lacks: the error as a Python with site initialization on prints
        # it (no hint about site-packages or virtual environments).
        bash("python3 -c 'import no_such_module_here'"),
        bash("printf 'import no_such_module_here\\n' > m.py && python3 m.py"),
        bash("python3 -c 'import traceback\ntry:\n    import no_such_module_here\n"
             "except ImportError:\n    traceback.print_exc()'"),
        submit(),
    ]),
    Scenario("timeout", [
        bash("sleep 5"),
        bash("echo before; sleep 5; echo after"),
        bash("echo alive"),
        submit(),
    ], timeout=1),
    Scenario("editor_create_view_replace_insert", [
        edit(command="create", path="/testbed/hello.py", file_text=PY_FILE),
        edit(command="view", path="/testbed/hello.py"),
        edit(command="str_replace", path="/testbed/hello.py", old_str="Hello, ", new_str="Hi, "),
        edit(command="view", path="/testbed/hello.py", view_range=[1, 2]),
        edit(command="insert", path="/testbed/hello.py", insert_line=0, new_str="# greeting"),
        bash("python3 hello.py"),
        edit(command="create", path="/testbed/pkg/mod.py", file_text="X = 'it''s'\n"),
        edit(command="view", path="/testbed/pkg"),
        submit(),
    ]),
    Scenario("editor_errors", [
        edit(command="view", path="/testbed/missing.py"),
        edit(command="create", path="/testbed/notes.txt", file_text="plain text"),
        edit(command="view", path="/testbed/notes.txt"),
        edit(command="str_replace", path="/testbed/notes.txt", old_str="absent", new_str="x"),
        edit(command="str_replace", path="/testbed/nothere.py", old_str="a", new_str="b"),
        submit(),
    ]),
    Scenario("submit_and_turns_without_tools", [
        text("Let me think about it."),
        bash(""),
        bash("echo 42 > output/answer.txt && cat output/answer.txt"),
        submit(),
    ]),
    Scenario("pipes_and_text_tools", [
        bash("seq 1 5 | awk '{s+=$1} END {print s}'"),
        bash("echo hello world | tr a-z A-Z"),
        bash("printf 'b\\na\\nb\\nc\\n' | sort | uniq -c"),
        bash("cat <<'EOF' > here.txt\nalpha\nbeta $HOME\nEOF\ncat here.txt | sed 's/alpha/ALPHA/' | cut -c1-4"),
        bash("printf 'k=v\\n' | while IFS== read -r k v; do echo \"$k -> $v\"; done"),
        submit(),
    ]),
    Scenario("quoting_and_unicode", [
        bash("echo \"it's \\\"quoted\\\" \\$HOME $HOME\""),
        bash("printf '%s|' a 'b c' d; echo"),
        bash("echo héllo wörld; echo héllo | wc -c"),
        bash("x='a  b'; echo $x; echo \"$x\""),
        submit(),
    ]),
    Scenario("shell_options_and_expansions", [
        bash("set -e; false; echo unreachable"),
        bash("set -u; echo $nope"),
        bash("echo ${undefined_var:?not set}"),
        bash("echo ${undefined_var?}; echo unreachable"),
        bash('( echo ${undefined_var:?in a subshell} ); echo "status $?"'),
        bash("touch a.txt b.txt c.log; ls *.txt; echo *.log; ls nomatch*"),
        bash("echo $((6 * 7)) ${#HOME} {1..3}"),
        submit(),
    ]),
    Scenario("syntax_errors", [
        bash("echo ("),
        bash("if true; then echo x"),
        bash("echo ok; fi"),
        bash("echo first line runs\necho 'unterminated"),
        submit(),
    ]),
    Scenario("missing_files_in_common_tools", [
        bash("cp nofile x"),
        bash("mv nofile x"),
        bash("echo a > a.txt; cp a.txt nodir/b.txt; mv a.txt nodir/b.txt"),
        bash("head nofile; tail -n 2 nofile"),
        bash("wc -l nofile"),
        bash("sort nofile"),
        bash("cut -f1 nofile; uniq nofile"),
        bash("ls nope input output"),
        submit(),
    ]),
    Scenario("exit_statuses_of_signals_and_children", [
        bash("kill -9 $$"),
        bash("exit 300"),
        bash("sh -c 'echo from sh; exit 4'"),
        bash("bash -c 'echo ${nope:?in a child}'; echo \"child status $?\""),
        bash('true | false | true; echo "${PIPESTATUS[@]}"'),
        submit(),
    ]),
    Scenario("here_documents", [
        bash("cat > f.py <<'PY'\nprint('from f.py')\nPY\npython3 f.py"),
        bash("n=3; cat <<EOF\nn is $n, home is $HOME\nEOF"),
        bash("cat <<-EOF\n\ttab-indented\n\tEOF"),
        submit(),
    ]),
]

# --------------------------------------------------------------------------------------------
# Driving the agent and comparing.
# --------------------------------------------------------------------------------------------


def _agent(model: ScriptedModel):
    from llm_in_sandbox import Agent, AgentArgs

    quiet = logging.getLogger("differential.agent")
    quiet.setLevel(logging.ERROR)
    args = AgentArgs(
        system_prompt="You solve tasks in a sandbox. Working directory: /testbed.",
        instance_prompt="<problem>\n{problem_statement}\n</problem>",
        llm_name="openai/scripted", llm_base_url=model.url, max_retries=1, quiet=True,
    )
    return Agent(args, logger=quiet)


def _episode(scenario: Scenario, runtime: Any) -> Dict[str, Any]:
    """Run the reference's Agent over ``runtime`` on the scenario's script."""
    model = ScriptedModel(scenario.turns)
    try:
        recorder = RecordingRuntime(runtime, scenario.timeout)
        trajectory = _agent(model).run(recorder, f"Scenario {scenario.name}.", max_steps=len(scenario.turns) + 1)
        if len(model.requests) != len(scenario.turns):
            model.problems.append(f"the agent asked the model {len(model.requests)} times, "
                                  f"not once per scripted turn ({len(scenario.turns)}): see the log")
        return {
            "calls": recorder.calls,
            "requests": [r.get("messages") for r in model.requests],
            "steps": [{"action": s.action, "observation": s.observation} for s in trajectory.steps],
            "problems": model.problems,
        }
    finally:
        model.close()


def _render(record: Dict[str, Any]) -> List[str]:
    """A record as lines a person can diff: each call with what it returned, then the
    conversation the model saw last."""
    lines: List[str] = []
    for i, call in enumerate(record["calls"], 1):
        args = ", ".join([repr(a) for a in call["args"]] + [f"{k}={v!r}" for k, v in call["kwargs"].items()])
        lines.append(f"call {i}: {call['method']}({args})")
        for label, value in zip(("stdout", "stderr", "exit") if call["method"] == "demux_run" else ("output", "exit"),
                                call["returned"]):
            lines.append(f"    {label}: {value!r}")
    last = record["requests"][-1] if record["requests"] else []
    for m in last or []:
        lines.append(f"message [{m.get('role')}]" + (f" tool_calls={m['tool_calls']}" if m.get("tool_calls") else ""))
        lines.extend("    " + line for line in str(m.get("content") or "").split("\n"))
    for i, step in enumerate(record["steps"], 1):
        lines.append(f"step {i} observation:")
        lines.extend("    " + line for line in step["observation"].split("\n"))
    lines.extend(f"model endpoint: {p}" for p in record["problems"])
    return lines


_FIGURE: Dict[str, bool] = {}


@pytest.fixture(scope="module", autouse=True)
def figure(request):
    """Prints ``N of M scenarios identical`` when the module's tests are done."""
    yield
    if _FIGURE:
        same = sum(_FIGURE.values())
        line = f"runtime differential: {same} of {len(_FIGURE)} scenarios identical"
        differ = sorted(k for k, v in _FIGURE.items() if not v)
        if differ:
            line += " (different: " + ", ".join(differ) + ")"
        plugins = request.config.pluginmanager
        reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
        if reporter is None or capture is None:  # pragma: no cover - pytest without its terminal
            print(line)
            return
        with capture.global_and_fixture_disabled():
            reporter.write_line("\n" + line)


@pytest.fixture(autouse=True)
def model_key(monkeypatch):
    """The OpenAI client litellm uses wants a key, even for a local endpoint."""
    monkeypatch.setenv("OPENAI_API_KEY", "scripted-model")


@pytest.fixture
def reference_runtime(reference_package, unshare_prefix, monkeypatch):
    """The reference's ``DockerRuntime`` on the stand-in docker."""
    import llm_in_sandbox.docker_runtime as dr

    docker_client = StandInDocker(unshare_prefix)
    monkeypatch.setattr(dr.docker, "from_env", lambda **kwargs: docker_client)
    rt = dr.DockerRuntime(docker_image=IMAGE, repo_path="/testbed", logger=False)
    yield rt
    rt.close()
    for c in docker_client.made:
        c.remove()


@pytest.fixture
def wasm_runtime(reference_package, server):
    from llm_in_sandbox_client import WasmRuntime

    rt = WasmRuntime(docker_image=IMAGE, repo_path="/testbed", logger=False, base_url=server.url)
    yield rt
    rt.close()


def test_at_least_twelve_scenarios_cover_the_brief():
    names = {s.name for s in SCENARIOS}
    assert len(names) == len(SCENARIOS) >= 12
    for needed in ("variables_and_functions_do_not_carry_over", "missing_command", "cd_to_missing_folder",
                   "home_folder", "exit_codes_of_failing_commands", "timeout", "editor_create_view_replace_insert"):
        assert needed in names


class _CannedRuntime:
    """Answers every command with the same text (no sandbox at all)."""

    def __init__(self, stdout: str):
        self.stdout = stdout

    def demux_run(self, code: str, timeout: int = 120, workdir: Optional[str] = None):
        return self.stdout, "", "0"

    def run(self, code: str, timeout: int = 120, workdir: Optional[str] = None):
        return self.stdout, "0"


def test_the_comparison_sees_one_changed_character(reference_package):
    # The harness is not vacuous: one character of one command's output shows in the calls,
    # the next request's messages and the trajectory, and in the diff a failure prints.
    scenario = Scenario("canned", [bash("echo hi"), submit()])
    a, b = _episode(scenario, _CannedRuntime("hi\n")), _episode(scenario, _CannedRuntime("ho\n"))
    assert a["calls"] == [{"method": "demux_run", "args": ["echo hi"], "kwargs": {}, "returned": ["hi\n", "", "0"]}]
    assert a != b and len(a["requests"]) == len(b["requests"]) == 2
    assert a["requests"][0] == b["requests"][0] and a["requests"][1] != b["requests"][1]
    diff = list(difflib.unified_diff(_render(a), _render(b), lineterm="", n=0))
    assert "-    stdout: 'hi\\n'" in diff and "+    stdout: 'ho\\n'" in diff
    assert "-    hi" in diff and "+    ho" in diff


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_agent_sees_the_same_on_both_runtimes(scenario, reference_runtime, wasm_runtime):
    ours = _episode(scenario, wasm_runtime)
    theirs = _episode(scenario, reference_runtime)
    same = ours == theirs
    _FIGURE[scenario.name] = same
    assert not theirs["problems"] and not ours["problems"], (theirs["problems"], ours["problems"])
    if not same:
        diff = "\n".join(difflib.unified_diff(_render(theirs), _render(ours), "reference DockerRuntime",
                                              "WasmRuntime", lineterm="", n=2))
        pytest.fail(f"scenario {scenario.name}: the agent's runtime calls or messages differ\n{diff}", pytrace=False)
    # The episode ran its whole script and ended on submit.
    assert theirs["steps"] and theirs["steps"][-1]["action"]["function"] == "submit"
