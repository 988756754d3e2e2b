#!/usr/bin/env bash
# End-to-end benchmark of `gdedup dedup` on a generated dump of URLs
# (bench/gen_urls: 10M lines, about 40% duplicates, about 67 bytes a line) in
# the page cache, against `awk '!seen[$0]++'`, `LC_ALL=C sort -u` and the
# `bloom` CLI (Debian package golang-github-dcso-bloom-cli), with the
# page-cache read speed (cat, dd) and `wc -l` measured in the same run.
# `gdedup dedup --exact` (the exact set) runs beside the Bloom filter when
# this gdedup has it; with --peers, the exact dedups of DuckDB (SELECT
# DISTINCT, and the order kept by row_number() and QUALIFY), polars
# (unique(maintain_order=True)) and a Python set loop too
# (bench/dedup_peers.py).
#
# The same data also as 16 gzip shards and 16 zstd shards (the file cut into
# 16 runs of whole lines, in order), read by one gdedup run each, against the
# decoders alone (igzip, pigz, zstd: one process over the 16 files, and one
# process per core in parallel) and against `pigz -dc | gdedup`; and the 16
# shards joined into one file (a gzip file of 16 members, a zstd file of 16
# frames), which the parallel front end reads in parts. When `gdedup dedup
# --threads` sets the parallel front end's workers, the plain file, the
# shards and the joined files run at --threads 1, 2 and all cores (the
# thread sweep); otherwise the sweep is skipped, saying why.
#
# The same URLs as JSON Lines, each in a record of about 190 bytes in the
# shape of a crawl export ({"id":..,"status":..,"mime":..,"url":..,
# "length":..,"digest":..}): `gdedup --key json:url` against `--key whole`
# on the same bytes (the cost of the JSON parse) and against
# `jq -r .url | gdedup dedup` (the way without it), at the default threads
# and at --threads 1.
#
# Prints one table: tool, runs, seconds (median), records/s, MB/s of the input
# as read, GB/s of URL text, CPU time (user + system) per record, peak RSS
# (from /usr/bin/time -v), CPU%, ratio of its seconds to gdedup's and, for
# the sweep, its speed-up over the same input at --threads 1. Then the
# correctness checks: gdedup's output equals awk's (exact first-occurrence
# dedup) with a filter planned at --fpr 1e-7; at the benchmarked --fpr 1e-4
# the records lost to false positives are counted; gzip and zstd input, the
# shards, every thread count and every backend give the same output as plain.
# Exit status 1 if a check fails.
#
# Builds nothing: point BUILD at a build folder that has gdedup and
# bench/gen_urls (cmake --build BUILD --target gdedup_cli gen_urls).
#
# usage: bench/e2e.sh [--quick] [--runs N] [--no-compressed] [--no-others]
#                     [--no-shards] [--peers] [--backend NAME]... [--markdown]
#   --quick          1M lines instead of 10M (smoke test, about half a minute)
#   --runs N         runs of each tool whose first run takes under 10 s (default 3;
#                    the median is reported); slower tools run once
#   --no-compressed  skip the .gz and .zst inputs (the shards too)
#   --no-others      only gdedup, the read-speed references and the decoders
#   --no-shards      skip the 16-shard inputs
#   --peers          also DuckDB, polars and a Python set (about a minute more
#                    on 10M lines; pip install -r bench/python-requirements.txt)
#   --no-json        skip the JSON Lines rows
#   --backend NAME   gdedup's filter backend: cpu (default) or gpu; given twice
#                    (--backend cpu --backend gpu), every gdedup row runs on each
#   --markdown       the table as Markdown, ready for bench/RESULTS.md
# env: BUILD     build folder, absolute or relative to the repository (default build)
#      GDEDUP, GEN_URLS  the two programs, where they are not BUILD/gdedup and
#                BUILD/bench/gen_urls (a bundle from bench/build_gpu_bundle.sh)
#      DATA_DIR  where the generated files (and awk's reference output) are kept
#                between runs (default ${TMPDIR:-/tmp}/gdedup-e2e)
#      LINES     line count, overriding --quick (e.g. LINES=1e8)
#      SEED      generator seed (default 1)
#      THREADS   the sweep's --threads values (default "1 2 NPROC")
#      PYTHON    the Python that runs the --peers rows (default python3)
#      WORKER_MIB  front-end memory per worker in the peak RSS limit (default 48,
#                the model in bench/README.md)
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
shards=1
peers=0
json=1
markdown=0
backends=()
cheap_s=10   # a tool whose first run takes longer runs only once

