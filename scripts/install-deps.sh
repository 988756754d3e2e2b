#!/usr/bin/env bash
# Installs the Debian packages the build, tests and benchmarks need. Quick and
# silent when everything is already there. The CUDA toolkit is not a Debian
# package here: the build finds /usr/local/cuda by itself, or skips CUDA.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libhwy-dev libxxhash-dev libcli11-dev libzstd-dev zlib1g-dev libisal-dev
  liblzma-dev libbz2-dev liblz4-dev
  # JSON and CDXJ keys (--key json:PATH, cdxj:PATH).
  libsimdjson-dev
  # --normalize scrapy's internationalized hosts: IDNA 2003 (Python's idna
  # codec) and Unicode 14.0 lowercasing and NFKC (Python 3.11's).
  libidn-dev libunistring-dev
  libgtest-dev libbenchmark-dev
  zstd gzip xz-utils bzip2 lz4 time
  # MPI runs (docs/SCALE-OUT.md): the library and mpirun for the tests.
  libopenmpi-dev openmpi-bin
  # bench/e2e.sh: the decoders alone, the floor for compressed input.
  pigz isal
  # bench/e2e.sh: jq, the JSON Lines baseline of --key json:PATH.
  jq
  # Fuzzing and sanitizer builds (scripts/fuzz.sh, scripts/sanitize.sh):
  # clang with libFuzzer and the sanitizer runtimes (gcc brings its own).
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
