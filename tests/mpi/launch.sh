#!/usr/bin/env bash
# Started by an MPI launcher without --mpi (cli/mpi_launch.h): the processes
# run as the ranks of one job, with one process's output, instead of each
# running the whole job into the same files; what cannot be one job (ranks
# given different commands, processes MPI did not join, merge) fails with
# one message and writes nothing. GDEDUP_MPIEXEC names mpirun.
source "$(dirname "$0")/lib.sh"

case_mpirun_without_the_flag_is_one_job() {
  random_lines 20000 4000 41 >in.txt
  "$GDEDUP" dedup in.txt -o one.out --capacity 5000 --no-grow -q || fail "one process failed"
  local ranks
  for ranks in 2 3; do
    rm -f out.txt
    "${MPIRUN[@]}" -np "$ranks" "$GDEDUP" dedup in.txt -o out.txt --capacity 5000 \
      --no-grow --piece-bytes 8K 2>err || fail "$ranks ranks failed: $(cat err)"
    cmp -s one.out out.txt || fail "mpirun -np $ranks without --mpi: the output differs"
    grep -q "one of $ranks processes by an MPI launcher (OMPI_COMM_WORLD_SIZE=$ranks)" err ||
      fail "no word of the launch on $ranks ranks: $(cat err)"
  done
}

case_mpirun_without_the_flag_exact_mode() {
  random_lines 20000 4000 46 >in.txt
  "$GDEDUP" dedup in.txt -o one.out --exact --duplicates -q || fail "one process failed"
  rm -f out.txt
  "${MPIRUN[@]}" -np 3 "$GDEDUP" dedup in.txt -o out.txt --exact --duplicates \
    --piece-bytes 8K -q 2>err || fail "3 ranks failed: $(cat err)"
  cmp -s one.out out.txt || fail "mpirun -np 3 --exact without --mpi: the output differs"
}

case_ranks_given_different_commands() {
  random_lines 2000 400 42 >a.txt
  random_lines 2000 400 43 >b.txt
  "${MPIRUN[@]}" -np 1 "$GDEDUP" dedup a.txt -o a.out --memory 64K : \
    -np 1 "$GDEDUP" dedup b.txt -o b.out --memory 64K >stdout 2>stderr
  STATUS=$?
  ERR=$(cat stderr)
  expect_status 2
  one_message "the ranks were not all given the same command line"
  [ ! -e a.out ] && [ ! -e b.out ] || fail "a refused job left an output"
}

case_processes_mpi_did_not_join() {
  # srun's variable without an MPI plugin to join the processes: MPI sees
  # a world of one.
  random_lines 2000 400 44 >in.txt
  SLURM_STEP_NUM_TASKS=2 run_gdedup dedup in.txt -o out.txt --memory 64K
  expect_status 2
  expect_message "the launcher started 2 processes (SLURM_STEP_NUM_TASKS=2) but MPI joined 1"
  [ ! -e out.txt ] || fail "a refused job left out.txt"
  # --no-mpi: each process alone, as asked.
  SLURM_STEP_NUM_TASKS=2 run_gdedup dedup in.txt -o out.txt --memory 64K --no-mpi -q
  expect_status 0
  exact_dedup in.txt expected.txt
  cmp -s expected.txt out.txt || fail "--no-mpi did not dedup alone"
}

case_merge_refused_under_a_launch() {
  random_lines 2000 400 45 >in.txt
  "$GDEDUP" build in.txt -f a.gdf --memory 64K -q && cp a.gdf b.gdf || fail "build failed"
  OMPI_COMM_WORLD_SIZE=2 run_gdedup merge a.gdf b.gdf -o m.gdf
  expect_status 2
  expect_message "gdedup merge runs in one process"
  [ ! -e m.gdf ] || fail "a refused merge left its output"
}

case_mpi_and_no_mpi_exclude_each_other() {
  echo a >in.txt
  run_gdedup dedup in.txt -o out.txt --memory 64K --mpi --no-mpi
  expect_status 2
  expect_message "--mpi excludes --no-mpi"
}

case_bench_of_the_key_exchange() {
  # gdedup bench under mpirun measures the sharded filter's rounds: three
  # figures over every rank's keys.
  "${MPIRUN[@]}" -np 2 "$GDEDUP" bench --keys 100K --json >bench.json 2>err ||
    fail "the bench failed: $(cat err)"
  python3 - bench.json <<'PY' || fail "the bench's figures are not three measured runs: $(cat bench.json)"
import json, sys
runs = json.load(open(sys.argv[1]))
names = [runs[k]["workload"] for k in sorted(runs)]
assert names == ["mpi exchange", "mpi round", "whole filter"], names
for run in runs.values():
    assert run["items"] == 200000 and run["seconds"] > 0, run
PY
  run_gdedup bench --mpi --urls 5
  expect_status 2
  expect_message "--urls has no effect with --mpi"
}

run_cases
