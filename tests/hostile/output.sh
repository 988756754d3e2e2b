#!/usr/bin/env bash
# The output file (-o PATH) is written to PATH.tmp.XXXXXX and renamed over
# PATH only when the job completes: a job that fails leaves the user's
# previous PATH as it was, an interrupted one leaves it too until --resume
# completes, and nobody can make a job write through a link planted at the
# temporary name.
source "$(dirname "$0")/lib.sh"

# expect_no_temporary: nothing named out.txt.tmp.* is left.
expect_no_temporary() {
  compgen -G 'out.txt.tmp.*' >/dev/null && fail "a temporary file was left: $(ls)"
}

# The temporary file of out.txt an interrupted job left, in $TEMPORARY;
# fails (status 1) when there is none.
find_temporary() {
  TEMPORARY=$(compgen -G 'out.txt.tmp.*' | head -1)
  [ -n "$TEMPORARY" ] && return 0
  fail "no temporary file beside out.txt: $(ls)"
  return 1
}

# Jobs that fail once records were written (damage in the second gzip
# member, a record past --max-record-length near the end, a second input
# that cannot be decoded): the previous output is unchanged and a new name
# is not created.
case_failed_job_keeps_the_previous_output() {
  distinct_urls 200000 https://a.example/ >good.txt
  gzip -c good.txt >good.gz
  distinct_urls 100000 https://b.example/ | gzip -c >damaged.gz
  local size
  size=$(stat -c %s damaged.gz)
  printf '\x55' | dd of=damaged.gz bs=1 seek=$((size / 2)) conv=notrunc status=none
  cat good.gz damaged.gz >bad-member.gz
  { cat good.txt; head -c 5000 /dev/zero | tr '\0' x; echo; } >long-record.txt
  printf 'not gzip data' | gzip -c | head -c 20 >cut.gz
  local runs=("bad-member.gz" "--max-record-length 1000 long-record.txt" "good.txt cut.gz")
  local run
  echo "the user's previous output" >out.txt
  chmod 640 out.txt
  snapshot out.txt
  for run in "${runs[@]}"; do
    # shellcheck disable=SC2086 # the options of a run are words
    run_gdedup dedup --capacity 1M --batch 1000 $run -o out.txt
    expect_failure
    expect_message "The output out.txt was left as it was before the job"
    check_unchanged
    expect_no_temporary
    # shellcheck disable=SC2086
    run_gdedup dedup --capacity 1M --batch 1000 $run -o new.txt
    expect_failure
    [ ! -e new.txt ] || fail "$run: a failed job created new.txt"
    compgen -G 'new.txt.tmp.*' >/dev/null && fail "$run: a temporary file was left: $(ls)"
  done
  [ "$(stat -c %a out.txt)" = 640 ] || fail "out.txt changed mode to $(stat -c %a out.txt)"
}

# SIGINT mid-job: exit 3, the previous out.txt intact and the records so far
# in the temporary file; --resume continues it and renames it at the end,
# giving the bytes of an uninterrupted run.
case_interrupt_then_resume_matches_an_uninterrupted_run() {
  set -m  # background jobs of a script ignore SIGINT unless job control is on
  seq 1 2000000 | awk '{ print "https://i.example/" ($1 % 1500000) }' >in.txt
  local job=(dedup --capacity 2M --batch 1000 --checkpoint ck --checkpoint-every 20000 -q
             in.txt -o out.txt)
  # The same job, never stopped (its filter grows, checkpointed or not).
  run_gdedup dedup --capacity 2M --batch 1000 -q in.txt -o reference.txt
  expect_status 0
  echo "the user's previous output" >out.txt
  snapshot out.txt
  start_gdedup "${job[@]}"
  local tries=0
  while [ ! -e ck ] && [ $tries -lt 1000 ] && [ -e "/proc/$BG_PID" ]; do
    sleep 0.01
    tries=$((tries + 1))
  done
  kill -s INT "$BG_PID" 2>/dev/null
  finish_gdedup
  if [ "$STATUS" -eq 0 ]; then
    echo "  note [$CASE]: the job ended before the signal; nothing to resume"
  else
    expect_status 3
    check_unchanged
    find_temporary || return
    run_gdedup info ck
    expect_status 0
    grep -qF -- "$TEMPORARY" "$SCRATCH/stdout" || fail "info ck does not name $TEMPORARY"
    run_gdedup "${job[@]}" --resume
    expect_status 0
  fi
  cmp -s out.txt reference.txt || fail "the resumed output differs from an uninterrupted run"
  expect_no_temporary
  [ ! -e ck ] || fail "the checkpoint was left after the job completed"
}

# stopped_job: a job stopped at its first checkpoint (the second checkpoint
# write fails on purpose), its temporary file in $TEMPORARY; status 1 when
# no temporary file was left.
stopped_job() {
  distinct_urls 20000 https://s.example/ >in.txt
  JOB=(dedup --capacity 20000 in.txt -o out.txt --batch 1000 --checkpoint ck
       --checkpoint-every 4000 -q)
  run_gdedup_failing_write 2 ck "${JOB[@]}"
  expect_status 1
  expect_message "stay in its temporary file"
  find_temporary
}

