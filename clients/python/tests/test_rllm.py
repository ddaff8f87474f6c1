"""``llm_in_sandbox_client.rllm.LLMinSandboxEnv`` against the real server, driven as rLLM's
engine drives llm-in-sandbox-rl's environment: ``from_dict({**extra_info, **env_args})``,
``reset``, ``step`` with the actions its agent makes (the reference package's ``Action``), then
``compute_final_reward`` and ``close``. Observations come from the reference wheel's own
``Agent._execute_action`` and rewards from its own ``instruct_pretrain`` reward; rLLM itself is
not needed (a stand-in package checks the ``BaseEnv`` base class).

Every test's environments use their own session-name prefix, and the fixture checks at the end
that no session with that prefix is left on the server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import types
import uuid

import pytest

# The reference package imports litellm, which otherwise tries to fetch a price list.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from llm_in_sandbox.action import Action  # noqa: E402 - after the variable above
from llm_in_sandbox.benchmark.instruct_pretrain.reward import compute_score  # noqa: E402
from llm_in_sandbox.observation import CONTINUE_MSG  # noqa: E402

from llm_in_sandbox_client import SandboxUnavailableError  # noqa: E402
from llm_in_sandbox_client import _reward  # noqa: E402
from llm_in_sandbox_client.rllm import LLMinSandboxEnv, RewardError  # noqa: E402

pytestmark = pytest.mark.server


# -- the agent's actions, as llm-in-sandbox-rl's agent builds them from tool calls ------------

def bash(command):
    return Action("execute_bash", {"command": command})


def create(path, text):
    return Action("str_replace_editor", {"command": "create", "path": path, "file_text": text})


SUBMIT = Action("submit", {})


def answer(env, text):
    """The model writes its answer with the editor and submits."""
    env.step(create("/testbed/answer.txt", text))
    obs, reward, done, info = env.step(SUBMIT)
    assert (obs, reward, done, info) == ("<<< Finished >>>", 0.0, True, {})


# -- rows in llm-in-sandbox-rl's format (examples/llm_in_sandbox/convert_llm_sandbox_dataset.py) --

def row(domain, problem, ground_truth, **extra):
    return {"id": uuid.uuid4().hex[:8], "domain": domain, "problem_statement": problem,
            "ground_truth": ground_truth, **extra}


def session_keys(server, prefix):
    return [sb.key for sb in server.client().list() if (sb.key or "").startswith(prefix)]


def _env_factory(server):
    prefix = f"rl-test-{uuid.uuid4().hex[:12]}"
    made = []

    def make(entry, **env_args):
        info = {**entry, "sandbox_url": server.url, "docker_image": prefix, **env_args}
        env = LLMinSandboxEnv.from_dict(info)
        made.append(env)
        return env

    make.prefix = prefix
    return make, made


@pytest.fixture
def make_env(server):
    """Environments on the plain server; at the end all are closed and none of their sessions
    may be left."""
    make, made = _env_factory(server)
    yield make
    for env in made:
        env.close()
    assert session_keys(server, make.prefix) == []


@pytest.fixture
def make_ttl_env(short_ttl_server):
    """The same on the server whose sessions die after 2 s idle."""
    make, made = _env_factory(short_ttl_server)
    yield make
    for env in made:
        env.close()
    assert session_keys(short_ttl_server, make.prefix) == []


# -- rewards -----------------------------------------------------------------------------------

def test_math_right_answer_scores_one(make_env):
    env = make_env(row("math", "What is 1/2 as a fraction?", "\\frac{1}{2}"))
    problem, info = env.reset()
    assert problem == "What is 1/2 as a fraction?"
    assert info["extra_info"]["ground_truth"] == "\\frac{1}{2}"
    obs, _, done, _ = env.step(bash("python3 -c 'from fractions import Fraction; print(Fraction(1, 2))'"))
    assert not done and "1/2" in obs
    answer(env, "\\boxed{\\frac{1}{2}}")
    assert env.compute_final_reward() == 1.0


def test_math_in_the_engines_worker_threads(make_env):
    # rLLM's engine calls reset, step and compute_final_reward in a thread pool. math-verify's
    # time limit needs a main thread (math-verify 0.9 called in a worker thread fails, and the
    # reference's math scorer turns that into 0.0): the scorer's child process has one.
    from concurrent.futures import ThreadPoolExecutor

    env = make_env(row("math", "What is 1/2 as a decimal?", "0.5"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        pool.submit(env.reset).result()
        pool.submit(answer, env, "\\boxed{\\frac{1}{2}}").result()
        assert pool.submit(env.compute_final_reward).result() == 1.0


def test_math_wrong_answer_scores_zero(make_env):
    env = make_env(row("math", "What is 2 + 2?", "4"))
    env.reset()
    answer(env, "\\boxed{5}")
    assert env.compute_final_reward() == 0.0


@pytest.mark.parametrize("domain, qa_type", [("instruct_pretrain", "Multiple Choice"), ("biomed", None)])
def test_multiple_choice_single_answer(make_env, domain, qa_type):
    extra = {"qa_type": qa_type} if qa_type else {}
    right = make_env(row(domain, "Which one? A) x B) y C) z", "B", **extra))
    wrong = make_env(row(domain, "Which one? A) x B) y C) z", "B", **extra))
    right.reset()
    wrong.reset()
    answer(right, "The answer is B")
    answer(wrong, "The answer is C")
    assert right.compute_final_reward() == 1.0
    assert wrong.compute_final_reward() == 0.0


def test_multiple_choice_multiple_answers_is_f1(make_env):
    env = make_env(row("instruct_pretrain", "Which are even? A) 2 B) 3 C) 4", "A, C", qa_type="Multiple Choice"))
    env.reset()
    answer(env, "A, B, C")
    reward = env.compute_final_reward()
    # precision 2/3, recall 1: F1 0.8, as the reference's own scorer says.
    assert reward == pytest.approx(0.8)
    assert reward == pytest.approx(compute_score("A, B, C", "A, C", domain="instruct_pretrain", qa_type="Multiple Choice"))


def test_free_form_is_rouge_l(make_env):
    truth = "Photosynthesis turns light energy into chemical energy stored in glucose."
    said = "Plants turn light energy into chemical energy."
    env = make_env(row("instruct_pretrain", "What does photosynthesis do?", truth, qa_type="Free-form"))
    env.reset()
    answer(env, said)
    reward = env.compute_final_reward()
    assert 0.0 < reward < 1.0
    assert reward == pytest.approx(compute_score(said, truth, domain="instruct_pretrain", qa_type="Free-form"))


@pytest.mark.parametrize("how", ["missing", "empty"])
def test_no_answer_scores_zero_from_the_real_answer(make_env, how):
    env = make_env(row("math", "What is 2 + 2?", "4"))
    env.reset()
    env.step(bash("echo thinking > /testbed/notes.txt"))
    if how == "empty":
        env.step(bash(": > /testbed/answer.txt"))
    env.step(SUBMIT)
    # The answer was read from a live session (the reward is not an error's): the session is
    # still there, and the file is what the agent left.
    exists = env.runtime.run("test -e /testbed/answer.txt")[1]
    assert exists == ("0" if how == "empty" else "Error: Exit code 1")
    assert env.compute_final_reward() == 0.0
    assert env.runtime.sandbox.info()["id"] == env.runtime.sandbox.id


# -- input files -------------------------------------------------------------------------------

def test_documents_in_subfolders_from_json_text(make_env):
    files = {"report.txt": "The code is 7.", "data/2024/values.csv": "x\n20\n22\n", "data/readme.md": "# data"}
    env = make_env(row("math", "Add the values in documents/data/2024/values.csv.", "42",
                       input_files=json.dumps(files)))
    env.reset()
    obs, *_ = env.step(bash("cd /testbed/documents && find . -type f | sort"))
    assert obs.endswith("[STDOUT]\n./data/2024/values.csv\n./data/readme.md\n./report.txt\n")
    obs, *_ = env.step(bash("cat /testbed/documents/report.txt"))
    assert obs.endswith("The code is 7.")
    env.step(bash(
        "python3 -c \"import pandas as pd; print(pd.read_csv('/testbed/documents/data/2024/values.csv').x.sum())\""
        " > /tmp/sum.txt"
    ))
    env.step(bash("echo \"\\boxed{$(cat /tmp/sum.txt)}\" > /testbed/answer.txt"))
    env.step(SUBMIT)
    assert env.compute_final_reward() == 1.0


def test_input_files_dict_skips_none(make_env):
    env = make_env(row("math", "Read the notes.", "1",
                       input_files={"notes/a.txt": "alpha", "notes/missing.txt": None, "b.txt": "beta"}))
    env.reset()
    obs, *_ = env.step(bash("cd /testbed/documents && find . -type f | sort && cat notes/a.txt b.txt"))
    assert obs.endswith("[STDOUT]\n./b.txt\n./notes/a.txt\nalphabeta")


@pytest.mark.parametrize("input_files", [None, "", "{}", {}, {"only.txt": None}])
def test_no_input_files(make_env, input_files):
    entry = row("math", "2 + 2?", "4")
    if input_files is not None:
        entry["input_files"] = input_files
    env = make_env(entry)
    env.reset()
    assert env.runtime.run("test -e /testbed/documents")[1] == "Error: Exit code 1"


def test_input_files_that_leave_the_folder_are_refused(make_env):
    env = make_env(row("math", "2 + 2?", "4", input_files={"../escape.txt": "x"}))
    with pytest.raises(ValueError):
        env.reset()
    assert env.runtime is None  # the session it had opened is deleted (the fixture checks)


# -- steps ------------------------------------------------------------------------------------

def test_steps_take_the_forms_upstream_passes(make_env):
    env = make_env(row("math", "2 + 2?", "4"))
    env.reset()
    # The reference's Action, as llm-in-sandbox-rl's agent returns it.
    assert env.step(bash("echo hi")) == (
        "Exit code: 0\nExecution output of \\[execute_bash]:\n\\[STDOUT]\nhi\n", 0.0, False, {})
    assert env.step(bash("echo out; echo err >&2; exit 3"))[0] == (
        "Exit code: Error: Exit code 3\nExecution output of \\[execute_bash]:\n\\[STDOUT]\nout\n\n\\[STDERR]\nerr\n")
    # Another Action class with the same fields (r2egym's), converted.
    other = types.SimpleNamespace(function_name="execute_bash", parameters={"command": "echo other"})
    assert env.step(other)[0].endswith("[STDOUT]\nother\n")
    # r2egym's text form of a tool call.
    text = "<function=execute_bash>\n  <parameter=command>echo text</parameter>\n</function>"
    assert env.step(text)[0].endswith("[STDOUT]\ntext\n")
    # No tool call: the reference's reminder. Arguments the tool parser could not decode
    # (left as text): the reference's empty observation, nothing run.
    assert env.step(Action("", {})) == (CONTINUE_MSG, 0.0, False, {})
    assert env.step(Action("execute_bash", '{"command": "ls'))[0] == (
        "Exit code: 0\nExecution output of \\[execute_bash]:\n")
    assert env.step("I think the answer is 4.")[0] == CONTINUE_MSG
    assert env.step(Action("browse", {"url": "x"}))[0] == "Unknown action: browse"
    # The editor, through the runtime's run().
    obs, *_ = env.step(create("/testbed/calc.py", "print(2 + 2)"))
    assert obs.startswith("Execution output of \\[str_replace_editor]:\nFile created at /testbed/calc.py.")
    obs, *_ = env.step(Action("str_replace_editor", {"command": "view", "path": "/testbed/calc.py"}))
    assert "     1\tprint(2 + 2)" in obs
    assert env.step(bash("python3 /testbed/calc.py"))[0].endswith("[STDOUT]\n4\n")
    assert env.step(SUBMIT)[2] is True
    assert env.total_steps == 12
    with pytest.raises(TypeError):
        env.step(42)


def test_step_timeout_is_each_commands_deadline(make_env):
    env = make_env(row("math", "2 + 2?", "4"), step_timeout=1)
    env.reset()
    obs, _, done, _ = env.step(bash("echo start; sleep 30"))
    assert obs == ("Exit code: -1\nExecution output of \\[execute_bash]:\n\\[STDOUT]\n"
                   "The command took too long to execute (>1s)")
    assert not done


def test_each_command_starts_afresh_as_a_docker_exec(make_env):
    env = make_env(row("math", "2 + 2?", "4"))
    env.reset()
    env.step(bash("cd /tmp && export X=1"))
    assert env.step(bash("pwd; echo \"X=$X\""))[0].endswith("[STDOUT]\n/testbed\nX=\n")


# -- construction, sessions --------------------------------------------------------------------

def test_from_dict_takes_env_args_out_of_the_row(token_server):
    entry = row("math", "2 + 2?", "4", input_files={"a.txt": "x"})
    env_args = {"sandbox_url": token_server.url, "sandbox_token": token_server.token,
                "docker_image": "rl-test-args", "step_timeout": 30, "verbose": False,
                "sandbox_limits": {"memory_mb": 512}, "reward_timeout": 20, "session_lifetime_s": None}
    for info in ({**entry, **env_args}, json.dumps({**entry, **env_args})):
        env = LLMinSandboxEnv.from_dict(info)
        try:
            assert env.entry == entry
            assert (env.sandbox_url, env.sandbox_token) == (token_server.url, token_server.token)
            assert (env.step_timeout, env.reward_timeout, env.sandbox_limits) == (30, 20, {"memory_mb": 512})
            assert env.session_lifetime_s == 7200  # None means the default
            _, info_out = env.reset()
            assert "sandbox_token" not in json.dumps(info_out)  # the row the agent sees
            assert env.runtime.sandbox.info()["limits"]["memory_mb"] == 512
            answer(env, "\\boxed{4}")
            assert env.compute_final_reward() == 1.0
        finally:
            env.close()
    assert session_keys(token_server, "rl-test-args") == []


def test_url_and_token_from_the_environment(token_server, monkeypatch):
    monkeypatch.setenv("LLM_IN_SANDBOX_URL", token_server.url)
    monkeypatch.setenv("LLM_IN_SANDBOX_TOKEN", token_server.token)
    env = LLMinSandboxEnv.from_dict({**row("math", "2 + 2?", "4"), "docker_image": "rl-test-env-vars"})
    try:
        env.reset()
        assert env.step(bash("echo ok"))[0].endswith("[STDOUT]\nok\n")
    finally:
        env.close()
    assert session_keys(token_server, "rl-test-env-vars") == []


def test_sessions_ask_for_a_trajectorys_lifetime(make_env):
    env = make_env(row("math", "2 + 2?", "4"))
    env.reset()
    info = env.runtime.sandbox.info()
    assert info["max_lifetime_s"] == 7200 and info["idle_ttl_s"] == 600
    assert info["shell"] == "reference"


def test_reset_replaces_the_session_and_close_deletes_it(make_env, server):
    env = make_env(row("math", "2 + 2?", "4"))
    env.reset()
    env.step(bash("echo left > /testbed/answer.txt"))
    first = env.runtime.sandbox.id
    env.reset()
    second = env.runtime.sandbox.id
    live = {sb.id for sb in server.client().list()}
    assert first != second and first not in live and second in live
    assert env.runtime.run("cat /testbed/answer.txt")[1] != "0"  # a fresh sandbox
    env.close()
    env.close()
    assert second not in {sb.id for sb in server.client().list()}
    with pytest.raises(RuntimeError):
        env.step(bash("true"))


def test_is_multithread_safe_and_has_an_index():
    assert LLMinSandboxEnv.is_multithread_safe() is True
    env = LLMinSandboxEnv(row("math", "2 + 2?", "4"))  # no session until reset()
    assert env.idx is None
    env.idx = 5
    assert env.idx == 5
    env.close()


# -- the idle TTL, and a session that is gone --------------------------------------------------

def test_a_model_slower_than_the_idle_ttl_still_gets_its_reward(make_ttl_env):
    truth = "The mitochondria produce most of the cell's energy."
    env = make_ttl_env(row("instruct_pretrain", "What do mitochondria do?", truth, qa_type="Free-form"))
    env.reset()
    env.step(bash("echo 'The mitochondria produce' > /tmp/draft.txt"))
    time.sleep(3)  # the model thinks for longer than the server's 2 s idle TTL
    env.step(bash("echo \"$(cat /tmp/draft.txt) the cell's energy.\" > /testbed/answer.txt"))
    env.step(SUBMIT)
    said = "The mitochondria produce the cell's energy."
    reward = env.compute_final_reward()
    assert reward == pytest.approx(compute_score(said, truth, domain="instruct_pretrain", qa_type="Free-form"))
    assert reward > 0.5


def test_a_session_deleted_under_the_env_raises_instead_of_scoring(make_ttl_env, short_ttl_server):
    env = make_ttl_env(row("instruct_pretrain", "Say hello.", "hello", qa_type="Free-form"))
    env.reset()
    env.step(create("/testbed/answer.txt", "hello"))
    short_ttl_server.client().delete(env.runtime.sandbox.id)
    with pytest.raises(SandboxUnavailableError):
        env.compute_final_reward()
    with pytest.raises(SandboxUnavailableError):
        env.step(bash("echo never shown to the model"))


# -- the scorer's process ----------------------------------------------------------------------

fork_only = pytest.mark.skipif(
    "fork" not in __import__("multiprocessing").get_all_start_methods(),
    reason="the stand-in scorers reach the child by fork",
)


def _stand_in(behaviour):
    def scorer(answer, ground_truth, **kwargs):
        if behaviour == "hang":
            time.sleep(600)
        if behaviour == "raise":
            raise ValueError("bad ground truth")
        if behaviour == "die":
            os._exit(3)
        return 0.25
    return lambda task: scorer


@fork_only
@pytest.mark.parametrize("behaviour, words", [
    ("hang", "did not finish within 1 s"), ("raise", "ValueError: bad ground truth"),
    ("die", "ended without an answer (exit code 3)"),
])
def test_a_scorer_that_fails_gives_an_error_not_a_reward(monkeypatch, behaviour, words):
    monkeypatch.setattr(_reward, "reward_function", _stand_in(behaviour))
    with pytest.raises(RewardError) as ei:
        _reward.score_in_child("4", "4", {"domain": "math"}, timeout=1)
    assert words in str(ei.value)


@fork_only
def test_the_scorer_runs_in_a_child_process(monkeypatch):
    monkeypatch.setattr(_reward, "reward_function", lambda task: (lambda a, g, **k: float(os.getpid())))
    assert _reward.score_in_child("4", "4", {"domain": "math"}) != float(os.getpid())


def test_the_reference_scorer_in_the_child():
    kwargs = {"domain": "instruct_pretrain", "qa_type": "Multiple Choice", "id": "x"}
    assert _reward.score_in_child("A, B, C", "A, C", kwargs) == pytest.approx(0.8)


# -- packaging: rLLM's base class, the reference package ---------------------------------------

def _python(code, tmp_path, extra_path=None):
    env = dict(os.environ)
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra_path), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_without_rllm_the_env_stands_alone():
    bases = [c.__module__ for c in LLMinSandboxEnv.__mro__]
    assert not any(m.startswith("rllm") for m in bases)
    for name in ("reset", "step", "close", "from_dict", "is_multithread_safe", "idx", "compute_final_reward"):
        assert hasattr(LLMinSandboxEnv, name)


def test_with_rllm_the_env_is_a_base_env(tmp_path):
    # A stand-in for rLLM's module (not installable here): an abstract BaseEnv with the
    # abstract methods rLLM's has, so the env must implement them to be built at all.
    base = tmp_path / "fake" / "rllm" / "environments" / "base"
    base.mkdir(parents=True)
    for folder in (base.parents[1], base.parent, base):
        (folder / "__init__.py").write_text("")
    (base / "base_env.py").write_text(textwrap.dedent("""
        from abc import ABC, abstractmethod

        class BaseEnv(ABC):
            @property
            def idx(self):
                return getattr(self, "_idx", None)

            @idx.setter
            def idx(self, value):
                self._idx = value

            @abstractmethod
            def reset(self): ...

            @abstractmethod
            def step(self, action): ...

            def close(self):
                return None

            @staticmethod
            @abstractmethod
            def from_dict(info): ...

            @staticmethod
            def is_multithread_safe():
                return True
    """))
    out = _python("""
        from rllm.environments.base.base_env import BaseEnv
        from llm_in_sandbox_client.rllm import LLMinSandboxEnv
        env = LLMinSandboxEnv.from_dict({"domain": "math", "ground_truth": "4", "problem_statement": "?"})
        env.idx = 3
        print(isinstance(env, BaseEnv), env.idx, env.is_multithread_safe())
    """, tmp_path, extra_path=tmp_path / "fake")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "3", "True"]


def test_a_broken_rllm_is_an_error_not_a_fallback(tmp_path):
    pkg = tmp_path / "fake" / "rllm"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("import a_module_rllm_needs_but_is_missing\n")
    out = _python("import llm_in_sandbox_client.rllm", tmp_path, extra_path=tmp_path / "fake")
    assert out.returncode != 0 and "a_module_rllm_needs_but_is_missing" in out.stderr


def test_the_trainers_logging_is_left_as_it_was(tmp_path):
    # The reference's agent module, imported at the first environment, drops the root
    # logger's handlers.
    out = _python("""
        import logging
        logging.basicConfig(level=logging.INFO)
        before = list(logging.getLogger().handlers)
        from llm_in_sandbox_client.rllm import LLMinSandboxEnv
        LLMinSandboxEnv({"domain": "math", "ground_truth": "4"})
        print(logging.getLogger().handlers == before, logging.getLogger().level == logging.INFO)
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]


