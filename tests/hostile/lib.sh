# Shared helpers for the hostile-user scripts in this folder. Each script
# sources this file, defines functions named case_*, and calls run_cases:
# every case runs in its own scratch folder, and the script exits non-zero if
# any case failed. The scripts drive the real command ($GDEDUP_BIN, set by
# ctest) the way a careless or hostile user would, and check the promises
# that must survive that: no exit-0 run lost a unique record beyond the
# planned FPR, no input or unrelated file changed, no damaged file left.
set -uo pipefail

GDEDUP=${GDEDUP_BIN:?GDEDUP_BIN must name the gdedup binary}
HOSTILE_FAILED=0
HOSTILE_PASSED=0

# SANITIZED=1 when $GDEDUP is built with AddressSanitizer: its runs take 3
# to 10 times as long, and it cannot start under a `ulimit -v`. (grep reads
# all of ldd's output: with -q it could stop first, and pipefail would then
# count ldd's SIGPIPE as no match.)
SANITIZED=0
if ldd "$GDEDUP" 2>/dev/null | grep libasan >/dev/null; then SANITIZED=1; fi

# rounds N: the rounds of a loop that races jobs, signals or locks against
# each other: N, or a fifth of N under AddressSanitizer. The release build
# runs them all; the sanitized one checks the same code for memory errors,
# which the first rounds reach as well as the last.
rounds() {
  if [ "$SANITIZED" -eq 1 ]; then echo $((($1 + 4) / 5)); else echo "$1"; fi
}

# sized N: the records of a case whose point at that size is behaviour at
# scale (a kill or a signal that lands mid-job, the job resumed): N, or a
# fifth of N under AddressSanitizer, whose point is the code's memory, which
# the first records reach as the last ones do. A case scales its checkpoint
# interval alike, so that the job still stops at the same share of its input.
sized() { rounds "$1"; }

# fail MESSAGE: records a failure of the current case (the case goes on, so
# one run reports every broken promise). Cases run in subshells, so the mark
# is a file.
fail() {
  echo "  FAIL [$CASE]: $*" >&2
  touch "$SCRATCH/.failed"
}

# run_gdedup ARGS...: runs the command, stdout to $SCRATCH/stdout, stderr to
# $SCRATCH/stderr; the exit status is in $STATUS and stderr in $ERR.
run_gdedup() {
  "$GDEDUP" "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  STATUS=$?
  ERR=$(cat "$SCRATCH/stderr")
}

# run_gdedup_failing_write N FILE ARGS...: run_gdedup through gdedup-faults,
# the test-only build of the command (tests/tools/gdedup_faults.cpp), in
# which the Nth write of FILE fails as on a failing disk.
run_gdedup_failing_write() {
  local nth=$1 file=$2
  shift 2
  GDEDUP_FAIL_REPLACEMENT="$nth:$file" \
    "${GDEDUP_FAULTS_BIN:?GDEDUP_FAULTS_BIN must name the gdedup-faults binary}" "$@" \
    >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  STATUS=$?
  ERR=$(cat "$SCRATCH/stderr")
}

# expect_status N: the last run_gdedup exited with N.
expect_status() {
  [ "$STATUS" -eq "$1" ] || fail "exit status $STATUS, expected $1; stderr: $ERR"
}

# expect_failure: the last run exited non-zero with a message.
expect_failure() {
  [ "$STATUS" -ne 0 ] || fail "exit status 0, expected a failure; stderr: $ERR"
  [ -n "$ERR" ] || fail "failed without a message"
}

# expect_message TEXT: stderr of the last run contains TEXT.
expect_message() {
  grep -qF -- "$1" <<<"$ERR" || fail "stderr lacks \"$1\": $ERR"
}

# start_gdedup ARGS...: starts the command in the background, stdout to
# $SCRATCH/bg.stdout, stderr to $SCRATCH/bg.stderr; returns once $BG_PID is
# the gdedup process itself (a signal sent to the shell forked to start it
# would never reach gdedup). finish_gdedup waits for it and sets $STATUS
# (128 + N for death by signal N) and $ERR as run_gdedup does.
start_gdedup() {
  "$GDEDUP" "$@" >"$SCRATCH/bg.stdout" 2>"$SCRATCH/bg.stderr" &
  BG_PID=$!
  local binary state i
  binary=$(readlink -f "$GDEDUP")
  for ((i = 0; i < 5000; i++)); do
    [ "$(readlink "/proc/$BG_PID/exe" 2>/dev/null)" = "$binary" ] && return 0
    # Gone or a zombie already: nothing left to wait for.
    read -r _ _ state _ 2>/dev/null <"/proc/$BG_PID/stat" || return 0
    [ "$state" != Z ] || return 0
  done
}
finish_gdedup() {
  wait "$BG_PID"
  STATUS=$?
  ERR=$(cat "$SCRATCH/bg.stderr")
}

# killed_and_resumed FIRST LATER ARGS...: runs the command ARGS, which
# checkpoint to the file ck, on --threads FIRST and kills it with SIGKILL
# once it has written a checkpoint of its own (or ended); resumes it on
# --threads LATER (killed again) for up to 3 rounds in all, then to its end
# on the default threads. The job must complete: STATUS is then 0.
killed_and_resumed() {
  local threads=$1 later=$2 resume=() round i
  shift 2
  for ((round = 0; round < 3; round++)); do
    start_gdedup "$@" --threads "$threads" "${resume[@]}"
    for ((i = 0; i < 3000; i++)); do
      [ ck -nt ck.mark ] && break
      kill -0 "$BG_PID" 2>/dev/null || break
      sleep 0.01
    done
    kill -s KILL "$BG_PID" 2>/dev/null
    finish_gdedup
    [ "$STATUS" -eq 0 ] && return
    touch ck.mark
    [ -f ck ] && resume=(--resume) || resume=()
    threads=$later
  done
  run_gdedup "$@" "${resume[@]}"
  expect_status 0
}

