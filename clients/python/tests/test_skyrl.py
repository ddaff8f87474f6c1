"""The SkyRL environment (``llm_in_sandbox_client.skyrl``) under the real ``skyrl_gym``
package, driven through whole episodes with scripted model outputs against the real server:
tool calls in the Hermes format, the reference's observations, the reference's
``instruct_pretrain`` reward from ``/testbed/answer.txt``, and every session deleted."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

import pytest

# litellm (imported by the reference package) fetches a price list at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

skyrl_gym = pytest.importorskip("skyrl_gym")
pytest.importorskip("llm_in_sandbox")

from skyrl_gym.envs.base_text_env import BaseTextEnv  # noqa: E402

from llm_in_sandbox_client import Client, SandboxUnavailableError  # noqa: E402
from llm_in_sandbox_client._episode import (  # noqa: E402
    Task,
    hermes_tools_block,
    parse_tool_call,
    parse_tool_calls,
    tool_schemas,
)
from llm_in_sandbox_client.skyrl import ENV_ID, LLMInSandboxEnv, register_env  # noqa: E402

from conftest import Server  # noqa: E402

PREFIX = "llm-in-sandbox-skyrl-"
CONTINUE_MSG = (
    "\nYou forgot to use a function call in your response. \nYOU MUST USE A FUNCTION CALL IN "
    "EACH RESPONSE.\n\nIMPORTANT: YOU SHOULD NEVER ASK FOR HUMAN HELP.\n"
)

MATH_ROW = {
    "id": "math-1",
    "domain": "math",
    "problem_statement": "Multiply the two numbers in numbers.txt.",
    "ground_truth": "42",
    "input_files": {"numbers.txt": "6 7\n"},
}

COMPUTE = (
    "python3 -c \"a, b = map(int, open('/testbed/documents/numbers.txt').read().split()); "
    "open('/testbed/answer.txt', 'w').write(str(a * b + {delta}))\""
)


def call(name: str, **arguments: Any) -> str:
    """A model turn with one tool call, as Qwen writes it."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def ours(client: Client) -> Dict[str, str]:
    """Live sessions this module's environments made: id -> key."""
    return {s.id: s.key for s in client.list() if (s.key or "").startswith(PREFIX)}


@pytest.fixture
def client(server) -> Client:
    return server.client()


@pytest.fixture(autouse=True)
def no_session_left(request):
    """After every test, no session of ours made during it is still alive."""
    if "server" not in request.fixturenames:
        yield
        return
    c = request.getfixturevalue("server").client()
    before = set(ours(c))
    yield
    assert set(ours(c)) - before == set()


def make(server, row: Dict[str, Any], max_turns: int = 10, **env_config: Any) -> LLMInSandboxEnv:
    """The environment as SkyRL's generator makes it: ``skyrl_gym.make(env_class,
    env_config=..., extras=row + max_turns)``."""
    env = skyrl_gym.make(
        ENV_ID, env_config={"base_url": server.url, **env_config}, extras={**row, "max_turns": max_turns}
    )
    assert isinstance(env, LLMInSandboxEnv) and isinstance(env, BaseTextEnv)
    return env


def play(env: LLMInSandboxEnv, outputs: List[str]) -> List[Dict[str, Any]]:
    """init, then one step per scripted model output, as SkyRL's agent loop does; the last
    output must end the episode."""
    env.init([{"role": "user", "content": "placeholder"}])
    results = [env.step(text) for text in outputs]
    assert [r["done"] for r in results] == [False] * (len(outputs) - 1) + [True]
    env.close()
    return results


# -- whole episodes --------------------------------------------------------------------------------


def test_importing_the_module_registers_the_environment():
    assert ENV_ID in skyrl_gym.registry
    assert skyrl_gym.registry[ENV_ID].entry_point == "llm_in_sandbox_client.skyrl:LLMInSandboxEnv"


