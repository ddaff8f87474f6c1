"""Exceptions raised by the client."""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

# The server's error codes by HTTP status (docs/serve.md, "Errors"); used when an answer has
# no JSON error body (e.g. a proxy in between answered).
_CODE_BY_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    413: "payload_too_large",
    429: "too_many_requests",
    500: "internal",
    503: "unavailable",
}


class SandboxError(Exception):
    """Base class of everything this package raises on purpose."""


class SandboxConnectionError(SandboxError):
    """The server could not be reached (refused, reset, DNS, client-side timeout)."""


class SandboxUnavailableError(SandboxError, RuntimeError):
    """A runtime's sandbox cannot run the command: its session was deleted or expired, the
    server did not answer, or answered with an error. An infrastructure failure, never the
    command's own result: :class:`WasmRuntime` raises it where the reference's runtime would
    return an ``Error: ...`` text, so that a reward is never computed from that text.

    Attributes:
        session: the session's id (None when there was none).
        cause: what failed, in words.
    """

    def __init__(self, session: Optional[str], cause: str) -> None:
        super().__init__(f"sandbox session {session!r} cannot run commands: {cause}")
        self.session = session
        self.cause = cause

    def __reduce__(self):  # picklable, as the others (Ray and multiprocessing move errors)
        return (SandboxUnavailableError, (self.session, self.cause))


class UnsafeArchiveError(SandboxError, ValueError):
    """A tar member would land outside the folder it is extracted into."""


class SandboxAPIError(SandboxError):
    """An HTTP error answer from the server.

    Attributes:
        status: the HTTP status code (400, 401, 404, 413, 429, 500, 503, ...).
        code: the server's machine-readable code (``not_found``, ``too_many_requests``, ...).
        message: the server's explanation.
        retryable: whether the same request may succeed later.
        retry_after: seconds from the ``Retry-After`` header, if any.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        retryable: bool = False,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return (
            f"SandboxAPIError(status={self.status!r}, code={self.code!r}, "
            f"message={self.message!r}, retryable={self.retryable!r})"
        )

    def __reduce__(self):  # keep it picklable (multiprocessing, Ray, ...)
        return (
            SandboxAPIError,
            (self.status, self.code, self.message, self.retryable, self.retry_after),
        )


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from a ``Retry-After`` header (delta-seconds form only); None if absent or bad."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except (TypeError, ValueError):
        return None
    if seconds != seconds or seconds < 0:  # NaN or negative
        return None
    return seconds


def error_from_response(
    status: int, body: bytes, headers: Optional[Mapping[str, str]] = None
) -> SandboxAPIError:
    """Build a :class:`SandboxAPIError` from an error answer.

    The server's body is ``{"error": {"code", "message", "retryable"}}``; anything else (plain
    text, HTML from a proxy, empty) still gives an error with a code derived from the status.
    """
    retry_after = parse_retry_after(headers.get("Retry-After") if headers is not None else None)
    default_code = _CODE_BY_STATUS.get(status, "http_%d" % status)
    default_retryable = status in (429, 503)
    text = body.decode("utf-8", errors="replace") if body else ""
    payload: Any = None
    if text:
        try:
            payload = json.loads(text)
        except ValueError:
            payload = None
    err = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(err, dict):
        code = err.get("code")
        message = err.get("message")
        retryable = err.get("retryable")
        return SandboxAPIError(
            status,
            code if isinstance(code, str) and code else default_code,
            message if isinstance(message, str) else text.strip(),
            retryable if isinstance(retryable, bool) else default_retryable,
            retry_after,
        )
    if isinstance(err, str):  # a looser server: {"error": "text"}
        return SandboxAPIError(status, default_code, err, default_retryable, retry_after)
    return SandboxAPIError(
        status, default_code, text.strip() or "HTTP %d" % status, default_retryable, retry_after
    )
