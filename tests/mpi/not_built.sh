#!/usr/bin/env bash
# In a build without MPI, --mpi fails at once with a message that says so
# and how to get a build with it, and writes nothing. Registered by
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

run_cases
