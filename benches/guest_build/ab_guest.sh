#!/usr/bin/env bash
# Issue 44: the six benches/deadline_checks programs, each timing itself ("T seconds"), run by
# several runners, the runners alternated, best of N each.
#   ab_guest.sh N RUNNER...
# A RUNNER is a label=command prefix that takes the program's guest path after it, e.g.
#   ours='env LLM_IN_SANDBOX_CACHE=/var/cache/llm-in-sandbox-ci/runtime /var/cache/llm-in-sandbox-ci/target/release/llm-in-sandbox exec -w /tmp/w44/guest/testbed -- python3'
#   wt48='/tmp/w44/venv/bin/python /tmp/docs/44-scripts/wt_run.py /tmp/w44/guest'
# Programs are looked up by name: ours runs "prog.py" in its workspace (-w), wt_run.py takes
# /testbed/prog.py; so a runner whose command contains "exec" gets the bare name.
set -euo pipefail
n=$1; shift
progs=${PROGS:-loop fib dict sieve jsonre numpy_mm}
labels=(); cmds=()
for r in "$@"; do labels+=("${r%%=*}"); cmds+=("${r#*=}"); done
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s' program; for l in "${labels[@]}"; do printf ' | %12s' "$l"; done; echo
for prog in $progs; do
    declare -A best=()
    for _ in $(seq "$n"); do
        for i in "${!cmds[@]}"; do
            c=${cmds[$i]}
            if [[ $c == *" exec "* ]]; then arg="$prog.py"; else arg="/testbed/$prog.py"; fi
            t=$($c "$arg" | sed -n 's/^T //p')
            [ -n "$t" ] || { echo "${labels[$i]}: $prog.py printed no time" >&2; exit 1; }
            cur=${best[$i]:-}
            if [ -z "$cur" ] || awk -v a="$t" -v b="$cur" 'BEGIN{exit !(a<b)}'; then best[$i]=$t; fi
        done
    done
    printf '%-10s' "$prog"; for i in "${!cmds[@]}"; do printf ' | %9.1f ms' "$(awk -v t="${best[$i]}" 'BEGIN{print t*1000}')"; done; echo
    unset best
done
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
