"""HTTP client for ``llm-in-sandbox serve`` (docs/serve.md), standard library only."""

from __future__ import annotations

import ipaddress
import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from . import _tar
from .errors import (
    SandboxAPIError,
    SandboxConnectionError,
    error_from_response,
)

__all__ = ["Client", "Sandbox", "ExecResult", "ToolResult"]

_JSON = "application/json"
#: Sent with every call on a keyed session (and its create), so a proxy can route all of a
#: session's calls to the replica that holds it (see the README's Kubernetes example).
SESSION_KEY_HEADER = "X-Session-Key"


@dataclass
class ExecResult:
    """What a command or a Python run gave. ``exit_code`` is -1 and ``timed_out`` True when the
    command passed its deadline; a non-zero exit is not an exception."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    duration_s: float = 0.0
    cwd: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout followed by stderr."""
        return self.stdout + self.stderr

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "ExecResult":
        return cls(
            exit_code=int(d.get("exit_code", -1)),
            stdout=d.get("stdout") or "",
            stderr=d.get("stderr") or "",
            timed_out=bool(d.get("timed_out", False)),
            duration_s=float(d.get("duration_s") or 0.0),
            cwd=d.get("cwd"),
        )


@dataclass
class ToolResult:
    """A tool call's observation (exactly the text the model would see) and whether the episode
    is over (``submit``)."""

    output: str
    done: bool = False


def _is_loopback(host: Optional[str]) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _encode_files(files: Optional[Mapping[str, Union[bytes, str]]]) -> Optional[Dict[str, str]]:
    import base64

    if files is None:
        return None
    out = {}
    for path, content in files.items():
        raw = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        out[path] = base64.b64encode(raw).decode("ascii")
    return out


#: Retries of a 429 or 503 for a trainer's trajectories: about a minute of waiting for a full
#: or restarting server (at its ``Retry-After`` of 1 s), where a failed trajectory costs a
#: whole retry of it.
TRAINER_RETRIES = 60


