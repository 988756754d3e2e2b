#!/usr/bin/env bash
# The files a job writes (output, filter, checkpoint, --stats) under attack:
# two jobs on one file at once, links planted at every name a job uses, a
# full disk, an output edited before a resume.
source "$(dirname "$0")/lib.sh"

# both_succeed PID_A PID_B ROUND: waits for two jobs (their messages in
# err.a and err.b), which must both exit 0; adds one to the caller's
# `waited` when one of them waited for the other's lock.
both_succeed() {
  local sa sb
  wait "$1"; sa=$?
  wait "$2"; sb=$?
  [ "$sa" -eq 0 ] && [ "$sb" -eq 0 ] || fail "round $3: exit $sa and $sb: $(cat err.a err.b)"
  if grep -qh "waiting for it to finish" err.a err.b; then waited=$((waited + 1)); fi
}

# Two builds into one filter at once, 50 times: the second waits for the
# first and starts from its filter, so both exit 0 and every key of both is
# in the file. (Before the lock, one run's keys were silently lost.)
case_concurrent_builds_keep_every_key() {
  distinct_urls 3000 https://one.example/ >a.txt
  distinct_urls 3000 https://two.example/ >b.txt
  local round waited=0 total
  total=$(rounds 50)
  for round in $(seq 1 "$total"); do
    rm -f R.gdf
    "$GDEDUP" build --capacity 10000 a.txt -f R.gdf 2>err.a & local pa=$!
    "$GDEDUP" build --capacity 10000 b.txt -f R.gdf 2>err.b & local pb=$!
    both_succeed $pa $pb $round
    expect_keys_in R.gdf "round $round" a.txt b.txt
  done
  echo "  $total rounds, the second build waited in $waited"
}

# poll_filter FILE PID...: while any PID runs, gdedup info must read FILE
# whole every time (a reader never sees it half-written: saves are renames).
poll_filter() {
  local filter=$1 reads=0
  shift
  while kill -0 "$@" 2>/dev/null; do
    if [ -e "$filter" ]; then
      "$GDEDUP" info "$filter" >/dev/null 2>poll.err ||
        fail "$filter read half-written while jobs ran: $(cat poll.err)"
      reads=$((reads + 1))
    fi
  done
  POLL_READS=$reads
}

# A growing filter (first layer for 1,000 keys, 3,000 keys per job) under
# the same filter lock as a fixed one, 15 times each: two dedup -f jobs at
# once, and a dedup -f while merge replaces the same file. The second job
# waits for the first and starts from the filter it saved, so every job
# exits 0, every key of every job is in the file, each output is its
# input's exact dedup, and the file is whole whenever it is read.
case_concurrent_jobs_on_a_growing_filter_keep_every_key() {
  distinct_urls 3000 https://one.example/ >a.txt
  distinct_urls 3000 https://two.example/ >b.txt
  distinct_urls 3000 https://three.example/ >c.txt
  local round waited=0 reads=0 total
  total=$(rounds 15)
  for round in $(seq 1 "$total"); do
    rm -f G.gdf
    "$GDEDUP" dedup --capacity 1000 a.txt -o oa.txt -f G.gdf 2>err.a & local pa=$!
    "$GDEDUP" dedup --capacity 1000 b.txt -o ob.txt -f G.gdf 2>err.b & local pb=$!
    poll_filter G.gdf $pa $pb
    reads=$((reads + POLL_READS))
    both_succeed $pa $pb $round
    check_dedup_output a.txt oa.txt 1e-4
    check_dedup_output b.txt ob.txt 1e-4
    expect_keys_in G.gdf "round $round" a.txt b.txt
    "$GDEDUP" info G.gdf | grep -q "^layers  *[2-9]" || fail "round $round: G.gdf did not grow"
  done
  echo "  $total rounds of two dedup -f, the second waited in $waited"

  # C holds few keys: merged into G's first layer it stays near its plan
  # (full inputs are the next case).
  head -n 100 c.txt >c100.txt
  "$GDEDUP" build --capacity 1000 c100.txt -f C.gdf -q || fail "cannot build C.gdf"
  waited=0
  for round in $(seq 1 "$total"); do
    rm -f G.gdf
    "$GDEDUP" build --capacity 1000 a.txt -f G.gdf -q || fail "cannot build G.gdf"
    "$GDEDUP" merge G.gdf C.gdf -o G.gdf 2>err.a & local pa=$!
    "$GDEDUP" dedup --capacity 1000 b.txt -o ob.txt -f G.gdf 2>err.b & local pb=$!
    poll_filter G.gdf $pa $pb
    reads=$((reads + POLL_READS))
    both_succeed $pa $pb $round
    check_dedup_output b.txt ob.txt 1e-4
    expect_keys_in G.gdf "merge round $round" a.txt b.txt c100.txt
  done
  echo "  $total rounds of merge beside dedup -f, one waited in $waited; $reads reads of the file"
}

