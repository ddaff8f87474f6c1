#!/usr/bin/env bash
# Issue 44, part C with a real interpreter: Lua 5.4 (the copy in the lupa sdist from the Python
# package index, third-party/lua54) built for wasm32-wasi with zig cc at -O3, -O3 -flto,
# -O3 + PGO, -O3 -flto + PGO, run under wasmtime-py (epoch checks on), best of RUNS, alternated.
# The PGO training run is bench.lua at scale 0.2 (smaller inputs), the timed run at scale 1.
#   lua_bench.sh [RUNS]
set -euo pipefail
runs=${1:-5}
ZIG=${ZIG:-/tmp/w44/venvzig/bin/python -m ziglang}
PY=${PY:-/tmp/w44/venv/bin/python}
PROFRT=${PROFRT:-/tmp/w44/yres/lib/wasm32-unknown-wasip1/libclang_rt.profile.a}
PROFDATA=${PROFDATA:-/usr/lib/llvm-19/bin/llvm-profdata}
LUA=${LUA:-/tmp/w44/dl/lupa-2.8/third-party/lua54}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/w44/lua}
mkdir -p "$OUT"; cd "$OUT"; cp "$HERE/lua/bench.lua" .
SRCS=$(ls "$LUA"/*.c | grep -v '/luac.c\|/onelua.c\|/ltests.c')
CC="$ZIG cc -target wasm32-wasi -include $HERE/lua/wasi_shim.h -D_WASI_EMULATED_SIGNAL -lwasi-emulated-signal -Wno-everything"
$CC -O3 -o O3.wasm $SRCS
$CC -O3 -flto -o O3lto.wasm $SRCS
$CC -O3 -fprofile-generate -o gen.wasm $SRCS "$PROFRT"
rm -f default_*.profraw
$PY "$HERE/wt_cmd.py" gen.wasm bench.lua all 0.2 >/dev/null
$PROFDATA merge -o lua.profdata default_*.profraw
$CC -O3 -fprofile-use="$OUT/lua.profdata" -o O3pgo.wasm $SRCS
$CC -O3 -flto -fprofile-use="$OUT/lua.profdata" -o O3ltopgo.wasm $SRCS
$ZIG cc -O3 -o native-O3 $SRCS -lm -DLUA_USE_LINUX -Wno-everything || true
variants="O3 O3lto O3pgo O3ltopgo"; [ -x native-O3 ] && variants="$variants native"
names="loop fib words primes strings"
declare -A best cpu
echo 'print("T loop 0")' > empty.lua
tm=$(mktemp)
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$runs"); do
  for v in $variants; do
    if [ $v = native ]; then run=(./native-O3); else run=($PY "$HERE/wt_cmd.py" $v.wasm); fi
    out=$(/usr/bin/time -f "%U %S" -o "$tm" "${run[@]}" bench.lua all 1)
    c=$(awk '{print $1+$2}' "$tm")
    /usr/bin/time -f "%U %S" -o "$tm" "${run[@]}" empty.lua >/dev/null
    c=$(awk -v c="$c" '{print c-($1+$2)}' "$tm")
    cpu[$v]=$(awk -v a="$c" -v b="${cpu[$v]:-9e9}" 'BEGIN{print (a<b)?a:b}')
    for b in $names; do
      t=$(sed -n "s/^T $b //p" <<<"$out")
      best[$v.$b]=$(awk -v a="$t" -v c="${best[$v.$b]:-9e9}" 'BEGIN{print (a<c)?a:c}')
    done
  done
done
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s' variant; for b in $names; do printf ' %9s' "$b"; done; printf ' %9s %14s\n' geo_vs_O3 "cpu_all(vs O3)"
for v in $variants; do
  printf '%-9s' $v; g=0
  for b in $names; do
    printf ' %7.1fms' "$(awk -v t="${best[$v.$b]}" 'BEGIN{print t*1000}')"
    g=$(awk -v g="$g" -v a="${best[$v.$b]}" -v o="${best[O3.$b]}" 'BEGIN{print g+log(a/o)}')
  done
  awk -v g="$g" -v n=5 -v c="${cpu[$v]}" -v c0="${cpu[O3]}" 'BEGIN{printf " %9.3f %6.2fs(%.3f)\n", exp(g/n), c, c/c0}'
done
