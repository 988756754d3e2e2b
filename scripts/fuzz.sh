#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz, then runs each for SECONDS from its
# seed corpus. New inputs go to build-fuzz/corpus/<target> (the seeds in
# tests/fuzz/corpus are never modified); a finding is saved under
# build-fuzz/artifacts/<target>/ and makes the script fail.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 30 s, every target)
#
# Targets run one after another on one core; set GDEDUP_FUZZ_JOBS=N to run N
# at once. docs/HARDENING.md says how to reproduce and keep a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
bash scripts/install-deps.sh

build=${GDEDUP_FUZZ_BUILD_DIR:-build-fuzz}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DGDEDUP_FUZZ=ON -DGDEDUP_CUDA=OFF -DGDEDUP_BUILD_TESTS=OFF -DGDEDUP_BUILD_BENCH=OFF >/dev/null

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for f in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

run_one() {
  local target=$1 name=${1#fuzz_}
  local work="$build/corpus/$name" artifacts="$build/artifacts/$name"
  mkdir -p "$work" "$artifacts" "$build/logs"
  local log="$build/logs/$target.log"
  local status=0
  # One allocation of 1 GiB marks a leak or a size taken from damaged data,
  # except for the record reader's decoders, which a header may make take up
  # to kDecoderMemoryCeiling (io/decoder_source.h, 2 GiB: a zstd frame's
  # window, as zstd --long=31 writes; liblzma's memory limit for xz), plus
  # zstd's few hundred KiB of block buffers. Past it headers are refused.
  local malloc_limit=1024
  [ "$target" = fuzz_record_reader ] && malloc_limit=2100
  "$build/tests/fuzz/$target" -max_total_time="$seconds" -max_len=8192 -timeout=20 \
    -rss_limit_mb=2048 -malloc_limit_mb="$malloc_limit" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" "tests/fuzz/corpus/$name" >"$log" 2>&1 || status=$?
  # libFuzzer's closing statistics and its last coverage line.
  local stats
  stats=$(grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$log" |
          sed 's/^stat:://' | tr '\n' ' ')
  local last
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -E 's/^(#[0-9]+)[[:space:]]+[A-Z]+[[:space:]]+/\1 /')
  if [ $status -eq 0 ]; then
    echo "fuzz: $target ${seconds}s ok: $last | $stats"
  else
    echo "fuzz: $target FAILED (status $status); log $log, inputs in $artifacts/:" >&2
    grep -E 'ERROR|property violated|SUMMARY|Test unit written' "$log" | head -n 20 >&2 || true
  fi
  return $status
}

jobs=${GDEDUP_FUZZ_JOBS:-1}
failed=0
pids=()
for target in "${targets[@]}"; do
  run_one "$target" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
