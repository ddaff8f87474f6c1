# `perf --serve`'s second baseline: a process-per-call `/run_code` server of the kind
# SandboxFusion runs, in its own process. aiohttp answers HTTP; each request writes its code
# to a file in a fresh temporary folder and runs it with a new Python process, under the
# request's run timeout, answering the same JSON shape as ours.
#
# Usage: python3 aiohttp_baseline.py PYTHON_FOR_THE_CODE
# Prints the port it listens on (loopback) as its first line, then serves until killed.
import asyncio
import os
import socket
import sys
import tempfile
import time

from aiohttp import web

RUNNER = sys.argv[1]


def answer(status, run_status, seconds, code=None, out=b"", err=b""):
    return {
        "status": status,
        "message": "",
        "compile_result": None,
        "run_result": {
            "status": run_status,
            "execution_time": seconds,
            "return_code": code,
            "stdout": out.decode("utf-8", "replace"),
            "stderr": err.decode("utf-8", "replace"),
        },
        "executor_pod_name": None,
        "files": {},
    }


async def run_code(request):
    req = await request.json()
    source = req.get("code") or ""
    timeout = req.get("run_timeout") or 10
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "main.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        proc = await asyncio.create_subprocess_exec(
            RUNNER,
            path,
            cwd=folder,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
            seconds = time.monotonic() - started
            return web.json_response(answer("Failed", "TimeLimitExceeded", seconds))
    seconds = time.monotonic() - started
    ok = proc.returncode == 0
    body = answer(
        "Success" if ok else "Failed", "Finished", seconds, proc.returncode, out, err
    )
    return web.json_response(body)


def main():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    print(sock.getsockname()[1], flush=True)
    app = web.Application(client_max_size=64 << 20)
    app.router.add_post("/run_code", run_code)
    web.run_app(app, sock=sock, print=None, access_log=None, handle_signals=True)


main()
