#!/usr/bin/env bash
# Builds the GPU tests and benchmarks (tests/gpu_*_test.cpp,
# bench/gpu_*_bench.cpp) for sm_90, and the gdedup command with the CUDA
# backend, gen_urls and frontend_steps_bench for bench/e2e.sh and the scaling
# model, and gathers them into one folder to carry to a GPU machine that has
# the CUDA driver but none of our libraries:
#
#   BUNDLE/bin/   the executables, stripped (CUDA runtime, gtest and the
#                 project's libraries static; libstdc++ and libgcc static;
#                 no MPI: the device run needs none, and its libraries
#                 would take a third of the room)
#   BUNDLE/tools/ this machine's GNU time, pigz, igzip and zstd, which
#                 bench/e2e.sh runs (gpu_check.sh puts them first on PATH)
#   BUNDLE/lib/   every other shared library they load, stripped, except the
#                 C library and the NVIDIA driver, which must come from that
#                 machine
#   BUNDLE/compute-sanitizer/  the toolkit's compute-sanitizer, only with
#                 SANITIZER=1 and when this machine has one (gpu_check.sh
#                 finds it there or on PATH for its sanitizer step)
#   BUNDLE/MANIFEST  commit, compiler, the device (a GPU, or the simulated
#                 one), the glibc the binaries need (checked first by
#                 gpu_check.sh), files and their checksums
#
# A device run carries at most 64 MiB of build output, so the bundle must
# stay under 60 MiB: it is packed into BUNDLE/files.tar.gz beside MANIFEST
# (gpu_check.sh unpacks it), its size is printed (du of each part before
# packing) and a larger one fails.
#
# usage: bench/build_gpu_bundle.sh [--simulated] [BUNDLE]   (default: build-gpu)
#   --simulated  no nvcc build: bundles the GPU tests, gpu_ops_bench and
#                gdedup-standin (as bin/gdedup) of a build with the CUDA
#                stand-in (GDEDUP_GPU_BUILD, default build), so that
#                gpu_check.sh runs the same steps here on the CPU device.
# env:   JOBS (default 2), GDEDUP_GPU_BUILD (object folder, default
#        build-gpu-work; build with --simulated), SANITIZER (1: carry
#        compute-sanitizer), MAX_MIB (default 60)
# Then run there: bash bench/gpu_check.sh BUNDLE
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
simulated=0
if [ "${1:-}" = --simulated ]; then
  simulated=1
  shift
fi
bundle=${1:-$root/build-gpu}
jobs=${JOBS:-2}
max_mib=${MAX_MIB:-60}

targets=()
for src in "$root"/tests/gpu_*_test.cpp "$root"/bench/gpu_*_bench.cpp; do
  [ -e "$src" ] && targets+=("$(basename "${src%.cpp}")")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "build_gpu_bundle.sh: no tests/gpu_*_test.cpp or bench/gpu_*_bench.cpp to build." >&2
  exit 2
fi
tools=(time pigz igzip zstd)
for tool in "${tools[@]}"; do
  type -P "$tool" >/dev/null || {
    echo "build_gpu_bundle.sh: $tool not found; run scripts/install-deps.sh (bench/e2e.sh on the GPU machine needs it)." >&2
    exit 2
  }
done

# For bench/e2e.sh: the command (target gdedup_cli, file gdedup; on the
# stand-in gdedup_standin_cli, file gdedup-standin) and the data generator;
# and the front end's step costs on that machine's cores.
if [ "$simulated" -eq 1 ]; then
  build=${GDEDUP_GPU_BUILD:-$root/build}
  if ! grep -qs 'gdedup_standin_cli' "$build/build.ninja" "$build/Makefile"; then
    echo "build_gpu_bundle.sh: $build is not a build with the CUDA stand-in; configure one (tests/cuda_standin/README.md) or set GDEDUP_GPU_BUILD." >&2
    exit 2
  fi
  cli=gdedup_standin_cli
  device="simulated (the CUDA stand-in: kernels on the CPU device)"
