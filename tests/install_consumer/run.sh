#!/usr/bin/env bash
# Installs the build tree $1 to a temporary prefix, then configures, builds and
# runs the consumer program in this folder against that prefix alone.
# Usage: run.sh BUILD_DIR CMAKE GENERATOR CXX_COMPILER [CXX_FLAGS]
set -euo pipefail
build=$1 cmake=$2 generator=$3 cxx=$4 cxx_flags=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
"$cmake" -S "$here" -B "$tmp/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxx_flags" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
found=$(sed -n 's/^gdedup_DIR:PATH=//p' "$tmp/build/CMakeCache.txt")
case $found in
  "$tmp/prefix"/*) ;;
  *) echo "run.sh: find_package(gdedup) found $found, not the install in $tmp/prefix" >&2; exit 1 ;;
esac
"$cmake" --build "$tmp/build" >/dev/null
"$tmp/build/consumer"
