#!/usr/bin/env bash
# Runs the carried GPU tests and benchmarks on a machine with an NVIDIA GPU
# and the CUDA driver, from a bundle made by bench/build_gpu_bundle.sh. Needs
# nothing else of ours installed there. Order: the glibc the bundle needs,
# every binary's libraries (a failure names the missing library or symbol),
# the GPU tests (among them gpu_pipeline_test: dedup, build, query and resume
# through the GPU backend against the CPU backend), the small GPU tests under
# compute-sanitizer memcheck and racecheck (where the bundle or PATH has it),
# then the benchmarks (random and duplicate-heavy keys, 1, 4 and 16 GiB).
# Everything fits BUDGET seconds (default 540, 9 minutes): each step gets
# what is left, and is cut off when it runs out.
#
# usage: bash bench/gpu_check.sh [BUNDLE]     (default: build-gpu in the repo)
# env:   OUT         folder for the logs (default: BUNDLE/logs)
#        MIN_TIME    --benchmark_min_time in seconds (default 0.1)
#        BUDGET      seconds for the whole run (default 540)
# Exit status: 0 all passed, 1 a test or benchmark failed, 2 something missing.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=${1:-$root/build-gpu}
# Absolute, so LD_LIBRARY_PATH holds wherever the binaries look from.
[ -d "$bundle" ] && bundle=$(cd "$bundle" && pwd)
out=${OUT:-$bundle/logs}
min_time=${MIN_TIME:-0.1}
deadline=$(( $(date +%s) + ${BUDGET:-540} ))
steps=" ${STEPS:-tests sanitizer e2e steps bench} "
step() { [[ $steps == *" $1 "* ]]; }

# Seconds left for a step: at most $1, at least 1.
left() {
  local rest=$(( deadline - $(date +%s) ))
  [ "$rest" -gt "$1" ] && rest=$1
  [ "$rest" -lt 1 ] && rest=1
  echo "$rest"
}

mkdir -p "$out" || { echo "gpu_check.sh: cannot create $out" >&2; exit 2; }
log=$out/gpu_check.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }

# Everything missing is reported at once, then the script stops.
missing=()
# The glibc first: binaries built against a newer one cannot even start.
needed=$(sed -n 's/^glibc needed: GLIBC_//p' "$bundle/MANIFEST" 2>/dev/null)
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -n "$needed" ] && [ -n "$have" ] &&
   [ "$(printf '%s\n%s\n' "$needed" "$have" | sort -V | head -n 1)" != "$needed" ]; then
  missing+=("this machine has glibc $have but the bundle needs $needed or newer: build the bundle on a machine with glibc $have or older (bench/build_gpu_bundle.sh).")
fi
if ! command -v nvidia-smi >/dev/null 2>&1; then
  missing+=("nvidia-smi is not on PATH: this machine has no NVIDIA driver, or it is not installed where PATH finds it.")
fi
if [ ! -d "$bundle/bin" ]; then
  missing+=("$bundle/bin does not exist: run bench/build_gpu_bundle.sh on the build machine and carry its folder (build-gpu) here.")
