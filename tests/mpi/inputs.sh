#!/usr/bin/env bash
# Ranks that see different files at one input or filter file path (each
# rank's working folder its own, as node-local scratch is) are refused with
# one message before any work, naming the file, what differs and the ranks;
# copies that differ only in modification time are one input
# (docs/SCALE-OUT.md, "Inputs"); an input cut short while the job runs fails
# it, never leaving an output without the records past the cut.
# GDEDUP_MPIEXEC names mpirun.
source "$(dirname "$0")/lib.sh"

# rank_folders: r0 and r1, the working folders of per_rank_run's ranks
# (by the rank number OpenMPI's mpirun or a PMI launcher gives each).
rank_folders() {
  mkdir r0 r1
  cat >in_rank_folder.sh <<'EOF'
#!/usr/bin/env bash
cd "r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:?no rank number from the launcher}}" && exec "$@"
EOF
  chmod +x in_rank_folder.sh
}

# per_rank_run ARGS...: `gdedup ARGS -q --mpi` on 2 ranks, each in its own
# folder (rank_folders); as run_mpi.
per_rank_run() {
  "${MPIRUN[@]}" -np 2 ./in_rank_folder.sh "$GDEDUP" "$@" -q --mpi \
    >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  STATUS=$?
  ERR=$(cat "$SCRATCH/stderr")
}

# digits N: N as messages print it, 1234567 as 1,234,567.
digits() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }

# refused STATUS TEXT: the last run exited with STATUS and one message
# holding TEXT, and left no output.
refused() {
  expect_status "$1"
  one_message "$2"
  if compgen -G "$SCRATCH/out.txt*" >/dev/null; then
    fail "a refused job left an output: $(ls "$SCRATCH")"
  fi
}

case_files_of_other_sizes() {
  rank_folders
  random_lines 30000 5000 51 >r0/in.txt
  random_lines 20000 5000 52 >r1/in.txt
  local r0 r1
  r0=$(stat -c %s r0/in.txt)
  r1=$(stat -c %s r1/in.txt)
  per_rank_run dedup in.txt -o "$SCRATCH/out.txt" --piece-bytes 8K
  refused 2 "rank 1 on"
  expect_message "input in.txt has $(digits "$r1") bytes here and $(digits "$r0") bytes on rank 0"
}

case_files_of_one_size_and_other_bytes() {
  # Plain text, gzip and fingerprints alike; the same size, bytes that
  # differ at the start.
  rank_folders
  random_lines 30000 5000 53 >r0/in.txt
  sed '1s/^./X/' r0/in.txt >r1/in.txt
  per_rank_run dedup in.txt -o "$SCRATCH/out.txt" --piece-bytes 8K --capacity 6000 --no-grow
  refused 2 "input in.txt has the same size here as on rank 0"
  gzip -n -c r0/in.txt >r0/in.gz
  gzip -n -c r1/in.txt >r1/in.gz
  per_rank_run dedup in.gz -o "$SCRATCH/out.txt" --piece-bytes 8K
  refused 2 "input in.gz has"
  fingerprints 20000 3000 54 >r0/in.u64
  fingerprints 20000 3000 55 >r1/in.u64
  per_rank_run dedup in.u64 --input-format u64 -o "$SCRATCH/out.txt" --piece-bytes 8K
  refused 2 "input in.u64 has the same size here as on rank 0"
}

case_files_alike_at_both_ends() {
  # The same size, start and end; records of another length between, which
  # the sizing samples: the filters planned differ, and so would the keys'
  # owners (a rank was ended by SIGSEGV).
  rank_folders
  seq -f 'edge-%06g' 1 6000 >edge  # past the 64 KiB compared
  cat edge <(seq -f 's%07g' 1 50000) edge >r0/in.txt
  cat edge <(seq -f 'a-much-longer-record-%025g' 1 9000) >r1/in.txt
  head -c $(($(stat -c %s r0/in.txt) - $(stat -c %s r1/in.txt) - $(stat -c %s edge) - 1)) \
    /dev/zero | tr '\0' x >>r1/in.txt
  { echo; cat edge; } >>r1/in.txt
  [ "$(stat -c %s r0/in.txt)" = "$(stat -c %s r1/in.txt)" ] ||
    fail "the two inputs were meant to be of one size"
  per_rank_run dedup in.txt -o "$SCRATCH/out.txt" --piece-bytes 64K
  refused 1 "the ranks planned different filters"
}

case_filter_files_that_differ() {
  # Each rank reads its blocks of the filter file at its own path.
  rank_folders
  random_lines 4000 3000 62 >q.txt
  random_lines 4000 3000 63 >other.txt
  "$GDEDUP" build q.txt -f r0/day.gdf --capacity 5000 --no-grow -q || fail "build failed"
  "$GDEDUP" build other.txt -f r1/day.gdf --capacity 5000 --no-grow -q || fail "build failed"
  per_rank_run query "$SCRATCH/q.txt" -f day.gdf -o "$SCRATCH/out.txt"
  refused 2 "filter file day.gdf has the same size here as on rank 0"
  rm r1/day.gdf
  per_rank_run query "$SCRATCH/q.txt" -f day.gdf -o "$SCRATCH/out.txt"
  refused 2 "filter file day.gdf is missing here and a regular file on rank 0"
}

