#!/usr/bin/env bash
# Installs what is missing, builds everything (with the CUDA backend when nvcc
# is present, and the Python module) and runs the test suite, the Python
# tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/install-python-deps.sh
build=${GDEDUP_BUILD_DIR:-build}
# The Python module is built in the same tree (compiled once with the
# engine) and its pytest suites are ctest tests: python.pytest, and
# python.scrapy for the Scrapy filter.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGDEDUP_BUILD_TESTS=ON \
  -DGDEDUP_PYTHON=ON ${GDEDUP_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"
source scripts/test_tmpdir.sh
# One test more than the cores: the end-to-end scripts wait a third of
# their time (mpirun's start, their jobs' exits), and a third test fills it
# (the suite 15% sooner on 2 cores; a fourth adds nothing: bench/RESULTS.md).
ctest --test-dir "$build" --output-on-failure -j "$(($(nproc) + 1))" ${GDEDUP_CTEST_ARGS:-}