# Growing filters whose layers are full (each layer but the newest is)
# merged layer by layer: every merged layer holds twice its plan, at about
# 1,000 times its planned rate. merge writes the file but exits 4 naming
# the layer, and a dedup -f with it exits 4 too. (Before, both exited 0 and
# the dedup dropped 46 of 3,000 unique records.)
case_merge_of_full_growing_filters_fails_loudly() {
  distinct_urls 3000 https://one.example/ >a.txt
  distinct_urls 3000 https://two.example/ >b.txt
  distinct_urls 3000 https://three.example/ >c.txt
  "$GDEDUP" build --capacity 1000 a.txt -f A.gdf -q || fail "cannot build A.gdf"
  "$GDEDUP" build --capacity 1000 c.txt -f C.gdf -q || fail "cannot build C.gdf"
  run_gdedup merge A.gdf C.gdf -o M.gdf
  expect_status 4
  expect_message "layer 1 of the 2 layers of the merged filter M.gdf is far past its plan"
  expect_keys_in M.gdf "merged" a.txt c.txt
  run_gdedup dedup b.txt -o ob.txt -f M.gdf
  expect_status 4
  expect_message "layer 1 of the 3 layers of the filter M.gdf was already far past its plan when the job began"
  expect_message "some unique records were dropped as duplicates"
}

# A job stopped after its second checkpoint, then resumed twice at once, 50
# times: exactly one resume runs, and its output is the uninterrupted one.
case_concurrent_resumes_never_share_a_checkpoint() {
  distinct_urls 12000 https://c.example/ >in.txt
  distinct_urls 6000 https://c.example/ >>in.txt
  local job=(dedup --capacity 20000 in.txt -o out.txt --batch 1000 --checkpoint ck
             --checkpoint-every 3000 -q)
  run_gdedup dedup --capacity 20000 in.txt -o ref.txt -q
  run_gdedup_failing_write 3 ck "${job[@]}"
  expect_status 1
  [ -f ck ] || { fail "no checkpoint to resume from"; return; }
  # The output so far is in its temporary file until a resume completes.
  local temporary
  temporary=$(compgen -G 'out.txt.tmp.*') || { fail "no temporary output: $(ls)"; return; }
  cp ck ck.saved; cp "$temporary" out.saved
  local round ok refused=0 sa sb total
  total=$(rounds 50)
  for round in $(seq 1 "$total"); do
    cp ck.saved ck; cp out.saved "$temporary"; rm -f out.txt
    "$GDEDUP" "${job[@]}" --resume 2>err.a & local pa=$!
    "$GDEDUP" "${job[@]}" --resume 2>err.b & local pb=$!
    wait $pa; sa=$?
    wait $pb; sb=$?
    ok=$(( (sa == 0) + (sb == 0) ))
    [ "$ok" -eq 1 ] || fail "round $round: $ok resumes exited 0: $(cat err.a err.b)"
    cmp -s out.txt ref.txt || fail "round $round: the output differs from the uninterrupted run"
    grep -qh "is in use by another gdedup job (pid [0-9]*)" err.a err.b && refused=$((refused + 1))
  done
  echo "  $total rounds, the second resume was refused while the first ran in $refused"
}