# exact_dedup IN OUT: the oracle, first occurrence of each line, in order.
exact_dedup() { awk '!seen[$0]++' "$1" >"$2"; }

# check_dedup_output INPUT OUTPUT FPR: OUTPUT holds only lines of INPUT, in
# input order, no line twice, and lost at most what FPR allows (with slack for
# chance: 10x the expected count plus 5).
check_dedup_output() {
  local input=$1 output=$2 fpr=$3
  exact_dedup "$input" "$SCRATCH/.oracle"
  local distinct kept dupes
  distinct=$(wc -l <"$SCRATCH/.oracle")
  kept=$(wc -l <"$output")
  dupes=$(sort "$output" | uniq -d | wc -l)
  [ "$dupes" -eq 0 ] || fail "$output holds $dupes lines twice"
  # Every kept line is the oracle's, in the oracle's order (a subsequence).
  if ! awk 'NR == FNR { want[++n] = $0; next } { while (i < n && want[++i] != $0) {} if (want[i] != $0) { bad = 1; exit } } END { exit bad }' \
      "$SCRATCH/.oracle" "$output"; then
    fail "$output is not a subsequence of the exact dedup of $input"
  fi
  local lost=$((distinct - kept))
  local allowed
  allowed=$(awk -v n="$distinct" -v p="$fpr" 'BEGIN { printf "%d", n * p * 10 + 5 }')
  [ "$lost" -le "$allowed" ] || fail "lost $lost of $distinct unique records (FPR $fpr allows $allowed)"
}

# expect_keys_in FILTER WHEN KEYS...: every line of each KEYS file is in
# FILTER, which is alone (no temporary or lock file left beside it); WHEN
# ("round 3") starts each failure.
expect_keys_in() {
  local filter=$1 when=$2 keys
  shift 2
  for keys in "$@"; do
    run_gdedup query "$keys" -f "$filter" --absent -o absent.txt
    expect_status 0
    [ ! -s absent.txt ] || fail "$when: $(wc -l <absent.txt) keys of $keys missing"
  done
  ls "$filter".tmp.* "$filter".lock >/dev/null 2>&1 && fail "$when: a temporary or lock file is left"
}

# snapshot FILE...: remembers the checksums of FILEs; check_unchanged then
# fails for any of them that changed, vanished or became a link.
snapshot() {
  : >"$SCRATCH/.snapshot"
  local f
  for f in "$@"; do
    if [ -L "$f" ]; then echo "link $f" >>"$SCRATCH/.snapshot"
    else echo "$(sha256sum <"$f" | cut -d' ' -f1) $f" >>"$SCRATCH/.snapshot"; fi
  done
}
check_unchanged() {
  local sum f
  while read -r sum f; do
    if [ "$sum" = link ]; then [ -L "$f" ] || fail "$f is no longer a link"; continue; fi
    if [ -L "$f" ] || [ ! -f "$f" ]; then fail "$f vanished or became a link"; continue; fi
    [ "$(sha256sum <"$f" | cut -d' ' -f1)" = "$sum" ] || fail "$f changed"
  done <"$SCRATCH/.snapshot"
}

# distinct_urls N PREFIX: N distinct lines, PREFIX0 .. PREFIX(N-1).
distinct_urls() { seq 0 $(($1 - 1)) | sed "s|^|$2|"; }

# assembled DIR: the output --output-parts DIR wrote (docs/CLI.md): the
# parts DIR/MANIFEST lists, concatenated in order, on stdout; fails unless
# each part has the size the manifest gives.
assembled() {
  local name bytes checksum host
  tail -n +2 "$1/MANIFEST" | while IFS=$'\t' read -r name bytes checksum host; do
    [ "$(stat -c %s "$1/$name")" = "$bytes" ] || fail "$1/$name is not $bytes bytes long"
    cat "$1/$name"
  done
}

# run_in_scratch FUNCTION: runs FUNCTION in a subshell in $SCRATCH; one
# that never returned fails (a shell error such as an unset ${X:?} ends the
# subshell before any check could fail).
run_in_scratch() {
  (cd "$SCRATCH" && { "$1"; : >"$SCRATCH/.returned"; })
  local status=$?
  [ -e "$SCRATCH/.returned" ] ||
    fail "the case stopped before its end, with status $status" \
      "(a shell error is above; 141 is SIGPIPE)"
}

run_cases() {
  HOSTILE_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/gdedup-hostile.XXXXXX")
  trap 'rm -rf "$HOSTILE_ROOT"' EXIT
  local c
  # HOSTILE_ONLY=REGEX runs the cases whose names match it, alone.
  for c in $(declare -F | awk '{ print $3 }' | grep -E "^case_(${HOSTILE_ONLY:-.*})\$"); do
    CASE=${c#case_}
    SCRATCH="$HOSTILE_ROOT/$CASE"
    mkdir -p "$SCRATCH"
    local started=$EPOCHREALTIME took
    run_in_scratch "$c"
    # Each case's seconds, so that a slow CI run shows which case to lighten.
    took=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }')
    # A case runs in a subshell; its failures reach here through a file.
    if [ -e "$SCRATCH/.failed" ]; then
      HOSTILE_FAILED=$((HOSTILE_FAILED + 1)); echo "case $CASE: FAILED ($took)"
    else
      HOSTILE_PASSED=$((HOSTILE_PASSED + 1)); echo "case $CASE: ok ($took)"
    fi
  done
  echo "hostile-$(basename "$0" .sh): $HOSTILE_PASSED passed, $HOSTILE_FAILED failed"
  [ "$HOSTILE_FAILED" -eq 0 ]
}
