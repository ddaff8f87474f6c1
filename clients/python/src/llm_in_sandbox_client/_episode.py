"""The LLM-in-Sandbox episode shared by the SkyRL environment (``skyrl.py``) and the verl agent
loop (``verl.py``): one dataset row, one sandbox session, the model's text in, the observation
out, and the reward at the end.

It does what llm-in-sandbox-rl (the paper's RL code, an rLLM fork) does for a trajectory, with
our :class:`~llm_in_sandbox_client.WasmRuntime` in place of the reference's ``DockerRuntime``:

- prompts: the reference benchmark config of the row's ``domain`` (``math_mini`` -> ``math``),
  else ``instruct_pretrain``'s, placeholders filled as its agent fills them
  (``rllm/agents/llm_in_sandbox_agent.py``), ``Steps Remaining: N`` after every user turn;
- tool calls: the model's text is parsed as vLLM's ``hermes`` parser parses it (what the run's
  ``+rllm.tool_parser_type=hermes`` selects): ``<tool_call>{"name": ..., "arguments": ...}
  </tool_call>``; the first call is run; text without a valid call gets the reference's
  "You forgot to use a function call" message;
- a step runs the call with the reference package's own ``Agent._execute_action`` (so the
  observations and the editor's rules are the reference's);
- the reward: ``answer.txt`` in the output folder scored by the reference's
  ``instruct_pretrain`` reward (routed by ``domain`` and ``qa_type``) in a child process
  (``_reward.py``); an episode that ends without ``submit`` (steps or tokens exhausted) gets 0,
  as the run's ``overlong_step_penalty=true`` gives.

Infrastructure failures are exceptions, never rewards: a session that is gone or a server that
cannot be reached raises :class:`~llm_in_sandbox_client.SandboxUnavailableError`; a scorer that
fails raises :class:`RewardError`. Any exception out of the episode deletes its session first.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import threading
import uuid
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Mapping, Optional

from ._reward import INSTALL_HINT, TRAINING_TASK, RewardError, require_reference, score_in_child
from .client import TRAINER_RETRIES, Client
from ._tar import input_archive
from .runtime import WasmRuntime

__all__ = [
    "DEFAULT_MAX_STEPS",
    "ROW_OPTIONS_KEY",
    "Episode",
    "EpisodeConfig",
    "Outcome",
    "RewardError",
    "Task",
    "ToolCall",
    "Turn",
    "hermes_tools_block",
    "parse_tool_call",
    "parse_tool_calls",
]

#: The paper's run: ``rllm.agent.max_steps=100`` (examples/llm_in_sandbox/train_llm_in_sandbox.sh).
DEFAULT_MAX_STEPS = 100

# Asked of the server for each session (it clamps both to its own limits). While the episode is
# open its runtime keeps the session alive, so the idle TTL only bounds how long a session
# outlives a trainer that died without closing it. The same values as rllm.py's.
DEFAULT_SESSION_IDLE_TTL_S = 600.0
DEFAULT_SESSION_LIFETIME_S = 7200.0

#: A row's (or a trajectory's) own options: a mapping of :class:`EpisodeConfig` fields under
#: this key override the trainer-wide ones (e.g. a SkyRL generator's ``_setup_env_extras`` hook
#: spreading trajectories over several servers).
ROW_OPTIONS_KEY = "llm_in_sandbox"

# Row columns that belong to the trainer, not to the task (SkyRL, verl and rLLM datasets).
_FRAMEWORK_KEYS = frozenset({
    "prompt", "raw_prompt", "env_class", "agent_name", "reward_spec", "reward_model",
    "extra_info", "tools_kwargs", "interaction_kwargs", "index", "max_turns", "data_source",
    "uid", "dummy_tensor", "multi_modal_data", ROW_OPTIONS_KEY,
})

logger = logging.getLogger(__name__)


# -- the row -------------------------------------------------------------------------------------


def _mapping(value: Any, what: str) -> Dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} must be a mapping, not {type(value).__name__}")
    return dict(value)


def _last_user_text(messages: Any) -> Optional[str]:
    try:
        for message in reversed(list(messages)):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                return message["content"]
    except (TypeError, AttributeError):
        return None
    return None


@dataclass(frozen=True)
class Task:
    """One dataset row of llm-in-sandbox-rl's data (``daixuancheng/llm-in-sandbox-rl``).

    Attributes:
        problem_statement: the question.
        ground_truth: the expected answer.
        domain: routes the reward (and picks the prompts): ``math``, ``chem``, ``biomed``,
            ``physics``, ``instruct_follow``, ``instruct_pretrain``, ``long_context``, with or
            without ``_mini``.
        input_files: relative path -> text, copied into the input folder.
        fields: every task field but ``ground_truth`` and ``input_files`` (``domain``,
            ``qa_type``, ``id``, ...): the reward function's keyword arguments.
    """

    problem_statement: str
    ground_truth: str
    domain: str
    input_files: Dict[str, Any] = field(default_factory=dict)
    fields: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "Task":
        """Read a row in any of the layouts the trainers use: the task's fields at the top
        (SkyRL's ``env_extras``), or under ``extra_info`` (llm-in-sandbox-rl's converted data,
        verl's rows); the ground truth may also come from ``reward_spec`` (SkyRL) or
        ``reward_model`` (verl). Without ``problem_statement`` the last user message of
        ``prompt`` / ``raw_prompt`` is the question.

        Raises:
            ValueError: no question, no ground truth or no domain.
            TypeError: ``extra_info`` or ``input_files`` is not a mapping (or its JSON text).
        """
        top = {k: v for k, v in row.items() if k not in _FRAMEWORK_KEYS}
        merged = {**top, **_mapping(row.get("extra_info"), "extra_info")}
        ground_truth = merged.get("ground_truth")
        for key in ("reward_spec", "reward_model"):
            if ground_truth is None:
                ground_truth = _mapping(row.get(key), key).get("ground_truth")
        problem = merged.get("problem_statement")
        if problem is None:
            problem = _last_user_text(row.get("raw_prompt")) or _last_user_text(row.get("prompt"))
        domain = merged.get("domain") or row.get("data_source")
        missing = [name for name, value in (("problem_statement", problem),
                                            ("ground_truth", ground_truth),
                                            ("domain", domain)) if value is None]
        if missing:
            raise ValueError(f"the row has no {', '.join(missing)}: {sorted(row)}")
        merged["domain"] = str(domain)
        input_files = _mapping(merged.pop("input_files", None), "input_files")
        merged.pop("ground_truth", None)
        return cls(str(problem), str(ground_truth), str(domain), input_files, merged)


# -- tool calls ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A tool call parsed from the model's text: ``arguments`` is whatever JSON the model wrote
    (for arguments that are not an object the reference's agent runs nothing and shows the
    tool's empty output)."""

    name: str
    arguments: Any


# vLLM's Hermes2ProToolParser (vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py): a
# call runs to its closing tag or, for the last one, to the end of the text.
_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>|<tool_call>(.*)", re.DOTALL)


def parse_tool_calls(text: str) -> List[ToolCall]:
    """The tool calls in ``text`` as vLLM's ``hermes`` parser finds them (llm-in-sandbox-rl
    parses the rollout's text with it): each ``<tool_call>`` holds a JSON object with ``name``
    (text) and ``arguments``. As there, one malformed call means no calls at all."""
    if "<tool_call>" not in text:
        return []
    calls = []
    try:
        for closed, unclosed in _TOOL_CALL.findall(text):
            call = json.loads(closed if closed else unclosed)
            name, arguments = call["name"], call["arguments"]
            if not isinstance(name, str):
                return []
            calls.append(ToolCall(name, arguments))
    except (ValueError, TypeError, KeyError, IndexError):
        return []
    return calls


def parse_tool_call(text: str) -> Optional[ToolCall]:
    """The call a step runs: the first one (llm-in-sandbox-rl's agent takes ``tool_calls[0]``),
    or None."""
    calls = parse_tool_calls(text)
    return calls[0] if calls else None


def hermes_tools_block(tools: List[Mapping[str, Any]]) -> str:
    """The text Qwen's chat templates (and verl's Qwen tool template) append to the system
    message when given ``tools``: the schemas one per line (``tojson``, which is ``json.dumps``
    with ``ensure_ascii=False``) and the ``<tool_call>`` format. A system message that ends
    with it renders to the same tokens as the template given ``tools=``; with any other
    template it still tells the model the format this module parses."""
    schemas = "".join("\n" + json.dumps(tool, ensure_ascii=False) for tool in tools)
    return (
        "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
        + schemas
        + "\n</tools>\n\nFor each function call, return a json object with function name and "
        "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


# -- the reference package -----------------------------------------------------------------------


_REFERENCE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=None)
def _reference() -> Dict[str, Any]:
    """The reference package's pieces, imported once. Importing its agent module removes the
    root logger's handlers (its ``get_logger`` does); they are put back."""
    with _REFERENCE_LOCK:  # environments start on many threads at once
        return _import_reference()


def _import_reference() -> Dict[str, Any]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        pieces = require_reference()
        from llm_in_sandbox.benchmark.runner import load_task_config
        from llm_in_sandbox.tools import execute_bash_tool, str_replace_editor_tool, submit_tool
    except ImportError as e:
        raise ImportError(
            "the LLM-in-Sandbox episode runs the reference package's tools, prompts and reward; "
            f"install them with `{INSTALL_HINT}` ({e})"
        ) from e
    finally:
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)
    agent_class = pieces["Agent"]
    return {
        "Action": pieces["Action"],
        # The reference agent, for its _execute_action only (llm-in-sandbox-rl does the same).
        "agent": agent_class.__new__(agent_class),
        "load_task_config": load_task_config,
        # The order the reference's agent and llm-in-sandbox-rl's agent give them to the model.
        "tools": [str_replace_editor_tool, execute_bash_tool, submit_tool],
    }