# Links planted at every name a job writes that someone could guess: the
# old fixed temporary names and the lock files. None may be followed.
case_planted_links_are_never_followed() {
  distinct_urls 2000 https://d.example/ >in.txt
  echo "precious" >victim.txt
  local name
  for name in F.gdf.tmp ck.tmp s.json.tmp out.txt.tmp; do ln -s victim.txt "$name"; done
  snapshot victim.txt F.gdf.tmp ck.tmp s.json.tmp out.txt.tmp
  run_gdedup dedup --capacity 4000 in.txt -o out.txt -f F.gdf --stats s.json \
    --checkpoint ck --checkpoint-every 500 --batch 100
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
  [ -f F.gdf ] && [ ! -L F.gdf ] || fail "F.gdf is not a regular file"
  check_unchanged
  for name in F.gdf.lock ck.lock out.txt.lock; do
    rm -f F.gdf ./*.lock; ln -s victim.txt "$name"
    snapshot victim.txt "$name"
    run_gdedup dedup --capacity 4000 in.txt -o out.txt -f F.gdf --checkpoint ck
    expect_failure
    expect_message "is a symbolic link, which gdedup never follows"
    check_unchanged
  done
}

# An output link planted by another user (here: root makes it nobody's) is
# not followed; the user's own link is.
case_another_users_output_link_is_refused() {
  [ "$(id -u)" -eq 0 ] || { echo "  skipped: planting another user's link needs root"; return; }
  distinct_urls 100 https://e.example/ >in.txt
  echo "precious" >victim.txt
  ln -s victim.txt out.txt
  chown -h 65534:65534 out.txt
  snapshot victim.txt out.txt
  run_gdedup dedup --capacity 1000 in.txt -o out.txt
  expect_failure
  expect_message "symbolic link that belongs to another user"
  check_unchanged
  ln -s victim.txt s.json
  chown -h 65534:65534 s.json
  snapshot victim.txt s.json
  run_gdedup dedup --capacity 1000 in.txt -o kept.txt --stats s.json
  expect_failure
  expect_message "cannot write statistics file s.json: it is a symbolic link that belongs to another user"
  [ ! -e kept.txt ] || fail "the job ran although its statistics file was refused"
  check_unchanged
}

# A full disk mid-record: the temporary file is cut back to its last whole
# record and removed, the message says so, and no output is left.
case_full_disk_leaves_whole_records() {
  mkdir small
  # Room for the first 2 MiB flush of the output, not for the second.
  if ! mount -t tmpfs -o size=3m tmpfs small 2>/dev/null; then
    echo "  skipped: cannot mount a small tmpfs here"
    return
  fi
  distinct_urls 150000 https://f.example/some/longer/path/ >in.txt
  run_gdedup dedup --capacity 150000 in.txt -o small/out.txt
  expect_failure
  expect_message "No space left on device"
  expect_message "the incomplete record at its end was cut off"
  expect_message "The output small/out.txt was left as it was before the job"
  [ -z "$(ls small)" ] || fail "a failed job left files: $(ls small)"
  umount small
}

# --stats, -o, -f and --checkpoint named after an input or after each
# other, in any spelling: refused before anything is written.
case_written_paths_differ_from_inputs_and_each_other() {
  distinct_urls 500 https://h.example/ >in.txt
  ln in.txt hard.txt
  ln -s in.txt soft.txt
  run_gdedup build --capacity 1000 in.txt -f S.gdf
  snapshot in.txt S.gdf
  local refused=(
    "dedup --capacity 1000 in.txt -o out.txt --stats in.txt|statistics file in.txt is the same file as input in.txt"
    "dedup --capacity 1000 in.txt -o out.txt --stats ./hard.txt|is the same file as input in.txt"
    "dedup --capacity 1000 in.txt -o out.txt --stats soft.txt|is the same file as input in.txt"
    "dedup --capacity 1000 in.txt -o hard.txt|output hard.txt is the same file as input in.txt"
    "build --capacity 1000 in.txt -f new.gdf --stats new.gdf|statistics file new.gdf is the same file as the filter new.gdf"
    "dedup --capacity 1000 in.txt -o out.txt --stats out.txt|is the same file as the output out.txt"
    "dedup --capacity 1000 in.txt -o out.txt --stats ./sub/../out.txt|is the same file as the output out.txt"
    "dedup --capacity 1000 in.txt -o out.txt --checkpoint ck --stats ck|is the same file as the checkpoint ck"
    "query in.txt -f S.gdf -o out.txt --stats S.gdf|statistics file S.gdf is the same file as input S.gdf"
    "query in.txt -f S.gdf -o S.gdf|output S.gdf is the same file as input S.gdf")
  mkdir sub
  local entry
  for entry in "${refused[@]}"; do
    # shellcheck disable=SC2086
    run_gdedup ${entry%%|*}
    expect_status 2
    expect_message "${entry#*|}"
    [ ! -e out.txt ] && [ ! -e new.gdf ] && [ ! -e ck ] || fail "${entry%%|*} created a file"
  done
  check_unchanged
}

# A file that cannot be written is found before the job runs, and no
# message claims records were written where none were.
case_unwritable_files_fail_before_the_job() {
  distinct_urls 500 https://i.example/ >in.txt
  mkdir folder
  run_gdedup dedup --capacity 1000 in.txt -o out.txt --stats /nonexistent/dir/s.json
  expect_status 1
  expect_message "cannot write statistics file /nonexistent/dir/s.json: folder /nonexistent/dir"
  [ ! -e out.txt ] || fail "the job ran although its statistics file cannot be written"
  run_gdedup dedup --capacity 1000 in.txt -o newdir/
  expect_status 1
  expect_message "cannot write output newdir/: the name ends with '/'"
  run_gdedup dedup --capacity 1000 in.txt -o folder
  expect_status 1
  expect_message "cannot write output folder: it is a folder"
  run_gdedup build --capacity 1000 in.txt -f /dev/null
  expect_status 1
  expect_message "cannot write filter /dev/null: it is not a regular file"
  [ -c /dev/null ] || fail "/dev/null is no longer a device"
  echo "precious" >victim.txt
  ln -s victim.txt link.gdf
  snapshot victim.txt link.gdf
  run_gdedup build --capacity 1000 in.txt -f link.gdf
  expect_status 1
  expect_message "cannot write filter link.gdf: it is a symbolic link"
  check_unchanged
  run_gdedup dedup --capacity 1000 in.txt -o /dev/full
  expect_status 1
  expect_message "Nothing was written to /dev/full."
  grep -q "were written" <<<"$ERR" && fail "the message claims records were written: $ERR"
  # A device is fine where a file is written in place.
  run_gdedup dedup --capacity 1000 in.txt -o out.txt --stats /dev/stdout -q
  expect_status 0
  grep -q '"kept": 500' "$SCRATCH/stdout" || fail "--stats /dev/stdout wrote: $(cat "$SCRATCH/stdout")"
}

# A consumer that quits early (| head): a job asked to save a filter or
# statistics fails and saves nothing; a plain dedup ends quietly with 0.
case_closed_pipe_does_not_save_a_partial_filter() {
  distinct_urls 300000 https://j.example/ >big.txt
  "$GDEDUP" dedup -q --capacity 300000 big.txt -f pf.gdf 2>err.txt | head -1 >/dev/null
  local status=${PIPESTATUS[0]}
  [ "$status" -eq 1 ] || fail "exit status $status with -f after a closed pipe"
  grep -q "the filter pf.gdf was not updated" err.txt || fail "message: $(cat err.txt)"
  [ ! -e pf.gdf ] || fail "pf.gdf was saved with keys nobody received"
  "$GDEDUP" dedup -q --capacity 300000 big.txt --stats s.json 2>err.txt | head -1 >/dev/null
  status=${PIPESTATUS[0]}
  [ "$status" -eq 1 ] || fail "exit status $status with --stats after a closed pipe"
  [ ! -e s.json ] || fail "statistics were written for a run whose output was not delivered"
  "$GDEDUP" dedup -q --capacity 300000 big.txt 2>err.txt | head -1 >/dev/null
  status=${PIPESTATUS[0]}
  [ "$status" -eq 0 ] || fail "a plain dedup | head exited $status: $(cat err.txt)"
  [ ! -s err.txt ] || fail "a plain dedup | head printed: $(cat err.txt)"
}

# A filter or checkpoint path that is a named pipe with no writer: every
# command refuses it at once (reading would wait for a writer forever).
# `timeout` turns a hang into a failure.
case_named_pipe_as_filter_or_checkpoint_is_refused() {
  mkfifo pipe.gdf
  seq 1 100 >in.txt
  run_gdedup build in.txt -f good.gdf
  expect_status 0
  local job
  for job in "query in.txt -f pipe.gdf" "info pipe.gdf" "info --json pipe.gdf" \
      "merge pipe.gdf good.gdf -o m.gdf" "merge good.gdf pipe.gdf -o m.gdf" \
      "dedup in.txt -f pipe.gdf -o o.txt" "build in.txt -f pipe.gdf" \
      "dedup in.txt -o o.txt --checkpoint pipe.gdf --resume"; do
    # shellcheck disable=SC2086
    timeout 10 "$GDEDUP" $job >stdout 2>stderr
    STATUS=$?
    ERR=$(cat stderr)
    [ "$STATUS" -ne 124 ] || { fail "$job waited on the pipe"; continue; }
    expect_status 1
    expect_message "pipe.gdf"
    expect_message "not a regular file"
  done
  [ -p pipe.gdf ] || fail "the named pipe was replaced"
  ls ./*.lock >/dev/null 2>&1 && fail "a lock file is left: $(ls ./*.lock)"
}

# A job ended by SIGTERM or SIGHUP removes its lock files (docs/CLI.md,
# "Locks"): the one that ends at once from the signal handler, and a
# checkpointed one, stopped by a second signal while its first waits for a
# batch that a silent pipe never completes. The job reads a named pipe that
# the test holds open, so it is waiting when the signals come.
case_signals_remove_lock_files() {
  mkfifo feed
  exec 3<>feed
  seq 1 1000 >&3
  local sig i
  for sig in TERM HUP checkpointed; do
    local job=(dedup - -o out.txt -f F.gdf)
    [ "$sig" = checkpointed ] && job+=(--checkpoint ck --replayable-stdin)
    # Redirected on the command itself: a background command's standard
    # input is otherwise /dev/null.
    "$GDEDUP" "${job[@]}" <feed >bg.stdout 2>bg.stderr &
    BG_PID=$!
    for ((i = 0; i < 2000; i++)); do
      [ -e out.txt.lock ] && [ -e F.gdf.lock ] && break
      sleep 0.01
    done
    [ -e out.txt.lock ] && [ -e F.gdf.lock ] || fail "$sig: the job took no locks"
    if [ "$sig" = checkpointed ]; then
      kill -s TERM "$BG_PID"
      kill -s HUP "$BG_PID"
    else
      kill -s "$sig" "$BG_PID"
    fi
    finish_gdedup
    [ "$STATUS" -ne 0 ] || fail "$sig: the job exited 0"
    expect_message "interrupted by SIG"
    ls ./*.lock >/dev/null 2>&1 && fail "$sig: lock files left: $(ls ./*.lock)"
    ls ./*.tmp.* >/dev/null 2>&1 && fail "$sig: temporary files left: $(ls ./*.tmp.*)"
  done
  exec 3>&-
}

# A signal the moment a lock file appears, before its open has returned or
# its lock is taken: the lock file goes all the same (it was left in about 3%
# of rounds while it joined the signal handler's list only once locked).
case_a_signal_as_a_lock_file_appears_leaves_none() {
  local round lock total
  total=$(rounds 100)
  mkfifo feed
  exec 3<>feed
  for ((round = 0; round < total; round++)); do
    lock=F.gdf.lock
    ((round % 2)) && lock=out.txt.lock
    "$GDEDUP" dedup - -o out.txt -f F.gdf <feed >bg.stdout 2>bg.stderr &
    BG_PID=$!
    until [ -e "$lock" ] || ! kill -0 "$BG_PID" 2>/dev/null; do :; done
    kill -s TERM "$BG_PID" 2>/dev/null
    finish_gdedup
    ls ./*.lock >/dev/null 2>&1 && fail "round $round: lock files left: $(ls ./*.lock)"
    rm -f out.txt F.gdf
  done
  exec 3>&-
}

# A growing filter that runs out of memory for a new layer mid-job: the
# message is whole sentences (the cause, what the output and the filter
# hold, and the advice, which names --max-memory), never two spliced
# ("... needs less The output ..."). The limit is swept upwards until a run
# fails that way; MALLOC_ARENA_MAX=1 keeps each thread's malloc arena from
# taking 64 MiB of address space at a moment that depends on timing.
case_out_of_memory_mid_job_is_told_in_sentences() {
  # AddressSanitizer cannot start under a ulimit -v (hostile/cli.sh).
  if [ "$SANITIZED" -eq 1 ]; then return 0; fi
  seq 1 2000000 >in.txt
  local limit err hit=0
  for ((limit = 40000; limit <= 400000 && !hit; limit += 3000)); do
    (ulimit -v "$limit"
     MALLOC_ARENA_MAX=1 "$GDEDUP" dedup in.txt -o out.txt -f grow.gdf --capacity 1000 \
       --threads 1 -q) 2>err.txt
    [ $? -eq 0 ] && { rm -f grow.gdf; continue; }
    err=$(cat err.txt)
    grep -Eq '[a-z0-9)] (The|Nothing|Once) |\.;' <<<"$err" &&
      fail "ulimit -v $limit: sentences spliced: $err"
    grep -q "bytes of memory for the filter" <<<"$err" &&
      grep -q "The filter grow.gdf was not updated" <<<"$err" || continue
    hit=1
    grep -q "Cannot allocate memory; a smaller filter needs less\. The output out.txt was left" \
      <<<"$err" || fail "ulimit -v $limit: the cause and the output's fate: $err"
    grep -q "was not updated; plan a smaller filter .*--max-memory$" <<<"$err" ||
      fail "ulimit -v $limit: the advice does not end the message naming --max-memory: $err"
  done
  [ "$hit" -eq 1 ] || fail "no address-space limit made the growing filter run out of memory"
}

run_cases
