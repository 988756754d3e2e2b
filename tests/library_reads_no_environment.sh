#!/usr/bin/env bash
# The library takes its choices as options, never from the environment: a
# program that links it decides what its users may set. Fails, naming each
# place, if getenv appears in the library's sources (src/ except the command
# in src/cli, include/, kernels/). Usage: library_reads_no_environment.sh ROOT
set -u
cd "${1:?usage: $0 SOURCE_ROOT}" || exit 2
found=$(grep -rnE '\b(secure_)?getenv\b' src include kernels --exclude-dir=cli)
if [ -n "$found" ]; then
  echo "getenv in the library; make it an option the command fills instead:" >&2
  echo "$found" >&2
  exit 1
fi