# A link planted at the temporary name while the job is stopped: the resume
# refuses it and writes nothing through it; a missing temporary file is
# named.
case_resume_follows_no_link_at_the_temporary_name() {
  stopped_job || return
  echo "someone else's file" >victim.txt
  mv "$TEMPORARY" saved
  ln -s victim.txt "$TEMPORARY"
  snapshot victim.txt "$TEMPORARY"
  run_gdedup "${JOB[@]}" --resume
  expect_failure
  expect_message "its temporary file $TEMPORARY, named by the checkpoint, is a symbolic link"
  check_unchanged
  [ ! -e out.txt ] || fail "a refused resume created out.txt"
  rm "$TEMPORARY"
  run_gdedup "${JOB[@]}" --resume
  expect_failure
  expect_message "its temporary file $TEMPORARY, named by the checkpoint, is missing"
  mv saved "$TEMPORARY"
  run_gdedup "${JOB[@]}" --resume
  expect_status 0
  cmp -s out.txt in.txt || fail "the resumed output is not the input's distinct lines"
  expect_no_temporary
}

# Bytes changed in the temporary file inside what the checkpoint counted:
# the resume is refused and the file left alone.
case_resume_refuses_an_edited_temporary() {
  stopped_job || return
  printf 'X' | dd of="$TEMPORARY" bs=1 seek=100 conv=notrunc status=none
  snapshot "$TEMPORARY" ck
  run_gdedup "${JOB[@]}" --resume
  expect_failure
  expect_message "are not those the interrupted run wrote"
  check_unchanged
}

# A new output gets 0666 less the umask; a replaced one keeps its mode; a
# link to the output stays a link, and the file it leads to is replaced.
case_output_permissions_and_links() {
  distinct_urls 1000 https://p.example/ >in.txt
  (umask 027 && "$GDEDUP" dedup -q in.txt -o new.txt) || fail "the job failed"
  [ "$(stat -c %a new.txt)" = 640 ] || fail "new.txt has mode $(stat -c %a new.txt) under umask 027"
  local mode
  for mode in 600 604 755; do
    echo old >"m$mode.txt"
    chmod "$mode" "m$mode.txt"
    run_gdedup dedup -q in.txt -o "m$mode.txt"
    expect_status 0
    [ "$(stat -c %a "m$mode.txt")" = "$mode" ] || fail "m$mode.txt became $(stat -c %a "m$mode.txt")"
    cmp -s in.txt "m$mode.txt" || fail "m$mode.txt does not hold the output"
  done
  mkdir real
  echo old >real/target.txt
  ln -s real/target.txt link.txt
  local inode
  inode=$(stat -c %i real/target.txt)
  run_gdedup dedup -q in.txt -o link.txt
  expect_status 0
  [ -L link.txt ] || fail "link.txt is no longer a link"
  cmp -s in.txt real/target.txt || fail "the file link.txt leads to does not hold the output"
  [ "$(stat -c %i real/target.txt)" != "$inode" ] || fail "real/target.txt was written in place"
  compgen -G 'real/target.txt.tmp.*' >/dev/null && fail "a temporary file was left: $(ls real)"
}

# --stats follows the same rule: through a link to a regular file, that file
# is replaced by a new one (a new inode; written in place, it would keep
# its inode and be cut first), the link stays, and so does its mode.
case_stats_through_a_link_replace_the_file() {
  distinct_urls 100 https://s.example/ >in.txt
  mkdir real
  echo '{"old": true}' >real/s.json
  chmod 640 real/s.json
  ln -s real/s.json s.json
  local inode
  inode=$(stat -c %i real/s.json)
  run_gdedup dedup -q in.txt -o out.txt --stats s.json
  expect_status 0
  [ -L s.json ] || fail "s.json is no longer a link"
  grep -q '"records": *100' real/s.json || fail "real/s.json does not hold the statistics"
  [ "$(stat -c %i real/s.json)" != "$inode" ] || fail "real/s.json was written in place"
  [ "$(stat -c %a real/s.json)" = 640 ] || fail "real/s.json changed mode"
  compgen -G 'real/s.json.tmp.*' >/dev/null && fail "a temporary file was left: $(ls real)"
}

# Exit 4 (a filter far past its plan) has written everything it promised to
# write: the output is renamed into place.
case_overfull_exit_4_renames_the_output() {
  distinct_urls 200000 https://o.example/ >in.txt
  echo old >out.txt
  run_gdedup dedup --no-grow --capacity 20000 in.txt -o out.txt
  expect_status 4
  [ "$(head -1 out.txt)" = "https://o.example/0" ] || fail "out.txt was not replaced"
  expect_no_temporary
}

run_cases
