#!/usr/bin/env bash
# Builds the engine, the command and every test with AddressSanitizer and
# UndefinedBehaviorSanitizer (GDEDUP_SANITIZE) in build-asan, without the CUDA
# backend and the benchmarks, and runs the whole test suite there: the unit
# tests, the end-to-end tests and the fuzz corpora (fuzz_*_replay). Any
# sanitizer report fails the test that triggered it.
#
#   scripts/sanitize.sh [CTEST_ARGS...]     e.g. scripts/sanitize.sh -R filter
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

build=${GDEDUP_ASAN_BUILD_DIR:-build-asan}
# -O1 -g1: the usual sanitizer trade between build time, test time and
# reports (line tables are enough for stack traces with file:line).
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DGDEDUP_SANITIZE=ON -DGDEDUP_CUDA=OFF -DGDEDUP_BUILD_BENCH=OFF ${GDEDUP_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
source scripts/test_tmpdir.sh
# One test more than the cores, as scripts/test.sh runs them.
ctest --test-dir "$build" --output-on-failure -j "$(($(nproc) + 1))" "$@"
