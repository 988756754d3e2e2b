#!/usr/bin/env bash
# Runs the kernel benchmark and the GPU tests on a machine with an NVIDIA GPU
# (an H100 or an H200: the log and figures.json name it) and the CUDA driver,
# from a bundle made by bench/build_gpu_bundle.sh. Needs nothing else of ours
# installed there. Kernel figures come first, since a device run may be cut
# short, and both they and the tests are capped so that both end within the
# first 3 minutes:
#   1. check: the bundle unpacked, the glibc it needs, every binary's
#      libraries (a failure names the missing library or symbol) and that
#      each can start at all here (one that cannot execute, built for another
#      CPU, is named), the GPU (nvidia-smi: its name, memory and PCIe link);
#   2. bench: gpu_ops_bench at 4 GiB and 2^24 keys (contains, add and
#      test_and_set; random, repeats and hot-key keys; device-resident and
#      streamed in 4 batches a call; the exact set's test_and_insert, both
#      ways; and a plain random 64-byte gather, against which the rest is
#      judged), at most BENCH_SECONDS; a streamed row without 4 batches or
#      an exact-set row that grew fails it;
#   3. tests: the GPU tests (gpu_backend_test first; gpu_pipeline_test runs
#      dedup, build, query and resume through the GPU backend against the
#      CPU backend), at most TESTS_SECONDS in all;
#   then only the optional steps named in STEPS, each with its own cap:
#   sanitizer (the small GPU tests under compute-sanitizer memcheck and
#   racecheck, SANITIZER_SECONDS each), e2e (bench/e2e.sh with both
#   backends, E2E_SECONDS), steps (frontend_steps_bench, STEPS_SECONDS).
# The default steps (check bench tests) take under 3 minutes of device time.
#
# A bundle built with --simulated (the CUDA stand-in, kernels on the CPU
# device) runs the same steps here: the GPU check becomes a note, the
# benchmark shrinks to BENCH_SIZE=26 and BENCH_KEYS=20 (64 MiB, 2^20 keys)
# unless set, as the CPU device is far slower than a GPU, the stand-in's
# streams wait at most GDEDUP_STANDIN_DELAY_US=5 microseconds before an
# operation (50 in the tests' own runs), the tests run at once (the CPU
# device's wait on hand-offs between threads more than they compute) within
# TESTS_SECONDS=120, and the tests in SIMULATED_SKIP (a gtest filter: the
# one that fills sets of up to 2^26 keys, which the CPU device takes over a
# minute for) are left to ctest.
#
# What it leaves under OUT is three files, as a device run returns at most
# eight: gpu_check.log (everything printed, and every benchmark's figures
# again in its summary), figures.json (the machine, each step's status and
# seconds, and every benchmark's keys/s and counters) and details.tar.gz
# (test XML, the benchmark's own JSON, the optional steps' logs). The log
# is written first, before the bundle is unpacked, and as each step runs;
# figures.json after each step; all three also when the run fails or is
# cut off (SIGTERM or SIGINT, even during the unpack).
#
# usage: bash bench/gpu_check.sh [BUNDLE]     (default: build-gpu in the repo)
# env:   OUT         folder for the three files (default: BUNDLE/logs)
#        STEPS       default "bench tests"; add sanitizer, e2e, steps
#        MIN_TIME    --benchmark_min_time in seconds (default 0.05)
#        BENCH_SIZE, BENCH_KEYS  log2 filter bytes and keys a call (32, 24)
#        BENCH_SECONDS (75), TESTS_SECONDS (90), SANITIZER_SECONDS (120),
#        E2E_SECONDS (240), STEPS_SECONDS (120), UNPACK_SECONDS (300)
#        SIMULATED_SKIP  gtest filter of tests left out on the simulated device
# Exit status: 0 all passed, 1 a test or benchmark failed, 2 something
# missing (the bundle, a library, a program that cannot run here, the GPU).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=${1:-$root/build-gpu}
# Absolute, so LD_LIBRARY_PATH holds wherever the binaries look from.
[ -d "$bundle" ] && bundle=$(cd "$bundle" && pwd)
out=${OUT:-$bundle/logs}
min_time=${MIN_TIME:-0.05}
steps=" check ${STEPS:-bench tests} "
step() { [[ $steps == *" $1 "* ]]; }

# The log first: whatever happens next, OUT holds what happened.
mkdir -p "$out" || { echo "gpu_check.sh: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
log=$out/gpu_check.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX") || {
  say "gpu_check.sh: cannot make a folder under ${TMPDIR:-/tmp}"
  exit 2
}

