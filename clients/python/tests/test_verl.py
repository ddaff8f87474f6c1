"""The verl agent loop (``llm_in_sandbox_client.verl``) against the real server.

verl itself is not installed here: ``pip install verl`` brings torch with CUDA and NVIDIA's
libraries (gigabytes). The loop is driven instead through stand-ins written from verl's source
(``verl/experimental/agent_loop/agent_loop.py``, 0.9.1): ``AgentLoopBase`` with its
constructor's arguments, ``AgentLoopOutput``'s fields, ``register`` and its registry, a server
manager whose ``generate(request_id, *, prompt_ids, sampling_params, ...)`` returns token ids,
and a tokenizer with a Qwen-style chat template. The class is found as hydra finds it (module
and attribute of the registry's ``_target_``).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import re
import sys
import types
from abc import ABC, abstractmethod
from typing import Any, Dict, List, Optional

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pydantic = pytest.importorskip("pydantic")
pytest.importorskip("llm_in_sandbox")

from llm_in_sandbox_client import Client, SandboxUnavailableError  # noqa: E402

PREFIX = "llm-in-sandbox-verl-"


# -- stand-ins for verl ---------------------------------------------------------------------------


class DictConfigWrap:
    """verl's wrapper that keeps hydra from resolving a config passed to the constructor."""

    def __init__(self, config: Any) -> None:
        self.config = config


class AgentLoopMetrics(pydantic.BaseModel):
    generate_sequences: float = 0.0
    tool_calls: float = 0.0
    compute_score: float = 0.0
    num_preempted: int = -1


class AgentLoopOutput(pydantic.BaseModel):
    """The fields of verl's AgentLoopOutput (0.9.1; 0.8 has the same but the last two)."""

    prompt_ids: List[int]
    response_ids: List[int]
    response_mask: List[int]
    response_logprobs: Optional[List[float]] = None
    routed_experts: Optional[Any] = None
    multi_modal_data: Optional[Dict[str, Any]] = None
    reward_score: Optional[float] = None
    num_turns: int = 0
    metrics: AgentLoopMetrics
    extra_fields: Dict[str, Any] = {}
    mm_processor_kwargs: Optional[Dict[str, Any]] = None
    mm_processor_output: Optional[List[Dict[str, Any]]] = None


class AgentLoopBase(ABC):
    """verl 0.9.1's constructor: what it stores and the arguments it takes."""

    def __init__(self, trainer_config, server_manager, tokenizer, processor, dataset_cls,
                 data_config, hf_model_type=None, **kwargs):
        self.config = trainer_config.config
        self.rollout_config = self.config.actor_rollout_ref.rollout
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.processor = processor
        self.dataset_cls = dataset_cls
        self.data_config = data_config.config
        self.apply_chat_template_kwargs = self.data_config.get("apply_chat_template_kwargs", {})

    @abstractmethod
    async def run(self, sampling_params: Dict[str, Any], **kwargs) -> AgentLoopOutput:
        raise NotImplementedError