def tool_schemas() -> List[Dict[str, Any]]:
    """The reference's tools (``str_replace_editor``, ``execute_bash``, ``submit``), in the
    order its agent sends them."""
    return [dict(tool) for tool in _reference()["tools"]]


@dataclass(frozen=True)
class Prompt:
    """The first two messages and the folders the prompts name."""

    system: str
    user: str
    working_dir: str
    input_dir: str
    output_dir: str


@functools.lru_cache(maxsize=None)
def _task_config(name: str) -> Optional[Dict[str, Any]]:
    try:
        return dict(_reference()["load_task_config"](name))
    except FileNotFoundError:
        return None


def task_prompt(task: Task, prompt_task: Optional[str] = None) -> Prompt:
    """The prompts of ``prompt_task`` (default: the row's domain without ``_mini``, as
    llm-in-sandbox-rl's agent picks them, falling back to ``instruct_pretrain`` for a domain
    the reference has no config for), filled as that agent fills them."""
    name = prompt_task or task.domain.replace("_mini", "")
    config = _task_config(name) if name else None
    if config is None:
        if prompt_task:
            raise ValueError(f"the reference package has no benchmark config {prompt_task!r}")
        config = _task_config(TRAINING_TASK)
        if config is None:
            raise RuntimeError(f"the reference package has no {TRAINING_TASK!r} config")
    working_dir = config.get("working_dir", "/testbed")
    input_dir = config.get("input_dir", "/testbed/documents")
    output_dir = config.get("output_dir", "/testbed")
    system = (
        config["system_prompt"].replace("{working_dir}", working_dir)
        .replace("{input_dir}", input_dir).replace("{output_dir}", output_dir)
    )
    user = (
        config["instance_prompt"].replace("{input_dir}", input_dir)
        .replace("{output_dir}", output_dir)
        .replace("{problem_statement}", task.problem_statement)
        .replace("{working_dir}", working_dir)
    )
    return Prompt(system, user, working_dir, input_dir, output_dir)


