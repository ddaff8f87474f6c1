"""A verl agent loop for LLM-in-Sandbox training over ``llm-in-sandbox serve``: one sandbox
session per trajectory, made at its start and deleted in a ``finally``; the reward is set by the
loop itself (``AgentLoopOutput.reward_score``), so verl's reward manager is skipped for it.

verl is imported only when the class is first asked for (``LLMInSandboxAgentLoop``), so this
module imports without verl. Select it with an agent-loop config file
(``actor_rollout_ref.rollout.agent.agent_loop_config_path``)::

    - name: llm_in_sandbox
      _target_: llm_in_sandbox_client.verl.LLMInSandboxAgentLoop
      max_steps: 100                      # optional; options of EpisodeConfig
      base_url: http://sandbox:8080       # optional; default $LLM_IN_SANDBOX_URL

and ``agent_name: llm_in_sandbox`` in the rows (or ``actor_rollout_ref.rollout.agent.
default_agent_loop=llm_in_sandbox``). The token is best left to ``LLM_IN_SANDBOX_TOKEN``. A row's
own ``llm_in_sandbox`` mapping overrides these options for its trajectory.

Written against verl's ``verl/experimental/agent_loop/agent_loop.py`` (0.8 and 0.9.1): it uses
``AgentLoopBase.__init__``, ``self.server_manager.generate(request_id, *, prompt_ids,
sampling_params)`` returning ``token_ids`` (and ``log_probs``), ``self.tokenizer``,
``self.config.actor_rollout_ref.rollout.{prompt_length,response_length}`` and
``AgentLoopOutput``; tokens are built here (see :class:`_TokenBuilder`) rather than with
verl's helpers, which changed between those versions.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any, Dict, List, Mapping, Optional

from ._episode import Episode, EpisodeConfig, Outcome, Task

__all__ = ["AGENT_NAME", "LLMInSandboxAgentLoop", "agent_loop_class"]

#: The name the class registers itself under in verl's agent-loop registry.
AGENT_NAME = "llm_in_sandbox"

_CLASS_NAME = "LLMInSandboxAgentLoop"

# A fixed conversation whose rendering is cut off to find the tokens a new message adds (SkyRL's
# "fixed base" tokenization): the chat template is applied to the base plus the new messages and
# the base's tokens, up to its last end-of-turn token, are dropped.
_BASE_CONVERSATION = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "I am a user."},
]


def _ids(result: Any) -> List[int]:
    """``apply_chat_template``'s token ids, whether it returned a list or a mapping."""
    if isinstance(result, Mapping):
        result = result["input_ids"]
    ids = list(result)
    if ids and isinstance(ids[0], (list, tuple)):
        ids = list(ids[0])
    return [int(i) for i in ids]


class _TokenBuilder:
    """Token ids of a conversation that grows turn by turn, with the chat template of
    ``tokenizer``: the model's tokens are kept as generated (token in, token out) and only the
    observations are rendered."""

    def __init__(self, tokenizer: Any, template_kwargs: Optional[Mapping[str, Any]] = None) -> None:
        self.tokenizer = tokenizer
        self.kwargs = dict(template_kwargs or {})
        base = self._render(_BASE_CONVERSATION, add_generation_prompt=False)
        eos = getattr(tokenizer, "eos_token_id", None)
        if eos is not None and eos in base:
            # Keep up to the last end-of-turn token: the model's own turn ends there too, and
            # what the template puts after it belongs to the next message.
            base = base[: len(base) - base[::-1].index(eos)]
        self._base = base

    def _render(self, messages: List[Dict[str, Any]], *, add_generation_prompt: bool) -> List[int]:
        return _ids(self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=add_generation_prompt, tokenize=True,
            return_dict=False, **self.kwargs,
        ))

    def prompt(self, messages: List[Dict[str, Any]]) -> List[int]:
        """The first messages, ready for the model's turn."""
        return self._render(messages, add_generation_prompt=True)

    def observation(self, message: Dict[str, Any]) -> List[int]:
        """The tokens that follow the model's turn: ``message`` and the next turn's header."""
        full = self._render([*_BASE_CONVERSATION, message], add_generation_prompt=True)
        if full[: len(self._base)] != self._base:
            raise ValueError("the chat template renders a conversation's start differently "
                             "when messages are added; its observations cannot be tokenized apart")
        return full[len(self._base):]

    def text(self, token_ids: List[int]) -> str:
        """The model's text, as vLLM gives it to a tool parser (special tokens dropped)."""
        return self.tokenizer.decode(token_ids, skip_special_tokens=True)


