"""``WasmRuntime``: the reference package's ``DockerRuntime`` interface over a session of
``llm-in-sandbox serve``. Swap ``from llm_in_sandbox import DockerRuntime`` for
``from llm_in_sandbox_client import WasmRuntime as DockerRuntime``; see REFERENCE_FACTS.md for
the conventions kept (string exit codes, the timeout text, how output is combined)."""

from __future__ import annotations

import logging
import os
import posixpath
import re
import secrets
import shlex
import threading
import weakref
from typing import Any, Dict, Mapping, Optional, Tuple

from . import _tar
from .client import Client, ExecResult, Sandbox
from .errors import SandboxAPIError, SandboxUnavailableError

__all__ = ["WasmRuntime", "CMD_TIMEOUT"]

#: The reference's default per-command timeout, in seconds.
CMD_TIMEOUT = 120

# Colour escapes and carriage returns, removed from output as the reference does.
_ANSI_AND_CR = re.compile(r"\x1b\[[0-9;]*m|\r")


def _default_logger(quiet: bool) -> logging.Logger:
    logger = logging.getLogger("WasmRuntime.quiet" if quiet else "WasmRuntime")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.WARNING if quiet else logging.INFO)
    return logger


def timeout_text(timeout: Any) -> str:
    """The observation the reference gives for a command that passed its deadline."""
    return f"The command took too long to execute (>{timeout}s)"


def reference_result(result: ExecResult, timeout: Any) -> Tuple[str, str, str]:
    """Map our exec result to the reference's ``(stdout, stderr, exit_code_text)``.

    Timed out (or exit status 124, which is what ``timeout(1)`` gives and what the reference
    keys on): ``(timeout text, "", "-1")``. Otherwise colour escapes and ``\\r`` are removed;
    exit 0 gives ``"0"`` and any other status ``"Error: Exit code N"``.
    """
    if result.timed_out or result.exit_code == 124:
        return timeout_text(timeout), "", "-1"
    stdout = _ANSI_AND_CR.sub("", result.stdout)
    stderr = _ANSI_AND_CR.sub("", result.stderr)
    if result.exit_code != 0:
        return stdout, stderr, f"Error: Exit code {result.exit_code}"
    return stdout, stderr, str(result.exit_code)


