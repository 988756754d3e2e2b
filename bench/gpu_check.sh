#!/usr/bin/env bash
# Runs the carried GPU tests and benchmarks on a machine with an NVIDIA GPU
# and the CUDA driver, from a bundle made by bench/build_gpu_bundle.sh. Needs
# nothing else of ours installed there. Budget: about 1 minute of tests and
# 2 to 3 minutes of benchmarks on an H200; each binary is cut off at 4
# minutes.
#
# usage: bash bench/gpu_check.sh [BUNDLE]     (default: build-gpu in the repo)
# env:   OUT         folder for the logs (default: BUNDLE/logs)
#        MIN_TIME    --benchmark_min_time in seconds (default 0.2)
# Exit status: 0 all passed, 1 a test or benchmark failed, 2 something missing.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=${1:-$root/build-gpu}
# Absolute, so LD_LIBRARY_PATH holds wherever the binaries look from.
[ -d "$bundle" ] && bundle=$(cd "$bundle" && pwd)
out=${OUT:-$bundle/logs}
min_time=${MIN_TIME:-0.2}
limit=240

mkdir -p "$out" || { echo "gpu_check.sh: cannot create $out" >&2; exit 2; }
log=$out/gpu_check.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }

# Everything missing is reported at once, then the script stops.
missing=()
if ! command -v nvidia-smi >/dev/null 2>&1; then
  missing+=("nvidia-smi is not on PATH: this machine has no NVIDIA driver, or it is not installed where PATH finds it.")
fi
if [ ! -d "$bundle/bin" ]; then
  missing+=("$bundle/bin does not exist: run bench/build_gpu_bundle.sh on the build machine and carry its folder (build-gpu) here.")
fi
shopt -s nullglob
tests=("$bundle"/bin/gpu_*_test)
benches=("$bundle"/bin/gpu_*_bench)
shopt -u nullglob
if [ -d "$bundle/bin" ] && [ ${#tests[@]} -eq 0 ]; then
  missing+=("no GPU test (gpu_*_test) in $bundle/bin.")
fi
if [ -d "$bundle/bin" ] && [ ${#benches[@]} -eq 0 ]; then
  missing+=("no GPU benchmark (gpu_*_bench) in $bundle/bin.")
fi
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for exe in "${tests[@]}" "${benches[@]}"; do
  if [ ! -x "$exe" ]; then
    missing+=("$exe is not executable.")
    continue
  fi
  unresolved=$(ldd "$exe" 2>&1 | grep 'not found' | awk '{print $1}' | tr '\n' ' ')
  if [ -n "$unresolved" ]; then
    missing+=("$(basename "$exe") cannot load: $unresolved(not in $bundle/lib nor on this machine).")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do say "gpu_check.sh: missing: $m"; done
  exit 2
fi

say "== machine"
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  host: $(uname -srm)"
nvidia-smi 2>&1 | tee -a "$log"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,clocks.mem \
  --format=csv 2>&1 | tee -a "$log"
[ -f "$bundle/MANIFEST" ] && { say "== bundle"; tee -a "$log" < "$bundle/MANIFEST"; }

failed=()
# A test that skips for want of a GPU fails here: this machine has one.
export GDEDUP_REQUIRE_GPU=1
for exe in "${tests[@]}"; do
  name=$(basename "$exe")
  say "== $name"
  timeout "$limit" "$exe" --gtest_output="xml:$out/$name.xml" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  say "== $name: exit status $rc"
  [ "$rc" -eq 0 ] || failed+=("$name (exit status $rc$([ "$rc" -eq 124 ] && echo ', timed out'))")
done
for exe in "${benches[@]}"; do
  name=$(basename "$exe")
  say "== $name (--benchmark_min_time=$min_time)"
  this_log=$(mktemp)
  timeout "$limit" "$exe" --benchmark_min_time="$min_time" \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json 2>&1 | tee "$this_log"
  rc=${PIPESTATUS[0]}
  cat "$this_log" >> "$log"
  say "== $name: exit status $rc"
  [ "$rc" -eq 0 ] || failed+=("$name (exit status $rc$([ "$rc" -eq 124 ] && echo ', timed out'))")
  # A benchmark that cannot run is skipped with an error, not a failing status.
  if grep -q 'ERROR OCCURRED' "$this_log"; then
    failed+=("$name (a benchmark reported an error; see $log)")
  fi
  rm -f "$this_log"
done

say "== summary"
if [ ${#failed[@]} -gt 0 ]; then
  for f in "${failed[@]}"; do say "FAILED: $f"; done
  exit 1
fi
say "all GPU tests and benchmarks passed; logs in $out"
exit 0
