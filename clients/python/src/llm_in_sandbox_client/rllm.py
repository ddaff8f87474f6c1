"""rLLM's environment interface over a session of ``llm-in-sandbox serve``.

:class:`LLMinSandboxEnv` behaves as the environment of the same name in llm-in-sandbox-rl (an
rLLM fork; ``rllm/environments/llm_in_sandbox/llm_in_sandbox_env.py``), with our
:class:`~llm_in_sandbox_client.WasmRuntime` in place of the reference's ``DockerRuntime``:

- ``reset()`` opens a session and copies the row's ``input_files`` into its input folder
  (``/testbed/documents``), and returns the row's ``problem_statement`` with
  ``{"extra_info": row}``;
- ``step(action)`` runs the action with the reference package's own ``Agent._execute_action``
  and returns ``(observation, 0.0, done, {})``, ``done`` when the action is ``submit``;
- ``compute_final_reward()`` reads ``answer.txt`` from the output folder and scores it with the
  reference's ``instruct_pretrain`` reward, in a child process with a time limit;
- ``close()`` deletes the session.

It derives from rLLM's ``BaseEnv`` when rLLM is importable and stands alone otherwise; nothing
else is imported from rLLM. See docs/rl.md for the recipe.

Infrastructure failures are exceptions, never rewards: a session that is gone (deleted,
expired, a server restart) or a server that cannot be reached raises
:class:`~llm_in_sandbox_client.SandboxUnavailableError` from ``step`` and
``compute_final_reward``; a scorer that fails or passes its time limit raises
:class:`RewardError`. rLLM's execution engine retries a trajectory that raised (its ``reset``
makes a new session), as it does for llm-in-sandbox-rl's environment, which raises when
scoring fails too.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from ._reward import INSTALL_HINT, RewardError, TRAINING_TASK, require_reference, score_in_child
from ._tar import input_archive
from .client import TRAINER_RETRIES, Client
from .runtime import CMD_TIMEOUT, WasmRuntime

__all__ = ["LLMinSandboxEnv", "RewardError", "INSTALL_HINT"]

logger = logging.getLogger(__name__)

DEFAULT_WORKDIR = "/testbed"
DEFAULT_IMAGE = "cdx123/llm-in-sandbox:v0.1"

#: A session's lifetime: rLLM's engine gives one attempt at a trajectory at most 7200 s (the
#: example script's ``trajectory_timeout`` is 5400 s, then the reward).
DEFAULT_SESSION_LIFETIME_S = 7200.0

#: A session's idle TTL. While the environment is open its runtime keeps the session alive, so
#: this only bounds how long a session outlives a trainer that died without closing it.
DEFAULT_SESSION_IDLE_TTL_S = 600.0

#: The scorer's time limit, as llm-in-sandbox-rl's.
DEFAULT_REWARD_TIMEOUT_S = 60.0


class _StandaloneBaseEnv:
    """What rLLM's ``BaseEnv`` gives its subclasses besides the abstract methods (rLLM is not
    installed): the ``idx`` property, ``close`` and ``is_multithread_safe``."""

    @property
    def idx(self) -> Any:
        """The environment's index in its batch (set by rLLM's engine), or None."""
        return getattr(self, "_idx", None)

    @idx.setter
    def idx(self, value: Any) -> None:
        self._idx = value

    def close(self) -> None:
        return None

    @staticmethod
    def is_multithread_safe() -> bool:
        return True


def _rllm_base() -> type:
    """rLLM's ``BaseEnv`` when rLLM is installed, else :class:`_StandaloneBaseEnv`. An rLLM that
    is installed but fails to import is an error, not a fallback: its engine would then reject
    our environment for not being a ``BaseEnv``."""
    try:
        from rllm.environments.base.base_env import BaseEnv
    except ModuleNotFoundError as e:
        if e.name is None or not (e.name == "rllm" or e.name.startswith("rllm.environments")):
            raise
        return _StandaloneBaseEnv
    return BaseEnv


_BaseEnv = _rllm_base()

# The constructor's options, which from_dict takes out of ``{**extra_info, **env_args}``.
_OPTIONS = (
    "docker_image", "step_timeout", "verbose", "working_dir", "input_dir", "output_dir",
    "sandbox_url", "sandbox_token", "sandbox_limits", "session_lifetime_s",
    "session_idle_ttl_s", "reward_timeout",
)


# r2egym's text form of a tool call, which rLLM's SWE environment (where llm-in-sandbox-rl's
# step comes from) parses from strings: <function=NAME><parameter=KEY>VALUE</parameter>...
_FUNCTION = re.compile(r"<function\s*=\s*([^>]+)>")
_PARAMETER = re.compile(r"<parameter\s*=\s*([^>]+)>(.*?)</parameter>", re.DOTALL)


def _action_from_text(text: str, action_class: type) -> Any:
    name = _FUNCTION.search(text)
    params = {k.strip(): v.strip() for k, v in _PARAMETER.findall(text)}
    return action_class(name.group(1).strip() if name else "", params)


class _StepRuntime:
    """The runtime as the reference's agent sees it in a step: commands whose caller gives no
    timeout get the environment's ``step_timeout``."""

    def __init__(self, runtime: WasmRuntime, timeout: float) -> None:
        self._runtime = runtime
        self._timeout = timeout

    def run(self, code: str, timeout: Optional[float] = None, workdir: Optional[str] = None) -> Tuple[str, str]:
        return self._runtime.run(code, self._timeout if timeout is None else timeout, workdir)

    def demux_run(
        self, code: str, timeout: Optional[float] = None, workdir: Optional[str] = None
    ) -> Tuple[str, str, str]:
        return self._runtime.demux_run(code, self._timeout if timeout is None else timeout, workdir)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)


