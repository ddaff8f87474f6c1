#!/usr/bin/env bash
# Like ab_guest.sh, but robust to a busy machine: besides the program's own wall time ("T"),
# each run's process CPU time (user+sys from wait4's rusage, cpu_of.py) is taken, and the CPU time of an
# empty program (empty.py) run by the same runner is subtracted (start-up, module load).
# Best (lowest) of N for each, runners alternated.
#   ab_cpu.sh N label=cmd...      (cmd as in ab_guest.sh)
set -euo pipefail
n=$1; shift
progs=${PROGS:-empty loop fib dict sieve jsonre numpy_mm}
labels=(); cmds=()
for r in "$@"; do labels+=("${r%%=*}"); cmds+=("${r#*=}"); done
tmp=$(mktemp)
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s' program; for l in "${labels[@]}"; do printf ' | %22s' "$l (T / cpu-empty)"; done; echo
declare -A base
for prog in $progs; do
    declare -A bt=() bc=()
    for _ in $(seq "$n"); do
        for i in "${!cmds[@]}"; do
            c=${cmds[$i]}
            if [[ $c == *" exec "* ]]; then arg="$prog.py"; else arg="/testbed/$prog.py"; fi
            out=$(python3 "$(dirname "$0")/cpu_of.py" "$tmp" $c "$arg")
            t=$(sed -n 's/^T //p' <<<"$out"); cpu=$(awk '/^CPU/{print $2}' "$tmp")
            [ -n "$t" ] || { echo "${labels[$i]}: $prog.py printed no time" >&2; exit 1; }
            bt[$i]=$(awk -v a="$t" -v c="${bt[$i]:-9e9}" 'BEGIN{print (a<c)?a:c}')
            bc[$i]=$(awk -v a="$cpu" -v c="${bc[$i]:-9e9}" 'BEGIN{print (a<c)?a:c}')
        done
    done
    printf '%-9s' "$prog"
    for i in "${!cmds[@]}"; do
        if [ "$prog" = empty ]; then
            base[$i]=${bc[$i]}
            printf ' | %20s' "base cpu $(awk -v c="${bc[$i]}" 'BEGIN{printf "%.0f", c*1000}') ms"
            continue
        fi
        printf ' | %8.1f / %8.1f ms' "$(awk -v t="${bt[$i]}" 'BEGIN{print t*1000}')" \
            "$(awk -v c="${bc[$i]}" -v b="${base[$i]:-0}" 'BEGIN{print (c-b)*1000}')"
    done; echo
    unset bt bc
done
rm -f "$tmp"
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
