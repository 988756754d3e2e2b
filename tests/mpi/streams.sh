#!/usr/bin/env bash
# Streams under --mpi (docs/SCALE-OUT.md, "Rounds" and "Output"): compressed
# files and standard input are read a chunk of --piece-bytes decoded bytes
# at a time, by one rank, while the other ranks read ahead their own pieces
# (at most 32 chunks each); standard output and pipes are written by rank 0
# in input order. The output and filter file stay those of one process, and
# no rank holds a whole input. GDEDUP_MPIEXEC names mpirun.
source "$(dirname "$0")/lib.sh"

case_compressed_inputs_longer_than_the_read_ahead() {
  # 1K chunks: each file is about 100 of them, past the 32 a rank may hold
  # while it waits, so the ranks after the first wait for their turn.
  random_lines 4000 900 61 >a.txt
  random_lines 4000 900 62 >b.txt
  gzip -c a.txt >a.gz
  { gzip -c b.txt; gzip -c a.txt; } >b.gz
  zstd -q -c b.txt >c.zst
  same_bytes dedup a.gz b.gz c.zst a.txt -o @OUT -f @FILTER --capacity 2000 --no-grow \
    --piece-bytes 1K
  same_bytes dedup a.gz b.gz -o @OUT -f @FILTER --capacity 2000 --no-grow --piece-bytes 1K \
    --duplicates
}

case_many_small_compressed_inputs_side_by_side() {
  # Files of 1 to 30 chunks, read side by side and applied in input order,
  # which is not rank order once a rank that finished early takes the next
  # file; mixed with plain files cut in ranges. Each file's keys overlap the
  # next three's, so applying a later file first keeps the wrong copies.
  local i inputs=()
  for i in $(seq 0 13); do
    awk -v n=$((40 + 150 * ((i * 7) % 5))) -v from=$((100 * i)) -v seed=$((70 + i)) \
      'BEGIN { srand(seed); for (j = 0; j < n; j++) print "https://o.example/" from + int(rand() * 400) }' \
      >"p$i.txt"
    if [ $((i % 4)) -eq 3 ]; then
      inputs+=("p$i.txt")
    else
      gzip -c "p$i.txt" >"p$i.gz"
      inputs+=("p$i.gz")
    fi
  done
  same_bytes dedup "${inputs[@]}" -o @OUT -f @FILTER --capacity 3000 --no-grow --piece-bytes 1K
  same_bytes build "${inputs[@]}" -f @FILTER --capacity 3000 --no-grow --piece-bytes 2K
}

case_standard_input() {
  # Standard input reaches rank 0, which reads it a chunk at a time; the
  # files before and after it go to any rank.
  random_lines 6000 1500 81 >a.txt
  random_lines 6000 1500 82 >b.txt
  random_lines 6000 1500 83 >c.txt
  gzip -c b.txt >b.gz
  "$GDEDUP" dedup a.txt - c.txt -o one.out --capacity 3000 --no-grow -q <b.gz ||
    fail "one process failed on standard input"
  local ranks
  for ranks in $RANKS; do
    rm -f out.txt
    mpirun_stdin -np "$ranks" "$GDEDUP" dedup a.txt - c.txt -o out.txt \
      --capacity 3000 --no-grow --piece-bytes 2K -q --mpi <b.gz 2>err ||
      fail "standard input on $ranks ranks: $(cat err)"
    cmp -s one.out out.txt || fail "standard input on $ranks ranks: the output differs"
  done
}

case_too_long_record_deep_inside_a_compressed_input() {
  # Named by its number in the whole input and its byte offset in the
  # decoded file, as one process names it, after the chunks before it.
  { random_lines 5000 800 91; head -c 3000 /dev/zero | tr '\0' 'z'; echo; random_lines 50 9 92; } \
    | gzip -c >long.gz
  random_lines 3000 800 93 >first.txt
  run_gdedup dedup first.txt long.gz -o out.txt --capacity 900 --no-grow --max-record-length 1K -q
  expect_status 1
  local where
  where=$(grep -o 'record [0-9]* (at byte offset [0-9]*)' <<<"$ERR")
  [ -n "$where" ] || fail "one process did not name the record: $ERR"
  run_mpi 3 dedup first.txt long.gz -o out.txt --capacity 900 --no-grow --max-record-length 1K \
    --piece-bytes 1K
  expect_status 1
  one_message "$where is longer than"
  [ ! -e out.txt ] || fail "a failed job left an output"
}

case_no_rank_holds_a_whole_compressed_input() {
  # 12 million 3-byte records, 36 MB decoded from 70 KB of gzip: held whole
  # with their fingerprints and places that would be over 300 MB a rank.
  yes ab | head -n 12000000 | gzip -c >big.gz
  "${MPIRUN[@]}" -np 2 /usr/bin/time -f 'peak %M KiB' -a -o rss.txt \
    "$GDEDUP" dedup big.gz -o out.txt --capacity 1000 --no-grow --piece-bytes 1M -q --mpi \
    2>err || fail "the job failed: $(cat err)"
  [ "$(cat out.txt)" = ab ] || fail "the output is not the one distinct record"
  local peak
  for peak in $(grep -o 'peak [0-9]*' rss.txt | cut -d' ' -f2); do
    [ "$peak" -lt 160000 ] || fail "a rank peaked at $peak KiB: it held the input whole"
  done
  [ "$(grep -c peak rss.txt)" -eq 2 ] || fail "no peak of each rank: $(cat rss.txt)"
}

