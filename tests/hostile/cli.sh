#!/usr/bin/env bash
# The command line itself attacked: signals at any moment of a run, option
# combinations that would be silently ignored, and the messages a careless
# user meets (each must be a sentence that names the cause).
source "$(dirname "$0")/lib.sh"

# ---------------------------------------------------------------- signals

# One file named 40,000 times: the checks of the inputs before the first
# record is read take a good part of a second, the window in which a signal
# used to kill silently. The exact dedup of all of them is that of the file.
# Under AddressSanitizer, whose runs take 3 to 10 times as long, a fifth of
# the names (rounds) keeps that window and the run as long as the release
# build's, so the signals' delays still land before and during the run.
many_inputs() {
  distinct_urls 50 https://s.example/ >all.txt
  MANY=()
  local i names
  names=$(rounds 40000)
  for ((i = 0; i < names; i++)); do MANY+=(all.txt); done
  echo "  $names input names"
}

# wait_until_caught PID SIGNAL: returns once PID catches SIGNAL (SigCgt in
# /proc/PID/status), once it has ended, or after 30 s. A signal sent before
# the program could install any handler (while the dynamic loader runs)
# would kill it whatever it did. That takes milliseconds, but under
# AddressSanitizer on a loaded machine it took more than 0.2 s, the limit
# this had, and the signal then killed the run without a word.
wait_until_caught() {
  local pid=$1 number deadline key value
  number=$(kill -l "$2")
  deadline=$(awk -v t="$EPOCHREALTIME" 'BEGIN { printf "%.6f", t + 30 }')
  while awk -v a="$EPOCHREALTIME" -v b="$deadline" 'BEGIN { exit !(a < b) }'; do
    while read -r key value; do
      if [ "$key" = SigCgt: ] && (((0x$value >> (number - 1)) & 1)); then return 0; fi
    done 2>/dev/null <"/proc/$pid/status" || return 0
  done
}

