#!/usr/bin/env bash
# layering_check.sh on small trees made for it: the rules on the library's
# words, on its OS calls and on its API's includes of the front ends' headers
# each fail on a planted case, naming the file and what it holds, and let
# through what they must (a flag named in a comment, a URL or a lone "--" in
# a string, an OS call in src/fs or src/cli, the object of a source removed
# since, a front end's header that includes the API).
# Usage: layering_check_planted.sh LAYERING_CHECK CXX
set -u
check=${1:?usage: $0 LAYERING_CHECK CXX}
cxx=${2:?usage: $0 LAYERING_CHECK CXX}
planted=layering_check.planted
source "$(dirname "$0")/planted_lib.sh"

# compile SOURCE TARGET: SOURCE's object where a CMake target TARGET of the
# build folder would put it.
compile() {
  local object=$tree/build/CMakeFiles/$2.dir/$1.o
  mkdir -p "$(dirname "$object")"
  "$cxx" -std=c++17 -O2 -c "$tree/$1" -o "$object" || fail "cannot compile $1"
}

# The tree every case starts from: the front ends, a public header and the
# kernels' folder, so that the include rules have files to read, and library code that every
# rule must let through.
tree=$work/clean
put src/cli/main.cpp <<'EOF'
#include <unistd.h>
int main() { return ::getpid() > 0 ? 0 : 1; }
EOF
put src/cli/main.h <<<'#pragma once'
put python/src/module.cpp <<<''
put python/src/module.h <<<'#pragma once'
put include/gdedup/error.h <<<'#pragma once'
put include/gdedup/frontend/json.h <<'EOF'
#pragma once
#include "gdedup/error.h"
EOF
put kernels/kernels.cu <<<''
put src/format/words.cpp <<'EOF'
// Given without --exact, a set file is refused; /* --memory */ too.
/* --capacity sizes a filter,
   --fpr its rate. */
const char* kUrl = "http://x/--y";  // a URL, then a comment: --fpr
const char* kQuote = "a \"quoted\" word -- and a--b, // not a comment";
const char kMark = '"'; const char* kAfter = "after a quote"; // --threads
const long kMany = 1'000'000; const char* kRaw = R"x(no flag (--) "here")x";
EOF
put src/fs/process.cpp <<'EOF'
#include <unistd.h>
long process_id() { return ::getpid(); }
EOF
put src/core/pool.cpp <<'EOF'
#include <mutex>
#include <string>
std::mutex m;
std::string name(int n) { std::lock_guard<std::mutex> l(m); return std::to_string(n); }
EOF
put src/core/gone.cpp <<'EOF'
#include <unistd.h>
long gone() { return ::getpid(); }
EOF
compile src/cli/main.cpp gdedup_cli_objects
compile src/fs/process.cpp gdedup_engine
compile src/core/pool.cpp gdedup_engine
compile src/core/gone.cpp gdedup_engine
rm "$tree/src/core/gone.cpp"  # its object stays, as a build folder keeps it

run_check "$tree" "$tree/build"
[ "$STATUS" -eq 0 ] && [ -z "$ERR" ] || fail "the clean tree did not pass (status $STATUS): $ERR"
run_check "$tree"
[ "$STATUS" -eq 0 ] || fail "the clean tree without a build folder failed: $ERR"
expect_in_err "no build folder given, so the OS calls of the compiled library are not checked" \
  "without a build folder"
mkdir "$work/empty"
run_check "$tree" "$work/empty"
[ "$STATUS" -eq 1 ] || fail "a build folder without the library's objects passed: $ERR"
expect_in_err "no object file of the library under" "a build folder without objects"

# A flag in a string literal of the library, plain and raw, in src/ and in a
# public header.
cp -R "$work/clean" "$work/flag"
tree=$work/flag
put src/format/advice.cpp <<'EOF'
#include <string>
// A comment may say --exact.
std::string advice(bool checkpoint) {
  return checkpoint ? "resume it with --exact"
                    : R"(use it with --exact)";
}
EOF
put include/gdedup/error.h <<'EOF'
#pragma once
inline const char* kHint = "see --max-memory";
EOF
run_check "$tree" "$tree/build"
[ "$STATUS" -eq 1 ] || fail "a flag in a library string passed (status $STATUS): $ERR"
expect_in_err "a front end's flag in a string literal of the library" "a flag in a string"
expect_in_err 'src/format/advice.cpp:4: "resume it with --exact"' "a flag in a string"
expect_in_err 'src/format/advice.cpp:5: R"(use it with --exact)"' "a flag in a raw string"
expect_in_err 'include/gdedup/error.h:2: "see --max-memory"' "a flag in a public header"
[ "$(grep -c -- '--' <<<"$ERR")" -eq 3 ] || fail "the check named other lines: $ERR"

# An OS call in the library's compiled objects outside src/fs.
cp -R "$work/clean" "$work/call"
tree=$work/call
put src/core/pid.cpp <<'EOF'
#include <sys/mman.h>
#include <unistd.h>
long pid() { return ::getpid(); }
void drop(void* p, unsigned long n) { ::madvise(p, n, MADV_DONTNEED); }
EOF
compile src/core/pid.cpp gdedup_engine
run_check "$tree" "$tree/build"
[ "$STATUS" -eq 1 ] || fail "an OS call outside src/fs passed (status $STATUS): $ERR"
expect_in_err "an OS call in the library outside src/fs" "an OS call in src/core"
expect_in_err "src/core/pid.cpp: calls getpid madvise" "an OS call in src/core"
! grep -qE "src/(fs|cli)/|gone\.cpp" <<<"$ERR" || fail "the check named allowed objects: $ERR"

# A header of the library's API that includes a front end's header, which is
# not installed (a front end's header may include another, as the clean
# tree's frontend/json.h includes an API header).
cp -R "$work/clean" "$work/frontend"
tree=$work/frontend
put include/gdedup/filter.h <<'EOF'
#pragma once
#include "gdedup/frontend/json.h"
EOF
run_check "$tree" "$tree/build"
[ "$STATUS" -eq 1 ] || fail "an API header including gdedup/frontend/ passed (status $STATUS): $ERR"
expect_in_err "a header of the library's API includes a front end's" "an API header"
expect_in_err "include/gdedup/filter.h:2: includes gdedup/frontend/json.h" "an API header"
! grep -q "layer above it" <<<"$ERR" || fail "the check named a layer for it: $ERR"
exit 0