else
  build=${GDEDUP_GPU_BUILD:-$root/build-gpu-work}
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || {
    echo "build_gpu_bundle.sh: nvcc not found; install the CUDA toolkit (or put it on PATH)." >&2
    exit 2
  }
  # ccache, where there is one, makes a rebuild of the bundle cheap.
  launchers=()
  if command -v ccache >/dev/null; then
    for lang in C CXX CUDA; do launchers+=("-DCMAKE_${lang}_COMPILER_LAUNCHER=ccache"); done
  fi
  cmake -S "$root" -B "$build" -G Ninja "${launchers[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DGDEDUP_CUDA=ON -DGDEDUP_CUDA_STANDIN=OFF -DGDEDUP_MPI=OFF -DGDEDUP_PYTHON=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
  cli=gdedup_cli
  device="GPU (sm_90)"
fi
targets+=("$cli" gen_urls frontend_steps_bench)
file_of() {
  case "$1" in
    gdedup_cli) echo gdedup ;;
    gdedup_standin_cli) echo gdedup-standin ;;
    *) echo "$1" ;;
  esac
}
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/tools"
for t in "${targets[@]}"; do
  exe=$(find "$build" -type f -name "$(file_of "$t")" -perm -u+x | head -n 1)
  if [ -z "$exe" ]; then
    echo "build_gpu_bundle.sh: $t was not built." >&2
    exit 1
  fi
  name=$(basename "$exe")
  [ "$name" = gdedup-standin ] && name=gdedup
  cp "$exe" "$bundle/bin/$name"
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
# Symbols and debug sections are most of an executable's bytes; what runs
# stays the same.
chmod u+w "$bundle"/bin/* "$bundle"/tools/* "$bundle"/lib/* 2>/dev/null || true
for f in "$bundle"/bin/* "$bundle"/tools/* "$bundle"/lib/*; do
  [ -f "$f" ] || continue
  strip --strip-unneeded "$f" 2>/dev/null || {
    echo "build_gpu_bundle.sh: strip failed on $f." >&2
    exit 1
  }
done

if [ "${SANITIZER:-0}" = 1 ]; then
  for tool in /usr/local/cuda/compute-sanitizer "$(dirname "$(command -v compute-sanitizer 2>/dev/null || echo /none/x)")"; do
    if [ -x "$tool/compute-sanitizer" ]; then
      cp -rL "$tool" "$bundle/compute-sanitizer"
      break
    fi
  done
fi

{
  echo "gdedup GPU bundle"
  echo "device: $device"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  if [ "$simulated" -eq 0 ]; then
    echo "nvcc: $( (command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version) | tail -n 1)"
  fi
  echo "glibc needed: $(objdump -T "$bundle"/bin/* "$bundle"/tools/* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -n 1)"
  echo "files:"
  (cd "$bundle" && find bin tools lib -type f | sort | xargs sha256sum)
  [ -d "$bundle/compute-sanitizer" ] && echo "compute-sanitizer: carried" || echo "compute-sanitizer: not carried"
} > "$bundle/MANIFEST"

cat "$bundle/MANIFEST"
du -sh "$bundle"/*
unpacked=$(du -sb "$bundle" | cut -f1)
# Packed: the executables share most of their bytes (each carries the
# kernels and our libraries), which gzip finds, so the bundle takes under a
# third of its unpacked size (57 MiB unpacked, 17 packed, on 2026-12-06).
# gpu_check.sh unpacks it where it runs (tar and gzip are on any machine
# the toolkit runs on).
parts=(bin lib tools)
[ -d "$bundle/compute-sanitizer" ] && parts+=(compute-sanitizer)
tar -czf "$bundle/files.tar.gz" -C "$bundle" "${parts[@]}"
for part in "${parts[@]}"; do rm -rf "${bundle:?}/$part"; done
bytes=$(du -sb "$bundle" | cut -f1)
echo "packed: $bytes bytes ($unpacked unpacked) in $bundle/files.tar.gz"
if [ "$bytes" -gt $(( max_mib << 20 )) ]; then
  echo "build_gpu_bundle.sh: the bundle $bundle holds $bytes bytes packed, more than $max_mib MiB; a device run carries at most 64 MiB. Leave out compute-sanitizer (SANITIZER=0) or find what grew in the du above." >&2
  exit 1
fi
echo "bundle: $bundle ($bytes bytes, under $max_mib MiB); carry it and run: bash bench/gpu_check.sh $(basename "$bundle")"