class _EpisodeLoop:
    """The agent loop's body; combined with verl's ``AgentLoopBase`` by
    :func:`agent_loop_class`. Options (hydra passes the config file's keys): those of
    :class:`~llm_in_sandbox_client._episode.EpisodeConfig` (``base_url``, ``token``,
    ``max_steps``, ``prompt_task``, ``overlong_penalty``, ``limits``, ...)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        known = set(EpisodeConfig.__dataclass_fields__)
        options = {k: kwargs.pop(k) for k in list(kwargs) if k in known}
        kwargs.pop("name", None)  # verl 0.8 passes the config entry's own name
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self.episode_config = EpisodeConfig.from_options(options)

    def _rollout_config(self) -> Any:
        return self.config.actor_rollout_ref.rollout  # type: ignore[attr-defined]

    async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> Any:
        """One trajectory for the row in ``kwargs`` (verl's dataset fields: ``extra_info``,
        ``reward_model``, ``raw_prompt``, ...).

        Raises:
            SandboxUnavailableError: the session cannot run commands (never a reward).
            RewardError: the scorer failed.
            ValueError: the row lacks a field, or the prompt is longer than
                ``rollout.prompt_length``.
        """
        rollout = self._rollout_config()
        response_length = int(rollout.response_length)
        prompt_length = int(rollout.prompt_length)
        loop = asyncio.get_running_loop()
        config = self.episode_config.for_row(kwargs)
        task = Task.from_row(kwargs)
        # Off the event loop: the first episode of a process imports the reference package.
        episode = await loop.run_in_executor(
            None, lambda: Episode(task, config, name="llm-in-sandbox-verl")
        )
        tokens = _TokenBuilder(self.tokenizer, getattr(self, "apply_chat_template_kwargs", None))  # type: ignore[attr-defined]
        request_id = uuid.uuid4().hex
        metrics = {"generate_sequences": 0.0, "tool_calls": 0.0}
        response_ids: List[int] = []
        response_mask: List[int] = []
        logprobs: List[float] = []
        turns = 0
        try:
            messages = await loop.run_in_executor(None, episode.start)
            prompt_ids = await loop.run_in_executor(None, tokens.prompt, messages)
            if len(prompt_ids) > prompt_length:
                raise ValueError(
                    f"the first prompt has {len(prompt_ids)} tokens, more than "
                    f"rollout.prompt_length={prompt_length}"
                )
            stop_reason: Optional[str] = None
            while stop_reason is None:
                started = time.monotonic()
                output = await self.server_manager.generate(  # type: ignore[attr-defined]
                    request_id=request_id,
                    prompt_ids=prompt_ids + response_ids,
                    sampling_params=sampling_params,
                )
                metrics["generate_sequences"] += time.monotonic() - started
                generated = list(output.token_ids)
                turns += 1
                response_ids += generated
                response_mask += [1] * len(generated)
                if getattr(output, "log_probs", None):
                    logprobs += [0.0] * (len(response_mask) - len(generated) - len(logprobs))
                    logprobs += list(output.log_probs)
                if len(response_mask) >= response_length:
                    stop_reason = "length"
                    break
                started = time.monotonic()
                turn = await loop.run_in_executor(None, episode.step, tokens.text(generated))
                metrics["tool_calls"] += time.monotonic() - started
                if turn.done:
                    stop_reason = turn.stop_reason
                    break
                observation = await loop.run_in_executor(
                    None, tokens.observation, {"role": turn.role, "content": turn.observation}
                )
                if len(response_mask) + len(observation) >= response_length:
                    stop_reason = "length"
                    break
                turns += 1
                response_ids += observation
                response_mask += [0] * len(observation)
            outcome: Outcome = await loop.run_in_executor(None, episode.finish, stop_reason)
        finally:
            # On a thread and shielded: a trajectory cancelled here still deletes its session.
            await asyncio.shield(loop.run_in_executor(None, episode.close))
        if logprobs:
            logprobs += [0.0] * (len(response_mask) - len(logprobs))
        return self._output_class(
            prompt_ids=prompt_ids,
            response_ids=response_ids[:response_length],
            response_mask=response_mask[:response_length],
            response_logprobs=logprobs[:response_length] if logprobs else None,
            reward_score=float(outcome.reward),
            num_turns=turns + 1,
            metrics=metrics,
            extra_fields={
                # As verl's own loops give them (its batches keep these keys for every loop).
                "turn_scores": [],
                "tool_rewards": [],
                "llm_in_sandbox": {
                    "stop_reason": outcome.stop_reason,
                    "answer": outcome.answer,
                    "score": outcome.score,
                    "steps": outcome.steps,
                },
            },
        )


_agent_loop_class: Optional[type] = None


def agent_loop_class() -> type:
    """The agent loop class (``AgentLoopBase`` with this module's loop), made on first use and
    registered in verl's agent-loop registry as ``llm_in_sandbox``.

    Raises:
        ImportError: verl is not installed.
    """
    global _agent_loop_class
    if _agent_loop_class is None:
        try:
            from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register
        except ImportError as e:
            raise ImportError(
                f"llm_in_sandbox_client.verl.{_CLASS_NAME} needs verl's agent loops "
                f"(verl.experimental.agent_loop): {e}"
            ) from e
        cls = type(_CLASS_NAME, (_EpisodeLoop, AgentLoopBase), {
            "__module__": __name__,
            "__qualname__": _CLASS_NAME,
            "__doc__": "LLM-in-Sandbox episodes as a verl agent loop; see the module's text.",
            "_output_class": AgentLoopOutput,
        })
        # verl's registry and hydra both name it by module and qualified name, which resolve
        # back to this module's attribute.
        _agent_loop_class = register(AGENT_NAME)(cls)
        globals()[_CLASS_NAME] = _agent_loop_class
    return _agent_loop_class


def __getattr__(name: str) -> Any:
    if name == _CLASS_NAME:
        return agent_loop_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
