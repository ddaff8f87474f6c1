"""A SkyRL environment (``skyrl_gym``) for LLM-in-Sandbox training over ``llm-in-sandbox
serve``: one sandbox session per environment, the reference package's tools and reward.

Importing this module registers the environment as ``llm_in_sandbox`` with ``skyrl_gym``
(``skyrl_gym.make("llm_in_sandbox", env_config=..., extras=row)``), which is how SkyRL's
generator makes the environment a row's ``env_class`` names. :func:`register_env` registers it
under another id or with options bound (the server's URL, ...).

The episode (``_episode.py``): ``init`` opens the session, copies the row's ``input_files``
into ``/testbed/documents`` and returns the system prompt (with the tools in the Hermes format)
and the task; each ``step`` parses the model's text for a ``<tool_call>{...}</tool_call>``,
runs it with the reference's ``Agent._execute_action`` and returns the observation; ``submit``
(or ``max_turns``) ends it with the reward of ``answer.txt`` under the reference's
``instruct_pretrain`` reward; ``close`` deletes the session (as does any exception).

Where the server is, first found: the row's ``llm_in_sandbox`` mapping (``env_extras``, e.g.
set by a generator's ``_setup_env_extras`` hook), ``env_config`` (SkyRL's
``environment.skyrl_gym.<env id>``, when your config defines it), the options given to
:func:`register_env`, then the environment variables ``LLM_IN_SANDBOX_URL`` and
``LLM_IN_SANDBOX_TOKEN`` (set them in the Ray runtime environment so every worker sees them;
keep tokens out of datasets).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

try:
    import skyrl_gym
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError as e:  # pragma: no cover - depends on what is installed
    raise ImportError(
        f"llm_in_sandbox_client.skyrl needs SkyRL's environments: pip install skyrl-gym ({e})"
    ) from e

from ._episode import DEFAULT_MAX_STEPS, Episode, EpisodeConfig, Outcome, Task

__all__ = ["ENV_ID", "LLMInSandboxEnv", "register_env"]

#: The id this module registers at import.
ENV_ID = "llm_in_sandbox"

_ENTRY_POINT = f"{__name__}:LLMInSandboxEnv"


class LLMInSandboxEnv(BaseTextEnv):
    """One LLM-in-Sandbox episode as a ``skyrl_gym`` text environment.

    Args:
        env_config: options of :class:`~llm_in_sandbox_client._episode.EpisodeConfig`
            (``base_url``, ``token``, ``prompt_task``, ``overlong_penalty``, ``limits``, ...),
            as a mapping (dict or DictConfig) or a dataclass; SkyRL passes
            ``environment.skyrl_gym.<env id>`` here (an empty dict when the config has none).
        extras: the dataset row without ``prompt`` and ``env_class`` (SkyRL's ``env_extras``):
            ``problem_statement``, ``ground_truth``, ``domain``, optional ``qa_type`` and
            ``input_files``, at the top or under ``extra_info``; the ground truth may be in
            ``reward_spec``. ``max_turns`` (which SkyRL sets from ``generator.max_turns``) is the
            episode's step budget (default 100).
        defaults: options bound by :func:`register_env` (``env_config`` overrides them, and
            the row's own ``llm_in_sandbox`` mapping overrides both).

    Raises:
        ValueError: the row has no question, ground truth or domain.
        TypeError: an unknown option.
        ImportError: the reference package or its scorers are not installed.
    """

    def __init__(
        self,
        env_config: Any = None,
        extras: Optional[Mapping[str, Any]] = None,
        defaults: Optional[Mapping[str, Any]] = None,
    ) -> None:
        super().__init__()
        extras = dict(extras or {})
        self.config = EpisodeConfig.from_options(defaults, env_config).for_row(extras)
        self.max_turns = int(extras.get("max_turns") or self.config.max_steps or DEFAULT_MAX_STEPS)
        self.task = Task.from_row(extras)
        self.episode: Optional[Episode] = Episode(
            self.task, self.config, max_steps=self.max_turns, name="llm-in-sandbox-skyrl"
        )
        self.outcome: Optional[Outcome] = None
        self._tool_calls = 0

    @property
    def session_id(self) -> Optional[str]:
        """The sandbox session's id while it is open."""
        return self.episode.session_id if self.episode is not None else None

    def init(self, prompt: Any = None) -> Tuple[List[Dict[str, str]], Dict[str, Any]]:
        """Open the session and return the first messages (system prompt with the tools, and
        the task); the dataset's ``prompt`` is replaced (its last user message is the question
        only when the row has no ``problem_statement``).

        Raises:
            SandboxAPIError, SandboxConnectionError, SandboxUnavailableError: no session could
                be made (the server is full, unreachable, or refused the token).
        """
        if self.episode is None:
            raise RuntimeError("this environment is closed")
        messages = self.episode.start(tools_in_system_prompt=True)
        return messages, {"session": self.episode.session_id, "domain": self.task.domain}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Run the tool call in the model's text. Not done: the observation as a ``tool``
        message (``user`` when the text held no call), reward 0. Done (``submit``, or
        ``max_turns`` reached): no observation, the reward, and the session deleted.

        Raises:
            SandboxUnavailableError: the session cannot run commands; it is deleted and the
                exception is the episode's end (it never becomes a reward).
            RewardError: the scorer failed.
        """
        if self.episode is None:
            raise RuntimeError("this environment is closed")
        self.turns += 1
        try:
            turn = self.episode.step(action)
            if turn.tool is not None:
                self._tool_calls += 1
            metadata: Dict[str, Any] = {"tool": turn.tool, "step": self.episode.steps}
            if not turn.done:
                return BaseTextEnvStepOutput(
                    observations=[{"role": turn.role, "content": turn.observation}],
                    reward=0.0,
                    done=False,
                    metadata=metadata,
                )
            self.outcome = self.episode.finish()
        except BaseException:
            self.close()
            raise
        self.close()
        metadata.update(
            stop_reason=self.outcome.stop_reason, answer=self.outcome.answer, score=self.outcome.score
        )
        return BaseTextEnvStepOutput(
            observations=[], reward=float(self.outcome.reward), done=True, metadata=metadata
        )

    def close(self) -> None:
        """Delete the session. Safe to call again; never raises."""
        episode, self.episode = self.episode, None
        if episode is not None:
            episode.close()

    def get_metrics(self) -> Dict[str, Any]:
        """Numbers for SkyRL's averages: ``submitted`` (0/1), ``steps``, ``tool_calls``,
        ``score`` (when the answer was scored)."""
        metrics: Dict[str, Any] = {
            "submitted": float(self.outcome is not None and self.outcome.stop_reason == "submitted"),
            "steps": self.turns,
            "tool_calls": self._tool_calls,
        }
        if self.outcome is not None and self.outcome.score is not None:
            metrics["score"] = self.outcome.score
        return metrics


def register_env(env_id: str = ENV_ID, **options: Any) -> None:
    """Register :class:`LLMInSandboxEnv` with ``skyrl_gym`` as ``env_id``, with ``options``
    (``base_url``, ``token``, ``prompt_task``, ...) bound as defaults. Call it where SkyRL's
    examples register their environments (inside the Ray entrypoint task), e.g.
    ``register_env(base_url="http://sandbox:8080")``.

    Registering an id this module registered before replaces it.

    Raises:
        skyrl_gym.error.RegistrationError: ``env_id`` is another environment's.
        TypeError: an unknown option.
    """
    EpisodeConfig.from_options(options)  # unknown options fail here, not in every worker
    existing = skyrl_gym.registry.get(env_id)
    if existing is not None and existing.entry_point == _ENTRY_POINT:
        skyrl_gym.envs.registration.deregister(env_id)
    skyrl_gym.register(
        id=env_id, entry_point=_ENTRY_POINT, kwargs={"defaults": dict(options)} if options else None
    )


if ENV_ID not in skyrl_gym.registry:
    register_env(ENV_ID)
