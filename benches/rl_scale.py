#!/usr/bin/env python3
"""RL rollouts at scale: N trajectories at once through the shipped rLLM environment.

Runs ``--trajectories`` trajectories at the same time, one thread each (rLLM's execution engine
runs its environments' calls on a thread pool), through
``llm_in_sandbox_client.rllm.LLMinSandboxEnv``, against ``llm-in-sandbox serve`` started with
no sizing flags (only ``--bind`` and a token), so what is measured is the server's defaults.

Each trajectory is what llm-in-sandbox-rl does with one row: ``from_dict`` (the row plus
``env_args``), ``reset()`` (a session, the row's documents copied in), the model's steps,
``compute_final_reward()`` (``answer.txt`` scored by the reference's ``instruct_pretrain``
reward in a child process), ``close()``. The model is a fake one: a scripted policy that
waits ``--model-latency`` seconds on average before each step (its "think time", drawn
deterministically per trajectory and step, uniform in [0.5, 1.5] x the mean) and then picks
the next action from a fixed plan: ``ls``, the step that finds the answer (``grep`` in the
documents, or a ``python3`` computation over them for math rows), ``wc``, a ``python3``
numpy call, ... then ``str_replace_editor create /testbed/answer.txt`` with the answer read
from the observations, and ``submit``. Rows cycle through three kinds, each scored by the
reference's own scorer: math (math-verify), free-form (ROUGE-L) and multiple choice (the
letter match), so every reward is expected to be exactly 1.0.

Measured: wall time and trajectories per second; every environment call's latency by kind
(reset, each step kind, reward, close) as p50/p99/max; the server's peak memory (its
``VmHWM``, and ``VmRSS`` sampled 4 times a second); the server's 429s
(``llm_in_sandbox_rejected_total``) and 5xx answers from ``/metrics``; trajectories lost
(any exception, a wrong observation, a reward other than 1.0); sessions left on the server
afterwards (``Client.list()``).

Exit status: 0 when nothing was lost, no session was left and the server answered no 5xx;
1 otherwise (the reasons are printed); 2 when the run could not start.

Run it with the client's Python (the venv that has ``llm_in_sandbox_client``,
``llm-in-sandbox==0.2.0``, math-verify and rouge-score):

    LLM_IN_SANDBOX_CACHE=... python benches/rl_scale.py --trajectories 512
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

# The reference package imports litellm, which otherwise tries to fetch a price list.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parents[1]

# ---------------------------------------------------------------------------------------------
# Rows and the scripted policy (the fake model)
# ---------------------------------------------------------------------------------------------

RIVER = "the river floods every spring after the snow melts"
NUMPY_CODE = "import numpy as np; a = np.arange(1, 1001); print(int(a.dot(a)))"
NUMPY_VALUE = str(sum(i * i for i in range(1, 1001)))  # 333833500


def numbers_for(n: int) -> List[int]:
    return [(n * 7919 + i * 104729) % 997 for i in range(20)]


def make_row(n: int) -> Tuple[Dict[str, Any], str]:
    """Row ``n`` (llm-in-sandbox-rl's fields) and its kind: math, free-form or choice."""
    kind = ("math", "free-form", "choice")[n % 3]
    if kind == "math":
        nums = numbers_for(n)
        return {
            "id": f"math-{n}",
            "domain": "math",
            "problem_statement": "What is the sum of the squares of the numbers in numbers.txt?",
            "ground_truth": str(sum(x * x for x in nums)),
            "input_files": {
                "data/numbers.txt": " ".join(map(str, nums)) + "\n",
                "README.md": f"Row {n}: twenty integers in data/numbers.txt.\n",
            },
        }, kind
    if kind == "free-form":
        return {
            "id": f"free-{n}",
            "domain": "instruct_pretrain",
            "qa_type": "free-form",
            "problem_statement": "When does the river flood?",
            "ground_truth": RIVER,
            "input_files": {
                "data/notes.txt": f"Row {n}.\nObserved for {n % 40 + 10} years.\n{RIVER}.\n",
                "README.md": f"Row {n}: field notes in data/notes.txt.\n",
            },
        }, kind
    letter = "ABCD"[n % 4]
    return {
        "id": f"choice-{n}",
        "domain": "instruct_pretrain",
        "qa_type": "multiple choice",
        "problem_statement": "Which option does the key in data/key.txt name? A, B, C or D.",
        "ground_truth": letter,
        "input_files": {
            "data/key.txt": f"Row {n}.\nkey: {letter}\n",
            "README.md": f"Row {n}: the answer key in data/key.txt.\n",
        },
    }, kind


# One step of the plan: (label, tool, arguments, text the observation must contain).
Step = Tuple[str, str, Dict[str, Any], str]


def exploration(kind: str, row: Dict[str, Any]) -> List[Step]:
    """The steps before the answer, the one that finds the answer second (a model looks
    around first). The policy cycles through them when asked for more steps."""
    ls: Step = ("ls", "execute_bash", {"command": "ls -R documents"}, "README.md")
    wc: Step = ("wc", "execute_bash", {"command": "wc -l documents/README.md documents/data/*"}, "total")
    numpy: Step = ("python3", "execute_bash", {"command": f"python3 -c '{NUMPY_CODE}'"}, NUMPY_VALUE)
    if kind == "math":
        key: Step = (
            "python3", "execute_bash",
            {"command": "python3 -c 'print(sum(int(x) ** 2 for x in open(\"documents/data/numbers.txt\").read().split()))'"},
            row["ground_truth"],
        )
        return [ls, key, wc, ("grep", "execute_bash", {"command": "grep -c . documents/data/numbers.txt"}, "1"), numpy]
    if kind == "free-form":
        key = ("grep", "execute_bash", {"command": "grep -o 'the river.*melts' documents/data/notes.txt"}, RIVER)
    else:
        key = ("grep", "execute_bash", {"command": "grep -h '^key:' documents/data/*.txt"}, f"key: {row['ground_truth']}")
    return [ls, key, wc, numpy]


def answer_from(kind: str, key_observation: str) -> str:
    """What the scripted model writes, read from the observation of the step that found it."""
    stdout = key_observation.split("[STDOUT]", 1)[-1]
    if kind == "math":
        m = re.search(r"\d+", stdout)
        return "\\boxed{" + (m.group(0) if m else "") + "}"
    if kind == "free-form":
        m = re.search(r"the river.*melts", stdout)
        return m.group(0) if m else ""
    m = re.search(r"key: ([A-D])", stdout)
    return f"Answer: {m.group(1)}" if m else ""


def think_time(seed: int, trajectory: int, step: int, mean: float) -> float:
    """The fake model's time before step ``step`` (0 = its first answer after reset):
    uniform in [0.5, 1.5] x ``mean``, the same for the same seed, trajectory and step."""
    import random

    return mean * random.Random(f"{seed}/{trajectory}/{step}").uniform(0.5, 1.5)


def warm_scorer() -> None:
    """Score a right answer of each row kind here, in the main thread (math-verify's time
    limit needs it), so the caches the scorers fill on their first call exist before the
    reward's children are forked from this process."""
    from llm_in_sandbox_client._reward import TRAINING_TASK, reward_function

    score = reward_function(TRAINING_TASK)
    for n in range(3):
        row, kind = make_row(n)
        answer = {"math": "\\boxed{%s}" % row["ground_truth"], "free-form": RIVER,
                  "choice": f"Answer: {row['ground_truth']}"}[kind]
        kwargs = {k: v for k, v in row.items() if k != "ground_truth"}
        if score(answer, row["ground_truth"], **kwargs) != 1.0:
            raise RuntimeError(f"the {kind} scorer does not give a right answer 1.0")


# ---------------------------------------------------------------------------------------------
# One trajectory
# ---------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one trajectory did: its calls' latencies by kind, its reward, or why it was lost."""

    n: int
    kind: str
    calls: List[Tuple[str, float]] = field(default_factory=list)
    reward: Optional[float] = None
    lost: Optional[str] = None
    think_s: float = 0.0
    started: float = 0.0
    ended: float = 0.0


def run_trajectory(n: int, args: argparse.Namespace, env_args: Dict[str, Any], start: threading.Barrier) -> Outcome:
    from llm_in_sandbox.action import Action
    from llm_in_sandbox_client.rllm import LLMinSandboxEnv

    row, kind = make_row(n)
    out = Outcome(n, kind)

    def timed(label: str, call: Callable[[], Any]) -> Any:
        t = time.perf_counter()
        try:
            return call()
        finally:
            out.calls.append((label, time.perf_counter() - t))

    def think(step: int) -> None:
        pause = think_time(args.seed, n, step, args.model_latency)
        out.think_s += pause
        time.sleep(pause)

    env = LLMinSandboxEnv.from_dict({**row, **env_args})
    start.wait()
    out.started = time.perf_counter()
    try:
        timed("reset", env.reset)
        plan = exploration(kind, row)
        answer = ""
        for i in range(args.steps - 2):
            label, tool, params, expect = plan[i % len(plan)]
            think(i)
            obs, _, done, _ = timed(f"step {label}", lambda: env.step(Action(tool, dict(params))))
            if done or expect not in obs or "Exit code: 0" not in obs:
                raise AssertionError(f"step {i} ({label}): expected {expect!r} in the observation, got {obs[:300]!r}")
            if i == 1:
                answer = answer_from(kind, obs)
        think(args.steps - 2)
        create = {"command": "create", "path": "/testbed/answer.txt", "file_text": answer}
        obs, _, done, _ = timed("step editor", lambda: env.step(Action("str_replace_editor", create)))
        if done or "File created at /testbed/answer.txt" not in obs:
            raise AssertionError(f"editor: {obs[:300]!r}")
        think(args.steps - 1)
        _, _, done, _ = timed("step submit", lambda: env.step(Action("submit", {})))
        if not done:
            raise AssertionError("submit did not end the trajectory")
        out.reward = timed("reward", env.compute_final_reward)
        if out.reward != 1.0:
            out.lost = f"reward {out.reward} (answer {answer!r}, ground truth {row['ground_truth']!r})"
    except BaseException as e:  # noqa: BLE001 - every failure is a lost trajectory, reported
        out.lost = f"{type(e).__name__}: {e}"
        if args.verbose:
            traceback.print_exc()
    finally:
        timed("close", env.close)
        out.ended = time.perf_counter()
    return out


# ---------------------------------------------------------------------------------------------
# The server: started here, or given
# ---------------------------------------------------------------------------------------------


class Server:
    """``llm-in-sandbox serve --bind 127.0.0.1:0`` with a token of ours (passed in its
    environment, so it is not on the command line) and nothing else."""

    def __init__(self, binary: str, log: Path) -> None:
        self.token = secrets.token_hex(16)
        env = dict(os.environ, LLM_IN_SANDBOX_TOKEN=self.token)
        self.cmd = [binary, "serve", "--bind", "127.0.0.1:0"]
        self.log = log
        self._stderr = open(log, "wb")
        self.proc = subprocess.Popen(
            self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr, env=env, text=True
        )
        self.pid = self.proc.pid
        first: List[str] = []
        reader = threading.Thread(target=lambda: first.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(600)  # a first start sets the runtime up (minutes, once)
        line = first[0].strip() if first else ""
        m = re.match(r"listening on (http://\S+)", line)
        if not m:
            self.stop()
            raise RuntimeError(f"{' '.join(self.cmd)} did not start ({line!r}); its stderr is in {log}")
        self.url = m.group(1).rstrip("/")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def sizing(self) -> str:
        """The start-up line on stderr that states the defaults it chose."""
        for line in self.log.read_text(errors="replace").splitlines():
            if "calls at once" in line:
                return line.split(": ", 1)[-1]
        return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(45)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()


def proc_status(pid: int) -> Dict[str, int]:
    """VmRSS and VmHWM of ``pid``, in KiB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0])
    return out


def proc_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Sampler:
    """Samples the server's memory (4 times a second) and its live sessions and calls in
    flight (from /metrics, twice a second) while the run lasts."""

    def __init__(self, pid: Optional[int], client: Any) -> None:
        self.pid, self.client = pid, client
        self.peak_rss_kib = 0
        self.hwm_kib = 0
        self.peak_sessions = 0.0
        self.peak_in_flight = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(0.25):
            tick += 1
            self.sample_memory()
            if tick % 2 == 0:
                try:
                    m = metric_values(self.client.metrics())
                    self.peak_sessions = max(self.peak_sessions, m.get("llm_in_sandbox_sessions", 0))
                    self.peak_in_flight = max(self.peak_in_flight, m.get("llm_in_sandbox_calls_in_flight", 0))
                except Exception:  # noqa: BLE001 - a missed sample is not a result
                    pass

    def sample_memory(self) -> None:
        if self.pid is None:
            return
        try:
            s = proc_status(self.pid)
        except OSError:
            return
        self.peak_rss_kib = max(self.peak_rss_kib, s.get("VmRSS", 0))
        self.hwm_kib = max(self.hwm_kib, s.get("VmHWM", 0))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sample_memory()


_SESSION_ID = re.compile(r"/sb-[0-9a-f]+")
_ACCESS = re.compile(r"^\S+ \S+ (GET|POST|PUT|DELETE) (\S+) (\d{3}) ([\d.]+)ms$")


def access_log_table(path: Path, offset: int) -> Tuple[Dict[str, Dict[str, float]], Dict[str, int]]:
    """The server's own time per request (its access log from ``offset`` on), by method and
    route, and the count of each status: what the server spent, against what the env saw."""
    by_route: Dict[str, List[float]] = defaultdict(list)
    statuses: Dict[str, int] = defaultdict(int)
    with open(path, "rb") as f:
        f.seek(offset)
        for raw in f:
            m = _ACCESS.match(raw.decode("utf-8", "replace").strip())
            if not m or m.group(2) in ("/metrics", "/v1/sandboxes") and m.group(1) == "GET":
                continue
            route = f"{m.group(1)} {_SESSION_ID.sub('/{id}', m.group(2).split('?', 1)[0])}"
            by_route[route].append(float(m.group(4)))
            statuses[m.group(3)] += 1
    table = {}
    for route, values in sorted(by_route.items()):
        values.sort()
        table[route] = {"requests": len(values), "p50_ms": percentile(values, 50),
                        "p99_ms": percentile(values, 99), "max_ms": values[-1]}
    return table, dict(statuses)


def metric_values(text: str) -> Dict[str, float]:
    """Prometheus text to ``{name or name{labels}: value}``."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                out[name] = float(value)
            except ValueError:
                pass
    return out


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def percentile(sorted_values: List[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        return float("nan")
    rank = max(1, int(-(-q * len(sorted_values) // 100)))  # ceil(q/100 * n)
    return sorted_values[min(rank, len(sorted_values)) - 1]


def latency_table(outcomes: List[Outcome]) -> Dict[str, Dict[str, float]]:
    by_kind: Dict[str, List[float]] = defaultdict(list)
    for o in outcomes:
        for label, seconds in o.calls:
            by_kind[label].append(seconds)
            if label.startswith("step "):
                by_kind["all steps"].append(seconds)
            by_kind["all calls"].append(seconds)
    order = ["reset", "step ls", "step grep", "step wc", "step python3", "step editor", "step submit",
             "all steps", "reward", "close", "all calls"]
    table = {}
    for label in order + sorted(set(by_kind) - set(order)):
        values = sorted(by_kind.get(label, []))
        if values:
            table[label] = {
                "calls": len(values),
                "p50_ms": 1000 * percentile(values, 50),
                "p99_ms": 1000 * percentile(values, 99),
                "max_ms": 1000 * values[-1],
            }
    return table


def machine() -> Dict[str, Any]:
    mem_kib = 0
    try:
        with open("/proc/meminfo") as f:
            mem_kib = int(f.readline().split()[1])
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "load_average_at_start": list(os.getloadavg()),
    }


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=(
            "Run N RL trajectories at once (a thread each, as rLLM's engine does) through the "
            "shipped rLLM environment (llm_in_sandbox_client.rllm.LLMinSandboxEnv) against "
            "`llm-in-sandbox serve` at its defaults, with a scripted fake model that thinks "
            "--model-latency seconds before each step. Reports trajectories/s, every env call's "
            "p50/p99/max by kind, the server's peak RSS (VmHWM), its 429s and 5xx, trajectories "
            "lost and sessions left. Exits 1 if any trajectory was lost (an exception, a wrong "
            "observation, a reward other than 1.0), a session was left or the server answered "
            "a 5xx; 2 if the run could not start."
        ),
        epilog=(
            "The server is started as `BINARY serve --bind 127.0.0.1:0` with a token of this "
            "script's in its environment: no sizing flag, so --max-inflight, --max-sandboxes, "
            "--queue-wait and the rest are the defaults. Set LLM_IN_SANDBOX_CACHE as for any "
            "server. Its stderr (the access log) is kept in a temporary file, named at the end."
        ),
    )
    p.add_argument("--trajectories", type=int, default=512, help="trajectories at once (default 512)")
    p.add_argument("--steps", type=int, default=6,
                   help="env.step calls per trajectory, the editor's and submit included (default 6: "
                        "ls, the answer-finding grep or python3, wc, python3 numpy, editor, submit; "
                        "at least 4)")
    p.add_argument("--model-latency", type=float, default=0.5,
                   help="the fake model's mean think time before each step, seconds; each pause is "
                        "uniform in [0.5, 1.5] x this, drawn from --seed, trajectory and step (default 0.5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the think times (default 0)")
    p.add_argument("--binary", default=os.environ.get("LLM_IN_SANDBOX_BIN") or str(REPO / "target/release/llm-in-sandbox"),
                   help="the llm-in-sandbox binary to start (default $LLM_IN_SANDBOX_BIN, else "
                        "target/release/llm-in-sandbox)")
    p.add_argument("--server-url", help="use this running server instead of starting one (its token from "
                                        "$LLM_IN_SANDBOX_TOKEN); its memory is reported only with --server-pid")
    p.add_argument("--server-pid", type=int, help="with --server-url: the server's process id, for its memory")
    p.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH ('-': stdout)")
    p.add_argument("--warm-scorer", action="store_true",
                   help="score one answer of each row kind in this process's main thread before the "
                        "run, so the reward's forked children inherit the scorers' caches (math-verify's "
                        "compiled regexes, the LaTeX parser's tables) instead of building them again in "
                        "every child; what a trainer can do today, and what the client could do itself")
    p.add_argument("--verbose", action="store_true", help="print each lost trajectory's traceback")
    args = p.parse_args(argv)
    if args.trajectories < 1:
        p.error("--trajectories must be at least 1")
    if args.steps < 4:
        p.error("--steps must be at least 4 (ls, the step that finds the answer, the editor, submit)")
    if args.model_latency < 0:
        p.error("--model-latency must not be negative")
    if args.server_pid and not args.server_url:
        p.error("--server-pid goes with --server-url")
    return args


def run(args: argparse.Namespace) -> int:
    from llm_in_sandbox_client._reward import require_reference

    require_reference()  # import the reference and its scorers once, before the clock starts
    if args.warm_scorer:
        warm_scorer()
    server: Optional[Server] = None
    if args.server_url:
        url, token, pid = args.server_url.rstrip("/"), os.environ.get("LLM_IN_SANDBOX_TOKEN") or None, args.server_pid
    else:
        if not os.access(args.binary, os.X_OK):
            print(f"rl_scale: no llm-in-sandbox binary at {args.binary} (--binary)", file=sys.stderr)
            return 2
        log = Path(tempfile.mkstemp(prefix="rl-scale-serve-", suffix=".stderr")[1])
        try:
            server = Server(args.binary, log)
        except RuntimeError as e:
            print(f"rl_scale: {e}", file=sys.stderr)
            return 2
        url, token, pid = server.url, server.token, server.pid
    try:
        return measure(args, url, token, pid, server)
    finally:
        if server is not None:
            server.stop()
            print(f"server log (access log): {server.log}", file=sys.stderr)


def measure(args: argparse.Namespace, url: str, token: Optional[str], pid: Optional[int], server: Optional[Server]) -> int:
    from llm_in_sandbox_client import Client

    client = Client(url, token=token, retries=0)
    run_id = secrets.token_hex(4)
    image = f"rl-scale-{run_id}"  # names every session of this run (its key starts with it)
    env_args = {"sandbox_url": url, "sandbox_token": token, "docker_image": image}
    before = metric_values(client.metrics())
    log_offset = server.log.stat().st_size if server else 0
    info = machine()
    cpu_before = proc_cpu_s(pid) if pid else None
    self_before, children_before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    rss_before = proc_status(pid).get("VmRSS") if pid else None

    start = threading.Barrier(args.trajectories + 1)
    outcomes: List[Optional[Outcome]] = [None] * args.trajectories

    def work(n: int) -> None:
        try:
            outcomes[n] = run_trajectory(n, args, env_args, start)
        except BaseException as e:  # noqa: BLE001 - building the env failed: still a lost one
            outcomes[n] = Outcome(n, make_row(n)[1], lost=f"{type(e).__name__}: {e}")
            start.abort()

    threads = [threading.Thread(target=work, args=(n,), name=f"trajectory {n}") for n in range(args.trajectories)]
    for t in threads:
        t.start()
    sampler = Sampler(pid, client)
    sampler.start()
    try:
        start.wait()
    except threading.BrokenBarrierError:
        pass
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    sampler.stop()
    self_after, children_after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)

    def cpu(a: Any, b: Any) -> float:
        return (b.ru_utime + b.ru_stime) - (a.ru_utime + a.ru_stime)

    after = metric_values(client.metrics())
    left = [sb.key or sb.id for sb in client.list() if (sb.key or "").startswith(image)]
    done = [o for o in outcomes if o is not None]
    lost = [o for o in done if o.lost]

    def delta(name: str) -> float:
        return after.get(name, 0.0) - before.get(name, 0.0)

    calls = delta("llm_in_sandbox_call_seconds_count")
    durations = sorted(o.ended - o.started for o in done if o.ended)
    result = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "trajectories": args.trajectories,
        "steps": args.steps,
        "model_latency_s": args.model_latency,
        "server": {"url": url, "command": " ".join(server.cmd) if server else None,
                   "defaults": server.sizing() if server else None},
        "machine": info,
        "wall_s": wall,
        "trajectories_per_s": args.trajectories / wall,
        "trajectory_s": {"p50": percentile(durations, 50), "max": durations[-1] if durations else None},
        "think_s_mean": sum(o.think_s for o in done) / max(1, len(done)),
        "latency_ms": latency_table(done),
        "server_rss_mib": {
            "before": rss_before / 1024 if rss_before else None,
            "peak_sampled": sampler.peak_rss_kib / 1024 if pid else None,
            "vm_hwm": sampler.hwm_kib / 1024 if pid else None,
        },
        "server_cpu_s": proc_cpu_s(pid) - cpu_before if pid else None,
        "trainer_cpu_s": cpu(self_before, self_after),
        "reward_children_cpu_s": cpu(children_before, children_after),
        "warm_scorer": args.warm_scorer,
        "server_peak_sessions": sampler.peak_sessions,
        "server_peak_calls_in_flight": sampler.peak_in_flight,
        "server_sandbox_calls": calls,
        "server_sandbox_call_mean_ms": 1000 * delta("llm_in_sandbox_call_seconds_sum") / calls if calls else None,
        "rejected_429": delta("llm_in_sandbox_rejected_total"),
        "responses_5xx": delta('llm_in_sandbox_responses_total{class="5xx"}'),
        "sessions_created": delta("llm_in_sandbox_sessions_created_total"),
        "sessions_reaped": delta("llm_in_sandbox_reaped_total"),
        "lost": len(lost) + (args.trajectories - len(done)),
        "lost_reasons": [f"trajectory {o.n} ({o.kind}): {o.lost}" for o in lost[:20]],
        "sessions_left": len(left),
    }
    if server is not None:
        result["server_side_ms"], result["server_statuses"] = access_log_table(server.log, log_offset)
    result["machine"]["load_average_at_end"] = list(os.getloadavg())
    report(result)
    if args.json:
        text = json.dumps(result, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")

    problems = []
    if result["lost"]:
        first = result["lost_reasons"][0] if result["lost_reasons"] else "a thread ended without an outcome"
        problems.append(f"{result['lost']} trajectories lost (the `lost:` lines above); the first: {first}")
    if left:
        problems.append(f"{len(left)} sessions left on the server: {', '.join(left[:5])}")
    if result["responses_5xx"]:
        problems.append(f"the server answered {result['responses_5xx']:.0f} requests with a 5xx (see its log)")
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


def report(r: Dict[str, Any]) -> None:
    m = r["machine"]
    print(f"{r['trajectories']} trajectories x {r['steps']} steps, think time {r['model_latency_s']} s "
          f"(mean per step); {m['cpus']} CPUs, {m['memory_gib']} GiB, Linux {m['kernel']}, load average "
          f"{m['load_average_at_start'][0]:.2f} at start, {m['load_average_at_end'][0]:.2f} at end")
    if r["server"]["command"]:
        print(f"server: {r['server']['command']}  ({r['server']['defaults']})")
    print(f"wall {r['wall_s']:.1f} s, {r['trajectories_per_s']:.2f} trajectories/s; a trajectory "
          f"p50 {r['trajectory_s']['p50']:.2f} s, max {r['trajectory_s']['max']:.2f} s, of which the "
          f"model thinks {r['think_s_mean']:.2f} s on average")
    print(f"{'call':<14} {'calls':>6} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}")
    for label, row in r["latency_ms"].items():
        print(f"{label:<14} {row['calls']:>6} {row['p50_ms']:>9.1f} {row['p99_ms']:>9.1f} {row['max_ms']:>9.1f}")
    rss = r["server_rss_mib"]
    if rss["vm_hwm"] is not None:
        print(f"server memory: RSS {rss['before']:.0f} MiB before, peak {rss['peak_sampled']:.0f} MiB "
              f"sampled, VmHWM {rss['vm_hwm']:.0f} MiB")
    server_cpu = f"{r['server_cpu_s']:.1f} s" if r["server_cpu_s"] is not None else "not known"
    print(f"CPU: server {server_cpu}; this process (the env threads, HTTP, JSON) "
          f"{r['trainer_cpu_s']:.1f} s; the reward's children {r['reward_children_cpu_s']:.1f} s"
          f"{' (scorer warmed first)' if r['warm_scorer'] else ''}")
    mean = r["server_sandbox_call_mean_ms"]
    print(f"server: {r['server_sandbox_calls']:.0f} sandbox calls (mean {mean or 0:.1f} ms as it timed them), "
          f"peak {r['server_peak_sessions']:.0f} sessions and {r['server_peak_calls_in_flight']:.0f} calls "
          f"in flight (sampled), {r['sessions_created']:.0f} sessions created, {r['sessions_reaped']:.0f} reaped")
    print(f"429s {r['rejected_429']:.0f}, 5xx {r['responses_5xx']:.0f}, lost {r['lost']}, "
          f"sessions left {r['sessions_left']}")
    if r.get("server_side_ms"):
        print("the server's own time per request (its access log); statuses " +
              ", ".join(f"{k}: {v}" for k, v in sorted(r["server_statuses"].items())))
        print(f"{'request':<40} {'count':>6} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}")
        for route, row in r["server_side_ms"].items():
            print(f"{route:<40} {row['requests']:>6} {row['p50_ms']:>9.1f} {row['p99_ms']:>9.1f} {row['max_ms']:>9.1f}")
    for reason in r["lost_reasons"]:
        print(f"  lost: {reason}")


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    try:
        return run(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
