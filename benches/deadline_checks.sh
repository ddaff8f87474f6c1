#!/usr/bin/env bash
# The deadline-check split (docs/performance.md, "Where the guest's compute time goes"): the six
# programs in benches/deadline_checks/, each timing itself (its line "T seconds"), run by
# `llm-in-sandbox exec` with each binary given, the binaries alternated, best of N each.
#
#   benches/deadline_checks.sh N BINARY...
#
# The figures in the docs came from three builds: main before the code generator patch
# (git checkout 5b8da20), main after it, and main after it with `.epoch_interruption(true)`
# changed to `false` in src/runtime/engine.rs (no deadlines at all: for this measurement only,
# never a build to run anything else with). Each build compiles the module once into the cache
# (its key differs), about a minute.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
n=$1; shift
# A copy in a folder of its own: the sandbox's workspace is mounted read-write.
dir=$(mktemp -d "${TMPDIR:-/tmp}/deadline-checks.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$(dirname "$0")"/deadline_checks/*.py "$dir/"
printf '%-10s' program; for b in "$@"; do printf ' | %s' "$b"; done; echo
for prog in loop fib dict sieve jsonre numpy_mm; do
    declare -A best=()
    for _ in $(seq "$n"); do
        for b in "$@"; do
            t=$("$b" exec -w "$dir" -- python3 "$prog.py" | sed -n 's/^T //p')
            [ -n "$t" ] || { echo "$b: $prog.py printed no time" >&2; exit 1; }
            cur=${best[$b]:-}
            if [ -z "$cur" ] || awk -v a="$t" -v b="$cur" 'BEGIN{exit !(a<b)}'; then best[$b]=$t; fi
        done
    done
    printf '%-10s' "$prog"; for b in "$@"; do printf ' | %.1f ms' "$(awk -v t="${best[$b]}" 'BEGIN{print t*1000}')"; done; echo
done
