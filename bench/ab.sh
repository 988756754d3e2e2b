#!/usr/bin/env bash
# Side-by-side timing of command variants on one input: each round runs
# every variant once, in turn, so that a busy or quiet spell of a shared
# machine falls on all of them alike; prints each variant's medians of
# wall seconds, CPU seconds (user + system) and peak RSS.
#
# usage: INPUT=urls.txt [ROUNDS=9] bench/ab.sh 'CMD A' 'CMD B' ...
# Each CMD is run as `CMD "$INPUT" -o /dev/null`, e.g.
#   INPUT=/tmp/gdedup-e2e/urls-10000000-s1.txt bench/ab.sh \
#     'old/gdedup dedup -q --capacity 10M' 'build/gdedup dedup -q --capacity 10M'
# Needs GNU time (package `time`).
set -euo pipefail
: "${INPUT:?set INPUT to the input file}"
rounds=${ROUNDS:-9}
[ $# -ge 1 ] || { echo "usage: INPUT=FILE bench/ab.sh 'CMD' ['CMD' ...]" >&2; exit 2; }
declare -A wall cpu rss
for ((r = 0; r < rounds; r++)); do
  for v in "$@"; do
    read -r e u s m < <({ /usr/bin/time -f "%e %U %S %M" bash -c "$v \"\$1\" -o /dev/null" _ "$INPUT"; } 2>&1 | tail -1)
    wall[$v]+="$e "
    cpu[$v]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
    rss[$v]+="$m "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for v in "$@"; do
  printf '%s\n  wall %s s, CPU %s s, peak RSS %s KiB (medians of %d)\n' "$v" \
    "$(median <<<"${wall[$v]}")" "$(median <<<"${cpu[$v]}")" "$(median <<<"${rss[$v]}")" "$rounds"
done