def test_without_the_reference_package_the_error_says_what_to_install(tmp_path):
    out = _python("""
        import sys
        sys.modules["llm_in_sandbox"] = None  # as if it were not installed
        from llm_in_sandbox_client.rllm import LLMinSandboxEnv
        try:
            LLMinSandboxEnv({"domain": "math", "ground_truth": "4"})
        except ImportError as e:
            print(e)
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "pip install 'llm-in-sandbox==0.2.0' math-verify rouge-score" in out.stdout


def test_a_full_server_is_waited_for_not_failed(two_sandbox_server):
    # A trainer's reset that meets a full server waits for a free slot (the env's client
    # retries a 429 for about a minute) instead of failing the trajectory at once.
    import re
    import threading

    client = two_sandbox_server.client()

    def refused():
        m = re.search(r"^llm_in_sandbox_rejected_total (\S+)$", client.metrics(), re.M)
        return float(m.group(1))

    held = [client.create(), client.create()]
    env = LLMinSandboxEnv.from_dict(
        {**row("instruct_pretrain", "q", "a"), "sandbox_url": two_sandbox_server.url}
    )
    before = refused()
    outcome = {}

    def reset():
        try:
            outcome["reset"] = env.reset()
        except Exception as e:  # noqa: BLE001 - reported below
            outcome["error"] = e

    thread = threading.Thread(target=reset)
    thread.start()
    try:
        while refused() == before and thread.is_alive():
            time.sleep(0.05)
        assert refused() > before, outcome
        held.pop().delete()
        thread.join(120)
        assert "reset" in outcome, outcome
    finally:
        env.close()
        for sb in held:
            sb.delete(missing_ok=True)
