#!/usr/bin/env bash
# Installs what is missing, builds everything (with the CUDA backend when nvcc
# is present) and runs the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${GDEDUP_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGDEDUP_BUILD_TESTS=ON ${GDEDUP_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" ${GDEDUP_CTEST_ARGS:-}
