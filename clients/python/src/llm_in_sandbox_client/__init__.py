"""Python client for ``llm-in-sandbox serve``.

>>> from llm_in_sandbox_client import Client
>>> with Client("http://127.0.0.1:8080").create() as sb:
...     print(sb.exec("echo hi").stdout)

``WasmRuntime`` is a drop-in for the reference package's ``DockerRuntime``.
"""

from .client import Client, ExecResult, Sandbox, ToolResult
from .errors import (
    SandboxAPIError,
    SandboxConnectionError,
    SandboxUnavailableError,
    SandboxError,
    UnsafeArchiveError,
)
from .runtime import CMD_TIMEOUT, WasmRuntime
from ._tar import pack_dir, safe_extract

__version__ = "0.1.0"

__all__ = [
    "Client",
    "Sandbox",
    "ExecResult",
    "ToolResult",
    "SandboxError",
    "SandboxAPIError",
    "SandboxConnectionError",
    "SandboxUnavailableError",
    "UnsafeArchiveError",
    "WasmRuntime",
    "CMD_TIMEOUT",
    "pack_dir",
    "safe_extract",
    "__version__",
]
