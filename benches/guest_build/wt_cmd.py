#!/usr/bin/env python3
"""Run a WASI command module (_start) under wasmtime-py, epoch checks on (default) or off.
    wt_cmd.py [--no-epoch] MODULE.wasm [ARGS...]"""
import ctypes, sys, wasmtime as wt
from wasmtime import _ffi
args = sys.argv[1:]
epoch = True
if args and args[0] == "--no-epoch":
    epoch = False; args = args[1:]
cfg = wt.Config()
cfg.epoch_interruption = epoch
cfg.cranelift_opt_level = "speed"
eng = wt.Engine(cfg)
mod = wt.Module.from_file(eng, args[0])
store = wt.Store(eng)
if epoch:
    store.set_epoch_deadline(1 << 40)
w = wt.WasiConfig(); w.argv = args; w.inherit_stdout(); w.inherit_stderr()
w.preopen_dir(".", ".")
store.set_wasi(w)
l = wt.Linker(eng); l.define_wasi()
inst = l.instantiate(store, mod)
try:
    inst.exports(store)["_start"](store)
except wt.ExitTrap as e:
    sys.exit(e.code)
