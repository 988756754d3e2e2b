#!/usr/bin/env bash
# Runs the GPU tests and the kernel benchmark on a machine with an NVIDIA GPU
# and the CUDA driver, from a bundle made by bench/build_gpu_bundle.sh. Needs
# nothing else of ours installed there. Kernel figures come first, since a
# device run may be cut short:
#   1. check: the glibc the bundle needs, every binary's libraries (a failure
#      names the missing library or symbol), the GPU (nvidia-smi);
#   2. tests: the GPU tests (gpu_backend_test first; gpu_pipeline_test runs
#      dedup, build, query and resume through the GPU backend against the
#      CPU backend), at most TESTS_SECONDS in all;
#   3. bench: gpu_ops_bench at 4 GiB and 2^24 keys (contains, add and
#      test_and_set; random, repeats and hot-key keys; device-resident and
#      streamed; and the exact set's test_and_insert), at most BENCH_SECONDS;
#   then only the optional steps named in STEPS, each with its own cap:
#   sanitizer (the small GPU tests under compute-sanitizer memcheck and
#   racecheck, SANITIZER_SECONDS each), e2e (bench/e2e.sh with both
#   backends, E2E_SECONDS), steps (frontend_steps_bench, STEPS_SECONDS).
# The default steps (check tests bench) take under 4 minutes of device time.
#
# A bundle built with --simulated (the CUDA stand-in, kernels on the CPU
# device) runs the same steps here: the GPU check becomes a note, and the
# benchmark shrinks to BENCH_SIZE=26 and BENCH_KEYS=20 (64 MiB, 2^20 keys)
# unless set, as the CPU device is far slower than a GPU.
#
# What it leaves under OUT is three files, as a device run returns at most
# eight: gpu_check.log (everything printed, and every benchmark's figures
# again in its summary), figures.json (the machine, each step's status and
# seconds, and every benchmark's keys/s and counters) and details.tar.gz
# (test XML, the benchmark's own JSON, the optional steps' logs). They are
# written also when the run is cut off (SIGTERM or SIGINT).
#
# usage: bash bench/gpu_check.sh [BUNDLE]     (default: build-gpu in the repo)
# env:   OUT         folder for the three files (default: BUNDLE/logs)
#        STEPS       default "tests bench"; add sanitizer, e2e, steps
#        MIN_TIME    --benchmark_min_time in seconds (default 0.05)
#        BENCH_SIZE, BENCH_KEYS  log2 filter bytes and keys a call (32, 24)
#        TESTS_SECONDS (90), BENCH_SECONDS (100), SANITIZER_SECONDS (120),
#        E2E_SECONDS (240), STEPS_SECONDS (120)
# Exit status: 0 all passed, 1 a test or benchmark failed, 2 something missing.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=${1:-$root/build-gpu}
# Absolute, so LD_LIBRARY_PATH holds wherever the binaries look from.
[ -d "$bundle" ] && bundle=$(cd "$bundle" && pwd)
# The bundle comes packed (build_gpu_bundle.sh): unpacked here once, beside
# it first and moved in whole, so that a cut-off unpack leaves no half.
if [ -f "$bundle/files.tar.gz" ] && [ ! -d "$bundle/bin" ]; then
  unpacking=$bundle/.unpacking
  rm -rf "$unpacking"
  if ! { mkdir "$unpacking" && tar -xzf "$bundle/files.tar.gz" -C "$unpacking" &&
         mv "$unpacking"/* "$bundle"/ && rmdir "$unpacking"; }; then
    echo "gpu_check.sh: cannot unpack $bundle/files.tar.gz (it needs tar and gzip, room on the disk, and the file whole: build it again with bench/build_gpu_bundle.sh if it was cut short)." >&2
    exit 2
  fi
fi
out=${OUT:-$bundle/logs}
min_time=${MIN_TIME:-0.05}
steps=" check ${STEPS:-tests bench} "
step() { [[ $steps == *" $1 "* ]]; }
simulated=0
grep -q '^device: simulated' "$bundle/MANIFEST" 2>/dev/null && simulated=1
if [ "$simulated" -eq 1 ]; then
  bench_size=${BENCH_SIZE:-26} bench_keys=${BENCH_KEYS:-20}
else
  bench_size=${BENCH_SIZE:-32} bench_keys=${BENCH_KEYS:-24}
fi

mkdir -p "$out" || { echo "gpu_check.sh: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
log=$out/gpu_check.log
: > "$log"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX") || exit 2
say() { echo "$*" | tee -a "$log"; }

started=$(date +%s)
# Each step: name, status, seconds, for figures.json.
step_rows=()
gpu_name=""
failed=()
skipped=()

json_text() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037'; }

# figures.json from the step rows and the benchmark's JSON: every
# benchmark's row (bench/gpu_figures.sh), the exact set's among them.
write_figures() {
  {
    printf '{\n  "device": "%s",\n  "simulated": %s,\n' "$(json_text "$gpu_name")" \
      "$([ "$simulated" -eq 1 ] && echo true || echo false)"
    printf '  "bench_filter_log2_bytes": %s,\n  "bench_log2_keys": %s,\n' "$bench_size" "$bench_keys"
    printf '  "seconds": %s,\n  "steps": [' "$(( $(date +%s) - started ))"
    local sep="" row
    for row in "${step_rows[@]}"; do
      IFS='|' read -r name status seconds <<< "$row"
      printf '%s\n    {"name": "%s", "status": "%s", "seconds": %s}' "$sep" "$name" \
        "$(json_text "$status")" "$seconds"
      sep=","
    done
    printf '\n  ],\n  "benchmarks": ['
    bash "$root/bench/gpu_figures.sh" json "$work/gpu_ops_bench.json"
    printf '\n  ]\n}\n'
  } > "$out/figures.json"
}

finish() {
  trap - EXIT INT TERM
  write_figures
  tar -czf "$out/details.tar.gz" -C "$work" . 2>/dev/null ||
    echo "gpu_check.sh: could not write $out/details.tar.gz" >&2
  rm -rf "$work"
}
# The step running now, stopped first when a signal ends the run.
current_pid="" current_step="" current_t0=0
on_signal() {
  if [ -n "$current_pid" ]; then
    kill -TERM "$current_pid" 2>/dev/null
    step_rows+=("$current_step|stopped by a signal|$(( $(date +%s) - current_t0 ))")
  fi
  say "gpu_check.sh: stopped by a signal after $(( $(date +%s) - started )) s"
  exit 1
}
trap finish EXIT
trap on_signal INT TERM

# Runs "$@" under a cap of $1 seconds, its output to the log; notes the
# step's row and any failure. STEP_NAME names it. In the background, so
# that a signal is handled at once rather than when the step ends.
run_step() {
  local cap=$1 name=$STEP_NAME t0 rc
  shift
  t0=$(date +%s)
  say "== $name (at most $cap s)"
  timeout "$cap" "$@" > >(tee -a "$log") 2>&1 &
  current_pid=$! current_step=$name current_t0=$t0
  wait "$current_pid"
  rc=$?
  current_pid=""
  local took=$(( $(date +%s) - t0 ))
  say "== $name: exit status $rc, $took s"
  local status=passed
  if [ "$rc" -ne 0 ]; then
    status="failed (exit status $rc$([ "$rc" -eq 124 ] && echo ", cut off at $cap s"))"
    failed+=("$name: $status")
  fi
  step_rows+=("$name|$status|$took")
  return "$rc"
}

# Everything missing is reported at once, then the script stops.
t0=$(date +%s)
missing=()
# The glibc first: binaries built against a newer one cannot even start.
needed=$(sed -n 's/^glibc needed: GLIBC_//p' "$bundle/MANIFEST" 2>/dev/null)
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -n "$needed" ] && [ -n "$have" ] &&
   [ "$(printf '%s\n%s\n' "$needed" "$have" | sort -V | head -n 1)" != "$needed" ]; then
  missing+=("this machine has glibc $have but the bundle needs $needed or newer: build the bundle on a machine with glibc $have or older (bench/build_gpu_bundle.sh).")
fi
if [ "$simulated" -eq 0 ] && ! command -v nvidia-smi >/dev/null 2>&1; then
  missing+=("nvidia-smi is not on PATH: this machine has no NVIDIA driver, or it is not installed where PATH finds it.")
fi
if [ ! -d "$bundle/bin" ]; then
  missing+=("$bundle/bin does not exist: run bench/build_gpu_bundle.sh on the build machine and carry its folder (build-gpu) here.")
fi
shopt -s nullglob
tests=() benches=() programs=() tools=()
if step tests || step sanitizer; then
  # gpu_backend_test first: the kernels against the reference.
  tests=("$bundle"/bin/gpu_backend_test)
  for t in "$bundle"/bin/gpu_*_test; do [ "$t" = "$bundle/bin/gpu_backend_test" ] || tests+=("$t"); done
fi
step bench && benches=("$bundle"/bin/gpu_ops_bench)
step e2e && programs+=("$bundle/bin/gdedup" "$bundle/bin/gen_urls") && tools=("$bundle"/tools/*)
step steps && programs+=("$bundle/bin/frontend_steps_bench")
shopt -u nullglob
if [ -d "$bundle/bin" ] && step e2e && [ ${#tools[@]} -eq 0 ]; then
  missing+=("$bundle/tools is empty: the bundle predates the e2e step; build it again with bench/build_gpu_bundle.sh.")
fi
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -d "$bundle/bin" ]; then
  for exe in "${tests[@]}" "${benches[@]}" "${programs[@]}" "${tools[@]}"; do
    if [ ! -x "$exe" ]; then
      missing+=("$exe is not in the bundle or not executable.")
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
fi
if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do say "gpu_check.sh: missing: $m"; done
  step_rows+=("check|missing: ${missing[*]}|$(( $(date +%s) - t0 ))")
  exit 2
fi

say "== machine"
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  host: $(uname -srm)  cores: $(nproc)"
if [ "$simulated" -eq 1 ]; then
  gpu_name="simulated: the CUDA stand-in on the CPU (no GPU ran this)"
  say "device: $gpu_name; nvidia-smi not run; benchmark at 2^$bench_size bytes and 2^$bench_keys keys"
else
  timeout 20 nvidia-smi 2>&1 | tee -a "$log"
  gpu_name=$(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader 2>&1 | head -n 1)
  say "gpu: $gpu_name"
fi
[ -f "$bundle/MANIFEST" ] && { say "== bundle"; sed '/^files:/,$d' "$bundle/MANIFEST" | tee -a "$log"; }
step_rows+=("check|passed|$(( $(date +%s) - t0 ))")

# A test that skips for want of a GPU fails here: this machine has one (or
# the stand-in's).
export GDEDUP_REQUIRE_GPU=1
if step tests; then
  tests_deadline=$(( $(date +%s) + ${TESTS_SECONDS:-90} ))
  for exe in "${tests[@]}"; do
    rest=$(( tests_deadline - $(date +%s) ))
    name=$(basename "$exe")
    if [ "$rest" -lt 1 ]; then
      say "== $name: not run, the tests' ${TESTS_SECONDS:-90} s are spent"
      failed+=("$name: not run (the tests' cap was spent)")
      step_rows+=("$name|not run|0")
      continue
    fi
    STEP_NAME=$name run_step "$rest" "$exe" --gtest_output="xml:$work/$name.xml"
  done
fi

if step bench; then
  this_log=$work/gpu_ops_bench.log
  GDEDUP_GPU_BENCH_SIZES=$bench_size GDEDUP_GPU_BENCH_KEYS=$bench_keys \
    STEP_NAME=gpu_ops_bench run_step "${BENCH_SECONDS:-100}" \
    "$bundle/bin/gpu_ops_bench" --benchmark_min_time="$min_time" \
    --benchmark_out="$work/gpu_ops_bench.json" --benchmark_out_format=json
  # A benchmark that cannot run is skipped with an error, not a failing status.
  if grep -q '"error_occurred": true' "$work/gpu_ops_bench.json" 2>/dev/null; then
    failed+=("gpu_ops_bench: a benchmark reported an error (figures.json names it)")
  fi
  write_figures
fi

# The small GPU tests under compute-sanitizer: out-of-bounds and misaligned
# accesses (memcheck) and shared-memory races (racecheck) in the kernels,
# CUB's among them. "Device not supported" (a driver or GPU the tool does
# not know) is reported, not failed.
if step sanitizer; then
  sanitizer=""
  for candidate in "$bundle/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer 2>/dev/null)"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] && { sanitizer=$candidate; break; }
  done
  small='GpuBackend.LaterCallsSeeEarlierBitsAndTheInitialFilter:GpuBackend.DeviceAndPinnedBuffersGiveTheSameAnswers'
  if [ "$simulated" -eq 1 ]; then
    say "== compute-sanitizer: not run on the simulated device"
    skipped+=("compute-sanitizer (simulated device)")
  elif [ -z "$sanitizer" ]; then
    say "== compute-sanitizer: not run, neither $bundle/compute-sanitizer nor PATH has it"
    skipped+=("compute-sanitizer (not found)")
  else
    for tool in memcheck racecheck; do
      STEP_NAME="compute-sanitizer $tool" run_step "${SANITIZER_SECONDS:-120}" \
        "$sanitizer" --tool "$tool" --error-exitcode 99 \
        "$bundle/bin/gpu_backend_test" --gtest_filter="$small"
    done
    if grep -q 'Device not supported' "$log"; then
      skipped+=("compute-sanitizer (Device not supported)")
    fi
  fi
fi

# End to end, CPU and GPU backends, with the bundle's tools first on PATH.
if step e2e; then
  PATH="$bundle/tools:$PATH" GDEDUP="$bundle/bin/gdedup" GEN_URLS="$bundle/bin/gen_urls" \
    DATA_DIR="${TMPDIR:-/tmp}/gdedup-e2e" LINES="${E2E_LINES:-1e7}" \
    STEP_NAME="e2e.sh (${E2E_LINES:-1e7} URLs, --backend cpu and gpu)" \
    run_step "${E2E_SECONDS:-240}" bash -c \
    'bash "$1/bench/e2e.sh" --no-others --markdown --runs "$2" --backend cpu --backend gpu \
       > "$3/e2e.md" 2> "$3/e2e.log"; rc=$?; cat "$3/e2e.md"; tail -n 20 "$3/e2e.log"; exit $rc' \
    e2e "$root" "${E2E_RUNS:-3}" "$work"
fi

# The front end's step costs on this machine's cores (bench/README.md's model).
# xz and bzip2 are left out: the slowest to prepare, and no part of the
# model's plain, gzip and zstd predictions.
if step steps; then
  STEP_NAME=frontend_steps_bench run_step "${STEPS_SECONDS:-120}" \
    "$bundle/bin/frontend_steps_bench" --benchmark_min_time=0.2 --benchmark_filter='-(xz|bzip2)' \
    --benchmark_out="$work/frontend_steps_bench.json" --benchmark_out_format=json
fi

say "== summary ($(( $(date +%s) - started )) s)"
# The figures again, where the end of the log (all a device run may show)
# has them: every benchmark, the exact set's test_and_insert among them.
if [ -f "$work/gpu_ops_bench.json" ]; then
  say "gpu_ops_bench at 2^$bench_size bytes and 2^$bench_keys keys a call:"
  bash "$root/bench/gpu_figures.sh" text "$work/gpu_ops_bench.json" | tee -a "$log"
fi
for k in "${skipped[@]}"; do say "SKIPPED: $k"; done
if [ ${#failed[@]} -gt 0 ]; then
  for f in "${failed[@]}"; do say "FAILED: $f"; done
  exit 1
fi
say "all steps passed ($steps); the log, figures.json and details.tar.gz are in $out"
exit 0
