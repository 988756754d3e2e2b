#!/usr/bin/env bash
# Checkpoints under --mpi (docs/SCALE-OUT.md, "Checkpoints"): a job stopped
# after its Nth checkpoint -- by a failing write, a SIGKILL of one rank, or
# SIGTERM -- and resumed, on the same number of ranks, on another, or in one
# process, gives the output and filter file of one uninterrupted process,
# byte for byte; and a one-process checkpoint resumes on ranks. The same for
# exact mode's set checkpoints, stopped also by SIGINT and past
# --max-memory. GDEDUP_MPIEXEC
# names mpirun; GDEDUP_FAULTS_BIN the test-only command whose Nth write of a
# file fails (tests/tools/gdedup_faults.cpp).
source "$(dirname "$0")/lib.sh"

# reference CAPACITY INPUT...: one uninterrupted process's output and
# filter file (ref.out, ref.gdf) of the dedup of INPUT with a filter for
# CAPACITY keys.
reference() {
  local capacity=$1
  shift
  "$GDEDUP" dedup "$@" -o ref.out -f ref.gdf --capacity "$capacity" --no-grow -q ||
    fail "the one-process reference run failed"
}

# Records that span pieces, empty records, keys recurring across pieces, a
# record longer than a piece and no final newline; and the one-process
# result of the job over it.
make_input() {
  {
    random_lines 12000 3000 13
    head -c 5000 /dev/zero | tr '\0' 'x'; echo
    random_lines 12000 3000 14
    printf 'tail-without-newline'
  } >in.txt
  reference 5000 in.txt
}

JOB=(dedup in.txt -o out.txt -f f.gdf --capacity 5000 --no-grow --piece-bytes 2K
     --checkpoint ck --checkpoint-every 1000)

# stop_at_checkpoint N RANKS: the job on RANKS ranks ends when its Nth
# checkpoint write fails; checkpoint N-1 and the output it names stay.
stop_at_checkpoint() {
  GDEDUP_FAIL_REPLACEMENT="$1:ck" "${MPIRUN[@]}" -np "$2" \
    "${GDEDUP_FAULTS_BIN:?GDEDUP_FAULTS_BIN must name gdedup-faults}" "${JOB[@]}" -q --mpi \
    >stdout 2>stderr
  STATUS=$?
  [ "$STATUS" -ne 0 ] || fail "the job on $2 ranks went on past its failing checkpoint write"
  [ -f ck ] || fail "no checkpoint was left on $2 ranks: $(cat stderr)"
  [ ! -e out.txt ] || fail "the output took its final name before the job completed"
  compgen -G 'out.txt.tmp.*' >/dev/null || fail "the output's temporary file is gone: $(ls)"
}

# expect_reference WHAT: out.txt and f.gdf are one uninterrupted process's.
expect_reference() {
  cmp -s ref.out out.txt || fail "$1: the output differs from one uninterrupted process's"
  cmp -s ref.gdf f.gdf || fail "$1: the filter file differs from one uninterrupted process's"
  [ ! -e ck ] || fail "$1: the checkpoint outlived the completed job"
  ! compgen -G 'out.txt.tmp.*' >/dev/null || fail "$1: a temporary file was left: $(ls)"
}

# stop_and_resume N RANKS PLACE WHAT: JOB on 2 ranks stopped at its Nth
# checkpoint, which must lie in PLACE (how gdedup info names its input),
# then resumed on RANKS (0: one process), ends as one uninterrupted process.
stop_and_resume() {
  rm -f ck out.txt f.gdf out.txt.tmp.*
  stop_at_checkpoint "$1" 2
  "$GDEDUP" info ck | grep -q "^position .* of $3" ||
    fail "$4: checkpoint $1 is not in $3: $("$GDEDUP" info ck)"
  resume_on "$2"
  expect_reference "$4 stopped at checkpoint $1 on 2 ranks, resumed on $2 (0: one process)"
}

# resume_on RANKS: the same command plus --resume, on RANKS ranks (0: one
# process).
resume_on() {
  if [ "$1" -eq 0 ]; then
    run_gdedup "${JOB[@]}" --resume -q
  else
    run_mpi "$1" "${JOB[@]}" --resume
  fi
  expect_status 0
}