def _memory_mb(value: Any) -> Optional[int]:
    """Docker's ``mem_limit`` (bytes as int, or ``"512m"``/``"4g"``) in MiB."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return max(1, int(value) // (1024 * 1024))
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([bkmg]?)b?\s*", str(value).lower())
    if not m:
        return None
    scale = {"": 1, "b": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}[m.group(2)]
    return max(1, int(float(m.group(1)) * scale) // (1024 * 1024))


class WasmRuntime:
    """A sandbox session with ``DockerRuntime``'s methods and return conventions.

    The first four parameters are the reference's (``docker_image`` may be omitted and is only
    used to name the session); Docker-only keyword arguments are accepted and ignored, except
    ``environment`` (the session's environment variables) and ``mem_limit`` (a memory limit,
    which can only tighten the server's). Ours are keyword-only:

    Args:
        base_url: the server, default ``$LLM_IN_SANDBOX_URL`` or ``http://127.0.0.1:8080``.
        token: bearer token, default ``$LLM_IN_SANDBOX_TOKEN``.
        client: an existing :class:`Client` (then ``base_url``/``token`` are not used).
        idle_ttl_s, max_lifetime_s, limits: passed to the session.
        http_timeout: seconds to wait for the server besides a command's own timeout.
        shell: ``"reference"`` (default): every command runs as a fresh ``docker exec bash -c``
            in the working folder would, with nothing carried over from earlier commands
            (variables, functions, the current folder); ``"persistent"``: one shell whose
            state carries over.
        keep_alive: touch the session every third of its idle TTL from a background thread
            while this runtime is open, so a long wait between two commands (a slow model
            generation) never lets the server delete it (default on).

    A command the sandbox cannot run (its session deleted or expired, the server unreachable or
    answering with an error) raises :class:`SandboxUnavailableError` from :meth:`run` and
    :meth:`demux_run`, where the reference's runtime returns an ``Error: ...`` text: that text
    would otherwise reach the model or be scored as an answer. The command's own failures
    (exit codes, its deadline) are returned as the reference returns them.
    """

    def __init__(
        self,
        docker_image: Optional[str] = None,
        repo_path: str = "/testbed",
        command: str = "sleep infinity",
        logger: Any = None,
        *,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        client: Optional[Client] = None,
        idle_ttl_s: Optional[float] = None,
        max_lifetime_s: Optional[float] = None,
        limits: Optional[Mapping[str, Any]] = None,
        http_timeout: float = 300.0,
        shell: str = "reference",
        keep_alive: bool = True,
        **docker_kwargs: Any,
    ) -> None:
        self.docker_image = docker_image or "llm-in-sandbox-wasm"
        self.repo_path = repo_path.rstrip("/") or "/"
        self.command = command  # nothing runs in the background of a session; kept for callers
        self.docker_kwargs = docker_kwargs
        if logger is None:
            self.logger = _default_logger(quiet=False)
        elif logger is False:
            self.logger = _default_logger(quiet=True)
        else:
            self.logger = logger

        if client is None:
            client = Client(
                base_url or os.environ.get("LLM_IN_SANDBOX_URL") or "http://127.0.0.1:8080",
                token=token if token is not None else (os.environ.get("LLM_IN_SANDBOX_TOKEN") or None),
                timeout=http_timeout,
            )
        self.client = client
        self._session_options: Dict[str, Any] = {
            "idle_ttl_s": idle_ttl_s,
            "max_lifetime_s": max_lifetime_s,
            "limits": dict(limits) if limits else None,
            "shell": shell,
        }
        self.container: Optional[Sandbox] = None
        self._keep_alive_stop = threading.Event()
        self._keep_alive_thread: Optional[threading.Thread] = None
        # Why the session was found gone by the keep-alive thread, if it was.
        self._gone: Optional[str] = None
        self.container_name = self._get_container_name(self.docker_image)
        self.start_container(self.docker_image, command, self.container_name, **docker_kwargs)
        if keep_alive:
            self._start_keep_alive()
        self.setup_env()
        self.logger.info("Wasm sandbox session ready: %s on %s", self.container.id, self.client.base_url)

    # -- lifecycle ----------------------------------------------------------------------------

    @staticmethod
    def _get_container_name(image_name: str) -> str:
        """The sanitised image name and 128 random bits: two runtimes never share a session
        (names made from the time, the process id and an object id could, across processes
        and machines, and a shared name gets the other runtime's session)."""
        return f"{image_name.replace('/', '-').replace(':', '-')}-{secrets.token_hex(16)}"

    def _start_keep_alive(self) -> None:
        sb = self._require()
        ttl = sb.data.get("idle_ttl_s")
        try:
            interval = max(0.2, float(ttl) / 3.0)
        except (TypeError, ValueError):
            interval = 60.0
        stop = self._keep_alive_stop
        # Only a weak reference: a runtime dropped without close() is still collected (its
        # __del__ deletes the session), and the thread ends with it.
        owner = weakref.ref(self)

        def touch() -> None:
            while not stop.wait(interval):
                if owner() is None:
                    return
                try:
                    sb.info()
                except SandboxAPIError as e:
                    if e.status == 404:
                        rt = owner()
                        if rt is not None:
                            rt._gone = f"the server no longer has it ({e})"
                        return
                    # Anything else (busy, a restart in progress): try again next time.
                except Exception:  # noqa: BLE001 - a transient failure; the next touch retries
                    pass

        self._keep_alive_thread = threading.Thread(
            target=touch, name=f"keep-alive {sb.id}", daemon=True
        )
        self._keep_alive_thread.start()

    def _stop_keep_alive(self) -> None:
        self._keep_alive_stop.set()
        t = self._keep_alive_thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=5.0)
        self._keep_alive_thread = None

    @property
    def sandbox(self) -> Optional[Sandbox]:
        """The session (None after :meth:`close`)."""
        return self.container

    def start_container(self, docker_image: str, command: str, container_name: str, **docker_kwargs: Any) -> None:
        """Get or create the session named ``container_name`` (its key on the server)."""
        env = docker_kwargs.get("environment") or None
        if isinstance(env, (list, tuple)):  # docker also takes ["K=V", ...]
            env = dict(item.split("=", 1) for item in env if "=" in item)
        limits = dict(self._session_options["limits"] or {})
        mem = _memory_mb(docker_kwargs.get("mem_limit"))
        if mem is not None and "memory_mb" not in limits:
            limits["memory_mb"] = mem
        ignored = sorted(k for k in docker_kwargs if k not in ("environment", "mem_limit"))
        if ignored:
            self.logger.debug("WasmRuntime ignores Docker-only arguments: %s", ", ".join(ignored))
        self.container = self.client.create(
            key=container_name,
            env={str(k): str(v) for k, v in env.items()} if env else None,
            limits=limits or None,
            idle_ttl_s=self._session_options["idle_ttl_s"],
            max_lifetime_s=self._session_options["max_lifetime_s"],
            shell=self._session_options["shell"],
        )
        self.logger.info("Started sandbox session %s (%s)", self.container.id, container_name)

    def setup_env(self) -> None:
        """Set the working folder up as the reference does: its ``input/`` and ``output/``
        folders, and ``git init`` in it (the reference's command, errors ignored). The
        reference's pip configuration file, which points pip at a package mirror, is not
        written: pip in the sandbox goes where the server lets it."""
        self._mkdirs(self.repo_path, ["input", "output"])
        self._exec(f"cd {shlex.quote(self.repo_path)} && git init 2>/dev/null || true", CMD_TIMEOUT, None)

    def _mkdirs(self, base: str, subdirs) -> None:
        import io
        import tarfile

        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
            for name in subdirs:
                info = tarfile.TarInfo(name)
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
        self._require().put_archive(base, buf.getvalue())

    def _require(self) -> Sandbox:
        if self.container is None:
            raise RuntimeError("this WasmRuntime is closed")
        return self.container

    def close(self) -> None:
        """Delete the session. Safe to call twice; errors are logged, not raised."""
        self._stop_keep_alive()
        if self.container is not None:
            try:
                self.container.delete(missing_ok=True)
                self.logger.info("Sandbox session %s deleted", self.container.id)
            except Exception as e:  # noqa: BLE001 - closing must not raise
                self.logger.warning("Error deleting sandbox session: %s", e)
            finally:
                self.container = None

    def __del__(self) -> None:
        try:
            stop = getattr(self, "_keep_alive_stop", None)
            if stop is not None:
                stop.set()
            if getattr(self, "container", None) is not None:
                self.container.delete(missing_ok=True)
                self.container = None
        except Exception:
            pass

    def __enter__(self) -> "WasmRuntime":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- commands -----------------------------------------------------------------------------

    def _exec(self, code: str, timeout: Any, workdir: Optional[str]) -> ExecResult:
        # Each call starts in the working folder, as a fresh `docker exec -w` would. A
        # "reference" session starts every call from its state at creation, in /testbed: the
        # command goes as it is, so bash's messages name the lines the caller wrote (`line 1`).
        where = self.repo_path if workdir is None else workdir
        fresh = self.container is not None and self.container.data.get("shell") == "reference"
        if fresh and posixpath.normpath(where) == "/testbed":
            script = code
        elif fresh:
            # On the command's first line, so its lines keep their numbers.
            script = f"cd {shlex.quote(where)} || exit; {code}"
        else:
            script = f"cd {shlex.quote(where)}\n{code}"
        if self.container is None:
            raise SandboxUnavailableError(None, "this WasmRuntime is closed")
        sid = self.container.id
        try:
            return self.container.exec(script, timeout=timeout)
        except SandboxAPIError as e:
            if e.status == 404:
                why = self._gone or "the server no longer has it (deleted, expired or never made)"
                raise SandboxUnavailableError(sid, f"{why}: {e}") from e
            raise SandboxUnavailableError(sid, f"the server answered with an error: {e}") from e
        except Exception as e:  # noqa: BLE001 - transport failures of every kind
            raise SandboxUnavailableError(sid, f"the server could not be reached: {e!r}") from e

    def run(self, code: str, timeout: int = CMD_TIMEOUT, workdir: Optional[str] = None) -> Tuple[str, str]:
        """Run a bash command; returns ``(output, exit_code_text)``.

        ``output`` is stdout followed by stderr, with colour escapes and ``\\r`` removed;
        ``exit_code_text`` is ``"0"``, ``"Error: Exit code N"``, or ``"-1"`` (timeout, with the
        reference's timeout text as output).

        Raises:
            SandboxUnavailableError: the sandbox could not run the command (the reference
                returns ``"Error: ..."`` with ``"-1"`` there; see the class).
        """
        stdout, stderr, code_text = reference_result(self._exec(code, timeout, workdir), timeout)
        return stdout + stderr, code_text

    def demux_run(
        self, code: str, timeout: int = CMD_TIMEOUT, workdir: Optional[str] = None
    ) -> Tuple[str, str, str]:
        """Run a bash command; returns ``(stdout, stderr, exit_code_text)`` (see :meth:`run`).
        A timeout gives ``(timeout text, "", "-1")``. Raises :class:`SandboxUnavailableError`
        when the sandbox could not run the command."""
        return reference_result(self._exec(code, timeout, workdir), timeout)

    # -- files --------------------------------------------------------------------------------

    def copy_to_container(self, src_path: str, dest_path: str) -> None:
        """Copy a local file (or folder) to ``dest_path`` in the sandbox (parents created).
        Raises on failure."""
        try:
            sb = self._require()
            if os.path.isdir(src_path):
                sb.upload_dir(src_path, dest_path)
            else:
                with open(src_path, "rb") as f:
                    sb.write_file(dest_path, f.read())
            self.logger.info("Copied %s to %s", src_path, dest_path)
        except Exception as e:
            self.logger.error("Error copying file to sandbox: %r", e)
            raise

    def copy_dir_to_container(self, src_dir: str, dest_dir: str) -> None:
        """Copy the contents of a local folder into ``dest_dir`` (created). Raises on failure."""
        try:
            self._require().upload_dir(src_dir, dest_dir)
            self.logger.info("Copied directory %s to %s", src_dir, dest_dir)
        except Exception as e:
            self.logger.error("Error copying directory to sandbox: %r", e)
            raise

    def copy_from_container(self, container_path: str, local_path: str) -> None:
        """Copy the contents of the sandbox folder ``container_path`` into ``local_path``
        (created), as the reference does. A file path copies that file into ``local_path``.
        Members that would land outside ``local_path`` are refused. Raises on failure."""
        try:
            sb = self._require()
            os.makedirs(local_path, exist_ok=True)
            try:
                archive = sb.get_archive(container_path)
            except SandboxAPIError as e:
                if e.status not in (400, 404):
                    raise
                # Not a folder: try it as a file (a missing path fails here with a 404).
                data = sb.read_file(container_path)
                name = posixpath.basename(container_path.rstrip("/"))
                with open(os.path.join(local_path, name), "wb") as f:
                    f.write(data)
            else:
                _tar.safe_extract(archive, local_path)
            self.logger.info("Copied %s from sandbox to %s", container_path, local_path)
        except Exception as e:
            self.logger.error("Error copying from sandbox: %r", e)
            raise

    def get_task_instruction(self, problem_statement: str) -> str:
        """The task text, unchanged."""
        return problem_statement

