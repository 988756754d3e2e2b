#!/usr/bin/env bash
# A rank that dies ends the whole MPI job: mpirun exits non-zero, no rank
# is left running, and the output never appears under its final name (a
# SIGKILL of rank 0, which cannot clean up, may leave its temporary file
# OUTPUT.tmp.XXXXXX; any other rank's death lets rank 0 remove it).
source "$(dirname "$0")/lib.sh"

# kill_rank_midway R VICTIM [ARGS...]: a dedup on R ranks whose rank VICTIM
# is sent SIGKILL once every rank is running; ARGS in place of its sizing
# (a fixed filter).
kill_rank_midway() {
  local ranks=$1 victim=$2
  shift 2
  local sizing=(--capacity 1200000 --no-grow)
  [ $# -gt 0 ] && sizing=("$@")
  awk 'BEGIN { srand(3); for (i = 0; i < 1000000; i++) print "https://k.example/" int(rand() * 1e7) }' \
    >in.txt
  start_ranks "$ranks" "$GDEDUP" dedup in.txt -o out.txt -f f.gdf "${sizing[@]}" \
    --piece-bytes 1K || return
  local pids=("${PIDS[@]}") i waited
  sleep 0.3
  kill -KILL "${pids[$victim]}"
  wait_ranks
  [ "$STATUS" -ne 0 ] || fail "mpirun exited 0 although rank $victim was killed"
  [ ! -e out.txt ] || fail "the output appeared under its final name"
  [ ! -e f.gdf ] || fail "the filter file appeared"
  # mpirun has ended; its ranks are gone a moment later.
  for i in "${pids[@]}"; do
    waited=0
    while kill -0 "$i" 2>/dev/null && [ "$waited" -lt 50 ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
    kill -0 "$i" 2>/dev/null && fail "rank process $i outlived the job by 5 s"
  done
  grep -q "rank $victim" stderr || grep -qi "signal 9\|killed" stderr ||
    fail "nothing on stderr says that a rank was killed: $(cat stderr)"
}

case_sigkill_rank_1_of_2() {
  kill_rank_midway 2 1
  compgen -G 'out.txt.tmp.*' >/dev/null && fail "rank 0 left its temporary file: $(ls)"
}

case_sigkill_rank_0_of_3() { kill_rank_midway 3 0; }

# Exact mode: the set file does not appear either.
case_sigkill_rank_2_of_3_exact() { kill_rank_midway 3 2 --exact; }

run_cases