fi
shopt -s nullglob
tests=() benches=() programs=() tools=()
step tests && tests=("$bundle"/bin/gpu_*_test)
step bench && benches=("$bundle"/bin/gpu_*_bench)
step e2e && programs+=("$bundle/bin/gdedup" "$bundle/bin/gen_urls") && tools=("$bundle"/tools/*)
step steps && programs+=("$bundle/bin/frontend_steps_bench")
shopt -u nullglob
if [ -d "$bundle/bin" ] && step tests && [ ${#tests[@]} -eq 0 ]; then
  missing+=("no GPU test (gpu_*_test) in $bundle/bin.")
fi
if [ -d "$bundle/bin" ] && step bench && [ ${#benches[@]} -eq 0 ]; then
  missing+=("no GPU benchmark (gpu_*_bench) in $bundle/bin.")
fi
if [ -d "$bundle/bin" ] && step e2e && [ ${#tools[@]} -eq 0 ]; then
  missing+=("$bundle/tools is empty: the bundle predates the e2e step; build it again with bench/build_gpu_bundle.sh.")
fi
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for exe in "${tests[@]}" "${benches[@]}" "${programs[@]}" "${tools[@]}"; do
  if [ ! -x "$exe" ]; then
    missing+=("$exe is not executable.")
    continue
  fi
  unresolved=$(ldd "$exe" 2>&1 | grep 'not found' | awk '{print $1}' | tr '\n' ' ')
  if [ -n "$unresolved" ]; then
    missing+=("$(basename "$exe") cannot load: $unresolved(not in $bundle/lib nor on this machine).")
    continue
  fi
  # Start it for real: the loader names a missing symbol or symbol version
  # (GLIBC_2.38, GLIBCXX_3.4.32) only then.
  case "$exe" in
    *_test) listing=$("$exe" --gtest_list_tests 2>&1) ;;
    *_bench) listing=$("$exe" --benchmark_list_tests 2>&1) ;;
    *) listing=$("$exe" --help 2>&1 < /dev/null) ;;
  esac
  loader=$(printf '%s\n' "$listing" | grep -m 1 -E 'error while loading shared libraries|symbol lookup error|version .* not found|undefined symbol')
  if [ -n "$loader" ]; then
    missing+=("$(basename "$exe") cannot start: $loader")
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
skipped=()
# A test that skips for want of a GPU fails here: this machine has one.
export GDEDUP_REQUIRE_GPU=1
for exe in "${tests[@]}"; do
  name=$(basename "$exe")
  say "== $name"
  timeout "$(left 150)" "$exe" --gtest_output="xml:$out/$name.xml" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  say "== $name: exit status $rc"
  [ "$rc" -eq 0 ] || failed+=("$name (exit status $rc$([ "$rc" -eq 124 ] && echo ', timed out'))")
done

# The small GPU tests under compute-sanitizer: out-of-bounds and misaligned
# accesses (memcheck) and shared-memory races (racecheck) in the kernels,
# CUB's among them. "Device not supported" (a driver or GPU the tool does
# not know) is reported, not failed.
sanitizer=""
for candidate in "$bundle/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer 2>/dev/null)"; do
  [ -n "$candidate" ] && [ -x "$candidate" ] && { sanitizer=$candidate; break; }
done
small='GpuBackend.LaterCallsSeeEarlierBitsAndTheInitialFilter:GpuBackend.DeviceAndPinnedBuffersGiveTheSameAnswers'
if ! step sanitizer; then
  :
elif [ -z "$sanitizer" ]; then
  say "== compute-sanitizer: not run, neither $bundle/compute-sanitizer nor PATH has it"
  skipped+=("compute-sanitizer (not found)")
elif [ -x "$bundle/bin/gpu_backend_test" ]; then
  for tool in memcheck racecheck; do
    say "== compute-sanitizer --tool $tool gpu_backend_test ($small)"
    this_log=$(mktemp)
    timeout "$(left 120)" "$sanitizer" --tool "$tool" --error-exitcode 99 \
      "$bundle/bin/gpu_backend_test" --gtest_filter="$small" 2>&1 | tee "$this_log"
    rc=${PIPESTATUS[0]}
    cat "$this_log" >> "$log"
    say "== compute-sanitizer $tool: exit status $rc"
    if grep -q 'Device not supported' "$this_log"; then
      skipped+=("compute-sanitizer $tool (Device not supported)")
    elif [ "$rc" -ne 0 ]; then
      failed+=("compute-sanitizer $tool (exit status $rc$([ "$rc" -eq 124 ] && echo ', timed out'))")
    fi
    rm -f "$this_log"
  done
fi

# End to end, CPU and GPU backends, with the bundle's tools first on PATH.
if step e2e; then
  say "== e2e.sh (10M URLs: --backend cpu and gpu, at most ${E2E_SECONDS:-240} s)"
  PATH="$bundle/tools:$PATH" GDEDUP="$bundle/bin/gdedup" GEN_URLS="$bundle/bin/gen_urls" \
    DATA_DIR="${TMPDIR:-/tmp}/gdedup-e2e" LINES="${E2E_LINES:-1e7}" \
    timeout "$(left "${E2E_SECONDS:-240}")" bash "$root/bench/e2e.sh" --no-others --markdown \
    --runs "${E2E_RUNS:-3}" --backend cpu --backend gpu > "$out/e2e.md" 2> "$out/e2e.log"
  rc=$?
  tee -a "$log" < "$out/e2e.md"
  tail -n 20 "$out/e2e.log" | tee -a "$log"
  say "== e2e.sh: exit status $rc (its table: $out/e2e.md; every run: $out/e2e.log)"
  [ "$rc" -eq 0 ] || failed+=("e2e.sh (exit status $rc$([ "$rc" -eq 124 ] && echo ', timed out: the runs so far are in e2e.log'))")
fi

# The front end's step costs on this machine's cores (bench/README.md's model).
if step steps; then
  # xz and bzip2 are left out: the slowest to prepare, and no part of the
  # model's plain, gzip and zstd predictions.
  say "== frontend_steps_bench (--benchmark_min_time=0.2, without xz and bzip2)"
  timeout "$(left 120)" "$bundle/bin/frontend_steps_bench" --benchmark_min_time=0.2 \
    --benchmark_filter='-(xz|bzip2)' \
    --benchmark_out="$out/frontend_steps_bench.json" --benchmark_out_format=json 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  say "== frontend_steps_bench: exit status $rc"
  [ "$rc" -eq 0 ] || failed+=("frontend_steps_bench (exit status $rc$([ "$rc" -eq 124 ] && echo ', timed out'))")
fi

for exe in "${benches[@]}"; do
  name=$(basename "$exe")
  say "== $name (--benchmark_min_time=$min_time)"
  this_log=$(mktemp)
  timeout "$(left 400)" "$exe" --benchmark_min_time="$min_time" \
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
for k in "${skipped[@]}"; do say "SKIPPED: $k"; done
if [ ${#failed[@]} -gt 0 ]; then
  for f in "${failed[@]}"; do say "FAILED: $f"; done
  exit 1
fi
say "all steps passed ($steps); logs in $out"
exit 0