class Client:
    """A connection to one ``llm-in-sandbox serve``.

    Args:
        base_url: e.g. ``http://127.0.0.1:8080`` (a trailing ``/`` is fine).
        token: bearer token, when the server was started with ``--token``.
        timeout: seconds to wait for an answer. Calls that run a command wait at least the
            command's own timeout plus ``timeout_margin``.
        retries: how many times a 429 or 503 answer is retried (0 disables retrying).
        retry_statuses: the statuses retried.
        max_retry_wait: a cap on one wait, whatever ``Retry-After`` says.
        timeout_margin: seconds added to a command's timeout for the HTTP wait.
        trust_env_proxies: use ``http_proxy``/``https_proxy`` from the environment (never for a
            loopback server).
    """

    def __init__(
        self,
        base_url: str,
        token: Optional[str] = None,
        timeout: float = 300.0,
        *,
        retries: int = 3,
        retry_statuses: Iterable[int] = (429, 503),
        max_retry_wait: float = 30.0,
        timeout_margin: float = 30.0,
        trust_env_proxies: bool = True,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required, e.g. http://127.0.0.1:8080")
        if "://" not in base_url:
            base_url = "http://" + base_url
        self.base_url = base_url.rstrip("/")
        self.token = token or None
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.retry_statuses = frozenset(int(s) for s in retry_statuses)
        self.max_retry_wait = max_retry_wait
        self.timeout_margin = timeout_margin
        host = urllib.parse.urlsplit(self.base_url).hostname
        handlers: List[urllib.request.BaseHandler] = []
        if not trust_env_proxies or _is_loopback(host):
            handlers.append(urllib.request.ProxyHandler({}))
        self._opener = urllib.request.build_opener(*handlers)

    @classmethod
    def from_env(cls, **kwargs: Any) -> "Client":
        """``LLM_IN_SANDBOX_URL`` (default ``http://127.0.0.1:8080``) and
        ``LLM_IN_SANDBOX_TOKEN``."""
        return cls(
            os.environ.get("LLM_IN_SANDBOX_URL") or "http://127.0.0.1:8080",
            token=os.environ.get("LLM_IN_SANDBOX_TOKEN") or None,
            **kwargs,
        )

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    # -- transport ------------------------------------------------------------------------

    def _url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(
                {k: v for k, v in query.items() if v is not None}, quote_via=urllib.parse.quote
            )
        return url

    def _open(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Optional[bytes] = None,
        content_type: Optional[str] = None,
        accept: Optional[str] = None,
        timeout: Optional[float] = None,
        session_key: Optional[str] = None,
    ):
        """Send one request (retrying 429/503 as configured); returns the open response.
        ``session_key`` goes out as ``X-Session-Key``, for a proxy that routes a session's calls
        to the one replica holding it."""
        url = self._url(path, query)
        headers = {"User-Agent": "llm-in-sandbox-client/0.1"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if content_type:
            headers["Content-Type"] = content_type
        if accept:
            headers["Accept"] = accept
        if session_key:
            # Percent-encoded: any key the server takes becomes a valid header value, and the
            # same key always gives the same value to hash on.
            headers[SESSION_KEY_HEADER] = urllib.parse.quote(session_key, safe="")
        wait_for = self.timeout if timeout is None else timeout
        attempt = 0
        while True:
            req = urllib.request.Request(url, data=body, headers=headers, method=method)
            try:
                return self._opener.open(req, timeout=wait_for)
            except urllib.error.HTTPError as e:
                try:
                    raw = e.read()
                finally:
                    e.close()
                err = error_from_response(e.code, raw, e.headers)
                if e.code in self.retry_statuses and attempt < self.retries:
                    attempt += 1
                    time.sleep(self._retry_delay(err.retry_after, attempt))
                    continue
                raise err from None
            except urllib.error.URLError as e:
                raise SandboxConnectionError(
                    f"cannot reach {self.base_url}: {e.reason}"
                ) from e
            except (OSError, ValueError) as e:  # socket.timeout, connection reset, bad URL
                raise SandboxConnectionError(f"{method} {url}: {e!r}") from e

    def _retry_delay(self, retry_after: Optional[float], attempt: int) -> float:
        if retry_after is not None:
            delay = retry_after
        else:
            delay = min(8.0, 0.25 * (2 ** (attempt - 1))) * (0.5 + random.random())
        return max(0.0, min(delay, self.max_retry_wait))

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        json_body: Any = None,
        data: Optional[bytes] = None,
        content_type: Optional[str] = None,
        timeout: Optional[float] = None,
        session_key: Optional[str] = None,
    ) -> Tuple[int, bytes, Any]:
        body = data
        if json_body is not None:
            body = json.dumps(json_body).encode("utf-8")
            content_type = _JSON
        try:
            resp = self._open(
                method, path, query=query, body=body, content_type=content_type,
                timeout=timeout, session_key=session_key,
            )
            with resp:
                raw = resp.read()
                return resp.status, raw, resp.headers
        except OSError as e:  # a reset while reading the body
            raise SandboxConnectionError(f"{method} {path}: {e!r}") from e

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        status, raw, _ = self._request(method, path, **kwargs)
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError as e:
            raise SandboxAPIError(
                status, "bad_response", f"the server's answer is not JSON: {raw[:200]!r}"
            ) from e

    def _call_timeout(self, timeout_s: Optional[float]) -> float:
        if timeout_s is None:
            return self.timeout
        return max(self.timeout, float(timeout_s) + self.timeout_margin)

    # -- service ----------------------------------------------------------------------------

    def health(self) -> bool:
        """``GET /healthz`` (no auth): True when the server answers ``ok``."""
        _, raw, _ = self._request("GET", "/healthz")
        return raw.decode("utf-8", "replace").strip() == "ok"

    def ping(self) -> str:
        """``GET /v1/ping`` (SandboxFusion's): ``"pong"``."""
        return self._json("GET", "/v1/ping")

    def metrics(self) -> str:
        """``GET /metrics``: Prometheus text."""
        _, raw, _ = self._request("GET", "/metrics")
        return raw.decode("utf-8", "replace")

    # -- sessions ---------------------------------------------------------------------------

    def create(
        self,
        key: Optional[str] = None,
        files: Optional[Mapping[str, Union[bytes, str]]] = None,
        env: Optional[Mapping[str, str]] = None,
        limits: Optional[Mapping[str, Any]] = None,
        idle_ttl_s: Optional[float] = None,
        max_lifetime_s: Optional[float] = None,
        shell: Optional[str] = None,
    ) -> "Sandbox":
        """Create a session (``POST /v1/sandboxes``). With ``key``, get-or-create: a live
        session with that key is returned instead (``sandbox.created`` is then False).

        ``files`` maps guest paths to contents (bytes or text); ``limits`` may hold
        ``timeout_s``, ``memory_mb``, ``output_bytes``, ``disk_mb``, ``max_files`` (they can
        only tighten the server's). ``shell="reference"`` makes every ``exec`` start from the
        session's state at creation, as a fresh ``bash -c`` (the reference's ``docker exec``)
        would; the default, ``"persistent"``, carries variables, functions and the current
        folder over from call to call."""
        body: Dict[str, Any] = {}
        if key is not None:
            body["key"] = key
        if files:
            body["files"] = _encode_files(files)
        if env:
            body["env"] = dict(env)
        if limits:
            body["limits"] = dict(limits)
        if idle_ttl_s is not None:
            body["idle_ttl_s"] = idle_ttl_s
        if max_lifetime_s is not None:
            body["max_lifetime_s"] = max_lifetime_s
        if shell is not None:
            body["shell"] = shell
        info = self._json("POST", "/v1/sandboxes", json_body=body, session_key=key)
        return Sandbox(self, info)

    def get(self, id: str) -> "Sandbox":
        """An existing session by id (404 :class:`SandboxAPIError` if there is none)."""
        info = self._json("GET", "/v1/sandboxes/" + urllib.parse.quote(id, safe=""))
        return Sandbox(self, info)

    def list(self) -> List["Sandbox"]:
        """All live sessions."""
        answer = self._json("GET", "/v1/sandboxes") or {}
        return [Sandbox(self, info) for info in answer.get("sandboxes", [])]

    def delete(self, id: str) -> int:
        """Delete one session by id; 404 if unknown."""
        answer = self._json("DELETE", "/v1/sandboxes/" + urllib.parse.quote(id, safe=""))
        return int((answer or {}).get("deleted", 0))

    def delete_many(
        self,
        ids: Optional[Iterable[str]] = None,
        keys: Optional[Iterable[str]] = None,
        all: bool = False,
    ) -> int:
        """Delete sessions by id and/or key, or ``all=True``; returns how many were deleted."""
        body: Dict[str, Any] = {"all": bool(all)}
        if ids is not None:
            body["ids"] = [str(i) for i in ids]
        if keys is not None:
            body["keys"] = [str(k) for k in keys]
        answer = self._json("POST", "/v1/sandboxes/delete", json_body=body)
        return int((answer or {}).get("deleted", 0))

    # -- one-shot SandboxFusion-compatible calls ----------------------------------------------

    def run_code(
        self,
        code: str,
        language: str = "python",
        *,
        stdin: Optional[str] = None,
        run_timeout: Optional[float] = None,
        memory_limit_MB: Optional[int] = None,
        files: Optional[Mapping[str, Union[bytes, str]]] = None,
        fetch_files: Optional[List[str]] = None,
    ) -> Dict[str, Any]:
        """``POST /run_code`` in a fresh sandbox; the SandboxFusion answer as a dict."""
        body: Dict[str, Any] = {"code": code, "language": language}
        if stdin is not None:
            body["stdin"] = stdin
        if run_timeout is not None:
            body["run_timeout"] = run_timeout
        if memory_limit_MB is not None:
            body["memory_limit_MB"] = memory_limit_MB
        if files:
            body["files"] = _encode_files(files)
        if fetch_files:
            body["fetch_files"] = list(fetch_files)
        return self._json(
            "POST", "/run_code", json_body=body, timeout=self._call_timeout(run_timeout)
        )

    def run_jupyter(
        self,
        cells: List[str],
        *,
        cell_timeout: Optional[float] = None,
        total_timeout: Optional[float] = None,
        files: Optional[Mapping[str, Union[bytes, str]]] = None,
        fetch_files: Optional[List[str]] = None,
    ) -> Dict[str, Any]:
        """``POST /run_jupyter``: cells in order in one Python instance."""
        body: Dict[str, Any] = {"cells": list(cells), "kernel": "python3"}
        if cell_timeout is not None:
            body["cell_timeout"] = cell_timeout
        if total_timeout is not None:
            body["total_timeout"] = total_timeout
        if files:
            body["files"] = _encode_files(files)
        if fetch_files:
            body["fetch_files"] = list(fetch_files)
        return self._json(
            "POST", "/run_jupyter", json_body=body, timeout=self._call_timeout(total_timeout)
        )


class Sandbox:
    """One session. Get it from :meth:`Client.create` / :meth:`Client.get`.

    Usable as a context manager: the session is deleted on exit.
    """

    def __init__(self, client: Client, info: Mapping[str, Any]) -> None:
        self.client = client
        self.data: Dict[str, Any] = dict(info or {})
        if "id" not in self.data:
            raise SandboxAPIError(200, "bad_response", f"no session id in {info!r}")
        self.id: str = str(self.data["id"])
        self.key: Optional[str] = self.data.get("key")
        self.created: bool = bool(self.data.get("created", False))

    def __repr__(self) -> str:
        return f"Sandbox(id={self.id!r}, key={self.key!r})"

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.delete(missing_ok=True)

    @property
    def _base(self) -> str:
        return "/v1/sandboxes/" + urllib.parse.quote(self.id, safe="")

    def info(self) -> Dict[str, Any]:
        """The session's current info (``cwd``, ``last_used_at``, ``limits``, ...)."""
        self.data = self.client._json("GET", self._base, session_key=self.key)
        return self.data

    def delete(self, missing_ok: bool = False) -> bool:
        """Delete the session. With ``missing_ok``, an already-gone session is not an error."""
        try:
            self.client._json("DELETE", self._base, session_key=self.key)
            return True
        except SandboxAPIError as e:
            if missing_ok and e.status == 404:
                return False
            raise

    # -- running things -------------------------------------------------------------------

    def exec(self, command: str, timeout: Optional[float] = None) -> ExecResult:
        """Run a shell command in the session's shell (cwd and exported variables carry over
        to the next call, unless the session was made with ``shell="reference"``)."""
        body: Dict[str, Any] = {"command": command}
        if timeout is not None:
            body["timeout_s"] = timeout
        d = self.client._json(
            "POST", self._base + "/exec", json_body=body,
            timeout=self.client._call_timeout(timeout), session_key=self.key,
        )
        return ExecResult.from_json(d)

    def exec_stream(self, command: str, timeout: Optional[float] = None) -> Iterator[Dict[str, Any]]:
        """Run a command and yield its NDJSON events as they come: ``{"type": "stdout"|
        "stderr", "data"}``, ``{"type": "heartbeat"}``, and last ``{"type": "exit",
        "exit_code", "timed_out", "duration_s", "cwd"}``."""
        body: Dict[str, Any] = {"command": command, "stream": True}
        if timeout is not None:
            body["timeout_s"] = timeout
        return self._stream("/exec", body, timeout)

    def python_stream(
        self,
        code: Optional[str] = None,
        args: Optional[List[str]] = None,
        stdin: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Iterator[Dict[str, Any]]:
        """:meth:`python` with NDJSON events, as :meth:`exec_stream`."""
        body = self._python_body(code, args, stdin, timeout)
        body["stream"] = True
        return self._stream("/python", body, timeout)

    def _stream(self, route: str, body: Dict[str, Any], timeout: Optional[float]):
        resp = self.client._open(
            "POST", self._base + route, body=json.dumps(body).encode("utf-8"),
            content_type=_JSON, accept="application/x-ndjson",
            timeout=self.client._call_timeout(timeout), session_key=self.key,
        )

        def events() -> Iterator[Dict[str, Any]]:
            # The `exit` (or `error`) event is the last one: stop there and close the
            # connection rather than wait for the server to end the body.
            with resp:
                for line in resp:
                    line = line.strip()
                    if not line:
                        continue
                    event = json.loads(line)
                    yield event
                    if event.get("type") in ("exit", "error"):
                        return

        return events()

    @staticmethod
    def _python_body(code, args, stdin, timeout) -> Dict[str, Any]:
        body: Dict[str, Any] = {}
        if code is not None:
            body["code"] = code
        if args is not None:
            body["args"] = [str(a) for a in args]
        if stdin is not None:
            body["stdin"] = stdin
        if timeout is not None:
            body["timeout_s"] = timeout
        return body

    def python(
        self,
        code: Optional[str] = None,
        args: Optional[List[str]] = None,
        stdin: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> ExecResult:
        """Run Python: ``code`` (as ``python3 -c``) and/or ``args`` (e.g. ``["script.py",
        "x"]``), with optional ``stdin``."""
        d = self.client._json(
            "POST", self._base + "/python",
            json_body=self._python_body(code, args, stdin, timeout),
            timeout=self.client._call_timeout(timeout), session_key=self.key,
        )
        return ExecResult.from_json(d)

    def tool(self, name: str, **arguments: Any) -> ToolResult:
        """Call one of the agent's tools (``execute_bash``, ``str_replace_editor``,
        ``submit``): the observation text and whether the episode is done."""
        d = self.client._json(
            "POST", self._base + "/tools", json_body={"name": name, "arguments": arguments},
            session_key=self.key,
        )
        return ToolResult(output=d.get("output", ""), done=bool(d.get("done", False)))

    # -- files ------------------------------------------------------------------------------

    def write_file(self, path: str, data: Union[bytes, bytearray, str]) -> Dict[str, Any]:
        """Write a file (parents created). Relative paths are under ``/testbed``."""
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        return self.client._json(
            "PUT", self._base + "/files", query={"path": path}, data=raw,
            content_type="application/octet-stream", session_key=self.key,
        )

    def read_file(self, path: str) -> bytes:
        """A file's bytes."""
        _, raw, _ = self.client._request(
            "GET", self._base + "/files", query={"path": path}, session_key=self.key
        )
        return raw

    def list_dir(self, path: str = "/testbed") -> List[Dict[str, Any]]:
        """A folder's entries: ``[{"name", "type": "file"|"dir"|"symlink", "size"}, ...]``."""
        d = self.client._json(
            "GET", self._base + "/list", query={"path": path}, session_key=self.key
        )
        return list((d or {}).get("entries", []))

    def put_archive(self, remote_dir: str, tar_bytes: bytes) -> Dict[str, Any]:
        """Extract a tar under ``remote_dir`` (created): ``{"files": N, "bytes": N}``."""
        return self.client._json(
            "PUT", self._base + "/archive", query={"path": remote_dir}, data=tar_bytes,
            content_type="application/x-tar", session_key=self.key,
        )

    def get_archive(self, remote_dir: str) -> bytes:
        """A folder as a tar (names relative to it)."""
        _, raw, _ = self.client._request(
            "GET", self._base + "/archive", query={"path": remote_dir}, session_key=self.key
        )
        return raw

    def upload_dir(self, local_dir: Union[str, "os.PathLike[str]"], remote_dir: str) -> Dict[str, Any]:
        """Copy the contents of a local folder into ``remote_dir`` (created), via tar."""
        return self.put_archive(remote_dir, _tar.pack_dir(local_dir))

    def download_dir(
        self, remote_dir: str, local_dir: Union[str, "os.PathLike[str]"]
    ) -> Dict[str, int]:
        """Copy the contents of ``remote_dir`` into a local folder (created), refusing any
        member that would land outside it (:class:`UnsafeArchiveError`)."""
        return _tar.safe_extract(self.get_archive(remote_dir), local_dir)
