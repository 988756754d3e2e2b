#!/usr/bin/env bash
# The end of an MPI job: rank 0 puts its results in place (the output's
# rename, the filter or set file, the statistics), and what the job says
# must be what the files hold. A signal lands between two of those steps
# (gdedup-faults raises it on rank 0 just before a file call, as
# tests/cli_publish_test.cpp does for one process), and a full disk fails
# the set's save after the output took its place.
source "$(dirname "$0")/lib.sh"

FAULTS=${GDEDUP_FAULTS_BIN:?GDEDUP_FAULTS_BIN must name gdedup-faults}

# The job of each case: the keys of earlier.txt in the file already, then
# the dedup of in.txt on 2 ranks. $1: --exact or nothing; fills REFERENCE
# (the one-process run's output and file) and FILE's previous bytes.
prepare() {
  distinct_urls 3000 https://m.example/ >earlier.txt
  { distinct_urls 8000 https://m.example/; distinct_urls 8000 https://m.example/; } >in.txt
  WORD=filter
  [ "${1:-}" = --exact ] && WORD="set file"
  JOB=(dedup in.txt -o out.txt -f f --stats st.json --capacity 20000 "$@")
  rm -f f
  run_gdedup build earlier.txt -f f --capacity 20000 "$@"
  expect_status 0
  cp f previous
  run_gdedup "${JOB[@]}"
  expect_status 0
  cp out.txt ref.txt
  cp f ref
}

# fresh: the files as they were before the job.
fresh() {
  cp previous f
  echo "the previous output" >out.txt
  rm -f st.json
}

# on_ranks VARIABLE VALUE: the job on 2 ranks through gdedup-faults with
# VARIABLE=VALUE; STATUS and ERR as run_gdedup sets them.
on_ranks() {
  env "$1=$2" "${MPIRUN[@]}" -np 2 "$FAULTS" "${JOB[@]}" -q --mpi >stdout 2>stderr
  STATUS=$?
  ERR=$(cat stderr)
}

signal_between_the_steps() {
  prepare "$@"
  local at
  local held="the output out.txt, the $WORD f and the statistics file st.json hold this job's result"
  for at in rename:1:out.txt create:1:f.tmp. create:1:st.json.tmp.; do
    fresh
    on_ranks GDEDUP_SIGNAL_AT "TERM:$at"
    [ "$STATUS" -eq 0 ] || fail "SIGTERM at $at: exit $STATUS: $ERR"
    expect_message "gdedup: SIGTERM came as the job was finishing, so it completed: $held"
    cmp -s out.txt ref.txt || fail "SIGTERM at $at: the output is not the job's"
    cmp -s f ref || fail "SIGTERM at $at: the $WORD is not the job's"
    grep -q '"records": 16000,' st.json || fail "SIGTERM at $at: no statistics of the job"
  done
}

case_a_signal_while_a_filter_job_puts_its_results_in_place() { signal_between_the_steps; }
case_a_signal_while_an_exact_job_puts_its_results_in_place() {
  signal_between_the_steps --exact
}

# The set's save fails after the output took its place: the message says
# that the output holds the job's result and the set lacks its keys, and
# the same job again gives the one-process files.
case_a_full_disk_saving_the_set_says_the_output_holds_the_result() {
  prepare --exact
  fresh
  on_ranks GDEDUP_FAIL_AT ENOSPC:write:1:f.tmp.
  [ "$STATUS" -ne 0 ] || fail "exit 0 although the set file was not saved"
  local said="No space left on device. The job had done its work: the output out.txt already"
  said+=" holds its result, but the set file f was not updated, so it lacks this job's keys,"
  said+=" and the statistics file st.json was not written. Once the cause is fixed, the same"
  said+=" command on the same inputs writes the same output again and saves the set file."
  expect_message "$said"
  cmp -s out.txt ref.txt || fail "the output is not the job's"
  cmp -s f previous || fail "the set file changed"
  run_mpi 2 "${JOB[@]}"
  expect_status 0
  cmp -s out.txt ref.txt || fail "the job run again wrote another output"
  cmp -s f ref || fail "the job run again saved another set file"
}

run_cases
