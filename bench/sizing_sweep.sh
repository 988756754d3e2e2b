#!/usr/bin/env bash
# The sizing sweep of docs/HARDENING.md: fixed filters (--capacity with
# --no-grow) and --memory budgets at 1/100, 1/10, 1/2, 1 and 2 times the
# right size for a file of DISTINCT distinct keys (and half as many
# repeats), each checked against the exact dedup. Every run must either lose
# no more than its planned rate allows, or exit 4 with a loss figure within
# 2x of the truth ("about N") or below it ("at least N"), or be refused
# before any work (exit 2) naming --allow-high-fpr. Prints one markdown row a
# run; exits 1 if any run broke that promise.
#
#   bench/sizing_sweep.sh GDEDUP DISTINCT [WORKDIR]
set -uo pipefail
gdedup=${1:?usage: sizing_sweep.sh GDEDUP DISTINCT [WORKDIR]}
distinct=${2:?usage: sizing_sweep.sh GDEDUP DISTINCT [WORKDIR]}
work=${3:-$(mktemp -d)}
mkdir -p "$work"

# DISTINCT new URLs, with a repeat of an earlier one after every second: a
# fixed seed, so every run sees the same file.
awk -v n="$distinct" 'BEGIN {
  srand(20261203)
  for (i = 1; i <= n; i++) {
    printf "https://site%d.example/page/%d?q=%d\n", i % 997, i, i * 7919 % 100003
    if (i % 2 == 0) {
      j = 1 + int(rand() * i)
      printf "https://site%d.example/page/%d?q=%d\n", j % 997, j, j * 7919 % 100003
    }
  }
}' >"$work/in.txt"
truth=$(sort -u "$work/in.txt" | wc -l)
right_bytes=$("$gdedup" plan --capacity "$truth" --json | sed -n 's/^  "bytes": \([0-9]*\),/\1/p')

broken=0
echo "| sizing | planned FPR | exit | kept | lost | reported | verdict |"
echo "|---|---|---|---|---|---|---|"
for ratio in 0.01 0.1 0.5 1 2; do
  capacity=$(awk -v t="$truth" -v r="$ratio" 'BEGIN { printf "%d", t * r }')
  memory=$(awk -v b="$right_bytes" -v r="$ratio" 'BEGIN { printf "%d", b * r }')
  for sizing in "--capacity $capacity --no-grow" "--memory $memory"; do
    # shellcheck disable=SC2086 # the sizing words are meant to split
    "$gdedup" dedup -q "$work/in.txt" -o "$work/out.txt" $sizing 2>"$work/err"
    status=$?
    err=$(tr '\n' ' ' <"$work/err")
    planned=$("$gdedup" plan ${sizing/--no-grow/} --capacity "$truth" --json 2>/dev/null |
              sed -n 's/^  "expected_fpr": \([^,]*\),\{0,1\}$/\1/p')
    [ "${sizing#--capacity}" != "$sizing" ] && planned=$("$gdedup" plan --capacity "$capacity" \
      --json | sed -n 's/^  "expected_fpr": \([^,]*\),\{0,1\}$/\1/p')
    kept=-; lost=-; reported=-; verdict=ok
    case $status in
      0|4)
        kept=$(wc -l <"$work/out.txt")
        lost=$((truth - kept))
        # The promise: a new key is lost at the planned rate; allow 3x its
        # mean and a few keys for chance.
        allowed=$(awk -v p="$planned" -v t="$truth" 'BEGIN { printf "%d", 3 * p * t + 10 }')
        figure=$(sed -n 's/.* and \(about\|at least\) \([0-9,]*\) unique records.*/\1 \2/p' \
                 <<<"$err" | tr -d ,)
        reported=${figure:--}
        if [ "$status" -eq 0 ]; then
          [ "$lost" -le "$allowed" ] || verdict="BROKEN: exit 0 lost $lost, allowed $allowed"
        else
          read -r how n <<<"$figure"
          case $how in
            about) [ $((2 * n)) -ge "$lost" ] && [ "$n" -le $((2 * lost)) ] ||
                     verdict="BROKEN: reported about $n, lost $lost" ;;
            at) n=${figure##* }
                [ "$n" -le "$lost" ] || verdict="BROKEN: reported at least $n, lost $lost" ;;
            *) verdict="BROKEN: exit 4 without a loss figure: $err" ;;
          esac
        fi
        ;;
      2)
        grep -qF -- "--allow-high-fpr" <<<"$err" || verdict="BROKEN: refused without advice: $err"
        [ -e "$work/out.txt" ] && verdict="BROKEN: refused but wrote an output"
        ;;
      *) verdict="BROKEN: exit $status: $err" ;;
    esac
    [ "$verdict" = ok ] || broken=1
    echo "| \`${sizing}\` | $planned | $status | $kept | $lost | $reported | $verdict |"
    rm -f "$work/out.txt"
  done
done
echo
echo "$truth distinct keys in $(wc -l <"$work/in.txt") records; right size $right_bytes bytes"
exit "$broken"
