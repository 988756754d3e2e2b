#!/usr/bin/env bash
# Installs the build tree $1 to a temporary prefix, checks that each installed
# header compiles alone, then configures, builds and runs the consumer program
# in this folder against that prefix alone.
# Usage: run.sh BUILD_DIR CMAKE GENERATOR CXX_COMPILER
set -euo pipefail
build=$1 cmake=$2 generator=$3 cxx=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
# The installed headers are the library's API alone, and each compiles on its
# own: none needs a front end's header (include/gdedup/frontend/, which is not
# installed) or one of the sources.
if [ -e "$tmp/prefix/include/gdedup/frontend" ]; then
  echo "run.sh: the front ends' headers (gdedup/frontend/) were installed" >&2
  exit 1
fi
# A build with Parquet support installs its module where the installed
# command finds it (the library folder beside bin/): a file that starts as
# Parquet does and is not is then refused by the module, not for want of it.
if [ -e "$build/libgdedup_parquet.so" ] && [ -x "$tmp/prefix/bin/gdedup" ]; then
  printf 'PAR1 and nothing of Parquet after it\n' >"$tmp/fake.parquet"
  said=$("$tmp/prefix/bin/gdedup" dedup -q --key column:url "$tmp/fake.parquet" -o "$tmp/o" 2>&1) &&
    { echo "run.sh: the installed command took a file that is not Parquet" >&2; exit 1; }
  case $said in
    *"is not a readable Parquet file"*) ;;
    *) echo "run.sh: the installed command did not load its Parquet module: $said" >&2; exit 1 ;;
  esac
fi
for header in "$tmp/prefix/include/gdedup/"*.h; do
  echo "#include \"gdedup/${header##*/}\"" |
    "$cxx" -std=c++17 -fsyntax-only -I "$tmp/prefix/include" -x c++ - ||
    { echo "run.sh: the installed gdedup/${header##*/} does not compile on its own" >&2; exit 1; }
done
"$cmake" -S "$here" -B "$tmp/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
found=$(sed -n 's/^gdedup_DIR:PATH=//p' "$tmp/build/CMakeCache.txt")
case $found in
  "$tmp/prefix"/*) ;;
  *) echo "run.sh: find_package(gdedup) found $found, not the install in $tmp/prefix" >&2; exit 1 ;;
esac
"$cmake" --build "$tmp/build" >/dev/null
"$tmp/build/consumer"
