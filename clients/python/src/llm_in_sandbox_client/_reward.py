"""Scoring an answer with the reference package's own reward functions, in a child process
with a time limit, as llm-in-sandbox-rl does.

Why a child process: math-verify's own time limit works only in a process's main thread (an
environment's reward is computed in one of the trainer's worker threads), and a scorer stuck on
a pathological answer must not hold the trainer. The child is forked where the platform can
(what llm-in-sandbox-rl's process pool does on Linux): it starts with the reward function the
parent already loaded, instead of importing the reference package (and litellm) again for
every trajectory. Elsewhere it is spawned and loads it itself.
"""

from __future__ import annotations

import functools
import gc
import logging
import multiprocessing
import traceback
from typing import Any, Callable, Dict, Mapping

__all__ = ["TRAINING_TASK", "INSTALL_HINT", "RewardError", "require_reference", "score_in_child"]

#: The reference benchmark task whose reward llm-in-sandbox-rl trains on: it routes every row by
#: its ``domain`` (and ``qa_type``) to math-verify, a letter match, F1 over letters, IFBench or
#: ROUGE-L.
TRAINING_TASK = "instruct_pretrain"

#: What to install for the reference's agent and scorers.
INSTALL_HINT = "pip install 'llm-in-sandbox==0.2.0' math-verify rouge-score"


class RewardError(RuntimeError):
    """The scorer failed or passed its time limit: there is no reward for this trajectory
    (llm-in-sandbox-rl raises too, so rLLM retries the trajectory)."""


def require_reference() -> Dict[str, Any]:
    """Import the reference package's ``Agent`` and ``Action`` and load the training reward,
    or raise :class:`ImportError` saying what to install.

    Returns ``{"Agent": ..., "Action": ...}``.
    """
    # Importing the reference's agent (litellm, at its first import) takes the root logger's
    # handlers away: the trainer's logging is put back as it was.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from llm_in_sandbox.action import Action
        from llm_in_sandbox.agent import Agent

        reward_function(TRAINING_TASK)
    except ImportError as e:
        raise ImportError(
            "llm_in_sandbox_client runs the reference package's agent actions and reward "
            f"functions; install them with `{INSTALL_HINT}` ({e})"
        ) from e
    finally:
        # Exactly as they were: the scorers' imports (absl, under rouge-score) add their own.
        root.handlers[:] = handlers
        root.setLevel(level)
    return {"Agent": Agent, "Action": Action}


@functools.lru_cache(maxsize=None)
def reward_function(task: str) -> Callable[..., float]:
    """The reference's ``compute_score`` for ``task``, loaded by the reference's own loader
    (``llm_in_sandbox.benchmark.runner.load_reward_function``), once per process."""
    from llm_in_sandbox.benchmark.runner import load_reward_function

    function = load_reward_function(task)
    _warm_scorers()
    return function


def _warm_scorers() -> None:
    """Give the scorers their first call here, once, so that every forked child starts with
    it done: math-verify compiles its patterns and fills its LaTeX parser's tables on first
    use (about 50 ms), which each child would otherwise pay again. math-verify's own time
    limits need a main thread, so they are off for this call; its results are not used. A
    failure here only leaves the children to do it themselves."""
    try:
        from math_verify import parse, verify

        for expected, given in (("\\frac{1}{2}", "\\boxed{0.5}"), ("$3$", "x = 3")):
            verify(
                parse(expected, parsing_timeout=None),
                parse(given, parsing_timeout=None),
                timeout_seconds=None,
            )
    except Exception:  # noqa: BLE001 - a warm-up only
        pass
    try:
        from rouge_score import rouge_scorer

        rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True).score("a warm up", "warm up")
    except Exception:  # noqa: BLE001 - a warm-up only
        pass


def _child(conn: Any, task: str, answer: str, ground_truth: str, kwargs: Mapping[str, Any]) -> None:
    # A forked child holds copies of every object of the parent, sessions' runtimes included:
    # collecting garbage here could run their finalizers and delete live sessions.
    gc.disable()
    try:
        value = float(reward_function(task)(answer, ground_truth, **kwargs))
        conn.send(("ok", value))
    except BaseException as e:  # noqa: BLE001 - everything goes back to the parent
        conn.send(("error", f"{type(e).__name__}: {e}", traceback.format_exc()))
    finally:
        conn.close()


def _context() -> Any:
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def score_in_child(
    answer: str,
    ground_truth: str,
    kwargs: Mapping[str, Any],
    *,
    task: str = TRAINING_TASK,
    timeout: float = 60.0,
) -> float:
    """``compute_score(answer, ground_truth, **kwargs)`` of the reference's ``task``, run in a
    child process that is killed after ``timeout`` seconds.

    Raises:
        RewardError: the scorer raised, its process died, or it passed ``timeout``.
    """
    ctx = _context()
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=_child,
        args=(sender, task, answer, ground_truth, dict(kwargs)),
        name="llm-in-sandbox reward",
        daemon=True,
    )
    proc.start()
    sender.close()  # ours; the child has its own copy, so EOF means the child is gone
    try:
        if not receiver.poll(timeout):
            raise RewardError(f"the {task} scorer did not finish within {timeout:g} s")
        try:
            message = receiver.recv()
        except EOFError:
            proc.join(5.0)
            raise RewardError(
                f"the {task} scorer's process ended without an answer (exit code {proc.exitcode})"
            ) from None
    finally:
        receiver.close()
        if proc.is_alive():
            proc.kill()
        proc.join(5.0)
    if message[0] == "ok":
        return message[1]
    raise RewardError(f"the {task} scorer failed: {message[1]}\n{message[2]}")