# stop_and_resume_pairs N INFO WHAT FROM:TO...: for each pair, JOB stopped
# at its Nth checkpoint on FROM ranks, of which `gdedup info` prints a line
# matching INFO, and resumed on TO (0: one process), ends as one
# uninterrupted process. A TO past $RANKS is left out (sanitizer builds run
# fewer ranks).
stop_and_resume_pairs() {
  local nth=$1 info=$2 what=$3 from_to from to
  shift 3
  for from_to in "$@"; do
    from=${from_to%:*}
    to=${from_to#*:}
    [[ " 0 $RANKS " == *" $to "* ]] || continue
    rm -f ck out.txt f.gdf out.txt.tmp.*
    stop_at_checkpoint "$nth" "$from"
    "$GDEDUP" info ck | grep -q "$info" ||
      fail "$what: checkpoint $nth has no line like $info: $("$GDEDUP" info ck)"
    resume_on "$to"
    expect_reference "$what stopped on $from ranks and resumed on $to (0: one process)"
  done
}

# stop_in_one_process_and_resume N RANKS WHAT: JOB in one process, in small
# batches (it checkpoints between batches), stopped by its Nth failing
# checkpoint write, then resumed on RANKS, ends as one uninterrupted process.
stop_in_one_process_and_resume() {
  rm -f ck out.txt f.gdf out.txt.tmp.*
  run_gdedup_failing_write "$1" ck "${JOB[@]}" --batch 500 -q
  expect_status 1
  [ -f ck ] || { fail "$3: one process left no checkpoint: $ERR"; return; }
  resume_on "$2"
  expect_reference "$3 stopped in one process and resumed on $2 ranks"
}

case_resume_on_the_same_ranks() {
  make_input
  local ranks
  for ranks in $(rank_choices 2 3); do
    rm -f ck out.txt f.gdf out.txt.tmp.*
    stop_at_checkpoint 4 "$ranks"
    resume_on "$ranks"
    expect_reference "stopped and resumed on $ranks ranks"
  done
}

case_resume_on_other_ranks_or_one_process() {
  make_input
  local from to
  for from in $(rank_choices 2 3); do
    for to in 0 $RANKS; do  # 0: one process
      [ "$from" -eq "$to" ] && continue
      rm -f ck out.txt f.gdf out.txt.tmp.*
      stop_at_checkpoint 3 "$from"
      resume_on "$to"
      expect_reference "stopped on $from ranks and resumed on $to (0: one process)"
    done
  done
}

case_resume_a_one_process_checkpoint_on_ranks() {
  make_input
  local ranks
  for ranks in $(rank_choices 2 3); do
    stop_in_one_process_and_resume 5 "$ranks" "a fixed filter"
  done
}

case_resume_a_gzip_job() {
  # Compressed inputs are read a chunk a round: a checkpoint falls inside
  # one, and the resume, on ranks or in one process, skips to it.
  random_lines 8000 2000 21 | gzip -c >a.gz
  random_lines 8000 2000 22 >b.txt
  random_lines 8000 2000 23 | gzip -c >c.gz
  reference 4000 a.gz b.txt c.gz
  JOB=(dedup a.gz b.txt c.gz -o out.txt -f f.gdf --capacity 4000 --no-grow --piece-bytes 4K
       --checkpoint ck --checkpoint-every 1000)
  local to
  for to in 3 0; do
    stop_and_resume 2 "$to" 'a\.gz (input 1 of 3)' "a job of gzip and plain inputs"
  done
  # One process stops inside a gzip input; the ranks read it from its start.
  rm -f ck out.txt f.gdf out.txt.tmp.*
  run_gdedup_failing_write 2 ck "${JOB[@]}" --batch 700 -q
  expect_status 1
  [ -f ck ] || { fail "one process left no checkpoint: $ERR"; return; }
  resume_on 2
  expect_reference "a gzip job stopped in one process, resumed on 2 ranks"
}

case_resume_a_fingerprint_job() {
  # 8-byte records, plain (cut in ranges) and compressed (read in chunks):
  # a checkpoint inside either resumes on ranks or in one process.
  fingerprints 24000 3000 5 >all.u64
  head -c 96000 all.u64 | gzip -c >a.u64.gz
  tail -c +96001 all.u64 >b.u64
  "$GDEDUP" dedup a.u64.gz b.u64 -o ref.out -f ref.gdf --input-format u64 --capacity 4000 \
    --no-grow -q || fail "the one-process reference run failed"
  JOB=(dedup a.u64.gz b.u64 -o out.txt -f f.gdf --input-format u64 --capacity 4000 --no-grow
       --piece-bytes 4K --checkpoint ck --checkpoint-every 1000)
  local to
  for to in 3 0; do
    stop_and_resume 2 "$to" 'a\.u64\.gz (input 1 of 2)' "a fingerprint job"
    stop_and_resume 14 "$to" 'b\.u64 (input 2 of 2)' "a fingerprint job"
  done
}

case_resume_a_growing_filter() {
  # Checkpoints hold every layer, the growth rule and the keys offered: a
  # job stopped on ranks resumes on any number of ranks or in one process,
  # and one process's on ranks, adding its layers where one process adds
  # them.
  awk 'BEGIN { srand(17); for (i = 0; i < 30000; i++) print "k" int(rand() * 9000) }' >in.txt
  "$GDEDUP" dedup in.txt -o ref.out -f ref.gdf --capacity 1100 -q || fail "the reference run failed"
  local saved=("${JOB[@]}")
  JOB=(dedup in.txt -o out.txt -f f.gdf --capacity 1100 --piece-bytes 2K --checkpoint ck
       --checkpoint-every 1000)
  stop_and_resume_pairs 4 '^layers *3$' "a growing filter" 2:0 2:3 3:2 3:4
  stop_in_one_process_and_resume 5 3 "a growing filter"
  # A resume that asks for a fixed filter is refused and changes nothing.
  rm -f ck out.txt f.gdf out.txt.tmp.*
  stop_at_checkpoint 2 2
  cp ck ck.saved
  run_mpi 2 "${JOB[@]}" --no-grow --resume
  expect_failure
  one_message "cannot resume from checkpoint ck"
  cmp -s ck ck.saved || fail "a refused resume changed the checkpoint"
  resume_on 2
  expect_reference "a growing filter resumed after a refused resume"
  JOB=("${saved[@]}")
}

case_sigkill_of_a_rank_then_resume() {
  # Whenever rank 1 dies, the last checkpoint and the output it names stay,
  # and the resume ends as one uninterrupted process.
  # (A fifth of the records, the interval and the growing filter's first
  # layer under AddressSanitizer.)
  local every first_layer
  every=$(sized 2000)
  first_layer=$(sized 2000)
  {
    random_lines "$(sized 150000)" "$(sized 40000)" 17
    printf 'tail-without-newline'
  } >in.txt
  echo "  $(sized 150000) records, a checkpoint every $every"
  reference 50000 in.txt
  JOB=(dedup in.txt -o out.txt -f f.gdf --capacity 50000 --no-grow --piece-bytes 1K
       --checkpoint ck --checkpoint-every "$every")
  kill_rank_1_then_resume "a fixed filter"
  # A growing filter, killed while it adds layers.
  rm -f ck out.txt f.gdf out.txt.tmp.* ref.out ref.gdf
  "$GDEDUP" dedup in.txt -o ref.out -f ref.gdf --capacity "$first_layer" -q ||
    fail "the reference run failed"
  JOB=(dedup in.txt -o out.txt -f f.gdf --capacity "$first_layer" --piece-bytes 1K --checkpoint ck
       --checkpoint-every "$every")
  kill_rank_1_then_resume "a growing filter"
}

# kill_rank_1_then_resume WHAT [RANK]: JOB on 2 ranks, rank RANK (1 unless
# given) killed after the first checkpoint, resumed on 2 ranks: one
# uninterrupted process's bytes.
kill_rank_1_then_resume() {
  local rank=${2:-1}
  start_ranks 2 "$GDEDUP" "${JOB[@]}" || return
  local i
  for i in $(seq 1 400); do  # up to 20 s for a first checkpoint
    [ -f ck ] && break
    sleep 0.05
  done
  kill -KILL "${PIDS[$rank]}"
  wait_ranks
  [ "$STATUS" -ne 0 ] || fail "$1: mpirun exited 0 although rank $rank was killed"
  [ ! -e out.txt ] || fail "$1: the output took its final name although a rank was killed"
  [ -f ck ] || { fail "$1: no checkpoint to resume from"; return; }
  resume_on 2
  expect_reference "$1: rank $rank killed, then resumed"
}

case_sigterm_stops_every_rank_at_a_checkpoint() {
  {
    random_lines 150000 40000 19
  } >in.txt
  reference 50000 in.txt
  JOB=(dedup in.txt -o out.txt -f f.gdf --capacity 50000 --no-grow --piece-bytes 1K
       --checkpoint ck --checkpoint-every 1h)
  start_ranks 3 "$GDEDUP" "${JOB[@]}" || return
  sleep 0.3
  # As a batch system stops a job: every rank gets the signal.
  kill -TERM "${PIDS[@]}"
  wait_ranks
  local status=$STATUS
  if [ -e out.txt ]; then
    # The job ended before the signal landed: nothing to resume.
    expect_reference "a job that completed before its signal"
    return
  fi
  [ "$status" -eq 3 ] || fail "exit $status after SIGTERM, expected 3: $(cat stderr)"
  grep -q "checkpoint saved to ck; resume with the same command plus --resume" stderr ||
    fail "no line says where the checkpoint is: $(cat stderr)"
  [ "$(grep -c '^gdedup:' stderr)" -eq 1 ] || fail "not one message: $(cat stderr)"
  resume_on 3
  expect_reference "stopped by SIGTERM and resumed"
}

case_refusals() {
  make_input
  # No checkpoint to resume from.
  run_mpi 2 "${JOB[@]}" --resume
  expect_failure
  one_message "no checkpoint at ck to resume from"
  # An earlier run's checkpoint is never overwritten by a new run.
  stop_at_checkpoint 2 2
  cp ck ck.saved
  run_mpi 2 "${JOB[@]}"
  expect_failure
  one_message "checkpoint ck exists from an earlier run"
  cmp -s ck ck.saved || fail "a new run changed the earlier run's checkpoint"
  # A resume with another input, or other key options, is refused and
  # changes nothing.
  random_lines 100 10 99 >other.txt
  run_mpi 2 dedup other.txt -o out.txt -f f.gdf --capacity 5000 --no-grow --piece-bytes 2K \
    --checkpoint ck --resume
  expect_failure
  one_message "the input list differs"
  run_mpi 2 "${JOB[@]}" --resume --key field:1
  expect_failure
  one_message "the key option differs"
  # A changed input.
  cp -p in.txt in.saved
  printf 'more\n' >>in.txt
  run_mpi 2 "${JOB[@]}" --resume
  expect_failure
  one_message "in.txt"
  cp -p in.saved in.txt
  # Damage in the bit array, which only rank 0 reads whole.
  local size
  size=$(stat -c %s ck)
  printf '\377' | dd of=ck bs=1 seek=5000 conv=notrunc 2>/dev/null
  run_mpi 3 "${JOB[@]}" --resume
  expect_status 1
  one_message "ck is damaged"
  cmp -s ck ck.saved && fail "the damage was not written"
  cp ck.saved ck
  # The output's temporary file, which the checkpoint names, removed.
  local temporary
  temporary=$(compgen -G 'out.txt.tmp.*') || { fail "no temporary output: $(ls)"; return; }
  mv "$temporary" saved.tmp
  run_mpi 2 "${JOB[@]}" --resume
  expect_status 1
  one_message "is missing"
  mv saved.tmp "$temporary"
  # A filter file another job saved while this one was stopped (the job
  # started without one): the resume would save its filter over that job's
  # keys.
  random_lines 100 10 98 >c.txt
  "$GDEDUP" build c.txt -f f.gdf -q || fail "the other job's build failed"
  cp f.gdf f.other
  run_mpi 2 "${JOB[@]}" --resume
  expect_failure
  one_message "the filter file f.gdf changed while the job was stopped: it was created"
  cmp -s f.gdf f.other || fail "a refused resume changed the other job's filter file"
  rm f.gdf f.other
  # The same checkpoint, undamaged, still resumes.
  resume_on 2
  expect_reference "a resume after refused ones"
}

# Exact mode (--exact): a checkpoint is one process's set checkpoint,
# written by rank 0 from the ranks' keys; on resume each rank keeps its
# range of it.

# exact_reference LINES KEYS SEED: in.txt of LINES records over KEYS keys,
# one uninterrupted process's exact dedup of it (ref.out, ref.gdf), which
# must be awk's, and JOB, that dedup on ranks with checkpoints.
exact_reference() {
  {
    random_lines "$1" "$2" "$3"
    printf 'tail-without-newline'
  } >in.txt
  rm -f ref.out ref.gdf
  "$GDEDUP" dedup in.txt --exact -o ref.out -f ref.gdf -q ||
    fail "the one-process reference run failed"
  awk '!seen[$0]++' in.txt | cmp -s - ref.out || fail "one process's --exact is not awk's dedup"
  JOB=(dedup in.txt --exact -o out.txt -f f.gdf --piece-bytes 2K --checkpoint ck
       --checkpoint-every 1000)
}

case_exact_resume_on_other_ranks_or_one_process() {
  exact_reference 12000 3000 31
  stop_and_resume_pairs 3 '^kind .*with --exact' "an exact job" 2:3 3:2 3:0
  stop_in_one_process_and_resume 4 3 "an exact job"
}

case_exact_sigint_stops_every_rank_at_a_checkpoint() {
  exact_reference 60000 20000 33
  JOB=(dedup in.txt --exact -o out.txt -f f.gdf --piece-bytes 1K --checkpoint ck
       --checkpoint-every 1h)
  local ranks i
  for ranks in $(rank_choices 2 3); do
    rm -f ck out.txt f.gdf out.txt.tmp.*
    start_ranks "$ranks" "$GDEDUP" "${JOB[@]}" || continue
    # Records written: the ranks are past their setup and catch the signal.
    for i in $(seq 1 400); do
      [ -n "$(find . -maxdepth 1 -name 'out.txt.tmp.*' -size +0)" ] && break
      [ -e out.txt ] && break
      sleep 0.05
    done
    kill -INT "${PIDS[@]}"
    wait_ranks
    if [ -e out.txt ]; then
      # The job ended before the signal landed: nothing to resume.
      expect_reference "an exact job that completed before its signal"
      continue
    fi
    [ "$STATUS" -eq 3 ] ||
      fail "exit $STATUS after SIGINT on $ranks ranks, expected 3: $(cat stderr)"
    grep -q "checkpoint saved to ck; resume with the same command plus --resume" stderr ||
      fail "no line says where the checkpoint is: $(cat stderr)"
    [ "$(grep -c '^gdedup:' stderr)" -eq 1 ] || fail "not one message: $(cat stderr)"
    resume_on "$ranks"
    expect_reference "an exact job stopped by SIGINT on $ranks ranks and resumed"
  done
}

case_exact_sigkill_then_resume() {
  # (A fifth of the records and of the interval under AddressSanitizer.)
  exact_reference "$(sized 60000)" "$(sized 20000)" 37
  echo "  $(sized 60000) records, a checkpoint every $(sized 5000)"
  JOB=(dedup in.txt --exact -o out.txt -f f.gdf --piece-bytes 1K --checkpoint ck
       --checkpoint-every "$(sized 5000)")
  # Rank 0 writes the checkpoints; rank 1 sends it its keys.
  kill_rank_1_then_resume "an exact job" 0
  rm -f ck out.txt f.gdf out.txt.tmp.*
  kill_rank_1_then_resume "an exact job" 1
}

case_exact_past_max_memory_saves_nothing() {
  exact_reference 100000 40000 35
  # Each rank's part of about 18,500 keys is past 260K: exit 4, no set
  # file, no output, the last checkpoint kept; a larger cap resumes it.
  run_mpi 2 "${JOB[@]}" --max-memory 260K
  expect_status 4
  one_message "caps each rank's part of the set"
  expect_message "continues from the checkpoint ck"
  [ ! -e f.gdf ] && [ ! -e out.txt ] || fail "a job past its cap saved a file: $(ls)"
  [ -f ck ] || { fail "no checkpoint was kept: $(ls)"; return; }
  # A resume whose checkpoint is past the cap is refused from its header,
  # on every rank alike, and keeps it.
  cp ck ck.before
  run_mpi 2 "${JOB[@]}" --max-memory 64K --resume
  expect_status 4
  one_message "a rank's part of the set of checkpoint ck takes"
  cmp -s ck ck.before || fail "a resume past its cap changed the checkpoint"
  run_mpi 3 "${JOB[@]}" --max-memory 1M --resume
  expect_status 0
  expect_reference "an exact job past its cap, resumed with a larger one"
}

case_exact_refused_resumes() {
  # A checkpoint of the other kind, or a damaged one, is refused and changes
  # nothing; the set checkpoint then still resumes.
  make_input
  local bloom=("${JOB[@]}")
  stop_at_checkpoint 2 2
  cp ck ck.saved
  run_mpi 2 dedup in.txt --exact -o out.txt -f f.gdf --piece-bytes 2K --checkpoint ck --resume
  expect_status 1
  one_message "ck is a Bloom filter's checkpoint, not an exact set's checkpoint"
  expect_message "leave out --exact to use it"
  cmp -s ck ck.saved || fail "a refused resume changed the checkpoint"
  rm -f ck out.txt.tmp.*
  exact_reference 12000 3000 31
  stop_at_checkpoint 2 2
  cp ck ck.saved
  run_mpi 2 "${bloom[@]}" --resume
  expect_status 1
  one_message "ck is an exact set's checkpoint, not a Bloom filter's checkpoint"
  expect_message "give --exact to use it"
  cmp -s ck ck.saved || fail "a refused resume changed the checkpoint"
  # Damage in the keys, which every rank reads whole.
  printf '\377' | dd of=ck bs=1 seek=2000 conv=notrunc 2>/dev/null
  run_mpi 3 "${JOB[@]}" --resume
  expect_status 1
  one_message "set checkpoint ck is damaged"
  cp ck.saved ck
  resume_on 3
  expect_reference "an exact job resumed after refused resumes"
}

run_cases