started=$(date +%s)
# Each step: name, status, seconds, for figures.json.
step_rows=()
gpu_name=""
pcie_link=""
simulated=0
bench_size=${BENCH_SIZE:-32} bench_keys=${BENCH_KEYS:-24}
failed=()
skipped=()

json_text() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037'; }

# figures.json from the step rows and the benchmark's JSON: every
# benchmark's row (bench/gpu_figures.sh), the exact set's among them.
write_figures() {
  {
    printf '{\n  "device": "%s",\n  "pcie_link": "%s",\n  "simulated": %s,\n' \
      "$(json_text "$gpu_name")" "$(json_text "$pcie_link")" \
      "$([ "$simulated" -eq 1 ] && echo true || echo false)"
    printf '  "bench_filter_log2_bytes": %s,\n  "bench_log2_keys": %s,\n' "$bench_size" "$bench_keys"
    printf '  "seconds": %s,\n  "steps": [' "$(( $(date +%s) - started ))"
    local sep="" row
    for row in "${step_rows[@]}"; do
      IFS='|' read -r name status seconds <<< "$row"
      printf '%s\n    {"name": "%s", "status": "%s", "seconds": %s}' "$sep" "$(json_text "$name")" \
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

# Runs "$@" in the background and waits, so that a signal is handled at
# once rather than when it ends; STEP_NAME names it for on_signal. Returns
# its exit status.
in_background() {
  "$@" &
  current_pid=$! current_step=$STEP_NAME current_t0=$(date +%s)
  wait "$current_pid"
  local rc=$?
  current_pid=""
  return "$rc"
}

# Runs "$@" under a cap of $1 seconds, its output to the log; notes the
# step's row and any failure. STEP_NAME names it.
run_step() {
  local cap=$1 name=$STEP_NAME t0 rc
  shift
  t0=$(date +%s)
  say "== $name (at most $cap s)"
  in_background timeout "$cap" "$@" > >(tee -a "$log") 2>&1
  rc=$?
  local took=$(( $(date +%s) - t0 ))
  say "== $name: exit status $rc, $took s"
  local status=passed
  if [ "$rc" -ne 0 ]; then
    status="failed (exit status $rc$([ "$rc" -eq 124 ] && echo ", cut off at $cap s"))"
    failed+=("$name: $status")
  fi
  step_rows+=("$name|$status|$took")
  write_figures
  return "$rc"
}

say "gpu_check.sh: bundle $bundle, output in $out, started $(date -u +%Y-%m-%dT%H:%M:%SZ)"
t0=$(date +%s)
# The bundle comes packed (build_gpu_bundle.sh): unpacked here once, beside
# it first and moved in whole, so that a cut-off unpack leaves no half.
# Under timeout, which passes a signal on to everything the unpack runs.
if [ -f "$bundle/files.tar.gz" ] && [ ! -d "$bundle/bin" ]; then
  say "== unpacking $bundle/files.tar.gz"
  if ! STEP_NAME=unpack in_background timeout "${UNPACK_SECONDS:-300}" bash -c \
       'rm -rf "$1/.unpacking" && mkdir "$1/.unpacking" &&
        tar -xzf "$1/files.tar.gz" -C "$1/.unpacking" &&
        mv "$1/.unpacking"/* "$1"/ && rmdir "$1/.unpacking"' unpack "$bundle" >> "$log" 2>&1; then
    rm -rf "$bundle/.unpacking"
    say "gpu_check.sh: missing: cannot unpack $bundle/files.tar.gz (it needs tar and gzip," \
      "room on the disk, and the file whole: build it again with bench/build_gpu_bundle.sh" \
      "if it was cut short)."
    step_rows+=("check|missing: cannot unpack $bundle/files.tar.gz|$(( $(date +%s) - t0 ))")
    exit 2
  fi
fi
grep -q '^device: simulated' "$bundle/MANIFEST" 2>/dev/null && simulated=1
if [ "$simulated" -eq 1 ]; then
  bench_size=${BENCH_SIZE:-26} bench_keys=${BENCH_KEYS:-20}
  export GDEDUP_STANDIN_DELAY_US=${GDEDUP_STANDIN_DELAY_US:-5}
fi
tests_cap=${TESTS_SECONDS:-$([ "$simulated" -eq 1 ] && echo 120 || echo 90)}
simulated_skip=${SIMULATED_SKIP:-GpuKeySet.SizedForTwoToTheTwentyToTwentySixKeysItNeverGrows}

# Everything missing is reported at once, then the script stops.
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
    # (GLIBC_2.38, GLIBCXX_3.4.32) only then, and a program built for another
    # CPU (or no program at all) cannot be executed: the shell's status 126.
    case "$exe" in
      *_test) listing=$("$exe" --gtest_list_tests 2>&1) ;;
      *_bench) listing=$("$exe" --benchmark_list_tests 2>&1) ;;
      *) listing=$("$exe" --help 2>&1 < /dev/null) ;;
    esac
    started_rc=$?
    loader=$(printf '%s\n' "$listing" | grep -m 1 -E 'error while loading shared libraries|symbol lookup error|version .* not found|undefined symbol')
    if [ -n "$loader" ]; then
      missing+=("$(basename "$exe") cannot start: $loader")
    elif [ "$started_rc" -eq 126 ]; then
      first=$(printf '%s' "$listing" | head -n 1)
      missing+=("$(basename "$exe") cannot be executed on this machine ($(uname -m)), exit status 126: $first; build the bundle for this machine's CPU (bench/build_gpu_bundle.sh on a $(uname -m) machine).")
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
  # The link the streamed rows cross: generation and width now and at most.
  link=pcie.link.gen.current,pcie.link.width.current,pcie.link.gen.max,pcie.link.width.max
  pcie_link=$(timeout 20 nvidia-smi --query-gpu="$link" --format=csv,noheader 2>&1 | head -n 1)
  say "gpu: $gpu_name"
  say "pcie link (gen, width now; gen, width at most): $pcie_link"
fi
[ -f "$bundle/MANIFEST" ] && { say "== bundle"; sed '/^files:/,$d' "$bundle/MANIFEST" | tee -a "$log"; }
step_rows+=("check|passed|$(( $(date +%s) - t0 ))")

# The kernels' figures first: a device run may be cut short.
if step bench; then
  GDEDUP_GPU_BENCH_SIZES=$bench_size GDEDUP_GPU_BENCH_KEYS=$bench_keys \
    STEP_NAME=gpu_ops_bench run_step "${BENCH_SECONDS:-75}" \
    "$bundle/bin/gpu_ops_bench" --benchmark_min_time="$min_time" \
    --benchmark_out="$work/gpu_ops_bench.json" --benchmark_out_format=json
  # A benchmark that cannot run is skipped with an error, not a failing status.
  if grep -q '"error_occurred": true' "$work/gpu_ops_bench.json" 2>/dev/null; then
    failed+=("gpu_ops_bench: a benchmark reported an error (figures.json names it)")
  fi
  # Rows that would not measure what they say: a streamed call in fewer
  # than 4 batches (nothing to overlap), an exact set that grew inside the
  # timed call.
  while IFS= read -r problem; do
    [ -n "$problem" ] && failed+=("gpu_ops_bench: $problem")
  done < <(bash "$root/bench/gpu_figures.sh" check "$work/gpu_ops_bench.json")
  write_figures
fi

# A test that skips for want of a GPU fails here: this machine has one (or
# the stand-in's).
export GDEDUP_REQUIRE_GPU=1
if step tests && [ "$simulated" -eq 1 ]; then
  # The CPU device's tests spend their time in hand-offs between the
  # stand-in's threads far more than computing: run at once, they take
  # about as long as the longest alone. The tests the CPU device takes
  # minutes for are left to ctest.
  STEP_NAME="GPU tests, at once" run_step "$tests_cap" bash -c '
    work=$1 skip=$2
    shift 2
    for exe in "$@"; do
      name=$(basename "$exe")
      { "$exe" --gtest_output="xml:$work/$name.xml" --gtest_filter="-$skip" \
          > "$work/$name.out" 2>&1; echo $? > "$work/$name.rc"; } &
    done
    wait' tests "$work" "$simulated_skip" "${tests[@]}"
  for exe in "${tests[@]}"; do
    name=$(basename "$exe")
    cat "$work/$name.out" 2>/dev/null | tee -a "$log"
    rc=$(cat "$work/$name.rc" 2>/dev/null)
    if [ -z "$rc" ]; then
      status="cut off with the tests at $tests_cap s"
    elif [ "$rc" -eq 0 ]; then
      status=passed
    else
      status="failed (exit status $rc)"
    fi
    say "== $name: $status"
    [ "$status" = passed ] || failed+=("$name: $status")
    step_rows+=("$name|$status|0")
  done
  write_figures
elif step tests; then
  tests_deadline=$(( $(date +%s) + tests_cap ))
  for exe in "${tests[@]}"; do
    rest=$(( tests_deadline - $(date +%s) ))
    name=$(basename "$exe")
    if [ "$rest" -lt 1 ]; then
      say "== $name: not run, the tests' $tests_cap s are spent"
      failed+=("$name: not run (the tests' cap was spent)")
      step_rows+=("$name|not run|0")
      continue
    fi
    STEP_NAME=$name run_step "$rest" "$exe" --gtest_output="xml:$work/$name.xml"
  done
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