def test_correct_math_answer_scores_one(server, client):
    env = make(server, MATH_ROW, max_turns=5)
    messages, info = env.init([{"role": "user", "content": "placeholder"}])
    sid = info["session"]
    assert sid in ours(client)
    assert [m["role"] for m in messages] == ["system", "user"]

    first = env.step("I will read the input first.\n" + call("execute_bash", command="cat /testbed/documents/numbers.txt"))
    assert first == {
        "observations": [{
            "role": "tool",
            "content": "Exit code: 0\nExecution output of \\[execute_bash]:\n\\[STDOUT]\n6 7\n\nSteps Remaining: 4",
        }],
        "reward": 0.0,
        "done": False,
        "metadata": {"tool": "execute_bash", "step": 1},
    }
    second = env.step(call("execute_bash", command=COMPUTE.format(delta=0)))
    assert second["done"] is False and second["observations"][0]["content"].startswith("Exit code: 0\n")
    last = env.step(call("submit"))
    assert last["done"] is True and last["observations"] == []
    assert last["reward"] == 1.0
    assert last["metadata"]["stop_reason"] == "submitted" and last["metadata"]["answer"] == "42"
    # Done deletes the session at once (SkyRL closes the environment later as well).
    assert sid not in ours(client) and env.session_id is None
    assert env.get_metrics() == {"submitted": 1.0, "steps": 3, "tool_calls": 3, "score": 1.0}
    env.close()


def test_wrong_math_answer_scores_zero(server):
    env = make(server, MATH_ROW)
    results = play(env, [call("execute_bash", command=COMPUTE.format(delta=-1)), call("submit")])
    assert results[-1]["reward"] == 0.0
    assert results[-1]["metadata"]["answer"] == "41"


@pytest.mark.parametrize(
    "ground_truth, written, reward",
    [("B", "B", 1.0), ("B", "C", 0.0), ("A, C, D", "A, C", 0.8)],
)
def test_multiple_choice_rows(server, ground_truth, written, reward):
    row = {
        "domain": "instruct_pretrain",
        "qa_type": "Multiple Choice",
        "problem_statement": "Which of the options does the document support?",
        "ground_truth": ground_truth,
        "input_files": {"doc.txt": "Options A to D."},
    }
    env = make(server, row)
    results = play(env, [
        call("str_replace_editor", command="create", path="/testbed/answer.txt", file_text=written),
        call("submit"),
    ])
    assert results[0]["observations"][0]["content"].startswith(
        "Execution output of \\[str_replace_editor]:\nFile created at /testbed/answer.txt."
    )
    assert results[-1]["reward"] == pytest.approx(reward)


@pytest.mark.parametrize("overlong_penalty, reward", [(True, 0.0), (False, 1.0)])
def test_an_episode_that_never_submits(server, client, overlong_penalty, reward):
    # The right answer is written, but the steps run out without `submit`: the paper's run
    # (overlong_step_penalty=true) gives 0; without the penalty the answer is scored.
    env = make(server, MATH_ROW, max_turns=3, overlong_penalty=overlong_penalty)
    env.init(None)
    sid = env.session_id
    env.step(call("execute_bash", command=COMPUTE.format(delta=0)))
    middle = env.step("I think the answer is 42.")
    assert middle["observations"] == [{"role": "user", "content": CONTINUE_MSG + "\nSteps Remaining: 1"}]
    assert middle["metadata"]["tool"] is None
    last = env.step("Still thinking.")
    assert last["done"] is True and last["reward"] == reward
    assert last["metadata"]["stop_reason"] == "max_steps"
    assert env.get_metrics()["submitted"] == 0.0
    assert sid not in ours(client)


def test_missing_command_is_an_observation_not_an_error(server):
    env = make(server, MATH_ROW)
    results = play(env, [
        call("execute_bash"),
        call("execute_bash", command="no-such-command --now"),
        call("submit"),
    ])
    assert results[0]["observations"][0]["content"] == "Error: No command provided.\nSteps Remaining: 9"
    missing = results[1]["observations"][0]["content"]
    assert missing.startswith("Exit code: Error: Exit code 127\nExecution output of \\[execute_bash]:\n")
    assert "no-such-command: command not found" in missing
    # Nothing was written: the empty answer scores 0.
    assert results[-1]["reward"] == 0.0 and results[-1]["metadata"]["answer"] == ""


def test_malformed_and_multiple_tool_calls(server):
    env = make(server, MATH_ROW)
    env.init(None)
    # Not JSON: no call at all (vLLM's parser drops every call then), the reference's nudge.
    bad = env.step('<tool_call>\n{"name": "execute_bash", "arguments": {"command": "ls"\n</tool_call>')
    assert bad["observations"][0] == {"role": "user", "content": CONTINUE_MSG + "\nSteps Remaining: 9"}
    # Two calls: the first runs.
    two = env.step(call("execute_bash", command="echo first") + call("execute_bash", command="echo second"))
    assert "first" in two["observations"][0]["content"] and "second" not in two["observations"][0]["content"]
    # Arguments that are not an object: nothing runs; the reference shows the tool's header.
    odd = env.step('<tool_call>\n{"name": "execute_bash", "arguments": "ls"}\n</tool_call>')
    assert odd["observations"][0] == {
        "role": "tool", "content": "Exit code: 0\nExecution output of \\[execute_bash]:\n\nSteps Remaining: 7",
    }
    env.close()


