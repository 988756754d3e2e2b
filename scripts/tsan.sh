#!/usr/bin/env bash
# Builds the GPU backend's tests and gdedup-standin on the CUDA stand-in with
# ThreadSanitizer in build-tsan, and runs them: the backend's unmodified host
# code, the stand-in's stream threads and the kernels' host functions under
# the race detector. Any report fails the test (halt_on_error).
#
# Optional, not in .ci/run: under the sanitizer on 2 cores the whole of
# gpu_backend_test takes more than 8 minutes, so by default this runs a
# selection of a few minutes that covers batches chained over streams,
# device and pinned buffers, and test_and_set's table and repeats.
#
#   scripts/tsan.sh [CTEST_REGEX]     e.g. scripts/tsan.sh '^Gpu' (all of them)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

build=${GDEDUP_TSAN_BUILD_DIR:-build-tsan}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DGDEDUP_CUDA=OFF -DGDEDUP_BUILD_BENCH=OFF -DGDEDUP_CUDA_STANDIN=ON ${GDEDUP_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)" --target gpu_backend_test gpu_pipeline_test gdedup_standin_cli

export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
quick='^(GpuBackend\.(LaterCallsSeeEarlierBitsAndTheInitialFilter|TestAndSetRepeatsOfAFingerprint|TestAndSetTableHalfFullInOneCluster|DeviceAndPinnedBuffersGiveTheSameAnswers|DuplicateHeavyBatchesSortOnlyDistinctFingerprints)|GpuPipelineTest\..*)$'
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -R "${1:-$quick}"