def install_fake_verl(monkeypatch) -> types.ModuleType:
    registry: Dict[str, Dict[str, str]] = {}

    def register(agent_name):
        def decorator(subclass):
            registry[agent_name] = {"_target_": f"{subclass.__module__}.{subclass.__qualname__}"}
            return subclass
        return decorator

    module = types.ModuleType("verl.experimental.agent_loop.agent_loop")
    module.AgentLoopBase = AgentLoopBase
    module.AgentLoopOutput = AgentLoopOutput
    module.AgentLoopMetrics = AgentLoopMetrics
    module.DictConfigWrap = DictConfigWrap
    module.register = register
    module._agent_loop_registry = registry
    for name in ("verl", "verl.experimental", "verl.experimental.agent_loop"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return module


class QwenLikeTokenizer:
    """Qwen2.5's chat template (system, user, assistant, and tool turns as ``<tool_response>``
    inside a user turn) over a character-level vocabulary: the special tokens have ids 1-3,
    every other character ``1000 + ord(c)``."""

    SPECIAL = {"<|im_start|>": 1, "<|im_end|>": 2, "<|endoftext|>": 3}
    eos_token_id = 2
    pad_token_id = 3
    _split = re.compile("(" + "|".join(re.escape(s) for s in SPECIAL) + ")")

    def encode(self, text: str, add_special_tokens: bool = False) -> List[int]:
        ids: List[int] = []
        for piece in self._split.split(text):
            if piece in self.SPECIAL:
                ids.append(self.SPECIAL[piece])
            else:
                ids.extend(1000 + ord(c) for c in piece)
        return ids

    def decode(self, ids: List[int], skip_special_tokens: bool = False) -> str:
        names = {v: k for k, v in self.SPECIAL.items()}
        return "".join(
            ("" if skip_special_tokens else names[i]) if i in names else chr(i - 1000) for i in ids
        )

    def render(self, messages: List[Dict[str, Any]], add_generation_prompt: bool = False) -> str:
        text = ""
        if not messages or messages[0]["role"] != "system":
            text += "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        for i, m in enumerate(messages):
            if m["role"] == "tool":
                if i == 0 or messages[i - 1]["role"] != "tool":
                    text += "<|im_start|>user"
                text += "\n<tool_response>\n" + m["content"] + "\n</tool_response>"
                if i == len(messages) - 1 or messages[i + 1]["role"] != "tool":
                    text += "<|im_end|>\n"
            else:
                text += f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n"
        if add_generation_prompt:
            text += "<|im_start|>assistant\n"
        return text

    def apply_chat_template(self, messages, tools=None, add_generation_prompt=False, tokenize=True,
                            return_dict=False, **kwargs):
        assert tools is None, "the tools go in the system message"
        text = self.render(messages, add_generation_prompt)
        if not tokenize:
            return text
        ids = self.encode(text)
        return {"input_ids": ids} if return_dict else ids


class TokenOutput(pydantic.BaseModel):
    """verl's TokenOutput (verl/workers/rollout/replica.py)."""

    token_ids: List[int]
    log_probs: Optional[List[float]] = None
    routed_experts: Optional[Any] = None
    stop_reason: Optional[str] = None
    num_preempted: Optional[int] = None
    extra_fields: Dict[str, Any] = {}


class ScriptedServerManager:
    """verl's server manager with scripted replies: each ``generate`` answers the next text
    (ending with the end-of-turn token, as vLLM returns a finished turn), after running the
    hook for that turn if any."""

    def __init__(self, tokenizer: QwenLikeTokenizer, replies: List[str], hooks: Optional[Dict[int, Any]] = None):
        self.tokenizer = tokenizer
        self.replies = list(replies)
        self.hooks = hooks or {}
        self.calls: List[Dict[str, Any]] = []

    async def generate(self, request_id, *, prompt_ids, sampling_params, image_data=None, video_data=None, **kwargs):
        self.calls.append({"request_id": request_id, "prompt_ids": list(prompt_ids), "sampling_params": sampling_params})
        hook = self.hooks.get(len(self.calls))
        if hook is not None:
            hook()
        ids = self.tokenizer.encode(self.replies.pop(0)) + [self.tokenizer.eos_token_id]
        logprobs = [-0.5] * len(ids) if sampling_params.get("logprobs") else None
        return TokenOutput(token_ids=ids, log_probs=logprobs, stop_reason="completed")


def trainer_config(prompt_length: int = 16384, response_length: int = 65536) -> Any:
    rollout = types.SimpleNamespace(prompt_length=prompt_length, response_length=response_length)
    return types.SimpleNamespace(actor_rollout_ref=types.SimpleNamespace(rollout=rollout))


# -- fixtures and helpers ---------------------------------------------------------------------------


@pytest.fixture
def verl_module(monkeypatch):
    """``llm_in_sandbox_client.verl`` with the stand-in verl installed and no class made yet."""
    fake = install_fake_verl(monkeypatch)
    module = importlib.import_module("llm_in_sandbox_client.verl")
    monkeypatch.setattr(module, "_agent_loop_class", None)
    monkeypatch.delitem(vars(module), "LLMInSandboxAgentLoop", raising=False)
    module.fake = fake
    return module


def ours(client: Client) -> Dict[str, str]:
    return {s.id: s.key for s in client.list() if (s.key or "").startswith(PREFIX)}


@pytest.fixture(autouse=True)
def no_session_left(request):
    if "server" not in request.fixturenames:
        yield
        return
    c = request.getfixturevalue("server").client()
    before = set(ours(c))
    yield
    assert set(ours(c)) - before == set()


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


MATH_ROW = {
    # verl's row for llm-in-sandbox-rl's data: the task in extra_info, the answer in reward_model.
    "agent_name": "llm_in_sandbox",
    "data_source": "math",
    "raw_prompt": [{"role": "user", "content": "placeholder"}],
    "reward_model": {"ground_truth": "42", "style": "llm_in_sandbox"},
    "extra_info": {
        "id": "math-1",
        "domain": "math",
        "problem_statement": "Multiply the two numbers in numbers.txt.",
        "input_files": {"numbers.txt": "6 7\n"},
    },
    "index": 0,
    "tools_kwargs": {},
}
COMPUTE = (
    "python3 -c \"a, b = map(int, open('/testbed/documents/numbers.txt').read().split()); "
    "open('/testbed/answer.txt', 'w').write(str(a * b + {delta}))\""
)


def make_loop(module, server, manager, tokenizer, config=None, **options):
    """Instantiate the loop as verl's worker does: hydra locates the registry's ``_target_`` and
    calls it with the worker's arguments plus the config entry's keys."""
    module.agent_loop_class()
    target = module.fake._agent_loop_registry["llm_in_sandbox"]["_target_"]
    module_name, _, attribute = target.rpartition(".")
    cls = getattr(importlib.import_module(module_name), attribute)
    return cls(
        trainer_config=DictConfigWrap(config or trainer_config()),
        server_manager=manager,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=None,
        data_config=DictConfigWrap({}),
        hf_model_type=None,
        tools=None,
        name="llm_in_sandbox",
        base_url=server.url,
        **options,
    )


def run(loop, row=MATH_ROW, sampling_params=None):
    return asyncio.run(loop.run(dict(sampling_params or {"temperature": 1.0}), **row))


# -- tests -------------------------------------------------------------------------------------------


def test_the_module_imports_without_verl(monkeypatch):
    monkeypatch.setitem(sys.modules, "verl", None)  # `import verl` now fails
    module = importlib.import_module("llm_in_sandbox_client.verl")
    monkeypatch.setattr(module, "_agent_loop_class", None)
    monkeypatch.delitem(vars(module), "LLMInSandboxAgentLoop", raising=False)
    with pytest.raises(ImportError, match="needs verl"):
        module.LLMInSandboxAgentLoop


def test_registered_and_found_as_hydra_finds_it(verl_module):
    cls = verl_module.LLMInSandboxAgentLoop
    assert verl_module.fake._agent_loop_registry == {
        "llm_in_sandbox": {"_target_": "llm_in_sandbox_client.verl.LLMInSandboxAgentLoop"}
    }
    assert issubclass(cls, AgentLoopBase) and verl_module.LLMInSandboxAgentLoop is cls


def test_correct_answer_reward_and_tokens(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    replies = [
        "Let me look.\n" + call("execute_bash", command="cat /testbed/documents/numbers.txt"),
        call("execute_bash", command=COMPUTE.format(delta=0)),
        call("submit"),
    ]
    manager = ScriptedServerManager(tokenizer, replies)
    loop = make_loop(verl_module, server, manager, tokenizer, max_steps=5)
    out = run(loop)

    assert isinstance(out, AgentLoopOutput)
    assert out.reward_score == 1.0
    assert out.extra_fields["llm_in_sandbox"] == {"stop_reason": "submitted", "answer": "42", "score": 1.0, "steps": 3}
    assert out.num_turns == 6  # 3 model turns, 2 observations, and the prompt
    # One trajectory, one sticky request id; every turn's prompt is the previous tokens.
    assert len({c["request_id"] for c in manager.calls}) == 1
    for c in manager.calls:
        assert c["prompt_ids"] == out.prompt_ids + out.response_ids[: len(c["prompt_ids"]) - len(out.prompt_ids)]
    # Token in, token out: the ids are the conversation as the chat template renders it.
    text = tokenizer.decode(out.prompt_ids + out.response_ids)
    system = tokenizer.decode(out.prompt_ids).split("<|im_start|>user\n")[0]
    assert system.startswith("<|im_start|>system\n") and system.endswith("</tool_call><|im_end|>\n")
    observations = re.findall(r"<tool_response>\n(.*?)\n</tool_response>", text, re.DOTALL)
    assert observations[0] == "Exit code: 0\nExecution output of \\[execute_bash]:\n\\[STDOUT]\n6 7\n\nSteps Remaining: 4"
    assert observations[1].endswith("\nSteps Remaining: 3") and len(observations) == 2
    prompt = re.fullmatch(
        r"<\|im_start\|>system\n(.*)<\|im_end\|>\n<\|im_start\|>user\n(.*)<\|im_end\|>\n<\|im_start\|>assistant\n",
        tokenizer.decode(out.prompt_ids), re.DOTALL,
    )
    assert prompt.group(2).endswith("\nSteps Remaining: 5")
    messages = [
        {"role": "system", "content": prompt.group(1)},
        {"role": "user", "content": prompt.group(2)},
        {"role": "assistant", "content": replies[0]}, {"role": "tool", "content": observations[0]},
        {"role": "assistant", "content": replies[1]}, {"role": "tool", "content": observations[1]},
        {"role": "assistant", "content": replies[2]},
    ]
    assert text + "\n" == tokenizer.render(messages)
    # The mask is 1 exactly on the model's tokens.
    model_tokens = [t for t, m in zip(out.response_ids, out.response_mask) if m == 1]
    assert tokenizer.decode(model_tokens) == "".join(r + "<|im_end|>" for r in replies)
    assert out.response_logprobs is None


def test_wrong_answer_scores_zero_and_logprobs_line_up(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    manager = ScriptedServerManager(tokenizer, [call("execute_bash", command=COMPUTE.format(delta=-1)), call("submit")])
    out = run(make_loop(verl_module, server, manager, tokenizer), sampling_params={"logprobs": True})
    assert out.reward_score == 0.0 and out.extra_fields["llm_in_sandbox"]["answer"] == "41"
    assert len(out.response_logprobs) == len(out.response_ids) == len(out.response_mask)
    assert all((lp == -0.5) == (m == 1) for lp, m in zip(out.response_logprobs, out.response_mask))


def test_multiple_choice_row(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    row = {**MATH_ROW, "reward_model": {"ground_truth": "C"}, "extra_info": {
        "domain": "instruct_pretrain", "qa_type": "Multiple Choice",
        "problem_statement": "Which option?", "input_files": {"doc.txt": "A B C D"},
    }}
    manager = ScriptedServerManager(tokenizer, [
        call("str_replace_editor", command="create", path="/testbed/answer.txt", file_text="C"), call("submit"),
    ])
    assert run(make_loop(verl_module, server, manager, tokenizer), row=row).reward_score == 1.0


def test_steps_run_out_without_submit(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    manager = ScriptedServerManager(tokenizer, [call("execute_bash", command=COMPUTE.format(delta=0)), "thinking"])
    out = run(make_loop(verl_module, server, manager, tokenizer, max_steps=2))
    assert out.reward_score == 0.0
    assert out.extra_fields["llm_in_sandbox"]["stop_reason"] == "max_steps"
    # Scored anyway without the overlong penalty.
    manager = ScriptedServerManager(tokenizer, [call("execute_bash", command=COMPUTE.format(delta=0)), "thinking"])
    out = run(make_loop(verl_module, server, manager, tokenizer, max_steps=2, overlong_penalty=False))
    assert out.reward_score == 1.0


def test_a_rows_own_options_win(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    manager = ScriptedServerManager(tokenizer, ["thinking"])
    row = {**MATH_ROW, "llm_in_sandbox": {"max_steps": 1}}
    out = run(make_loop(verl_module, server, manager, tokenizer, max_steps=50), row=row)
    assert out.extra_fields["llm_in_sandbox"]["stop_reason"] == "max_steps"
    assert out.extra_fields["llm_in_sandbox"]["steps"] == 1


def test_the_token_budget_ends_the_trajectory(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    manager = ScriptedServerManager(tokenizer, [call("execute_bash", command="seq 1 300"), call("submit")])
    budget = 400
    out = run(make_loop(verl_module, server, manager, tokenizer, config=trainer_config(response_length=budget)))
    assert out.extra_fields["llm_in_sandbox"]["stop_reason"] == "length"
    assert out.reward_score == 0.0
    assert len(out.response_ids) == len(out.response_mask) <= budget
    assert len(manager.calls) == 1


def test_a_prompt_longer_than_the_budget_is_refused(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    manager = ScriptedServerManager(tokenizer, [call("submit")])
    with pytest.raises(ValueError, match="prompt_length"):
        run(make_loop(verl_module, server, manager, tokenizer, config=trainer_config(prompt_length=100)))


def test_a_failing_generation_still_deletes_the_session(verl_module, server):
    tokenizer = QwenLikeTokenizer()

    def fail():
        raise RuntimeError("the inference server went away")

    manager = ScriptedServerManager(tokenizer, [call("execute_bash", command="ls"), "never"], hooks={2: fail})
    with pytest.raises(RuntimeError, match="went away"):
        run(make_loop(verl_module, server, manager, tokenizer))


def test_a_deleted_session_raises_instead_of_a_reward(verl_module, server):
    tokenizer = QwenLikeTokenizer()
    client = server.client()
    manager = ScriptedServerManager(
        tokenizer,
        [call("execute_bash", command=COMPUTE.format(delta=0)), call("execute_bash", command="cat /testbed/answer.txt")],
        hooks={2: lambda: [client.delete(sid) for sid in ours(client)]},
    )
    with pytest.raises(SandboxUnavailableError):
        run(make_loop(verl_module, server, manager, tokenizer))


def test_a_cancelled_trajectory_deletes_its_session(verl_module, server):
    tokenizer = QwenLikeTokenizer()

    class Hanging(ScriptedServerManager):
        async def generate(self, request_id, **kwargs):
            await asyncio.sleep(3600)

    async def main():
        loop = make_loop(verl_module, server, Hanging(tokenizer, []), tokenizer)
        task = asyncio.ensure_future(loop.run({}, **MATH_ROW))
        while not ours(server.client()) and not task.done():
            await asyncio.sleep(0.05)
        assert not task.done(), task.exception()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