def test_input_files_land_in_the_documents_folder(server):
    row = {**MATH_ROW, "input_files": json.dumps({"a.txt": "alpha", "sub/b.txt": "beta", "skip.txt": None})}
    env = make(server, row)
    env.init(None)
    out = env.step(call("execute_bash", command="cd /testbed/documents && find . -type f | sort && cat a.txt sub/b.txt"))
    assert "./a.txt\n./sub/b.txt\nalphabeta" in out["observations"][0]["content"]
    env.close()


def test_an_input_file_outside_the_folder_is_refused_and_leaves_no_session(server):
    env = make(server, {**MATH_ROW, "input_files": {"../escape.txt": "x"}})
    with pytest.raises(ValueError, match="not a path inside"):
        env.init(None)
    assert env.session_id is None


def test_reward_is_right_in_a_worker_thread(server):
    # SkyRL steps environments on a thread pool; math-verify's time limit needs a main thread,
    # so a scorer run in the thread itself would score this right answer 0.
    env = make(server, MATH_ROW)
    with ThreadPoolExecutor(max_workers=1) as pool:
        results = pool.submit(play, env, [call("execute_bash", command=COMPUTE.format(delta=0)), call("submit")]).result()
    assert results[-1]["reward"] == 1.0


# -- infrastructure failures are exceptions, never rewards -------------------------------------


def test_a_deleted_session_raises_and_gives_no_reward(server, client):
    env = make(server, MATH_ROW)
    env.init(None)
    env.step(call("execute_bash", command=COMPUTE.format(delta=0)))
    client.delete(env.session_id)
    with pytest.raises(SandboxUnavailableError):
        env.step(call("execute_bash", command="cat /testbed/answer.txt"))
    assert env.session_id is None
    with pytest.raises(RuntimeError, match="closed"):
        env.step(call("submit"))


def test_a_stopped_server_raises(request):
    down = Server("skyrl-down", [])
    request.addfinalizer(down.stop)
    env = skyrl_gym.make(ENV_ID, env_config={"base_url": down.url, "http_timeout": 10}, extras=dict(MATH_ROW))
    env.init(None)
    down.stop()
    with pytest.raises(SandboxUnavailableError):
        env.step(call("submit"))
    assert env.session_id is None


# -- where the server is -----------------------------------------------------------------------


def test_url_and_token_from_the_environment(token_server, monkeypatch):
    monkeypatch.setenv("LLM_IN_SANDBOX_URL", token_server.url)
    monkeypatch.setenv("LLM_IN_SANDBOX_TOKEN", token_server.token)
    c = token_server.client()
    env = skyrl_gym.make(ENV_ID, env_config={}, extras=dict(MATH_ROW))
    env.init(None)
    assert env.session_id in ours(c)
    env.close()
    assert ours(c) == {}


def test_register_env_binds_options(server, monkeypatch):
    monkeypatch.delenv("LLM_IN_SANDBOX_URL", raising=False)
    register_env("llm_in_sandbox_bound_test", base_url=server.url, max_steps=2)
    try:
        env = skyrl_gym.make("llm_in_sandbox_bound_test", env_config={}, extras=dict(MATH_ROW))
        assert env.max_turns == 2
        env.init(None)
        env.step("thinking")
        assert env.step("still thinking")["done"] is True
        env.close()
        # Registering our own id again replaces it; an unknown option fails at once.
        register_env("llm_in_sandbox_bound_test", base_url=server.url)
        with pytest.raises(TypeError, match="unknown LLM-in-Sandbox option"):
            register_env("llm_in_sandbox_bound_test", base_ulr=server.url)
    finally:
        skyrl_gym.envs.registration.deregister("llm_in_sandbox_bound_test")


