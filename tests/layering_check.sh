#!/usr/bin/env bash
# The library's boundaries, checked on its sources (docs/ARCHITECTURE.md).
# Fails naming each file and what it must not hold:
#  - the command (src/cli) includes only the public API (gdedup/...) and its
#    own headers (cli/...): anything it needs, a Python package or another
#    front end needs too, so it belongs in include/gdedup;
#  - the Python module (python/src) likewise includes only the public API
#    and its own headers (no folder): it is built on what any front end
#    gets;
#  - a public header includes only other public headers, so that an
#    installed copy compiles without the sources;
#  - no getenv in src/, include/ or kernels/: the library takes its choices
#    as options, and a program that links it decides what its users may set.
#    The one exception is the command's src/cli/mpi_launch.cpp, which reads
#    what an MPI launcher tells the processes it starts.
# Usage: layering_check.sh SOURCE_ROOT
set -u
cd "${1:?usage: $0 SOURCE_ROOT}" || exit 2
failed=0

# Prints "FILE: includes HEADER" for each quoted include in FILES... whose
# header does not start with one of the allowed prefixes (a regex).
includes_outside() {
  local allowed=$1
  shift
  grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" |
    sed -E 's/^([^:]*):([0-9]+):[^"]*"([^"]*)".*/\1:\2: includes \3/' |
    grep -vE ": includes (${allowed})" || true
}

found=$(includes_outside 'cli/|gdedup/' src/cli/*.cpp src/cli/*.h)
if [ -n "$found" ]; then
  echo "src/cli includes an internal header; give include/gdedup/ a public one for what it needs:" >&2
  echo "$found" >&2
  failed=1
fi

found=$(includes_outside 'gdedup/|[^/]+$' python/src/*.cpp python/src/*.h)
if [ -n "$found" ]; then
  echo "python/src includes an internal header; give include/gdedup/ a public one for what it needs:" >&2
  echo "$found" >&2
  failed=1
fi

found=$(includes_outside 'gdedup/' include/gdedup/*.h)
if [ -n "$found" ]; then
  echo "a public header includes one that is not installed; include only gdedup/ headers:" >&2
  echo "$found" >&2
  failed=1
fi

found=$(grep -rnE '\b(secure_)?getenv\b' src include kernels | grep -v '^src/cli/mpi_launch\.cpp:')
if [ -n "$found" ]; then
  echo "getenv in the sources; make it an option the caller fills instead:" >&2
  echo "$found" >&2
  failed=1
fi
exit "$failed"
