#!/usr/bin/env bash
# One rank per GPU (docs/SCALE-OUT.md, "Backends"): ranks that run their
# blocks on their GPUs (the GPU numbered by the rank's place on its
# machine) give one process's output and filter file, byte for byte; with
# checkpoints, the blocks come back from the GPUs before each one; ranks
# without a GPU of their number fail with one message under --backend gpu
# and fall back to the CPU under auto. GDEDUP_GPU_BIN is the command whose
# GPU backend runs here: the CUDA stand-in's build (tests/cuda_standin),
# which runs the GPU code on the CPU, or the command itself on a GPU machine.
source "$(dirname "$0")/lib.sh"

GPU=${GDEDUP_GPU_BIN:-}
if [ -z "$GPU" ]; then
  echo "skipped: this build has neither the CUDA backend nor its stand-in"
  exit 77
fi
# The stand-in's device numbers 0 to 3, all one emulated device: a machine
# of four GPUs (a real device ignores this).
export GDEDUP_STANDIN_DEVICES=4

JOB=(dedup in.txt -o @OUT -f @FILTER --capacity 6000 --no-grow --piece-bytes 3K)

# gpu_ranks RANKS ARGS...: `gdedup ARGS --backend gpu -q --mpi` on RANKS ranks
# of the GPU command, with @OUT and @FILTER as g.out and g.gdf.
gpu_ranks() {
  local ranks=$1 a args=()
  shift
  for a in "$@"; do
    a=${a//@OUT/g.out}
    args+=("${a//@FILTER/g.gdf}")
  done
  rm -f g.out g.gdf
  "${MPIRUN[@]}" -np "$ranks" "$GPU" "${args[@]}" -q --mpi >stdout 2>stderr
  STATUS=$?
  ERR=$(cat stderr)
}

# one_process ARGS...: the CPU command in one process, to one.out, one.gdf.
one_process() {
  local a args=()
  for a in "$@"; do
    a=${a//@OUT/one.out}
    args+=("${a//@FILTER/one.gdf}")
  done
  rm -f one.out one.gdf
  "$GDEDUP" "${args[@]}" -q || fail "one process: $*"
}

expect_one_process() {
  cmp -s one.out g.out || fail "$1: the output differs from one process's"
  [ ! -e one.gdf ] || cmp -s one.gdf g.gdf || fail "$1: the filter file differs from one process's"
}

case_growing_filter_on_gpu_ranks() {
  # Each layer's part on the rank's GPU; when a layer is added, the older
  # layers' bits come back from the GPUs to be resharded, then go up again.
  random_lines 20000 12000 13 >in.txt
  local args=(dedup in.txt -o @OUT -f @FILTER --capacity 1100 --piece-bytes 2K) ranks
  one_process "${args[@]}"
  for ranks in 2 3; do
    gpu_ranks "$ranks" "${args[@]}" --backend gpu
    expect_status 0
    expect_one_process "a growing filter on $ranks GPU ranks"
  done
}

case_gpu_ranks_give_one_process_bytes() {
  random_lines 30000 5000 11 >in.txt
  one_process "${JOB[@]}"
  local ranks
  for ranks in $RANKS; do
    gpu_ranks "$ranks" "${JOB[@]}" --backend gpu
    expect_status 0
    expect_one_process "dedup on $ranks GPU ranks"
  done
  # A query reads the saved filter on the GPUs.
  random_lines 8000 9000 12 >day2.txt
  "$GDEDUP" build in.txt -f day1.gdf --capacity 6000 --no-grow -q || fail "one-process build"
  "$GDEDUP" query day2.txt -f day1.gdf -o one.out --absent -q || fail "one-process query"
  rm -f one.gdf
  gpu_ranks 3 query day2.txt -f day1.gdf -o @OUT --absent --piece-bytes 2K --backend gpu
  expect_status 0
  expect_one_process "query --absent on 3 GPU ranks"
}

case_gpu_ranks_stopped_at_a_checkpoint_resume_on_cpu_ranks() {
  # SIGTERM to every GPU rank: the checkpoint they write takes the bits the
  # GPUs hand back; CPU ranks resume it.
  random_lines 200000 40000 13 >in.txt
  one_process dedup in.txt -o @OUT -f @FILTER --capacity 50000 --no-grow
  rm -f ck g.out g.gdf
  local args=(dedup in.txt -o g.out -f g.gdf --capacity 50000 --no-grow --piece-bytes 2K
              --checkpoint ck --checkpoint-every 1h)
  start_ranks 2 "$GPU" "${args[@]}" --backend gpu || return
  sleep 0.5
  kill -TERM "${PIDS[@]}"
  wait_ranks
  local status=$STATUS
  if [ -e g.out ]; then
    echo "  (the job completed before its signal: nothing to resume)"
    expect_one_process "a GPU job that completed before its signal"
    return
  fi
  [ "$status" -eq 3 ] || { fail "exit $status after SIGTERM, expected 3: $(cat stderr)"; return; }
  run_mpi 3 "${args[@]}" --resume
  expect_status 0
  expect_one_process "stopped on 2 GPU ranks, resumed on 3 CPU ranks"
}

case_more_ranks_than_gpus() {
  random_lines 5000 900 14 >in.txt
  one_process "${JOB[@]}"
  # --backend gpu insists: the rank without a GPU of its number says so.
  GDEDUP_STANDIN_DEVICES=1 gpu_ranks 2 "${JOB[@]}" --backend gpu
  expect_status 1
  one_message "no CUDA device 1"
  expect_message "at most one rank per GPU"
  [ ! -e g.out ] || fail "a refused job left its output"
  # auto: that rank runs its blocks on the CPU, with the same answers.
  GDEDUP_STANDIN_DEVICES=1 gpu_ranks 2 "${JOB[@]}"
  expect_status 0
  expect_one_process "2 ranks, one GPU"
}

case_device_is_refused_under_mpi() {
  echo a >in.txt
  gpu_ranks 2 "${JOB[@]}" --backend gpu --device 1
  expect_status 2
  # Checked as the command line is read, before MPI starts: each rank says so.
  expect_message "--device 1 has no effect with --mpi"
}

run_cases