def steps_remaining(remaining: int) -> str:
    """What llm-in-sandbox-rl's agent appends to every user turn."""
    if remaining > 0:
        return f"\nSteps Remaining: {remaining}"
    return "\nYou have reached the maximum number of steps. Please submit your answer NOW."


# -- configuration ---------------------------------------------------------------------------------


@dataclass
class EpisodeConfig:
    """How episodes reach the server and end.

    Attributes:
        base_url: the server; default ``$LLM_IN_SANDBOX_URL``, else ``http://127.0.0.1:8080``.
        token: its token; default ``$LLM_IN_SANDBOX_TOKEN``.
        max_steps: model turns before the episode ends without ``submit``.
        prompt_task: the reference benchmark config whose prompts to use; default by domain.
        overlong_penalty: an episode that ends without ``submit`` gets 0 (the paper's run);
            False scores its ``answer.txt`` anyway.
        idle_ttl_s, max_lifetime_s, limits: asked of the server for each session (limits:
            ``timeout_s``, ``memory_mb``, ``disk_mb``, ...; they only tighten the server's).
        http_timeout: seconds to wait for the server besides a command's own time.
        reward_timeout: seconds the scorer may take.
    """

    base_url: Optional[str] = None
    token: Optional[str] = None
    max_steps: int = DEFAULT_MAX_STEPS
    prompt_task: Optional[str] = None
    overlong_penalty: bool = True
    idle_ttl_s: Optional[float] = DEFAULT_SESSION_IDLE_TTL_S
    max_lifetime_s: Optional[float] = DEFAULT_SESSION_LIFETIME_S
    limits: Optional[Dict[str, Any]] = None
    http_timeout: float = 300.0
    reward_timeout: float = 60.0

    @classmethod
    def from_options(cls, *sources: Any) -> "EpisodeConfig":
        """Merge option mappings (later ones win; ``None`` values are skipped). A source may be
        a mapping (dict, OmegaConf's DictConfig), a dataclass or None.

        Raises:
            TypeError: an option this config does not have (a typo would otherwise be lost).
        """
        known = {f.name for f in fields(cls)}
        values: Dict[str, Any] = {}
        for source in sources:
            if source is None:
                continue
            if not isinstance(source, Mapping) and hasattr(source, "__dataclass_fields__"):
                source = {name: getattr(source, name) for name in source.__dataclass_fields__}
            unknown = sorted(str(k) for k in source if k not in known)
            if unknown:
                raise TypeError(
                    f"unknown LLM-in-Sandbox option(s) {unknown}; known: {sorted(known)}"
                )
            values.update({k: v for k, v in source.items() if v is not None})
        if "limits" in values:
            values["limits"] = dict(values["limits"])
        return cls(**values)

    def for_row(self, row: Mapping[str, Any]) -> "EpisodeConfig":
        """This config with the row's own options (under :data:`ROW_OPTIONS_KEY`) applied.

        Raises:
            TypeError: an unknown option, or options that are not a mapping.
        """
        options = row.get(ROW_OPTIONS_KEY)
        if not options:
            return self
        return EpisodeConfig.from_options(
            {f.name: getattr(self, f.name) for f in fields(self)}, _mapping(options, ROW_OPTIONS_KEY)
        )

    def client(self) -> Client:
        """A client for the server (keyword or environment)."""
        return Client(
            self.base_url or os.environ.get("LLM_IN_SANDBOX_URL") or "http://127.0.0.1:8080",
            token=self.token or os.environ.get("LLM_IN_SANDBOX_TOKEN") or None,
            timeout=self.http_timeout,
            retries=TRAINER_RETRIES,
        )