# A checkpointed run stopped by SIGTERM, SIGHUP or SIGINT at moments from
# the first possible one to mid-run always leaves a checkpoint and says so
# (exit 3), or has finished (exit 0); resumed to the end, the output is the
# exact dedup of the inputs.
case_signal_at_any_moment_leaves_a_checkpoint() {
  set -m  # background jobs of a script ignore SIGINT unless job control is on
  many_inputs
  local signals=(TERM HUP INT) delays=(0 0 0.005 0.05 0.2 0.5) i
  for ((i = 0; i < ${#delays[@]}; i++)); do
    local sig=${signals[i % 3]}
    rm -f out.txt ck
    start_gdedup dedup --capacity 100 -q --checkpoint ck -o out.txt "${MANY[@]}"
    wait_until_caught "$BG_PID" "$sig"
    sleep "${delays[i]}"
    kill -s "$sig" "$BG_PID" 2>/dev/null
    finish_gdedup
    if [ "$STATUS" -eq 3 ]; then
      expect_message "checkpoint saved to ck; resume with the same command plus --resume"
      [ -f ck ] || fail "SIG$sig after ${delays[i]} s: exit 3 but no checkpoint"
      run_gdedup dedup --capacity 100 -q --checkpoint ck -o out.txt "${MANY[@]}" --resume
      expect_status 0
    elif [ "$STATUS" -ne 0 ]; then
      fail "SIG$sig after ${delays[i]} s: exit status $STATUS; stderr: $ERR"
      continue
    fi
    check_dedup_output all.txt out.txt 1e-4
  done
}

# Without --checkpoint a signal ends the run at once, with a line that says
# so and what the files hold, and the status of death by that signal.
case_signal_without_checkpoint_says_what_is_left() {
  set -m
  many_inputs
  local sig
  for sig in TERM HUP INT; do
    rm -f out.txt
    start_gdedup dedup --capacity 100 -q -f f.gdf -o out.txt "${MANY[@]}"
    wait_until_caught "$BG_PID" "$sig"
    kill -s "$sig" "$BG_PID" 2>/dev/null
    finish_gdedup
    if [ "$STATUS" -eq 0 ]; then
      check_dedup_output all.txt out.txt 1e-4
      continue
    fi
    [ "$STATUS" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: exit status $STATUS"
    expect_message "gdedup: interrupted by SIG$sig from process $BASHPID; the job did not finish;"
    expect_message "; the output out.txt was left as it was before the job"
    [ ! -e out.txt ] || fail "SIG$sig: an interrupted run created out.txt"
    compgen -G 'out.txt.tmp.*' >/dev/null && fail "SIG$sig: a temporary file was left: $(ls)"
    expect_message "the filter f.gdf was not updated"
    [ ! -e f.gdf ] || fail "SIG$sig: a filter was saved by an interrupted run"
  done
}

# A signal that lands while the filter is being saved waits for the save:
# the build completes and says so, and no temporary file is left beside
# the filter. (Before, it ended the build, which the line then said.)
case_signal_during_a_save_lets_the_build_complete() {
  distinct_urls 1000 https://t.example/ >in.txt
  start_gdedup build --memory 256M -q in.txt -f F.gdf
  local i saving=0
  for ((i = 0; i < 200000; i++)); do
    compgen -G 'F.gdf.tmp.*' >/dev/null && { saving=1; break; }
    [ -e "/proc/$BG_PID" ] || break
  done
  [ "$saving" = 1 ] && kill -s TERM "$BG_PID" 2>/dev/null
  finish_gdedup
  expect_status 0
  [ -f F.gdf ] || fail "exit 0 without a filter"
  # Unless the save had ended before the signal came, the build says it.
  if [ -n "$ERR" ]; then
    expect_message "came as the job was finishing, so it completed: the filter F.gdf holds"
  fi
  compgen -G 'F.gdf.tmp.*' >/dev/null && fail "a temporary file was left: $(ls)"
}

# nohup's promise: a hangup ignored when the run started stays ignored.
case_ignored_hangup_stays_ignored() {
  distinct_urls 300000 https://h.example/ >in.txt
  trap '' HUP
  start_gdedup dedup --capacity 300K -q --checkpoint ck -o out.txt in.txt
  trap - HUP
  sleep 0.05
  kill -s HUP "$BG_PID" 2>/dev/null
  finish_gdedup
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
}

# ---------------------------------------------------------------- options

# Options the others would make the command ignore are refused before any
# file is created.
case_ignored_options_are_refused() {
  distinct_urls 100 https://o.example/ >in.txt
  head -c 800 /dev/urandom >in.u64
  local args
  while IFS= read -r args; do
    rm -f out
    # shellcheck disable=SC2086
    run_gdedup dedup --capacity 100 -o out $args
    expect_status 2
    expect_message "has no effect"
    [ ! -e out ] || fail "'$args' was refused but created the output"
  done <<'EOF'
--input-format u64 --key field:1 in.u64
--input-format u64 --normalize url in.u64
--input-format u64 --delimiter comma in.u64
--delimiter comma in.txt
--key whole --delimiter tab in.txt
--backend gpu --filter-threads 2 in.txt
--input-format u64 --threads 2 in.u64
--checkpoint ck --replayable-stdin in.txt
EOF
  # The same options where they do apply are accepted.
  run_gdedup dedup --capacity 100 -q -o out --key field:1 --delimiter comma in.txt
  expect_status 0
}

# "--memory 1.5" was one byte: a number of bytes must be whole unless it has
# a unit, and 1.5G is fine.
case_memory_fraction_without_unit_is_refused() {
  run_gdedup plan --capacity 1000 --memory 1.5
  expect_status 2
  expect_message "--memory 1.5: is not a whole number of bytes; add a unit"
  run_gdedup plan --capacity 1000 --memory 1.5K
  expect_status 0
  grep -q "1,536 bytes" "$SCRATCH/stdout" || fail "--memory 1.5K is not 1,536 bytes: $(cat "$SCRATCH/stdout")"
}

# ---------------------------------------------------------------- messages

# The command line parser's own texts, in sentences.
case_parse_errors_are_sentences() {
  seq 1 10 >in.txt
  run_gdedup build --capacity 10 in.txt -f a.gdf
  local args
  while IFS='|' read -r args want; do
    # shellcheck disable=SC2086
    run_gdedup $args
    expect_status 2
    expect_message "$want"
    for raw in "At Most" "At least" "files is required" "filters is required" "not in {" "not in range" "could not convert" \
        "The following"; do
      grep -qF -- "$raw" <<<"$ERR" && fail "'$args' gave the raw text '$raw': $ERR"
    done
  done <<'EOF'
dedup --capacity 1 --capacity 2 in.txt|--capacity was given 2 times; give it once
merge a.gdf -o m.gdf|merge needs at least 2 filter files; 1 was given
merge -o m.gdf|merge needs at least 2 filter files; none was given
info|info needs at least one filter file; none was given
dedup --input-format xml in.txt|--input-format xml: expected text or u64
dedup --threads lots in.txt|--threads lots: expected a whole number
dedup --device x in.txt|--device x: expected a whole number
dedup --filter-threads 0 in.txt|--filter-threads 0: give 1 to 4096 threads
dedup --progress=x in.txt|--progress takes no value
dedup --nonsense in.txt|unknown option --nonsense
dedup -o|--output needs a value (FILE)
bench --keys 0 --urls 0|leaving nothing to measure
EOF
}

# query reads its filter and writes no filter: a filter file queried as its
# own input is odd but harmless, and is not refused as destroying an input.
# Writing the output over the filter (an input of the query) is refused.
case_query_may_read_its_own_filter() {
  distinct_urls 1000 https://q.example/ >in.txt
  run_gdedup build --capacity 1000 in.txt -f S.gdf
  expect_status 0
  snapshot S.gdf
  run_gdedup query S.gdf -f S.gdf -o out.txt
  expect_status 0
  run_gdedup query in.txt -f S.gdf -o S.gdf
  expect_status 2
  expect_message "output S.gdf is the same file as input S.gdf"
  check_unchanged
}

# A u64 input whose length is not a multiple of 8: a sentence with its full
# stop, then what the output holds.
case_u64_length_error_is_a_sentence() {
  head -c 83 /dev/urandom >in.u64
  run_gdedup dedup --input-format u64 --capacity 100 in.u64 -o out.u64
  expect_status 1
  expect_message "in.u64 is not a whole number of 64-bit fingerprints: it has 83 bytes, 3 more than a multiple of 8. "
}

# Under a small address-space limit the failure names memory, never
# "unexpected error: Resource temporarily unavailable", and the process
# does not abort (a std::bad_alloc in a backend thread, or a thread refused
# while others run, used to end in std::terminate).
case_memory_limit_is_named() {
  # AddressSanitizer reserves terabytes of address space for its shadow: no
  # run can start under a ulimit -v, so there is nothing to check.
  if [ "$SANITIZED" -eq 1 ]; then return 0; fi
  distinct_urls 300000 https://m.example/ >in.txt
  local limit
  for limit in 40000 50000 60000 80000 100000 120000 150000 200000; do
    (ulimit -v "$limit"; "$GDEDUP" dedup --capacity 300K -q --threads 8 --batch 200K in.txt \
      -o /dev/null) 2>err.txt
    local status=$? err
    err=$(cat err.txt)
    [ "$status" -eq 0 ] && continue
    [ "$status" -eq 1 ] || fail "ulimit -v $limit: exit status $status; stderr: $err"
    grep -q "memory" <<<"$err" || fail "ulimit -v $limit: the message does not name memory: $err"
    grep -q "unexpected error" <<<"$err" && fail "ulimit -v $limit: $err"
  done
}

# A decoder that cannot get the window its stream's header asks for (a
# 2 GiB zstd window under a 1 GiB address space) says so, and the advice
# names the memory limit, not the filter's sizing alone (kind
# decoder_memory); the exact set's advice names its cap.
case_decoder_out_of_memory_names_the_memory_limit() {
  if [ "$SANITIZED" -eq 1 ]; then return 0; fi
  printf 'a\nb\na\n' | zstd -q --long=31 -c >big.zst
  local mode err status
  for mode in "--capacity 1000" "--exact"; do
    # shellcheck disable=SC2086  # the mode's words are separate options
    (ulimit -v 1048576; "$GDEDUP" dedup -q $mode big.zst -o out.txt) 2>err.txt
    status=$?
    err=$(cat err.txt)
    [ "$status" -eq 1 ] || fail "$mode: exit status $status; stderr: $err"
    grep -q "the zstd decoder ran out of memory at compressed byte offset 0" <<<"$err" ||
      fail "$mode: the message does not name the decoder: $err"
    grep -q "raise the memory limit that left the decoder too little" <<<"$err" ||
      fail "$mode: the advice does not name the memory limit: $err"
    grep -q "plan a smaller filter\|cap the set lower" <<<"$err" ||
      fail "$mode: no advice on the filter or set: $err"
  done
}

# A filter with every bit set: no "~unknown" and no "1 blocks".
case_full_filter_and_one_block_read_well() {
  distinct_urls 20000 https://f.example/ >in.txt
  # A plan for a rate of 1, meant as such: the filter ends at its plan, so
  # it is saved, full.
  run_gdedup build --memory 64 --capacity 20000 --allow-high-fpr in.txt -f full.gdf
  expect_status 0
  expect_message "1 block,"
  grep -q "1 blocks" <<<"$ERR" && fail "plural for one block: $ERR"
  run_gdedup dedup -f full.gdf in.txt -o out.txt
  expect_status 0
  expect_message "holds an unknown number of keys, every bit being set (FPR now 1)"
  expect_message "an unknown number of distinct keys (every bit is set)"
  grep -q "~unknown" <<<"$ERR" && fail "$ERR"
  run_gdedup info full.gdf
  grep -q "unknown: every bit is set" "$SCRATCH/stdout" || fail "info: $(cat "$SCRATCH/stdout")"
}

# info describes a checkpoint as one; merge and query name it a checkpoint
# rather than "bad magic"; one unreadable file among several hides nothing.
case_info_describes_checkpoints_and_every_readable_file() {
  distinct_urls 300000 https://c.example/ >in.txt
  run_gdedup build --capacity 1000 in.txt -f A.gdf
  cp A.gdf B.gdf
  echo "not a filter" >BAD.gdf
  # A completed run removes its checkpoint: stop one half way.
  start_gdedup dedup --capacity 300K --batch 50K in.txt -o out.txt --checkpoint ck2 \
    --checkpoint-every 50K
  wait_until_caught "$BG_PID" TERM
  kill -s TERM "$BG_PID"
  finish_gdedup
  if [ "$STATUS" -eq 3 ]; then
    run_gdedup info ck2
    expect_status 0
    grep -q "^kind  *checkpoint of an unfinished job" "$SCRATCH/stdout" ||
      fail "info on a checkpoint: $(cat "$SCRATCH/stdout")"
    grep -q "^input  *in.txt" "$SCRATCH/stdout" || fail "info names no input: $(cat "$SCRATCH/stdout")"
    run_gdedup merge A.gdf ck2 -o M.gdf
    expect_failure
    expect_message "ck2 is a gdedup checkpoint, not a filter file"
    [ ! -e M.gdf ] || fail "merge with a checkpoint wrote M.gdf"
  else
    fail "the run to stop ended with status $STATUS: $ERR"
  fi
  run_gdedup info A.gdf BAD.gdf B.gdf
  expect_status 1
  expect_message "BAD.gdf is not a gdedup filter file"
  [ "$(grep -c '^file ' "$SCRATCH/stdout")" -eq 2 ] ||
    fail "info A BAD B did not describe A and B: $(cat "$SCRATCH/stdout")"
  run_gdedup info --json A.gdf BAD.gdf B.gdf
  expect_status 1
  [ "$(grep -c '"file"' "$SCRATCH/stdout")" -eq 2 ] || fail "info --json: $(cat "$SCRATCH/stdout")"
}

run_cases
