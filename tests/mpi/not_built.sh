#!/usr/bin/env bash
# In a build without MPI, --mpi, or a launcher that started several
# processes, fails at once with a message that says so and how to get a
# build with it, and writes nothing. Registered by
# tests/CMakeLists.txt only when MPI is not built.
source "$(dirname "$0")/../hostile/lib.sh"

case_mpi_flag_refused() {
  echo a >in.txt
  run_gdedup dedup in.txt -o out.txt --memory 1M --mpi
  expect_status 1
  expect_message "gdedup was built without MPI"
  expect_message "-DGDEDUP_MPI=ON"
  [ ! -e out.txt ] || fail "a refused job left out.txt"
}

case_several_processes_refused() {
  # As mpirun tells each process it starts: every one would run the whole
  # job into the same output.
  echo a >in.txt
  OMPI_COMM_WORLD_SIZE=3 run_gdedup dedup in.txt -o out.txt --memory 1M
  expect_status 2
  expect_message "one of 3 started by an MPI launcher (OMPI_COMM_WORLD_SIZE=3)"
  expect_message "built without MPI"
  [ ! -e out.txt ] || fail "a refused job left out.txt"
  OMPI_COMM_WORLD_SIZE=3 run_gdedup dedup in.txt -o out.txt --memory 1M --no-mpi
  expect_status 0
  [ "$(cat out.txt)" = a ] || fail "--no-mpi did not run the job alone"
}

run_cases