# -- the episode -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """What one model turn gave.

    Attributes:
        observation: the reply for the model (with ``Steps Remaining: N``); None once done.
        role: ``"tool"`` when the text held a tool call, else ``"user"`` (llm-in-sandbox-rl's
            agent sends the "use a function call" message as a user turn).
        done: the episode is over.
        stop_reason: ``"submitted"`` or ``"max_steps"`` once done, else None.
        tool: the tool called, or None.
    """

    observation: Optional[str]
    role: str
    done: bool
    stop_reason: Optional[str]
    tool: Optional[str]


@dataclass(frozen=True)
class Outcome:
    """How an episode ended and its reward.

    Attributes:
        reward: the trajectory's reward.
        stop_reason: ``"submitted"``, ``"max_steps"`` or ``"length"`` (the trainer's token
            budget ran out).
        answer: what ``answer.txt`` held (None when it was not read: no submit, and the
            overlong penalty applies).
        score: the reference reward of the answer (None when not scored).
        steps: model turns taken.
    """

    reward: float
    stop_reason: str
    answer: Optional[str]
    score: Optional[float]
    steps: int


class Episode:
    """One trajectory: its session, made by :meth:`start` and deleted by :meth:`close` (or by
    any exception out of :meth:`start`, :meth:`step` or :meth:`finish`).

    Args:
        task: the row.
        config: server and episode options.
        max_steps: overrides ``config.max_steps`` (SkyRL passes its ``max_turns``).
        name: the session names' prefix (say which trainer made them).
    """

    def __init__(
        self,
        task: Task,
        config: Optional[EpisodeConfig] = None,
        *,
        max_steps: Optional[int] = None,
        name: str = "llm-in-sandbox-episode",
    ) -> None:
        self.task = task
        self.config = config or EpisodeConfig()
        self.max_steps = int(max_steps if max_steps is not None else self.config.max_steps)
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {self.max_steps}")
        self.name = name
        self.prompt = task_prompt(task, self.config.prompt_task)
        self.steps = 0
        self.stop_reason: Optional[str] = None
        self.runtime: Optional[WasmRuntime] = None
        self._client: Optional[Client] = None
        self._closed = False

    @property
    def session_id(self) -> Optional[str]:
        """The session's id (None before :meth:`start` and after :meth:`close`)."""
        sandbox = self.runtime.sandbox if self.runtime is not None else None
        return sandbox.id if sandbox is not None else None

    @property
    def done(self) -> bool:
        return self.stop_reason is not None

    def __enter__(self) -> "Episode":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def start(self, *, tools_in_system_prompt: bool = True) -> List[Dict[str, str]]:
        """Open the session, copy the row's ``input_files`` into the input folder, and return
        the first messages: the system prompt (followed by the tools' schemas in the Hermes
        format unless ``tools_in_system_prompt`` is False) and the task.

        Raises:
            SandboxAPIError: the server refused the session (full: 429; a bad token: 401).
            SandboxConnectionError, SandboxUnavailableError: the server could not be reached.
            ValueError, TypeError: ``input_files`` is not a mapping of paths to text.
        """
        if self._closed or self.runtime is not None:
            raise RuntimeError("an Episode starts once")
        reference = _reference()
        try:
            self.runtime = self._open_runtime()
            archive = input_archive(self.task.input_files)
            if archive is not None:
                self.runtime.sandbox.put_archive(self.prompt.input_dir, archive)
        except BaseException:
            self.close()
            raise
        system = self.prompt.system
        if tools_in_system_prompt:
            system += hermes_tools_block(reference["tools"])
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": self.prompt.user + steps_remaining(self.max_steps)},
        ]

    def _open_runtime(self) -> WasmRuntime:
        self._client = self.config.client()
        # A name of our own, so a runtime that fails after its session was made (setting the
        # folders up) can still have that session found and deleted.
        name = f"{self.name}-{uuid.uuid4().hex[:12]}"
        try:
            return WasmRuntime(
                name,
                repo_path=self.prompt.working_dir,
                logger=False,
                client=self._client,
                idle_ttl_s=self.config.idle_ttl_s,
                max_lifetime_s=self.config.max_lifetime_s,
                limits=self.config.limits,
            )
        except BaseException:
            try:
                keys = [s.key for s in self._client.list() if s.key and s.key.startswith(name + "-")]
                if keys:
                    self._client.delete_many(keys=keys)
            except Exception:  # noqa: BLE001 - best effort; the first error is the one to raise
                pass
            raise

    def step(self, text: str) -> Turn:
        """Run the tool call in the model's ``text`` and say what the model sees next.

        Raises:
            SandboxUnavailableError: the session cannot run commands (gone, or the server
                unreachable); the session is deleted and nothing is shown to the model.
            RuntimeError: the episode is not started, or already done.
        """
        if self.runtime is None:
            raise RuntimeError("the episode has no session: start() it first (or it was closed)")
        if self.done:
            raise RuntimeError(f"the episode is over ({self.stop_reason})")
        try:
            reference = _reference()
            call = parse_tool_call(text)
            action = reference["Action"](call.name, call.arguments) if call else reference["Action"]("", {})
            observation = reference["agent"]._execute_action(action, self.runtime)
        except BaseException:
            self.close()
            raise
        self.steps += 1
        role = "tool" if call is not None else "user"
        tool = call.name if call is not None else None
        if call is not None and call.name == "submit":
            self.stop_reason = "submitted"
        elif self.steps >= self.max_steps:
            self.stop_reason = "max_steps"
        if self.done:
            return Turn(None, role, True, self.stop_reason, tool)
        return Turn(observation + steps_remaining(self.max_steps - self.steps), role, False, None, tool)

    def finish(self, stop_reason: Optional[str] = None) -> Outcome:
        """The reward. ``stop_reason`` is for an end the episode cannot see (``"length"``: the
        trainer's token budget ran out); by default the episode's own.

        An episode that submitted is scored from ``answer.txt``; one that did not gets 0 under
        the overlong penalty (the default), else is scored the same way.

        Raises:
            SandboxUnavailableError: the answer could not be read (no reward is made up).
            RewardError: the scorer failed, or passed ``reward_timeout``.
            RuntimeError: no stop reason (the episode is not over) or no session.
        """
        reason = stop_reason or self.stop_reason
        if reason is None:
            raise RuntimeError("the episode is not over: give finish() a stop reason")
        if self.stop_reason is None:
            self.stop_reason = reason
        if reason != "submitted" and self.config.overlong_penalty:
            return Outcome(0.0, reason, None, None, self.steps)
        if self.runtime is None:
            raise RuntimeError("the episode has no session to read the answer from")
        try:
            output, exit_code = self.runtime.run(
                f"cat {self.prompt.output_dir}/answer.txt 2>/dev/null || echo ''"
            )
            if exit_code != "0":
                # Only a deadline gets here (`|| echo` succeeds otherwise): its text is no answer.
                raise RewardError(f"reading the answer failed ({exit_code}): {output[:200]}")
            answer = output.strip()
            score = score_in_child(
                answer, self.task.ground_truth, self.task.fields,
                task=TRAINING_TASK, timeout=self.config.reward_timeout,
            )
        except BaseException:
            self.close()
            raise
        logger.info(
            "[Score] domain=%s | score=%.2f | output[-50:]=%r | gt=%r",
            self.task.domain, score, answer[-50:], self.task.ground_truth[:100],
        )
        return Outcome(score, reason, answer, score, self.steps)

    def close(self) -> None:
        """Delete the session. Safe to call again; never raises."""
        self._closed = True
        runtime, self.runtime = self.runtime, None
        if runtime is not None:
            runtime.close()
