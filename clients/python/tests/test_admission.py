"""A server started with no sizing flags holds the paper's RL recipe without a single 429: one
training step (8 rows x 8 rollouts = 64 trajectories at once), then a validation pass (128 at
once), each a whole trajectory through the shipped rLLM environment (documents copied in,
commands, Python, the answer written with the editor, submit, the reward, close).

The server is this module's own, so its counters start at zero and no other test's load
reaches them. Clients retry a 429 by themselves; what is checked is the server's own count of
requests it refused (``llm_in_sandbox_rejected_total``), and that no session is left.
"""

from __future__ import annotations

import os
import re
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

# The reference package imports litellm, which otherwise tries to fetch a price list.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from llm_in_sandbox.action import Action  # noqa: E402 - after the variable above

from conftest import Server  # noqa: E402
from llm_in_sandbox_client.rllm import LLMinSandboxEnv  # noqa: E402

pytestmark = pytest.mark.server

ANSWER = "the river floods every spring after the snow melts"


@pytest.fixture(scope="module")
def default_server():
    server = Server("rl-defaults", [])
    yield server
    server.stop()


def counter(server: Server, name: str) -> float:
    text = server.client().metrics()
    m = re.search(rf"^{name} (\S+)$", text, re.M)
    assert m, f"{name} missing from /metrics:\n{text}"
    return float(m.group(1))


def trajectory(server: Server, prefix: str, n: int) -> float:
    row = {
        "id": f"{prefix}-{n}",
        "domain": "instruct_pretrain",
        "qa_type": "free-form",
        "problem_statement": "When does the river flood?",
        "ground_truth": ANSWER,
        "input_files": {"notes/river.txt": f"Row {n}.\n{ANSWER}.\n"},
        "sandbox_url": server.url,
        "docker_image": prefix,
    }
    env = LLMinSandboxEnv.from_dict(row)
    try:
        env.reset()
        steps = [
            Action("execute_bash", {"command": "ls documents/notes && wc -l documents/notes/river.txt"}),
            Action("execute_bash", {"command": "python3 -c 'print(sum(i * i for i in range(100000)))'"}),
            Action("execute_bash", {"command": "grep -o 'the river.*melts' documents/notes/river.txt"}),
            Action("str_replace_editor",
                   {"command": "create", "path": "/testbed/answer.txt", "file_text": ANSWER}),
        ]
        for action in steps:
            obs, _, done, _ = env.step(action)
            assert not done, obs
        _, _, done, _ = env.step(Action("submit", {}))
        assert done
        return env.compute_final_reward()
    finally:
        env.close()


@pytest.mark.parametrize("trajectories", [64, 128], ids=["training-step-64", "validation-128"])
def test_an_rl_step_at_the_servers_defaults_gets_no_429(default_server, trajectories):
    prefix = f"admission-{uuid.uuid4().hex[:8]}"
    refused_before = counter(default_server, "llm_in_sandbox_rejected_total")
    with ThreadPoolExecutor(max_workers=trajectories) as pool:
        rewards = list(pool.map(lambda n: trajectory(default_server, prefix, n), range(trajectories)))
    assert rewards == [1.0] * trajectories
    assert counter(default_server, "llm_in_sandbox_rejected_total") == refused_before
    left = [sb.key for sb in default_server.client().list() if (sb.key or "").startswith(prefix)]
    assert left == []