case_huge_piece_sizes() {
  # Piece sizes whose read-ahead (32 pieces) passes 2^64: the job still
  # ends, with one process's output.
  random_lines 3000 700 99 | gzip -c >a.gz
  random_lines 3000 700 98 >b.txt
  fingerprints 3000 700 97 >c.u64
  local size
  for size in 576460752303423488 18446744073709551615; do
    same_bytes dedup a.gz b.txt -o @OUT --capacity 1500 --no-grow --piece-bytes "$size"
    same_bytes dedup c.u64 -o @OUT --input-format u64 --capacity 1500 --no-grow \
      --piece-bytes "$size"
  done
}

case_standard_output_and_pipes() {
  random_lines 20000 5000 95 >a.txt
  gzip -c a.txt >a.gz
  random_lines 8000 5000 96 >b.txt
  "$GDEDUP" dedup a.gz b.txt -o one.out --capacity 6000 --no-grow -q || fail "one process failed"
  local ranks
  for ranks in $RANKS; do
    "${MPIRUN[@]}" -np "$ranks" "$GDEDUP" dedup a.gz b.txt -o - --capacity 6000 \
      --no-grow --piece-bytes 4K -q --mpi >out.txt 2>err || fail "$ranks ranks: $(cat err)"
    cmp -s one.out out.txt || fail "standard output of $ranks ranks differs from one process's"
  done
  # A pipe whose reader goes away: quiet, as one process, unless the job
  # was to save what it saw; then nothing is saved and the job fails.
  mkfifo pipe
  head -c 100 <pipe >head.txt &
  run_mpi 3 dedup a.gz b.txt -o pipe --capacity 6000 --no-grow --piece-bytes 4K
  wait
  expect_status 0
  cmp -s head.txt <(head -c 100 one.out) || fail "the reader did not get the first bytes"
  head -c 100 <pipe >/dev/null &
  run_mpi 3 dedup a.gz b.txt -o pipe -f f.gdf --capacity 6000 --no-grow --piece-bytes 4K
  wait
  expect_status 1
  one_message "the filter f.gdf was not updated"
  [ ! -e f.gdf ] || fail "a filter was saved for records nobody received"
}

case_output_parts() {
  # Each rank writes a part a piece it kept records of, no file shared; the
  # parts the manifest lists, in order, are one process's -o output.
  random_lines 10000 5000 91 >a.txt
  random_lines 8000 9000 92 | gzip >b.gz
  random_lines 5000 9000 93 >c.txt
  "$GDEDUP" dedup a.txt b.gz - c.txt -o whole.txt --capacity 1100 -q <c.txt ||
    fail "one process failed"
  local ranks
  for ranks in $RANKS; do
    MPI_STDIN=1 run_mpi "$ranks" dedup a.txt b.gz - c.txt --output-parts "parts$ranks" \
      --capacity 1100 --piece-bytes 2K <c.txt
    expect_status 0
    assembled "parts$ranks" | cmp -s - whole.txt ||
      fail "the parts on $ranks ranks differ from one process's output"
    [ "$(tail -n +2 "parts$ranks/MANIFEST" | wc -l)" -gt "$ranks" ] ||
      fail "$ranks ranks wrote fewer parts than pieces: $(cat "parts$ranks/MANIFEST")"
  done
  # A query in parts; the next run into a folder removes the earlier parts.
  "$GDEDUP" build a.txt -f f.gdf -q || fail "one-process build"
  "$GDEDUP" query c.txt -f f.gdf -o whole.txt --absent -q || fail "one-process query"
  local first
  first=$(tail -n +2 parts3/MANIFEST | cut -f1)
  run_mpi 3 query c.txt -f f.gdf --output-parts parts3 --absent --piece-bytes 4K
  expect_status 0
  assembled parts3 | cmp -s - whole.txt || fail "a query's parts differ from one process's"
  for name in $first; do
    [ ! -e "parts3/$name" ] || { fail "the earlier run's part $name was left"; break; }
  done
  # One piece on one rank: the same part, checksum and all, as one process.
  "$GDEDUP" dedup a.txt --output-parts single -q || fail "one process failed"
  run_mpi 1 dedup a.txt --output-parts single1 --piece-bytes 1G
  expect_status 0
  cmp -s <(tail -n +2 single/MANIFEST | cut -f2,3) <(tail -n +2 single1/MANIFEST | cut -f2,3) ||
    fail "one part on one rank is not one process's: $(cat single/MANIFEST single1/MANIFEST)"
  # A job that fails leaves the folder's previous output as it was.
  { cat a.txt; head -c 3000 /dev/zero | tr '\0' z; echo; } >bad.txt
  cp parts3/MANIFEST saved
  ls parts3 >listed
  run_mpi 3 dedup bad.txt --output-parts parts3 --max-record-length 1K --piece-bytes 4K
  expect_status 1
  one_message "longer than the record length limit"
  cmp -s parts3/MANIFEST saved || fail "a failed job changed the manifest"
  ls parts3 | cmp -s - listed || fail "a failed job left parts: $(ls parts3)"
}

run_cases
