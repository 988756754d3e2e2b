#!/usr/bin/env bash
# End-to-end benchmark of `gdedup dedup --backend cpu` on a generated dump of
# URLs (bench/gen_urls: 10M lines, about 40% duplicates, about 67 bytes a
# line) in the page cache, against `awk '!seen[$0]++'`, `LC_ALL=C sort -u` and
# the `bloom` CLI (Debian package golang-github-dcso-bloom-cli), with the
# page-cache read speed (cat, dd) and `wc -l` measured in the same run.
#
# Prints one table: tool, runs, seconds (median), records/s, MB/s, peak RSS
# (from /usr/bin/time -v), CPU%, ratio of its seconds to gdedup's. Then the
# correctness checks: gdedup's output equals awk's (exact first-occurrence
# dedup) with a filter planned at --fpr 1e-7; at the benchmarked --fpr 1e-4
# the records lost to false positives are counted; gzip and zstd input give
# the same output as plain. Exit status 1 if a check fails.
#
# Builds nothing: point BUILD at a build folder that has gdedup and
# bench/gen_urls (cmake --build BUILD --target gdedup_cli gen_urls).
#
# usage: bench/e2e.sh [--quick] [--runs N] [--no-compressed] [--no-others]
#   --quick          1M lines instead of 10M (smoke test, about half a minute)
#   --runs N         runs of each tool whose first run takes under 10 s (default 3;
#                    the median is reported); slower tools run once
#   --no-compressed  skip the .gz and .zst inputs
#   --no-others      only gdedup and the read-speed references
# env: BUILD     build folder, absolute or relative to the repository (default build)
#      DATA_DIR  where the generated files (and awk's reference output) are kept
#                between runs (default ${TMPDIR:-/tmp}/gdedup-e2e)
#      LINES     line count, overriding --quick (e.g. LINES=1e8)
#      SEED      generator seed (default 1)
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-build}
[[ $build = /* ]] || build=$root/$build
data_dir=${DATA_DIR:-${TMPDIR:-/tmp}/gdedup-e2e}
seed=${SEED:-1}
lines=10000000
runs=3
compressed=1
others=1
cheap_s=10   # a tool whose first run takes longer runs only once

die() { echo "e2e.sh: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --quick) lines=1000000 ;;
    --runs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive count"; runs=$2; shift ;;
    --no-compressed) compressed=0 ;;
    --no-others) others=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
if [[ -n ${LINES:-} ]]; then
  lines=$(awk -v v="$LINES" 'BEGIN { printf "%.0f", v + 0 }')
  ((lines > 0)) || die "LINES=$LINES is not a line count"
fi

gdedup=$build/gdedup
gen=$build/bench/gen_urls
missing=()
[[ -x $gdedup ]] || missing+=("$gdedup not found: build it with cmake --build $build --target gdedup_cli")
[[ -x $gen ]] || missing+=("$gen not found: build it with cmake --build $build --target gen_urls")
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time not found: apt-get install time")
if ((${#missing[@]})); then printf 'e2e.sh: %s\n' "${missing[@]}" >&2; exit 2; fi
have() { command -v "$1" >/dev/null 2>&1; }

mkdir -p "$data_dir" || die "cannot create $data_dir"
work=$(mktemp -d "$data_dir/run.XXXXXX")
trap 'rm -rf "$work"' EXIT

q() { printf '%q' "$1"; }
# Makes $1 with the command in $2 (whose output goes to "$1.tmp") unless it exists.
make_once() {
  local path=$1 cmd=$2
  [[ -s $path ]] && return 0
  echo "e2e.sh: making $path" >&2
  bash -c "$cmd" || { rm -f "$path.tmp"; die "could not make $path"; }
  mv "$path.tmp" "$path"
}

data=$data_dir/urls-$lines-s$seed.txt
make_once "$data" "$(q "$gen") -q -n $lines -s $seed -o $(q "$data.tmp")"
if ((compressed)); then
  if have pigz; then gz="pigz -p 2"; else gz="gzip"; fi
  have zstd && make_once "$data.zst" "zstd -q -3 -T2 -c $(q "$data") > $(q "$data.zst.tmp")"
  make_once "$data.gz" "$gz -6 -c $(q "$data") > $(q "$data.gz.tmp")"
fi
ref=$data.awk-unique
make_once "$ref" "awk '!seen[\$0]++' $(q "$data") > $(q "$ref.tmp")"

bytes=$(stat -c %s "$data")
records=$(wc -l < "$data")
unique=$(wc -l < "$ref")
capacity=$records
filter_bytes=$("$gdedup" plan --capacity "$capacity" --fpr 1e-4 --json | sed -n 's/^ *"bytes": *\([0-9]*\).*/\1/p')
[[ -n $filter_bytes ]] || die "could not read the filter size from gdedup plan --json"

# Warm the page cache.
for f in "$data" "$data.gz" "$data.zst" "$ref"; do [[ -f $f ]] && cat "$f" > /dev/null; done

# Table rows, filled by run_case: label|runs|seconds|rss_kib|cpu_percent|bytes
rows=()
# run_case LABEL MAX_RUNS INPUT_BYTES SETUP CMD: runs CMD (a bash command line)
# under /usr/bin/time -v up to MAX_RUNS times (once if the first run takes
# cheap_s or more), running SETUP untimed before each; keeps the median
# seconds, and the peak RSS and CPU% of the median run.
run_case() {
  local label=$1 max=$2 in_bytes=$3 setup=$4 cmd=$5
  local results=() i t0 t1 secs rss cpu
  for ((i = 1; i <= max; i++)); do
    [[ -n $setup ]] && bash -c "$setup"
    t0=$EPOCHREALTIME
    if ! /usr/bin/time -v -o "$work/time.txt" bash -c "$cmd" 2> "$work/stderr.txt"; then
      echo "e2e.sh: failed: $cmd" >&2
      cat "$work/stderr.txt" "$work/time.txt" >&2
      exit 1
    fi
    t1=$EPOCHREALTIME
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    rss=$(sed -n 's/^.*Maximum resident set size (kbytes): *//p' "$work/time.txt")
    cpu=$(sed -n 's/^.*Percent of CPU this job got: *\([0-9]*\)%.*/\1/p' "$work/time.txt")
    results+=("$secs $rss ${cpu:-0}")
    echo "e2e.sh: $label run $i: $secs s, peak RSS $rss KiB, CPU ${cpu:-?}%" >&2
    if ((i == 1)) && awk -v s="$secs" -v c="$cheap_s" 'BEGIN { exit !(s >= c) }'; then break; fi
  done
  local median
  median=$(printf '%s\n' "${results[@]}" | sort -n -k1,1 | awk '{ r[NR] = $0 } END { print r[int((NR + 1) / 2)] }')
  rows+=("$label|${#results[@]}|${median// /|}|$in_bytes")
}

gd_cmd() {  # gd_cmd INPUT [OPTIONS...]: the benchmarked dedup command line
  local input=$1; shift
  echo "$(q "$gdedup") dedup --backend cpu --capacity $capacity -o /dev/null -q${*:+ $*} $(q "$input")"
}

echo "e2e.sh: load before: $(uptime)" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

run_case "cat > /dev/null (page-cache read)" 5 "$bytes" "" "cat $(q "$data") > /dev/null"
run_case "dd bs=1M of=/dev/null" 5 "$bytes" "" "dd if=$(q "$data") of=/dev/null bs=1M status=none"
run_case "wc -l" "$runs" "$bytes" "" "wc -l $(q "$data") > /dev/null"
run_case "gdedup (default threads)" "$runs" "$bytes" "" "$(gd_cmd "$data")"
base=${rows[-1]}
run_case "gdedup --threads 1" "$runs" "$bytes" "" "$(gd_cmd "$data" --threads 1)"
run_case "gdedup --threads 2" "$runs" "$bytes" "" "$(gd_cmd "$data" --threads 2)"
if ((compressed)); then
  [[ -f $data.zst ]] && run_case "gdedup, .zst input" "$runs" "$(stat -c %s "$data.zst")" "" "$(gd_cmd "$data.zst")"
  run_case "gdedup, .gz input" "$runs" "$(stat -c %s "$data.gz")" "" "$(gd_cmd "$data.gz")"
fi
if ((others)); then
  run_case "awk '!seen[\$0]++' ($(readlink -f "$(command -v awk)" | xargs basename))" "$runs" "$bytes" "" \
    "awk '!seen[\$0]++' $(q "$data") > /dev/null"
  run_case "LC_ALL=C sort -u" "$runs" "$bytes" "" "LC_ALL=C sort -u $(q "$data") > /dev/null"
  if have bloom; then
    bf=$work/urls.bloom
    run_case "bloom insert (-p 1e-4 -n $capacity)" "$runs" "$bytes" \
      "rm -f $(q "$bf") && bloom create -p 0.0001 -n $capacity $(q "$bf")" "bloom insert $(q "$bf") < $(q "$data")"
    run_case "bloom check" "$runs" "$bytes" "" "bloom check $(q "$bf") < $(q "$data") > /dev/null"
    bloom_bytes=$(stat -c %s "$bf")
  else
    echo "e2e.sh: bloom not installed (apt-get install golang-github-dcso-bloom-cli): skipped" >&2
  fi
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "e2e.sh: load after: $(uptime)" >&2

# Correctness, in the same run.
status=0
checks=()
"$gdedup" dedup --backend cpu --capacity "$capacity" --fpr 1e-7 -q -o "$work/gd7" "$data"
if cmp -s "$ref" "$work/gd7"; then
  checks+=("--fpr 1e-7: output identical to awk's ($unique records)")
else
  lost=$(diff "$ref" "$work/gd7" | grep -c '^<' || true)
  extra=$(diff "$ref" "$work/gd7" | grep -c '^>' || true)
  checks+=("--fpr 1e-7: output DIFFERS from awk's: $lost records missing (false positives), $extra records not in awk's output")
  ((extra == 0)) || status=1
fi
"$gdedup" dedup --backend cpu --capacity "$capacity" -q -o "$work/gd4" "$data"
kept4=$(wc -l < "$work/gd4")
extra=$(diff "$ref" "$work/gd4" | grep -c '^>' || true)
lost=$((unique - kept4 + extra))
checks+=("--fpr 1e-4 (benchmarked): $kept4 records kept, $lost of $unique unique records lost to false positives ($(awk -v l="$lost" -v u="$unique" 'BEGIN { printf "%.2e", l / u }')), $extra records not in awk's output")
((extra == 0)) || status=1
if ((compressed)); then
  for ext in zst gz; do
    [[ -f $data.$ext ]] || continue
    "$gdedup" dedup --backend cpu --capacity "$capacity" -q -o "$work/gd4.$ext" "$data.$ext"
    if cmp -s "$work/gd4" "$work/gd4.$ext"; then
      checks+=(".$ext input: output identical to plain input's")
    else
      checks+=(".$ext input: output DIFFERS from plain input's"); status=1
    fi
  done
fi
for t in 1 2; do
  "$gdedup" dedup --backend cpu --capacity "$capacity" --threads $t -q -o "$work/gd4.t$t" "$data"
  if cmp -s "$work/gd4" "$work/gd4.t$t"; then
    checks+=("--threads $t: output identical to the default's")
  else
    checks+=("--threads $t: output DIFFERS from the default's"); status=1
  fi
done

# The report.
base_s=$(cut -d'|' -f3 <<< "$base")
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo
echo "gdedup end-to-end benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo); load average before $load_before, after $load_after"
echo "gdedup: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown), $gdedup"
echo "input: $data: $records records, $bytes bytes ($(awk -v b="$bytes" -v r="$records" 'BEGIN { printf "%.1f", b / r }') bytes a record), $unique unique ($(awk -v u="$unique" -v r="$records" 'BEGIN { printf "%.1f", 100 * (1 - u / r) }')% duplicates), in the page cache"
echo "filter: --capacity $capacity --fpr 1e-4 -> $filter_bytes bytes ($(mib "$filter_bytes") MiB); peak RSS limit filter + 256 MiB = $(mib $((filter_bytes + 268435456))) MiB"
[[ -n ${bloom_bytes:-} ]] && echo "bloom filter file: $bloom_bytes bytes ($(mib "$bloom_bytes") MiB)"
echo "command: $(gd_cmd "$data")"
echo
printf '%-40s %4s %9s %12s %9s %10s %5s %9s\n' "tool" "runs" "seconds" "records/s" "MB/s" "peak RSS" "CPU%" "vs gdedup"
printf '%-40s %4s %9s %12s %9s %10s %5s %9s\n' "----" "----" "-------" "---------" "----" "--------" "----" "---------"
for row in "${rows[@]}"; do
  IFS='|' read -r label n secs rss cpu in_bytes <<< "$row"
  awk -v l="$label" -v n="$n" -v s="$secs" -v r="$records" -v b="$in_bytes" -v rss="$rss" -v cpu="$cpu" -v base="$base_s" \
    'BEGIN { printf "%-40s %4d %9.3f %12.0f %9.0f %6.1f MiB %4d%% %8.2fx\n", l, n, s, r / s, b / s / 1e6, rss / 1024, cpu, s / base }'
done
echo "(MB/s is of the input as read: compressed bytes for .gz/.zst. vs gdedup: seconds / seconds of gdedup (default threads).)"
echo
read_s=$(cut -d'|' -f3 <<< "${rows[0]}")
awk -v r="$read_s" -v g="$base_s" -v b="$bytes" \
  'BEGIN { printf "page-cache read (cat): %.2f GB/s; gdedup: %.2f GB/s, %.1f%% of the read speed (%.1fx the read time)\n", b / r / 1e9, b / g / 1e9, 100 * r / g, g / r }'
for row in "${rows[@]}"; do
  IFS='|' read -r label n secs rss cpu in_bytes <<< "$row"
  [[ $label == gdedup* ]] || continue
  if ((rss * 1024 > filter_bytes + 268435456)); then
    echo "peak RSS: $label: $(mib $((rss * 1024))) MiB is OVER filter + 256 MiB"
  fi
done
echo
echo "checks:"
printf '  %s\n' "${checks[@]}"
exit $status