class LLMinSandboxEnv(_BaseEnv):  # type: ignore[misc, valid-type]
    """llm-in-sandbox-rl's environment over a session of ``llm-in-sandbox serve``.

    Built by rLLM with ``LLMinSandboxEnv.from_dict({**extra_info, **env_args})``; the row's
    fields (``problem_statement``, ``ground_truth``, ``domain``, optional ``qa_type`` and
    ``input_files``) stay in :attr:`entry`.

    Args:
        entry: the dataset row (its ``extra_info``).
        docker_image: only names the session (kept for scripts that pass it).
        step_timeout: seconds each command of a step may run (llm-in-sandbox-rl accepts this
            argument but its commands always get the reference's 120 s; the default is that).
        verbose: log the runtime's messages.
        working_dir, input_dir, output_dir: the folders, default ``entry``'s, else
            ``/testbed``, ``<working_dir>/documents`` and ``<working_dir>/``.
        sandbox_url, sandbox_token: the server; default ``$LLM_IN_SANDBOX_URL`` (else
            ``http://127.0.0.1:8080``) and ``$LLM_IN_SANDBOX_TOKEN``.
        sandbox_limits: the session's limits (``timeout_s``, ``memory_mb``, ``disk_mb``, ...),
            which can only tighten the server's.
        session_lifetime_s, session_idle_ttl_s: asked of the server for each session (it
            clamps them to its own ``--max-lifetime`` and ``--idle-ttl``).
        reward_timeout: seconds the scorer may take.

    Raises:
        ImportError: the reference package or its scorers are not installed.
    """

    def __init__(
        self,
        entry: Mapping[str, Any],
        docker_image: str = DEFAULT_IMAGE,
        step_timeout: float = CMD_TIMEOUT,
        verbose: bool = False,
        working_dir: Optional[str] = None,
        input_dir: Optional[str] = None,
        output_dir: Optional[str] = None,
        *,
        sandbox_url: Optional[str] = None,
        sandbox_token: Optional[str] = None,
        sandbox_limits: Optional[Mapping[str, Any]] = None,
        session_lifetime_s: Optional[float] = DEFAULT_SESSION_LIFETIME_S,
        session_idle_ttl_s: Optional[float] = DEFAULT_SESSION_IDLE_TTL_S,
        reward_timeout: float = DEFAULT_REWARD_TIMEOUT_S,
    ) -> None:
        reference = require_reference()
        self._action_class = reference["Action"]
        # The reference's agent, for its _execute_action only (as llm-in-sandbox-rl does).
        self._agent_impl = reference["Agent"].__new__(reference["Agent"])

        self.entry: Dict[str, Any] = dict(entry)
        self.docker_image = docker_image
        self.step_timeout = step_timeout
        self.verbose = verbose
        self.working_dir = working_dir or self.entry.get("working_dir", DEFAULT_WORKDIR)
        self.input_dir = input_dir or self.entry.get("input_dir", f"{self.working_dir}/documents")
        self.output_dir = output_dir or self.entry.get("output_dir", f"{self.working_dir}/")
        self.sandbox_url = sandbox_url or os.environ.get("LLM_IN_SANDBOX_URL") or "http://127.0.0.1:8080"
        self.sandbox_token = sandbox_token or os.environ.get("LLM_IN_SANDBOX_TOKEN") or None
        self.sandbox_limits = dict(sandbox_limits) if sandbox_limits else None
        self.session_lifetime_s = session_lifetime_s
        self.session_idle_ttl_s = session_idle_ttl_s
        self.reward_timeout = reward_timeout

        self.runtime: Optional[WasmRuntime] = None
        self.total_steps = 0

    def __repr__(self) -> str:
        session = self.runtime.container.id if self.runtime and self.runtime.container else None
        return f"LLMinSandboxEnv(id={self.entry.get('id')!r}, session={session!r})"

    # -- rLLM's interface -----------------------------------------------------------------

    def reset(self) -> Tuple[str, Dict[str, Any]]:
        """Open a new session (closing the previous one) and copy the row's ``input_files``
        into :attr:`input_dir`. Returns ``(problem_statement, {"extra_info": entry})``.

        Raises:
            SandboxAPIError: the server refused the session (full: 429, a bad token: 401).
            SandboxConnectionError, SandboxUnavailableError: the server could not be reached,
                or lost the new session while it was set up.
            ValueError, TypeError: ``input_files`` is not a mapping of paths to text.
        """
        if self.runtime is not None:
            self.close()
        self.runtime = WasmRuntime(
            docker_image=self.docker_image,
            repo_path=self.working_dir,
            logger=logger if self.verbose else False,
            client=Client(self.sandbox_url, token=self.sandbox_token, retries=TRAINER_RETRIES),
            idle_ttl_s=self.session_idle_ttl_s,
            max_lifetime_s=self.session_lifetime_s,
            limits=self.sandbox_limits,
        )
        try:
            self._copy_input_files(self.entry.get("input_files"))
        except BaseException:
            self.close()
            raise
        self.total_steps = 0
        return self.entry.get("problem_statement", ""), {"extra_info": self.entry}

    def _copy_input_files(self, input_files: Union[None, str, Mapping[str, Any]]) -> None:
        if isinstance(input_files, str):
            input_files = json.loads(input_files) if input_files else {}
        if not input_files:
            return
        if not isinstance(input_files, Mapping):
            raise TypeError(f"input_files must map paths to text, not {type(input_files).__name__}")
        archive = input_archive(input_files)
        sandbox = self._require_runtime().sandbox
        if archive is not None and sandbox is not None:
            sandbox.put_archive(self.input_dir, archive)

    def step(self, action: Any) -> Tuple[str, float, bool, Dict[str, Any]]:
        """Run one action with the reference agent's ``_execute_action``.

        ``action`` is what llm-in-sandbox-rl's agent returns (the reference package's
        ``Action``), any object with ``function_name`` and ``parameters``, or a tool call in
        r2egym's text form (``<function=execute_bash><parameter=command>ls</parameter>
        </function>``). Returns ``(observation, 0.0, done, {})``; ``done`` is true for
        ``submit``.

        Raises:
            SandboxUnavailableError: the session cannot run commands (gone, or the server
                unreachable): an infrastructure failure, never shown to the model.
            TypeError: ``action`` is none of the above.
        """
        runtime = self._require_runtime()
        self.total_steps += 1
        action = self._to_action(action)
        done = action.function_name == "submit"
        observation = self._agent_impl._execute_action(action, _StepRuntime(runtime, self.step_timeout))
        return observation, 0.0, done, {}

    def _to_action(self, action: Any) -> Any:
        cls = self._action_class
        if isinstance(action, cls):
            return action
        if isinstance(action, str):
            return _action_from_text(action, cls)
        if hasattr(action, "function_name"):
            return cls(function_name=action.function_name, parameters=getattr(action, "parameters", {}))
        raise TypeError(f"not an action: {type(action).__name__} (expected llm_in_sandbox's Action or a tool-call text)")

    def compute_final_reward(self) -> float:
        """Score ``answer.txt`` in :attr:`output_dir` with the reference's ``instruct_pretrain``
        reward (by ``domain`` and ``qa_type``); a missing or empty answer scores 0.

        Raises:
            SandboxUnavailableError: the answer could not be read (the session is gone or the
                server unreachable); no reward is made up.
            RewardError: reading the answer timed out, or the scorer failed or passed
                ``reward_timeout``.
            KeyError: the row has no ``ground_truth`` or ``domain``.
        """
        runtime = self._require_runtime()
        output, exit_code = runtime.run(f"cat {self.output_dir}/answer.txt 2>/dev/null || echo ''")
        if exit_code != "0":
            # Only a deadline can get here (`|| echo` succeeds otherwise): its text is no answer.
            raise RewardError(f"reading the answer failed ({exit_code}): {output[:200]}")
        answer = output.strip()
        ground_truth = self.entry["ground_truth"]
        domain = self.entry["domain"]
        kwargs = {k: v for k, v in self.entry.items() if k != "ground_truth"}
        reward = score_in_child(answer, ground_truth, kwargs, task=TRAINING_TASK, timeout=self.reward_timeout)
        logger.info(
            "[Score] domain=%s | score=%.2f | output[-50:]=%r | gt=%r",
            domain, reward, answer[-50:], str(ground_truth)[:100],
        )
        return reward

    def close(self) -> None:
        """Delete the session. Safe to call again; never raises."""
        runtime, self.runtime = self.runtime, None
        if runtime is not None:
            runtime.close()

    @staticmethod
    def from_dict(info: Union[str, Mapping[str, Any]]) -> "LLMinSandboxEnv":
        """Build from ``{**extra_info, **env_args}`` (or its JSON text), as rLLM does.

        The keys of the constructor's arguments (llm-in-sandbox-rl's ``docker_image``,
        ``step_timeout``, ``verbose``, ``working_dir``, ``input_dir``, ``output_dir``, and ours:
        ``sandbox_url``, ``sandbox_token``, ``sandbox_limits``, ``session_lifetime_s``,
        ``session_idle_ttl_s``, ``reward_timeout``) are taken out (a ``None`` value means the
        default); the rest is the row.
        """
        entry = dict(json.loads(info) if isinstance(info, str) else info)
        options = {key: entry.pop(key) for key in _OPTIONS if key in entry}
        return LLMinSandboxEnv(entry, **{k: v for k, v in options.items() if v is not None})

    @staticmethod
    def is_multithread_safe() -> bool:
        """True: every environment has its own session and HTTP client."""
        return True

    # -- helpers ----------------------------------------------------------------------------

    def _require_runtime(self) -> WasmRuntime:
        if self.runtime is None:
            raise RuntimeError("LLMinSandboxEnv has no session: call reset() first")
        return self.runtime