case_input_cut_after_it_was_read() { again_after_stdin_crash input_cut_after_it_was_read_once; }
input_cut_after_it_was_read_once() {
  # A whole input that a rank has read waits for its round while standard
  # input holds the job; cut short then, its records go out as they were
  # read and checked, not as the zeros that a mapping's lost pages read as.
  random_lines 60000 20000 60 >in.txt
  echo "a record from standard input" >first.txt
  "$GDEDUP" dedup first.txt in.txt -o expected.txt --capacity 25000 --no-grow -q ||
    fail "one process failed"
  local size
  size=$(stat -c %s in.txt)
  mkfifo feed
  "${MPIRUN_STDIN[@]}" -np 2 "$GDEDUP" dedup - in.txt -o "$SCRATCH/out.txt" \
    --piece-bytes 8M --capacity 25000 --no-grow -q --mpi <feed >stdout 2>stderr &
  LAUNCHER=$!
  exec 3>feed
  cat first.txt >&3
  # Until a rank has read the file: read(2)'s bytes, which /proc counts.
  local i pid read_all=
  for i in $(seq 1 600); do
    for pid in $(pgrep -P "$LAUNCHER"); do
      [ "$(awk '/^rchar/ { print $2 }' "/proc/$pid/io" 2>/dev/null || echo 0)" -ge "$size" ] &&
        read_all=yes
    done
    [ -n "$read_all" ] && break
    sleep 0.05
  done
  [ -n "$read_all" ] || fail "no rank read in.txt: $(cat stderr)"
  truncate -s 0 in.txt
  exec 3>&-
  wait_ranks
  ERR=$(cat stderr)
  expect_status 0
  cmp -s expected.txt out.txt || fail "the output is not the records read: $(grep -c . out.txt)"
}

case_input_lists_that_differ() {
  rank_folders
  random_lines 2000 400 56 >a.txt
  random_lines 2000 400 57 >b.txt
  printf '%s\n' "$SCRATCH/a.txt" "$SCRATCH/b.txt" >r0/list
  printf '%s\n' "$SCRATCH/a.txt" >r1/list
  per_rank_run dedup --files-from list -o "$SCRATCH/out.txt" --memory 64K
  refused 2 "this rank has 1 input and rank 0"
  expect_message "its input 2 is $SCRATCH/b.txt"
}

case_copies_with_other_times_are_one_input() {
  # Node-local copies made at other times: the bytes decide, not the
  # modification time (docs/SCALE-OUT.md), also when a job stopped at a
  # checkpoint (which records rank 0's inputs) resumes.
  rank_folders
  random_lines 30000 5000 58 >r0/in.txt
  cp r0/in.txt r1/in.txt
  touch -d '2001-02-03 04:05:06' r1/in.txt
  "$GDEDUP" dedup r0/in.txt -o one.txt --capacity 6000 --no-grow -q || fail "one process failed"
  local job=(dedup in.txt -o "$SCRATCH/out.txt" --piece-bytes 8K --capacity 6000 --no-grow)
  per_rank_run "${job[@]}"
  expect_status 0
  cmp -s one.txt out.txt || fail "copies with other times: the output differs from one process's"
  rm out.txt
  job+=(--checkpoint "$SCRATCH/ck" --checkpoint-every 1000)
  GDEDUP_FAIL_REPLACEMENT="3:$SCRATCH/ck" "${MPIRUN[@]}" -np 2 ./in_rank_folder.sh \
    "${GDEDUP_FAULTS_BIN:?GDEDUP_FAULTS_BIN must name gdedup-faults}" "${job[@]}" -q --mpi \
    >stdout 2>stderr
  [ "$?" -ne 0 ] && [ -f ck ] || fail "the job did not stop at its third checkpoint: $(cat stderr)"
  per_rank_run "${job[@]}" --resume
  expect_status 0
  cmp -s one.txt out.txt || fail "copies with other times, resumed: the output differs"
}

case_input_cut_short_while_read() { again_after_stdin_crash input_cut_short_while_read_once; }
input_cut_short_while_read_once() {
  # Standard input first holds the job at its first piece while the ranks
  # have planned the file's pieces (the output's temporary file is made
  # after every rank planned them alike); the file is then cut short, and
  # the pieces past the cut must fail the job, not pass for pieces without
  # records.
  random_lines 40000 8000 59 >in.txt
  mkfifo feed
  "${MPIRUN_STDIN[@]}" -np 2 "$GDEDUP" dedup - in.txt -o "$SCRATCH/out.txt" \
    --piece-bytes 8K --capacity 9000 --no-grow -q --mpi <feed >stdout 2>stderr &
  LAUNCHER=$!
  exec 3>feed
  echo "a record from standard input" >&3
  local i
  for i in $(seq 1 600); do
    compgen -G "out.txt.tmp.*" >/dev/null && break
    sleep 0.05
  done
  compgen -G "out.txt.tmp.*" >/dev/null || fail "the job did not start: $(cat stderr)"
  truncate -s 5000 in.txt
  exec 3>&-
  wait_ranks
  ERR=$(cat stderr)
  expect_status 1
  one_message "input in.txt"
  expect_message "while it was being read"
  [ ! -e out.txt ] || fail "a job whose input was cut short left out.txt"
}

run_cases
