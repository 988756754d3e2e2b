#!/usr/bin/env bash
# Builds the GPU tests and benchmarks (tests/gpu_*_test.cpp,
# bench/gpu_*_bench.cpp) for sm_90, and the gdedup command with the CUDA
# backend, gen_urls and frontend_steps_bench for bench/e2e.sh and the scaling
# model, and gathers them into one folder to carry to a GPU machine that has
# the CUDA driver but none of our libraries:
#
#   BUNDLE/bin/   the executables (CUDA runtime, gtest and the project's
#                 libraries static; libstdc++ and libgcc static)
#   BUNDLE/tools/ this machine's GNU time, pigz, igzip and zstd, which
#                 bench/e2e.sh runs (gpu_check.sh puts them first on PATH)
#   BUNDLE/lib/   every other shared library they load, except the C library
#                 and the NVIDIA driver, which must come from that machine
#   BUNDLE/compute-sanitizer/  the toolkit's compute-sanitizer, when this
#                 machine has one (gpu_check.sh runs the small GPU tests
#                 under it)
#   BUNDLE/MANIFEST  commit, compiler, the glibc the binaries need (checked
#                 first by gpu_check.sh), files and their checksums
#
# usage: bench/build_gpu_bundle.sh [BUNDLE]     (default: build-gpu)
# env:   JOBS (default 2), GDEDUP_GPU_BUILD (object folder, default build-gpu-work)
# Then run there: bash bench/gpu_check.sh BUNDLE
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=${1:-$root/build-gpu}
build=${GDEDUP_GPU_BUILD:-$root/build-gpu-work}
jobs=${JOBS:-2}

command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || {
  echo "build_gpu_bundle.sh: nvcc not found; install the CUDA toolkit (or put it on PATH)." >&2
  exit 2
}

targets=()
for src in "$root"/tests/gpu_*_test.cpp "$root"/bench/gpu_*_bench.cpp; do
  [ -e "$src" ] && targets+=("$(basename "${src%.cpp}")")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "build_gpu_bundle.sh: no tests/gpu_*_test.cpp or bench/gpu_*_bench.cpp to build." >&2
  exit 2
fi
# For bench/e2e.sh: the command (target gdedup_cli, file gdedup) and the
# data generator; and the front end's step costs on that machine's cores.
targets+=(gdedup_cli gen_urls frontend_steps_bench)
file_of() { [ "$1" = gdedup_cli ] && echo gdedup || echo "$1"; }
tools=(time pigz igzip zstd)
for tool in "${tools[@]}"; do
  type -P "$tool" >/dev/null || {
    echo "build_gpu_bundle.sh: $tool not found; run scripts/install-deps.sh (bench/e2e.sh on the GPU machine needs it)." >&2
    exit 2
  }
done

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DGDEDUP_CUDA=ON -DGDEDUP_CUDA_STANDIN=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/tools"
for t in "${targets[@]}"; do
  exe=$(find "$build" -type f -name "$(file_of "$t")" -perm -u+x | head -n 1)
  if [ -z "$exe" ]; then
    echo "build_gpu_bundle.sh: $t was not built." >&2
    exit 1
  fi
  cp "$exe" "$bundle/bin/"
done
for tool in "${tools[@]}"; do cp -L "$(type -P "$tool")" "$bundle/tools/"; done

# Libraries that must come from the target machine: the C library family
# (tied to its loader) and the NVIDIA driver.
system_lib='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libcuda\.|libnvidia)'
for exe in "$bundle"/bin/* "$bundle"/tools/*; do
  if ldd "$exe" | grep -q 'not found'; then
    echo "build_gpu_bundle.sh: $exe needs libraries that are missing here:" >&2
    ldd "$exe" | grep 'not found' >&2
    exit 1
  fi
  ldd "$exe" | awk '/=>/ && $3 ~ /^\// {print $3}' | while read -r lib; do
    name=$(basename "$lib")
    if ! [[ $name =~ $system_lib ]]; then
      cp -L "$lib" "$bundle/lib/$name"
    fi
  done
done

for tool in /usr/local/cuda/compute-sanitizer "$(dirname "$(command -v compute-sanitizer 2>/dev/null || echo /none/x)")"; do
  if [ -x "$tool/compute-sanitizer" ]; then
    cp -rL "$tool" "$bundle/compute-sanitizer"
    break
  fi
done

{
  echo "gdedup GPU bundle"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  echo "nvcc: $( (command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version) | tail -n 1)"
  echo "glibc needed: $(objdump -T "$bundle"/bin/* "$bundle"/tools/* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -n 1)"
  echo "files:"
  (cd "$bundle" && find bin tools lib -type f | sort | xargs sha256sum)
  [ -d "$bundle/compute-sanitizer" ] && echo "compute-sanitizer: carried" || echo "compute-sanitizer: none on this machine"
} > "$bundle/MANIFEST"

cat "$bundle/MANIFEST"
echo "bundle: $bundle ($(du -sh "$bundle" | cut -f1)); carry it and run: bash bench/gpu_check.sh $(basename "$bundle")"
