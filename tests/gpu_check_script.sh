#!/usr/bin/env bash
# bench/gpu_check.sh where a device run goes wrong, on made-up bundles (no
# GPU, no build needed): a bundle whose files.tar.gz is damaged, one whose
# test program cannot be executed on this machine (built for another CPU),
# and a SIGTERM during the unpack and during a step. In each case $OUT
# holds the log, which says what happened, with figures.json and
# details.tar.gz, and the script ends with the status its header gives.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check_script_test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

# A bundle folder as build_gpu_bundle.sh leaves it, for the simulated
# device (so no nvidia-smi is needed) or, with a second argument, a GPU,
# with bin/ made by the caller.
manifest() {
  mkdir -p "$1"
  printf 'gdedup GPU bundle\ndevice: %s (made up by %s)\n' "${2:-simulated}" "$(basename "$0")" \
    > "$1/MANIFEST"
}

# A test program and a benchmark that answer the check's listing at once;
# the test sleeps when run (until a signal ends it), the benchmark does
# nothing.
stub_programs() {
  mkdir -p "$1/bin"
  cat > "$1/bin/gpu_backend_test" <<'SH'
#!/usr/bin/env bash
[ "${1:-}" = --gtest_list_tests ] && { echo "Stub."; echo "  Sleeps"; exit 0; }
echo "stub test running"
sleep 60
SH
  cat > "$1/bin/gpu_ops_bench" <<'SH'
#!/usr/bin/env bash
exit 0
SH
  chmod +x "$1/bin/gpu_backend_test" "$1/bin/gpu_ops_bench"
}

# The three files in $1, the log holding the text $2.
expect_outputs() {
  local out=$1 text=$2
  for f in gpu_check.log figures.json details.tar.gz; do
    [ -s "$out/$f" ] || fail "$out/$f was not written"
  done
  grep -qF -- "$text" "$out/gpu_check.log" ||
    fail "the log does not say '$text': $(cat "$out/gpu_check.log" 2>/dev/null)"
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out/figures.json" 2>/dev/null ||
    fail "$out/figures.json is not JSON: $(cat "$out/figures.json" 2>/dev/null)"
}

# Waits up to 30 s for the log in $1 to hold $2.
wait_for_log() {
  local i
  for i in $(seq 300); do
    grep -qF -- "$2" "$1/gpu_check.log" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# SIGTERM to the script $1, once its log in $2 holds $3; fails when it is
# still running 10 s later (and kills it), and leaves its exit status in rc.
terminate_when() {
  local pid=$1 i
  if wait_for_log "$2" "$3"; then
    sleep 0.5
    kill -TERM "$pid"
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      fail "SIGTERM once the log said '$3': still running 10 s later"
      kill -KILL "$pid"
    fi
  else
    fail "the log never said '$3': $(cat "$2/gpu_check.log" 2>/dev/null)"
  fi
  wait "$pid"
  rc=$?
}

# Runs the script on bundle $1 with the folder $2 first on PATH, its OUT
# $work/$3, and SIGTERMs it once the log holds $4: it must end with status
# 1, leave its three files, and give the step $5 stopped in figures.json.
expect_stopped() {
  PATH="$2:$PATH" OUT=$work/$3 bash "$root/bench/gpu_check.sh" "$1" > /dev/null 2>&1 &
  terminate_when $! "$work/$3" "$4"
  [ "$rc" -eq 1 ] || fail "SIGTERM once the log said '$4': exit status $rc, not 1"
  expect_outputs "$work/$3" "stopped by a signal"
  grep -q "\"name\": \"$5\", \"status\": \"stopped by a signal\"" "$work/$3/figures.json" ||
    fail "figures.json does not give $5 stopped: $(cat "$work/$3/figures.json")"
}

# 1. A damaged files.tar.gz: exit 2, and the log says it cannot be unpacked.
manifest "$work/damaged"
head -c 4096 /dev/urandom > "$work/damaged/files.tar.gz"
OUT=$work/out-damaged bash "$root/bench/gpu_check.sh" "$work/damaged" > /dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a damaged bundle: exit status $rc, not 2"
expect_outputs "$work/out-damaged" "cannot unpack $work/damaged/files.tar.gz"
grep -q '"missing: cannot unpack' "$work/out-damaged/figures.json" ||
  fail "figures.json does not give the check's failure: $(cat "$work/out-damaged/figures.json")"

# 2. A test program for another CPU: named in the check, exit 2, nothing run.
manifest "$work/foreign"
stub_programs "$work/foreign"
machine=183  # EM_AARCH64; on an aarch64 machine, EM_X86_64
[ "$(uname -m)" = aarch64 ] && machine=62
python3 - "$work/foreign/bin/gpu_backend_test" "$machine" <<'PY'
import struct, sys
# A 64-bit little-endian ELF executable's header for another machine.
header = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHI", 2, int(sys.argv[2]), 1)
open(sys.argv[1], "wb").write(header + b"\0" * (64 - len(header)))
PY
chmod +x "$work/foreign/bin/gpu_backend_test"
OUT=$work/out-foreign bash "$root/bench/gpu_check.sh" "$work/foreign" > /dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a program for another CPU: exit status $rc, not 2"
expect_outputs "$work/out-foreign" "gpu_backend_test cannot be executed on this machine"
grep -q '== gpu_ops_bench' "$work/out-foreign/gpu_check.log" &&
  fail "the steps ran after the check failed"

# 3. SIGTERM during the unpack (a tar that takes its time, on PATH first):
# exit 1 within seconds, the log says so.
manifest "$work/packed"
stub_programs "$work/packed"
tar -czf "$work/packed/files.tar.gz" -C "$work/packed" bin && rm -rf "$work/packed/bin"
mkdir -p "$work/slow"
cat > "$work/slow/tar" <<SH
#!/usr/bin/env bash
[[ " \$* " == *" -xzf "* ]] && sleep 60
exec $(type -P tar) "\$@"
SH
chmod +x "$work/slow/tar"
expect_stopped "$work/packed" "$work/slow" out-unpack "== unpacking" unpack

# 4. SIGTERM during a step (the stub test sleeps), on a GPU's bundle (an
# nvidia-smi that answers on PATH first): exit 1 within seconds, the step's
# row says it was stopped, and the step's program is gone.
manifest "$work/running" "GPU (sm_90)"
stub_programs "$work/running"
mkdir -p "$work/smi"
cat > "$work/smi/nvidia-smi" <<'SH'
#!/usr/bin/env bash
echo "NVIDIA H100 80GB HBM3, 560.00, 81559 MiB, 1980 MHz, 2619 MHz"
SH
chmod +x "$work/smi/nvidia-smi"
expect_stopped "$work/running" "$work/smi" out-step "stub test running" gpu_backend_test
sleep 0.5
pgrep -f "$work/running/bin/gpu_backend_test" > /dev/null &&
  fail "the stopped step's program still runs"

exit "$failed"
