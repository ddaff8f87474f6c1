#!/usr/bin/env bash
# Issue 44, part C: what -O3 / -flto / PGO are worth to interpreter-like C code compiled to
# wasm32-wasi and run under wasmtime (wasmtime-py, epoch checks on as in ours).
#   cbench.sh [RUNS]      (default 5; best of RUNS per variant, variants alternated)
# Needs: a venv with ziglang (ZIG), a venv with wasmtime (PY), Debian's llvm-19 (llvm-profdata),
# and libclang_rt.profile.a for wasm32-wasip1 from the @yowasp/clang npm package's
# gen/llvm-resources.tar (zig ships no profile runtime). Builds in $OUT.
set -euo pipefail
runs=${1:-5}
ZIG=${ZIG:-/tmp/w44/venvzig/bin/python -m ziglang}
PY=${PY:-/tmp/w44/venv/bin/python}
PROFRT=${PROFRT:-/tmp/w44/yres/lib/wasm32-unknown-wasip1/libclang_rt.profile.a}
PROFDATA=${PROFDATA:-/usr/lib/llvm-19/bin/llvm-profdata}
SRC=$(cd "$(dirname "$0")/cbench" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/w44/cb}
mkdir -p "$OUT"; cd "$OUT"
CC="$ZIG cc -target wasm32-wasi"
$CC -O2 -o O2.wasm "$SRC"/*.c
$CC -O3 -o O3.wasm "$SRC"/*.c
$CC -O3 -flto -o O3lto.wasm "$SRC"/*.c
# IR-level PGO (what CPython's own --enable-optimizations does with clang is front-end
# -fprofile-instr-generate; IR-level -fprofile-generate gave the same kind of result here and
# its profile matched every file, see the docs).
$CC -O3 -fprofile-generate -o gen.wasm "$SRC"/*.c "$PROFRT"
rm -f default_*.profraw
$PY "$HERE/wt_cmd.py" gen.wasm >/dev/null
$PROFDATA merge -o ir.profdata default_*.profraw
$CC -O3 -fprofile-use="$OUT/ir.profdata" -o O3pgo.wasm "$SRC"/*.c
$CC -O3 -flto -fprofile-use="$OUT/ir.profdata" -o O3ltopgo.wasm "$SRC"/*.c
$ZIG cc -O3 -o native-O3 "$SRC"/*.c
variants="O2 O3 O3lto O3pgo O3ltopgo"
declare -A vm dict
for _ in $(seq "$runs"); do
  for v in $variants native; do
    if [ $v = native ]; then out=$(./native-O3); else out=$($PY "$HERE/wt_cmd.py" $v.wasm); fi
    a=$(sed -n 's/^T vm //p' <<<"$out"); b=$(sed -n 's/^T dict //p' <<<"$out")
    vm[$v]=$(awk -v a="$a" -v c="${vm[$v]:-9e9}" 'BEGIN{print (a<c)?a:c}')
    dict[$v]=$(awk -v a="$b" -v c="${dict[$v]:-9e9}" 'BEGIN{print (a<c)?a:c}')
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %10s %10s %10s %10s\n' variant vm_ms dict_ms vm_vs_O3 dict_vs_O3
for v in $variants native; do
  awk -v n=$v -v a="${vm[$v]}" -v b="${dict[$v]}" -v a0="${vm[O3]}" -v b0="${dict[O3]}" \
    'BEGIN{printf "%-10s %10.1f %10.1f %10.3f %10.3f\n", n, a*1000, b*1000, a/a0, b/b0}'
done
