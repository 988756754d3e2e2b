#!/usr/bin/env bash
# Each of the command's flags is spelled once in src/cli, in src/cli/flags.h
# (as ripgrep defines each flag once): the option's definition, its help and
# every message name it from there, so that a flag renamed is renamed
# everywhere. Fails naming each flag that the string literals of src/cli
# spell more than once, and where. A flag: two dashes and a letter
# ("--max-memory"), or a dash and one letter or digit standing alone ("-o",
# "-0"), at the start of a literal or after a space, a quote, a bracket or
# a comma. The flags after the name of another program (find -print0,
# sort -z, ulimit -v, srun --mpi=pmix) are that program's. Comments may name
# flags: only string literals count (tests/string_literals.pl).
# Usage: flag_text_check.sh SOURCE_ROOT
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "${1:?usage: $0 SOURCE_ROOT}" || exit 2
if ! command -v perl >/dev/null; then
  echo "flag_text_check: perl is needed to read the command's string literals" >&2
  exit 1
fi
mapfile -d '' sources < <(find src/cli -type f \( -name '*.cpp' -o -name '*.h' \) -print0 |
  sort -z)
[ "${#sources[@]}" -gt 0 ] || { echo "flag_text_check: no source under src/cli" >&2; exit 1; }

flag='(?:--[a-z][a-z0-9-]*|-[A-Za-z0-9](?![A-Za-z0-9-]))'
before='(?:^|(?<=[\s(\[{"\x27\x60,;=]))'
# "FLAG FILE:LINE" for each flag in a literal, then each flag found twice or
# more with the places that spell it.
found=$(perl "$here/string_literals.pl" "$before$flag" "${sources[@]}" |
  FLAG=$flag BEFORE=$before perl -ne '
    my ($place, $literal) = /^([^:]*:\d+): (.*)$/ or next;
    $literal =~ s/\b(?:find|sort|srun|ulimit|mpirun|mpiexec)(?:\s+-\S+)+//g;
    print "$1 $place\n" while $literal =~ /$ENV{BEFORE}($ENV{FLAG})/g;' |
  sort -s -k1,1 |
  awk '$1 != flag { if (n > 1) print line; flag = $1; n = 0; line = $1 ":" }
       { n++; line = line " " $2 } END { if (n > 1) print line }')
if [ -n "$found" ]; then
  echo "a flag spelled more than once in src/cli; spell it once, in src/cli/flags.h, and name" \
    "it from there (flag::kName.names() for the option, flag::kName in help and messages):" >&2
  echo "$found" >&2
  exit 1
fi
exit 0
