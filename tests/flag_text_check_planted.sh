#!/usr/bin/env bash
# flag_text_check.sh on small trees made for it: a flag spelled a second
# time in src/cli, long or short, in a plain or a raw string, fails naming
# the flag and both places; what is not a second spelling passes (a flag
# named in a comment, another program's flags, numbers such as 1e-4, a
# lone "--" or "-").
# Usage: flag_text_check_planted.sh FLAG_TEXT_CHECK
set -u
check=${1:?usage: $0 FLAG_TEXT_CHECK}
planted=flag_text_check.planted
source "$(dirname "$0")/planted_lib.sh"

tree=$work/clean
put src/cli/flags.h <<'EOF'
#pragma once
inline constexpr Flag kMaxMemory{"--max-memory"};
inline constexpr Flag kOutput{"-o", "--output"};
inline constexpr Flag kNullData{"-z", "--null-data"};
EOF
put src/cli/help.cpp <<'EOF'
// A comment may say --max-memory and -o.
/* --max-memory, -z */
std::string help() {
  return "Records end with NUL (find -print0, sort -z); see ulimit -v, srun --mpi=pmix, "
         "mpirun -np R, a rate of 1e-4, 256-bit blocks, a lone -- or - and a--b, "
         "cap it with " + flag::kMaxMemory + ", write to " + flag::kOutput;
}
const char kDash = '-'; const char* kPath = "/tmp/-o";
EOF
run_check "$tree"
[ "$STATUS" -eq 0 ] && [ -z "$ERR" ] || fail "the clean tree did not pass (status $STATUS): $ERR"

cp -R "$work/clean" "$work/twice"
tree=$work/twice
put src/cli/advice.cpp <<'EOF'
#include <string>
std::string advice(bool exact) {
  return exact ? "cap the set with --max-memory"
               : R"(write it with -o,
or give -z)";
}
EOF
run_check "$tree"
[ "$STATUS" -eq 1 ] || fail "a flag spelled twice passed (status $STATUS): $ERR"
expect_in_err "a flag spelled more than once in src/cli" "a flag spelled twice"
expect_in_err "--max-memory: src/cli/advice.cpp:3 src/cli/flags.h:2" "a long flag in a string"
expect_in_err "-o: src/cli/advice.cpp:4 src/cli/flags.h:3" "a short flag in a raw string"
expect_in_err "-z: src/cli/advice.cpp:4 src/cli/flags.h:4" "the second line of a raw string"
[ "$(grep -c ': src/' <<<"$ERR")" -eq 3 ] || fail "the check named other flags: $ERR"
exit 0