die() { echo "e2e.sh: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --quick) lines=1000000 ;;
    --runs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive count"; runs=$2; shift ;;
    --no-compressed) compressed=0 ;;
    --no-others) others=0 ;;
    --no-shards) shards=0 ;;
    --peers) peers=1 ;;
    --no-json) json=0 ;;
    --backend) [[ ${2:-} =~ ^(cpu|gpu)$ ]] || die "--backend needs cpu or gpu"; backends+=("$2"); shift ;;
    --markdown) markdown=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
((${#backends[@]})) || backends=(cpu)
((compressed)) || shards=0
if [[ -n ${LINES:-} ]]; then
  lines=$(awk -v v="$LINES" 'BEGIN { printf "%.0f", v + 0 }')
  ((lines > 0)) || die "LINES=$LINES is not a line count"
fi

gdedup=${GDEDUP:-$build/gdedup}
gen=${GEN_URLS:-$build/bench/gen_urls}
# GNU time, the program (bash's `time` keyword gives no peak RSS).
timer=$(type -P time || true)
missing=()
[[ -x $gdedup ]] || missing+=("$gdedup not found: build it with cmake --build $build --target gdedup_cli")
[[ -x $gen ]] || missing+=("$gen not found: build it with cmake --build $build --target gen_urls")
[[ -n $timer ]] || missing+=("GNU time not found on PATH: apt-get install time")
if ((${#missing[@]})); then printf 'e2e.sh: %s\n' "${missing[@]}" >&2; exit 2; fi
have() { command -v "$1" >/dev/null 2>&1; }

mkdir -p "$data_dir" || die "cannot create $data_dir"
work=$(mktemp -d "$data_dir/run.XXXXXX")
trap 'rm -rf "$work" ${tmp:+"$tmp"}' EXIT

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
# The URLs in $1 as JSON Lines records in $2. gen_urls writes printable
# ASCII without '"' or '\': no URL needs escaping.
to_jsonl() {
  awk '{ printf "{\"id\":%d,\"status\":200,\"mime\":\"text/html\",\"lang\":\"en\"," \
                "\"url\":\"%s\",\"length\":%d,\"digest\":\"sha1:%05d%05d%05d%05d%05d%05d\"}\n",
                NR, $0, NR % 99991, NR % 12347, NR % 77777, NR % 31337, NR % 54321,
                NR % 99989, NR % 11111 }' "$1" > "$2"
}
export -f to_jsonl
jsonl=$data.jsonl
((json)) && make_once "$jsonl" "to_jsonl $(q "$data") $(q "$jsonl.tmp")"

# The 16 shards: the file cut into 16 runs of whole lines (GNU split), in
# order, each compressed by gzip -6 and zstd -3 on every core at once. Read
# in name order, they are the file's records in the file's order.
shard_dir=$data.16-shards
nproc=$(nproc)
if ((shards)) && [[ ! -d $shard_dir ]]; then
  echo "e2e.sh: making $shard_dir" >&2
  # A folder of this run's own, renamed into place when complete: a run cut
  # short or running beside another leaves no half-made shards under the name.
  tmp=$(mktemp -d "$shard_dir.tmp.XXXXXX") || die "cannot create a folder beside $shard_dir"
  split -n l/16 -d -a 2 "$data" "$tmp/" || { rm -rf "$tmp"; die "could not cut $data into 16 shards (needs GNU split)"; }
  compress='gzip -6 -c "$1" > "$1.gz"'
  have zstd && compress+=' && zstd -q -3 -c "$1" > "$1.zst"'
  printf '%s\0' "$tmp"/?? | xargs -0 -n 1 -P "$nproc" sh -c "$compress && rm \"\$1\"" sh ||
    { rm -rf "$tmp"; die "could not compress the shards in $tmp (a full disk?)"; }
  mv -T "$tmp" "$shard_dir" 2>/dev/null || rm -rf "$tmp"  # another run made them first
fi
shard_exts=()
if ((shards)); then
  shard_exts=(gz)
  [[ -f $shard_dir/00.zst ]] && shard_exts+=(zst)
fi
# shards_of EXT: the 16 paths, quoted for a bash command line.
shards_of() { echo "$(q "$shard_dir")/*.$1"; }
shard_bytes() { cat "$shard_dir"/*."$1" | wc -c; }
# The 16 shards joined into one file (`cat`): one gzip file of 16 members,
# one zstd file of 16 frames, which several workers read in parts.
joined_of() { echo "$data.16-members.$1"; }
for ext in "${shard_exts[@]}"; do
  make_once "$(joined_of "$ext")" "cat $(shards_of "$ext") > $(q "$(joined_of "$ext").tmp")"
done

bytes=$(stat -c %s "$data")
records=$(wc -l < "$data")
unique=$(wc -l < "$ref")
capacity=$records
# The first "bytes": the planned filter's (growth layers come after it).
filter_bytes=$("$gdedup" plan --capacity "$capacity" --fpr 1e-4 --json | sed -n 's/^ *"bytes": *\([0-9]*\).*/\1/p' | head -n 1)
[[ -n $filter_bytes ]] || die "could not read the filter size from gdedup plan --json"

# The thread sweep needs --threads to set the parallel front end's workers
# (which came with --filter-threads for the CPU backend's); before it,
# --threads set the CPU backend's threads, which the rows "gdedup --threads
# 1/2" below measure instead.
sweep=()
help=$("$gdedup" dedup --help 2>&1 || true)
if grep -q -- '--filter-threads' <<< "$help" ||
   grep -E -- '--threads' <<< "$help" | grep -qiE 'worker|front[- ]end|piece'; then
  for t in ${THREADS:-1 2 $nproc}; do
    [[ $t =~ ^[1-9][0-9]*$ ]] || die "THREADS holds $t, not a thread count"
    [[ " ${sweep[*]} " == *" $t "* ]] || sweep+=("$t")
  done
  sweep_note="thread sweep: --threads ${sweep[*]}"
else
  sweep_note="thread sweep skipped: this gdedup's --threads sets the CPU backend's threads, not front-end workers (gdedup dedup --help)"
fi
echo "e2e.sh: $sweep_note" >&2
worker_mib=${WORKER_MIB:-48}
# gdedup's exact mode: its rows and check once `gdedup dedup --exact` exists.
if grep -q -- '--exact' <<< "$help"; then
  exact=1
  exact_note="exact mode: gdedup dedup --exact"
else
  exact=0
  exact_note="exact mode skipped: this gdedup's dedup has no --exact (gdedup dedup --help)"
fi
echo "e2e.sh: $exact_note" >&2

# Warm the page cache.
for f in "$data" "$data.gz" "$data.zst" "$ref" "$shard_dir"/*; do [[ -f $f ]] && cat "$f" > /dev/null; done

# Table rows, filled by run_case, fields separated by $sep (labels hold '|'):
# label runs seconds rss_kib cpu_percent cpu_seconds bytes group workers
sep=$'\x1f'
rows=()
failures=()  # rows whose command failed
declare -A group_base  # group -> seconds of its --threads 1 row
# run_case LABEL MAX_RUNS INPUT_BYTES SETUP CMD [GROUP WORKERS]: runs CMD (a
# bash command line) under GNU time -v up to MAX_RUNS times (once if the
# first run takes cheap_s or more), running SETUP untimed before each; keeps
# the median seconds, and the peak RSS, CPU% and CPU seconds (user +
# system) of the median run. Rows of one GROUP are one input at several
# --threads WORKERS; the one with 1 worker is the group's base.
run_case() {
  local label=$1 max=$2 in_bytes=$3 setup=$4 cmd=$5 group=${6:-} workers=${7:-0}
  local results=() i t0 t1 secs rss cpu cpu_s
  for ((i = 1; i <= max; i++)); do
    [[ -n $setup ]] && bash -c "$setup"
    t0=$EPOCHREALTIME
    if ! "$timer" -v -o "$work/time.txt" bash -c "$cmd" 2> "$work/stderr.txt"; then
      # Reported with the checks (exit status 1); the other rows still run,
      # which matters where machine time is scarce (gpu_check.sh).
      echo "e2e.sh: failed: $cmd" >&2
      cat "$work/stderr.txt" "$work/time.txt" >&2
      failures+=("$label: FAILED ($(head -n 1 "$work/stderr.txt"))")
      return 0
    fi
    t1=$EPOCHREALTIME
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    rss=$(sed -n 's/^.*Maximum resident set size (kbytes): *//p' "$work/time.txt")
    cpu=$(sed -n 's/^.*Percent of CPU this job got: *\([0-9]*\)%.*/\1/p' "$work/time.txt")
    cpu_s=$(awk -F': *' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { printf "%.3f", s }' "$work/time.txt")
    results+=("$secs $rss ${cpu:-0} $cpu_s")
    echo "e2e.sh: $label run $i: $secs s, peak RSS $rss KiB, CPU ${cpu:-?}%, $cpu_s CPU s" >&2
    if ((i == 1)) && awk -v s="$secs" -v c="$cheap_s" 'BEGIN { exit !(s >= c) }'; then break; fi
  done
  local median
  median=$(printf '%s\n' "${results[@]}" | sort -n -k1,1 | awk '{ r[NR] = $0 } END { print r[int((NR + 1) / 2)] }')
  rows+=("$label$sep${#results[@]}$sep${median// /$sep}$sep$in_bytes$sep$group$sep$workers")
  if [[ -n $group ]] && ((workers == 1)); then group_base[$group]=${median%% *}; fi
}

gd_cmd() {  # gd_cmd BACKEND INPUTS [OPTIONS...]: the benchmarked dedup command line (INPUTS quoted)
  local backend=$1 inputs=$2; shift 2
  echo "$(q "$gdedup") dedup --backend $backend --capacity $capacity -o /dev/null -q${*:+ $*} $inputs"
}
gd_label() { [[ $1 == cpu ]] && echo "gdedup" || echo "gdedup --backend $1"; }
# The exact set plans no capacity: it grows as keys come.
exact_cmd() {  # exact_cmd BACKEND INPUTS: the benchmarked exact dedup (INPUTS quoted)
  echo "$(q "$gdedup") dedup --backend $1 --exact -o /dev/null -q $2"
}

echo "e2e.sh: load before: $(uptime)" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

run_case "cat > /dev/null (page-cache read)" 5 "$bytes" "" "cat $(q "$data") > /dev/null"
run_case "dd bs=1M of=/dev/null" 5 "$bytes" "" "dd if=$(q "$data") of=/dev/null bs=1M status=none"
run_case "wc -l" "$runs" "$bytes" "" "wc -l $(q "$data") > /dev/null"
base=
for b in "${backends[@]}"; do
  g=$(gd_label "$b")
  run_case "$g (default threads)" "$runs" "$bytes" "" "$(gd_cmd "$b" "$(q "$data")")"
  [[ -n $base || ${rows[-1]%%"$sep"*} != "$g (default threads)" ]] || base=${rows[-1]}
  # The exact set on the CPU; on a GPU once its backend has one.
  if ((exact)) && [[ $b == cpu ]]; then
    run_case "$g --exact" "$runs" "$bytes" "" "$(exact_cmd "$b" "$(q "$data")")"
  fi
  if ((${#sweep[@]})); then
    for t in "${sweep[@]}"; do
      run_case "$g --threads $t" "$runs" "$bytes" "" "$(gd_cmd "$b" "$(q "$data")" --threads "$t")" "$b plain" "$t"
    done
  elif [[ $b == cpu ]]; then
    run_case "$g --threads 1" "$runs" "$bytes" "" "$(gd_cmd "$b" "$(q "$data")" --threads 1)"
    run_case "$g --threads 2" "$runs" "$bytes" "" "$(gd_cmd "$b" "$(q "$data")" --threads 2)"
  fi
  if ((compressed)); then
    [[ -f $data.zst ]] && run_case "$g, .zst input" "$runs" "$(stat -c %s "$data.zst")" "" "$(gd_cmd "$b" "$(q "$data.zst")")"
    run_case "$g, .gz input" "$runs" "$(stat -c %s "$data.gz")" "" "$(gd_cmd "$b" "$(q "$data.gz")")"
  fi
  for ext in "${shard_exts[@]}"; do
    sb=$(shard_bytes "$ext")
    run_case "$g, 16 .$ext shards" "$runs" "$sb" "" "$(gd_cmd "$b" "$(shards_of "$ext")")"
    for t in "${sweep[@]}"; do
      run_case "$g, 16 .$ext shards, --threads $t" "$runs" "$sb" "" \
        "$(gd_cmd "$b" "$(shards_of "$ext")" --threads "$t")" "$b $ext" "$t"
    done
    for t in "${sweep[@]}"; do
      run_case "$g, one .$ext of 16 members, --threads $t" "$runs" "$sb" "" \
        "$(gd_cmd "$b" "$(q "$(joined_of "$ext")")" --threads "$t")" "$b joined $ext" "$t"
    done
  done
  if ((${#shard_exts[@]})) && have pigz; then
    run_case "pigz -dc 16 .gz shards | $g" "$runs" "$(shard_bytes gz)" "" "pigz -dc $(shards_of gz) | $(gd_cmd "$b" -)"
  fi
done
# JSON Lines: the key parsed out of each record, against the whole record
# as the key on the same bytes, and against jq taking the key out first.
if ((json)); then
  b=${backends[0]}
  g=$(gd_label "$b")
  jb=$(stat -c %s "$jsonl")
  for t in "" 1; do
    th=${t:+ --threads $t}
    run_case "$g --key whole$th, JSON Lines" "$runs" "$jb" "" \
      "$(gd_cmd "$b" "$(q "$jsonl")" ${t:+--threads $t})"
    run_case "$g --key json:url$th, JSON Lines" "$runs" "$jb" "" \
      "$(gd_cmd "$b" "$(q "$jsonl")" --key json:url ${t:+--threads $t})"
  done
  if have jq; then
    run_case "jq -r .url | $g, JSON Lines" 1 "$jb" "" "jq -r .url $(q "$jsonl") | $(gd_cmd "$b" -)"
  else
    echo "e2e.sh: jq not installed (apt-get install jq): its row skipped" >&2
  fi
fi
# The decoders alone: one process over the 16 shards, and one process a
# shard on every core at once (the floor for a parallel front end).
for ext in "${shard_exts[@]}"; do
  sb=$(shard_bytes "$ext")
  if [[ $ext == gz ]]; then decoders=(igzip pigz gzip); else decoders=(zstd); fi
  for d in "${decoders[@]}"; do
    have "$d" || continue
    run_case "$d -dc 16 .$ext shards" "$runs" "$sb" "" "$d -dc $(shards_of "$ext") > /dev/null"
    run_case "$d -dc 16 .$ext shards, $nproc at once" "$runs" "$sb" "" \
      "printf '%s\\0' $(shards_of "$ext") | xargs -0 -n 1 -P $nproc $d -dc > /dev/null"
    [[ $d == pigz ]] && break  # gzip is pigz's decoder: one of the two is enough
  done
done
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
if ((peers)); then
  python=${PYTHON:-python3}
  peer() { echo "$(q "$python") $(q "$root/bench/dedup_peers.py") $1 $(q "$data")"; }
  install="pip install -r bench/python-requirements.txt"
  if ! have "$python"; then
    echo "e2e.sh: $python not found (set PYTHON): DuckDB, polars and Python set skipped" >&2
  else
    if "$python" -c 'import duckdb' 2>/dev/null; then
      run_case "DuckDB SELECT DISTINCT (order lost)" "$runs" "$bytes" "" "$(peer duckdb-distinct)"
      run_case "DuckDB row_number() QUALIFY (order kept)" "$runs" "$bytes" "" "$(peer duckdb-first)"
    else
      echo "e2e.sh: duckdb not installed for $python ($install): skipped" >&2
    fi
    if "$python" -c 'import polars' 2>/dev/null; then
      run_case "polars unique(maintain_order=True)" "$runs" "$bytes" "" "$(peer polars-unique)"
    else
      echo "e2e.sh: polars not installed for $python ($install): skipped" >&2
    fi
    run_case "Python set loop" "$runs" "$bytes" "" "$(peer python-set)"
  fi
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "e2e.sh: load after: $(uptime)" >&2

# Correctness, in the same run.
status=0
checks=("${failures[@]}")
((${#failures[@]} == 0)) || status=1
"$gdedup" dedup --backend cpu --capacity "$capacity" --fpr 1e-7 -q -o "$work/gd7" "$data"
if cmp -s "$ref" "$work/gd7"; then
  checks+=("--fpr 1e-7: output identical to awk's ($unique records)")
else
  lost=$(diff "$ref" "$work/gd7" | grep -c '^<' || true)
  extra=$(diff "$ref" "$work/gd7" | grep -c '^>' || true)
  checks+=("--fpr 1e-7: output DIFFERS from awk's: $lost records missing (false positives), $extra records not in awk's output")
  ((extra == 0)) || status=1
fi
if ((exact)); then
  if ! "$gdedup" dedup --backend cpu --exact -q -o "$work/gdx" "$data"; then
    checks+=("--exact: gdedup FAILED"); status=1
  elif cmp -s "$ref" "$work/gdx"; then
    checks+=("--exact: output identical to awk's ($unique records)")
  else
    checks+=("--exact: output DIFFERS from awk's"); status=1
  fi
fi
"$gdedup" dedup --backend cpu --capacity "$capacity" -q -o "$work/gd4" "$data"
kept4=$(wc -l < "$work/gd4")
extra=$(diff "$ref" "$work/gd4" | grep -c '^>' || true)
lost=$((unique - kept4 + extra))
checks+=("--fpr 1e-4 (benchmarked): $kept4 records kept, $lost of $unique unique records lost to false positives ($(awk -v l="$lost" -v u="$unique" 'BEGIN { printf "%.2e", l / u }')), $extra records not in awk's output")
((extra == 0)) || status=1
# same_output WHAT BACKEND INPUTS [OPTIONS...]: the run's output against the
# plain cpu run's (gd4).
same_output() {
  local what=$1 b=$2 inputs=$3; shift 3
  if ! bash -c "$(q "$gdedup") dedup --backend $b --capacity $capacity -q -o $(q "$work/out")${*:+ $*} $inputs"; then
    checks+=("$what: gdedup FAILED"); status=1
  elif cmp -s "$work/gd4" "$work/out"; then
    checks+=("$what: output identical to plain input's")
  else
    checks+=("$what: output DIFFERS from plain input's"); status=1
  fi
}
if ((compressed)); then
  for ext in zst gz; do
    [[ -f $data.$ext ]] && same_output ".$ext input" cpu "$(q "$data.$ext")"
  done
fi
if ((${#sweep[@]})); then
  for t in "${sweep[@]}"; do same_output "--threads $t" cpu "$(q "$data")" --threads "$t"; done
else
  for t in 1 2; do same_output "--threads $t (backend threads)" cpu "$(q "$data")" --threads "$t"; done
fi
for ext in "${shard_exts[@]}"; do
  same_output "16 .$ext shards" cpu "$(shards_of "$ext")"
  ((${#sweep[@]})) && same_output "16 .$ext shards, --threads ${sweep[-1]}" cpu "$(shards_of "$ext")" --threads "${sweep[-1]}"
  ((${#sweep[@]})) && same_output "one .$ext of 16 members, --threads ${sweep[-1]}" cpu "$(q "$(joined_of "$ext")")" --threads "${sweep[-1]}"
done
for b in "${backends[@]}"; do
  [[ $b == cpu ]] && continue
  same_output "--backend $b" "$b" "$(q "$data")"
  for ext in "${shard_exts[@]}"; do same_output "--backend $b, 16 .$ext shards" "$b" "$(shards_of "$ext")"; done
done

if ((json)); then
  # The URL of every record kept, in order, is awk's output on the URLs.
  "$gdedup" dedup --backend cpu --capacity "$capacity" --fpr 1e-7 -q --key json:url \
    -o "$work/json7" "$jsonl"
  if sed 's/.*"url":"\([^"]*\)".*/\1/' "$work/json7" | cmp -s "$ref" -; then
    checks+=("--key json:url, --fpr 1e-7: the URLs of the records kept are awk's output")
  else
    checks+=("--key json:url, --fpr 1e-7: the URLs of the records kept DIFFER from awk's output")
    status=1
  fi
fi

# The report.
[[ -n $base ]] || base=${rows[0]}  # no gdedup row ran: relative to cat
base_s=$(cut -d"$sep" -f3 <<< "$base")
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo
echo "gdedup end-to-end benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $nproc CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo); load average before $load_before, after $load_after"
echo "gdedup: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown), $gdedup"
echo "input: $data: $records records, $bytes bytes ($(awk -v b="$bytes" -v r="$records" 'BEGIN { printf "%.1f", b / r }') bytes a record), $unique unique ($(awk -v u="$unique" -v r="$records" 'BEGIN { printf "%.1f", 100 * (1 - u / r) }')% duplicates), in the page cache"
((${#shard_exts[@]})) && echo "shards: $shard_dir: the same lines in 16 files, gzip -6 and zstd -3"
echo "filter: --capacity $capacity --fpr 1e-4 -> $filter_bytes bytes ($(mib "$filter_bytes") MiB); peak RSS limit filter + 256 MiB (+ $worker_mib MiB a front-end worker) = $(mib $((filter_bytes + 268435456))) MiB with none"
[[ -n ${bloom_bytes:-} ]] && echo "bloom filter file: $bloom_bytes bytes ($(mib "$bloom_bytes") MiB)"
echo "command: $(gd_cmd "${backends[0]}" "$(q "$data")")"
echo "$sweep_note"
echo "$exact_note"
echo
# One format for both tables: fixed columns, or Markdown for RESULTS.md.
if ((markdown)); then
  head_fmt='| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n'
  row_fmt='| %s | %d | %.3f | %.2fM | %.0f | %.2f | %.0f | %.1f MiB | %d%% | %.2fx | %s |\n'
  printf "$head_fmt" tool runs seconds records/s "MB/s in" "text GB/s" "CPU ns/rec" "peak RSS" "CPU%" "vs gdedup" "vs 1 thread"
  printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
else
  head_fmt='%-44s %4s %8s %9s %7s %9s %10s %10s %5s %9s %11s\n'
  row_fmt='%-44s %4d %8.3f %8.2fM %7.0f %9.2f %10.0f %6.1f MiB %4d%% %8.2fx %11s\n'
  printf "$head_fmt" tool runs seconds records/s "MB/s in" "text GB/s" "CPU ns/rec" "peak RSS" "CPU%" "vs gdedup" "vs 1 thread"
  printf "$head_fmt" ---- ---- ------- --------- ------- --------- ---------- -------- ---- --------- -----------
fi
for row in "${rows[@]}"; do
  IFS=$sep read -r label n secs rss cpu cpu_s in_bytes group workers <<< "$row"
  speedup=""
  if [[ -n $group && -n ${group_base[$group]:-} ]]; then
    speedup=$(awk -v b="${group_base[$group]}" -v s="$secs" 'BEGIN { printf "%.2fx", b / s }')
  fi
  awk -v f="$row_fmt" -v l="$label" -v n="$n" -v s="$secs" -v r="$records" -v b="$in_bytes" -v t="$bytes" -v rss="$rss" \
    -v cpu="$cpu" -v c="$cpu_s" -v base="$base_s" -v up="$speedup" -v md="$markdown" \
    'BEGIN { if (md) gsub(/\|/, "\\|", l)
             printf f, l, n, s, r / s / 1e6, b / s / 1e6, t / s / 1e9, c / r * 1e9, rss / 1024, cpu, s / base, up }'
done
echo "(MB/s in: of the input as read, compressed bytes for .gz/.zst. text GB/s: of the uncompressed URL text. CPU ns/rec: user + system time per record. vs gdedup: seconds / seconds of $(gd_label "${backends[0]}") (default threads). vs 1 thread: the same input's --threads 1 seconds / these.)"
echo
read_s=$(cut -d"$sep" -f3 <<< "${rows[0]}")
# JSON Lines: json:url over whole on the same bytes, and jq's way over it.
row_s() {  # row_s LABEL: the seconds of the row of that label, if it ran
  local r
  for r in "${rows[@]}"; do
    if [[ ${r%%"$sep"*} == "$1" ]]; then cut -d"$sep" -f3 <<< "$r"; fi
  done
}
if ((json)); then
  g=$(gd_label "${backends[0]}")
  for t in "" " --threads 1"; do
    whole_s=$(row_s "$g --key whole$t, JSON Lines")
    json_s=$(row_s "$g --key json:url$t, JSON Lines")
    [[ -z $whole_s || -z $json_s ]] ||
      awk -v w="$whole_s" -v j="$json_s" -v b="$(stat -c %s "$jsonl")" -v t="$t" \
        'BEGIN { printf "JSON Lines%s: --key json:url %.2f GB/s, %.2fx the speed of " \
                        "--key whole (%.2f GB/s)\n", t, b / j / 1e9, w / j, b / w / 1e9 }'
  done
  jq_s=$(row_s "jq -r .url | $g, JSON Lines")
  json_s=$(row_s "$g --key json:url, JSON Lines")
  [[ -z $jq_s || -z $json_s ]] || awk -v q="$jq_s" -v j="$json_s" \
    'BEGIN { printf "JSON Lines: --key json:url runs %.1fx the speed of " \
                    "jq -r .url | gdedup dedup\n", q / j }'
fi
awk -v r="$read_s" -v g="$base_s" -v b="$bytes" \
  'BEGIN { printf "page-cache read (cat): %.2f GB/s; gdedup: %.2f GB/s, %.1f%% of the read speed (%.1fx the read time)\n", b / r / 1e9, b / g / 1e9, 100 * r / g, g / r }'
for row in "${rows[@]}"; do
  IFS=$sep read -r label n secs rss cpu cpu_s in_bytes group workers <<< "$row"
  # The limit is the host's: a GPU backend's filter lives on the device, and
  # its pinned batch buffers and the CUDA runtime are counted apart.
  [[ $label == gdedup* && $label != *"--backend gpu"* && $label != *--exact* ]] || continue
  limit=$((filter_bytes + 268435456 + workers * worker_mib * 1048576))
  if ((rss * 1024 > limit)); then
    echo "peak RSS: $label: $(mib $((rss * 1024))) MiB is OVER filter + 256 MiB + $workers x $worker_mib MiB = $(mib "$limit") MiB"
  fi
done
# Exact mode's goals: peak RSS at most 12 bytes a distinct key
# plus 256 MiB, and at least 0.7x the Bloom filter's rate.
for row in "${rows[@]}"; do
  IFS=$sep read -r label n secs rss cpu cpu_s in_bytes group workers <<< "$row"
  [[ $label == *--exact ]] || continue
  limit=$((12 * unique + 268435456))
  awk -v l="$label" -v r="$rss" -v lim="$limit" -v s="$secs" -v b="$base_s" \
    'BEGIN { printf "%s: peak RSS %.1f MiB (%s 12 bytes a distinct key + 256 MiB = %.1f MiB);",
                    l, r / 1024, (r * 1024 > lim) ? "OVER" : "within", lim / 1048576
             printf " %.2fx the Bloom filter rate (goal 0.7x)\n", b / s }'
done
echo
echo "checks:"
printf '  %s\n' "${checks[@]}"
exit $status