def test_a_rows_own_options_win(server, monkeypatch):
    # As a generator's _setup_env_extras hook would set them, e.g. to spread trajectories over
    # several servers; the bound and config-wide ones are overridden.
    monkeypatch.delenv("LLM_IN_SANDBOX_URL", raising=False)
    row = {**MATH_ROW, "llm_in_sandbox": {"base_url": server.url, "overlong_penalty": False}}
    env = skyrl_gym.make(ENV_ID, env_config={"base_url": "http://127.0.0.1:9"}, extras={**row, "max_turns": 1})
    assert env.task.fields.get("llm_in_sandbox") is None
    env.init(None)
    out = env.step(call("execute_bash", command=COMPUTE.format(delta=0)))
    assert out["done"] is True and out["reward"] == 1.0
    with pytest.raises(TypeError, match="unknown LLM-in-Sandbox option"):
        skyrl_gym.make(ENV_ID, env_config={}, extras={**MATH_ROW, "llm_in_sandbox": {"url": server.url}})


def test_register_env_refuses_another_environments_id():
    with pytest.raises(skyrl_gym.error.RegistrationError):
        register_env("gsm8k")


# -- prompts and parsing (no server) ----------------------------------------------------------------


def test_prompts_are_the_reference_configs(server):
    from llm_in_sandbox.benchmark.runner import load_task_config

    for domain, config_name in (("instruct_pretrain", "instruct_pretrain"), ("math_mini", "math"),
                                ("medicine", "instruct_pretrain")):
        env = make(server, {**MATH_ROW, "domain": domain}, max_turns=7)
        messages, _ = env.init(None)
        env.close()
        config = load_task_config(config_name)
        first_line = config["system_prompt"].splitlines()[0]
        system, user = messages[0]["content"], messages[1]["content"]
        assert system.startswith(first_line) and "{input_dir}" not in system
        assert system.endswith(hermes_tools_block(tool_schemas()))
        assert f"<problem>\n{MATH_ROW['problem_statement']}\n</problem>" in user
        assert "{working_dir}" not in user and user.endswith("\nWorking directory: /testbed\nSteps Remaining: 7")


def test_the_tools_block_is_what_qwen_templates_render():
    block = hermes_tools_block([{"type": "function", "function": {"name": "f", "parameters": {}}}])
    assert block == (
        "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
        '{"type": "function", "function": {"name": "f", "parameters": {}}}\n</tools>\n\n'
        "For each function call, return a json object with function name and arguments within "
        "<tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )
    assert [t["function"]["name"] for t in tool_schemas()] == ["str_replace_editor", "execute_bash", "submit"]


@pytest.mark.parametrize("text, expected", [
    ("no call", []),
    ('<tool_call>{"name": "submit", "arguments": {}}</tool_call>', [("submit", {})]),
    # The last call may be left open (the model stopped at its end-of-turn token).
    ('x <tool_call>\n{"name": "execute_bash", "arguments": {"command": "ls"}}', [("execute_bash", {"command": "ls"})]),
    ('<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": 1}</tool_call>',
     [("a", {}), ("b", 1)]),
    # One bad call drops them all, as vLLM's hermes parser does.
    ('<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{oops}</tool_call>', []),
    ('<tool_call>{"name": "a"}</tool_call>', []),
    ('<tool_call>{"name": 3, "arguments": {}}</tool_call>', []),
    ("<tool_call>[1, 2]</tool_call>", []),
])
def test_tool_calls_parse_as_vllms_hermes_parser(text, expected):
    assert [(c.name, c.arguments) for c in parse_tool_calls(text)] == expected
    first = parse_tool_call(text)
    assert (first.name if first else None) == (expected[0][0] if expected else None)


def test_rows_in_every_layout():
    flat = Task.from_row({**MATH_ROW, "max_turns": 3, "env_class": "llm_in_sandbox"})
    nested = Task.from_row({
        "prompt": [{"role": "user", "content": "placeholder"}],
        "reward_model": {"ground_truth": "42", "style": "llm_in_sandbox"},
        "data_source": "math",
        "extra_info": {k: v for k, v in MATH_ROW.items() if k != "ground_truth"},
    })
    assert flat == nested
    assert flat.fields == {"id": "math-1", "domain": "math", "problem_statement": MATH_ROW["problem_statement"]}
    from_prompt = Task.from_row({
        "prompt": [{"role": "user", "content": "What is 6*7?"}], "reward_spec": {"ground_truth": "42"},
        "domain": "math",
    })
    assert from_prompt.problem_statement == "What is 6*7?"
    with pytest.raises(ValueError, match="ground_truth"):
        Task.from_row({"problem_statement": "q", "domain": "math"})
