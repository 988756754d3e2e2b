#!/usr/bin/env bash
# gdedup --mpi against one process (docs/SCALE-OUT.md): for 1 to 4 ranks,
# the output and the saved filter must be byte-identical to those of the
# same command in one process, on inputs cut into many small pieces
# (--piece-bytes) so that records span piece edges and keys recur across
# pieces whose readers are different ranks. Registered by tests/CMakeLists.txt
# when MPI is built; GDEDUP_MPIEXEC names mpirun.
source "$(dirname "$0")/lib.sh"

case_all_distinct() {
  distinct_urls 30000 "https://d.example/" >in.txt
  same_bytes dedup in.txt -o @OUT -f @FILTER --capacity 40000 --no-grow --piece-bytes 8K
}

case_duplicate_heavy() {
  random_lines 40000 300 7 >in.txt
  same_bytes dedup in.txt -o @OUT -f @FILTER --memory 64K --piece-bytes 4K
}

case_cross_piece_duplicates() {
  # Every key recurs in many pieces: the copy kept is the earliest piece's.
  random_lines 30000 5000 11 >in.txt
  same_bytes dedup in.txt -o @OUT -f @FILTER --capacity 6000 --no-grow --piece-bytes 3K
  same_bytes dedup in.txt -o @OUT -f @FILTER --capacity 6000 --no-grow --piece-bytes 3K --duplicates
}

case_edges_long_records_no_final_newline() {
  # Records longer than a piece, runs of empty records at piece edges, and a
  # last record without its newline.
  {
    random_lines 3000 400 5
    head -c 9000 /dev/zero | tr '\0' 'x'; echo
    printf '\n\n\n'
    random_lines 3000 400 6
    head -c 5000 /dev/zero | tr '\0' 'y'; echo
    printf 'last-without-newline'
  } >in.txt
  same_bytes dedup in.txt -o @OUT -f @FILTER --capacity 2000 --no-grow --piece-bytes 1K
  same_bytes dedup in.txt -o @OUT --capacity 2000 --no-grow --piece-bytes 4097
}

case_gzip_inputs() {
  random_lines 20000 3000 21 >a.txt
  random_lines 20000 3000 22 >b.txt
  gzip -c a.txt >single.gz
  { gzip -c a.txt; gzip -c b.txt; } >multi.gz  # two members
  same_bytes dedup single.gz -o @OUT -f @FILTER --capacity 4000 --no-grow
  same_bytes dedup multi.gz b.txt single.gz -o @OUT -f @FILTER --capacity 4000 --no-grow \
    --piece-bytes 2K
}

case_filter_threads_per_rank() {
  # Each rank's blocks on 2 threads of its CPU backend, which split the
  # rank's part between them.
  random_lines 60000 9000 91 >in.txt
  same_bytes dedup in.txt -o @OUT -f @FILTER --capacity 10000 --no-grow --piece-bytes 1M \
    --filter-threads 2
}

case_nul_records_and_fields() {
  random_lines 20000 2000 31 | tr '\n' '\0' >in.z
  same_bytes dedup in.z -z -o @OUT -f @FILTER --capacity 3000 --no-grow --piece-bytes 2K
  random_lines 20000 2000 32 | awk '{ print NR % 50 "," $0 }' >in.csv
  same_bytes dedup in.csv --key field:1 --delimiter , -o @OUT -f @FILTER --capacity 100 \
    --no-grow --piece-bytes 2K
}

case_build_and_query() {
  random_lines 30000 4000 41 >day1.txt
  random_lines 10000 8000 42 >day2.txt
  same_bytes build day1.txt -f @FILTER --capacity 20000 --no-grow --piece-bytes 4K
  "$GDEDUP" build day1.txt -f day1.gdf --capacity 20000 --no-grow -q || fail "one-process build"
  START=day1.gdf same_bytes query day2.txt -f @FILTER -o @OUT --piece-bytes 2K
  START=day1.gdf same_bytes query day2.txt -f @FILTER -o @OUT --absent --piece-bytes 2K
  # dedup on from a saved filter: its bits and insertions carry on.
  START=day1.gdf same_bytes dedup day2.txt -f @FILTER -o @OUT --piece-bytes 2K
}

case_growing_filters() {
  # One process's default: a filter that adds layers as keys arrive, at the
  # same keys on any number of ranks (rounds cut at the growth checks; the
  # older layers' edge blocks taken from the neighbours when owners change).
  random_lines 20000 12000 91 >in.txt
  random_lines 10000 30000 92 | gzip >more.gz
  same_bytes dedup in.txt more.gz -o @OUT -f @FILTER --capacity 1100 --piece-bytes 2K
  same_bytes build in.txt -f @FILTER --capacity 1100 --piece-bytes 2K
  same_bytes dedup in.txt -o @OUT -f @FILTER --piece-bytes 5K  # the default first layer
  "$GDEDUP" build in.txt -f grown.gdf --capacity 1100 -q || fail "one-process build"
  local layers
  layers=$("$GDEDUP" info grown.gdf | awk '$1 == "layers" { print $2 }')
  [ "${layers:-0}" -ge 4 ] || fail "the filter grew to ${layers:-no} layers, not 4 or more"
  # A grown file goes on growing, answers queries, or is held at its layers.
  START=grown.gdf same_bytes query more.gz -f @FILTER -o @OUT --absent --piece-bytes 2K
  START=grown.gdf same_bytes dedup more.gz -f @FILTER -o @OUT --piece-bytes 2K
  distinct_urls 20000 https://new.example/ >new.txt
  START=grown.gdf EXPECT_STATUS=4 same_bytes dedup new.txt -f @FILTER -o @OUT --no-grow \
    --piece-bytes 2K
  # Held at its layers past its plan, the file is left as it was.
  cmp -s grown.gdf one.gdf || fail "--no-grow past the plan changed the filter file"
  # Capped by --max-memory: status 4 and the same bytes.
  EXPECT_STATUS=4 same_bytes dedup in.txt -o @OUT -f @FILTER --capacity 1100 --max-memory 40K \
    --piece-bytes 2K
}

case_exact_mode() {
  # --exact: each rank holds the set's keys of its range of key values, and
  # the output and the set file are one process's (awk's, for the output).
  random_lines 30000 5000 53 >in.txt
  same_bytes dedup in.txt --exact -o @OUT -f @FILTER --piece-bytes 3K
  awk '!seen[$0]++' in.txt | cmp -s - one.out || fail "--exact is not an exact dedup"
  random_lines 20000 2000 54 | awk '{ print NR % 50 "," $0 }' | gzip -c >in.csv.gz
  same_bytes dedup in.csv.gz --exact --key field:2 --delimiter , -o @OUT -f @FILTER
  random_lines 10000 8000 55 >day2.txt
  # Parts sized for their share of 6000 keys from the start, on 2 threads.
  same_bytes build in.txt --exact -f @FILTER --piece-bytes 4K --capacity 6000 --filter-threads 2
  "$GDEDUP" build in.txt --exact -f day1.set -q || fail "one-process build"
  # Each rank keeps its range of the file's keys.
  START=day1.set same_bytes query day2.txt --exact -f @FILTER -o @OUT --piece-bytes 2K
  START=day1.set same_bytes dedup day2.txt --exact -f @FILTER -o @OUT --piece-bytes 2K
}

case_exact_mode_refusals() {
  random_lines 300000 300000 56 >in.txt
  "$GDEDUP" build in.txt --exact -f big.set -q || fail "one-process build"
  # --max-memory caps each rank's part: 2 ranks' halves of the set are past
  # 1 MiB, and the job ends with status 4 on every rank; 8 ranks' eighths
  # are not.
  cp big.set c.set
  run_mpi 2 dedup in.txt --exact -f c.set -o out.txt --max-memory 1MiB
  expect_status 4
  one_message "a rank's part of the set of c.set takes 2.00 MiB, more than --max-memory"
  expect_message "caps each rank's part of the set"
  [ ! -e out.txt ] || fail "a job past its cap left out.txt"
  run_mpi 8 dedup in.txt --exact -f c.set -o out.txt --max-memory 1MiB
  expect_status 0
  [ -e out.txt ] && [ ! -s out.txt ] || fail "a set under its cap did not drop every record"
  cmp -s big.set c.set || fail "the set file changed"
  # A rank whose part grows past the cap during the run: status 4 on every
  # rank, one message, the output as it was.
  echo before >out3.txt
  run_mpi 2 dedup in.txt --exact -o out3.txt --max-memory 1MiB
  expect_status 4
  one_message "caps each rank's part"
  [ "$(cat out3.txt)" = before ] || fail "a job past its cap changed out3.txt"
  # A capacity whose part is past the cap contradicts it: status 2 before
  # any rank makes its part (a terabyte of keys would not fit in memory).
  run_mpi 2 dedup in.txt --exact -o out4.txt --capacity 1T --max-memory 1GiB
  expect_status 2
  one_message "a set sized for --capacity 1T (a rank's share of it) takes"
  [ ! -e out4.txt ] || fail "a refused job left a file"
  run_mpi 2 dedup in.txt --exact -o out2.txt --fpr 0.01
  expect_status 2
  one_message "--fpr 0.01 has no effect with --exact"
  [ ! -e out2.txt ] || fail "a refused job left a file"
}

# A set file past --max-memory is refused from its header on the ranks as
# in one process: exit status 4 and the same message, each rank's part in
# place of the whole set and the cap's advice added, before any rank loads
# a key (a damaged body is not yet found). The parts are sized within the
# cap: 3 ranks' thirds of a set that one process loads in 4 MiB fit 1 MiB
# each, as grown key by key, and answer as one process does without a cap.
case_exact_set_file_past_the_cap_is_refused_from_its_header() {
  random_lines 300000 300000 56 >in.txt
  random_lines 20000 400000 57 >day2.txt
  "$GDEDUP" build in.txt --exact -f big.set -q || fail "one-process build"
  cp big.set damaged.set
  python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read())
d[len(d) // 2] ^= 0xFF; open(sys.argv[1], "wb").write(d)' damaged.set
  local command
  for command in query dedup; do
    run_gdedup "$command" day2.txt --exact -f damaged.set -o out.txt --max-memory 1MiB
    expect_status 4
    local one=$ERR
    [ "$one" = "gdedup: the set of damaged.set takes 4.00 MiB, more than --max-memory 1MiB \
allows; a larger --max-memory lets the set hold more keys" ] || fail "one process said: $one"
    run_mpi 2 "$command" day2.txt --exact -f damaged.set -o out.txt --max-memory 1MiB
    expect_status 4
    local part="a rank's part of the set of damaged.set takes 2.00 MiB"
    local advice=". Under --mpi, --max-memory caps each rank's part of the set: raise it, or run \
more ranks"
    one=${one/the set of damaged.set takes 4.00 MiB/$part}
    one_message "${one/allows;/allows$advice;}"
    [ ! -e out.txt ] || fail "a $command past its cap left out.txt"
    # Without the cap the ranks load it, and find the damage.
    run_mpi 2 "$command" day2.txt --exact -f damaged.set -o out.txt
    expect_status 1
    one_message "damaged.set is damaged"
  done
  "$GDEDUP" query day2.txt --exact -f big.set -o one.txt -q || fail "one-process query"
  run_mpi 3 query day2.txt --exact -f big.set -o three.txt --max-memory 1MiB
  expect_status 0
  cmp -s one.txt three.txt || fail "3 ranks within their cap answered otherwise"
  [ -s one.txt ] || fail "no key of day2.txt is in the set"
}

case_filter_far_past_its_plan() {
  # Exit status 4 and the same bytes: the filter was planned for 500 keys.
  random_lines 20000 8000 61 >in.txt
  EXPECT_STATUS=4 same_bytes dedup in.txt -o @OUT -f @FILTER --capacity 500 --no-grow \
    --piece-bytes 4K
  # Such a filter is not saved, by one process or by ranks.
  compgen -G '*.gdf' >/dev/null && fail "a filter far past its plan was saved: $(ls ./*.gdf)"
}

case_stats_file() {
  # The counts of --stats are the job's, whatever the ranks; times differ.
  # A growing filter's set bits are counted once where ranks share a block.
  random_lines 20000 3000 71 >in.txt
  local sizing
  for sizing in "--capacity 4000 --no-grow" "--capacity 1100"; do
    # shellcheck disable=SC2086
    "$GDEDUP" dedup in.txt -o one.out $sizing --stats one.json -q || fail "one process failed"
    # shellcheck disable=SC2086
    run_mpi 3 dedup in.txt -o r.out $sizing --stats r.json --piece-bytes 4K
    expect_status 0
    local key
    for key in records kept dropped input_bytes output_bytes filter_set_bits filter_total_bits \
               filter_layers inputs; do
      grep -o "\"$key\": *[0-9]*" one.json >want || continue
      grep -qF "$(cat want)" r.json ||
        fail "$sizing: --stats $key: $(cat want) in one process, not in $(cat r.json)"
    done
  done
}

case_damaged_filter_file() {
  # Rank 0 checks the checksum over the whole bit array, which the other
  # ranks read only parts of.
  random_lines 5000 1000 81 >in.txt
  "$GDEDUP" build in.txt -f f.gdf --capacity 2000 --no-grow -q || fail "one-process build"
  local size
  size=$(stat -c %s f.gdf)
  printf '\377' | dd of=f.gdf bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
  run_mpi 3 query in.txt -f f.gdf -o out.txt
  expect_status 1
  one_message "f.gdf is damaged"
  [ ! -e out.txt ] || fail "a failed job left out.txt"
}

case_too_long_record_fails_everywhere() {
  # Named as one process names it: by its number in the whole input.
  { random_lines 2000 100 51; head -c 3000 /dev/zero | tr '\0' 'z'; echo; random_lines 50 9 52; } \
    >in.txt
  run_gdedup dedup in.txt -o out.txt --capacity 200 --no-grow --max-record-length 1K -q
  expect_status 1
  local where
  where=$(grep -o 'record [0-9]* (at byte offset [0-9]*)' <<<"$ERR")
  [ -n "$where" ] || fail "one process did not name the record: $ERR"
  run_mpi 3 dedup in.txt -o out.txt --capacity 200 --no-grow --max-record-length 1K \
    --piece-bytes 1K
  expect_status 1
  one_message "$where is longer than"
  [ ! -e out.txt ] || fail "a failed job left out.txt"
}

case_bad_input_one_message() {
  run_mpi 3 dedup missing.txt -o out.txt --capacity 100 --no-grow
  expect_failure
  one_message "missing.txt"
  echo a >in.txt
  run_mpi 2 dedup in.txt -o out.txt --capacity 100 --no-grow --max-memory 1G
  expect_status 2
  one_message "--max-memory 1G caps a filter that grows, but --no-grow"
  run_mpi 2 dedup in.txt -o out.txt --capacity 2000 --max-memory 1K
  expect_status 2
  one_message "--max-memory 1K is less than the filter's"
  # A filter file past the cap, refused from its header as in one process
  # (query takes the cap as dedup does).
  "$GDEDUP" build in.txt -f fixed.gdf --capacity 100000 --no-grow -q || fail "one-process build"
  run_gdedup query in.txt -f fixed.gdf -o out.txt --max-memory 64KiB
  expect_status 2
  local one=$ERR
  expect_message "--max-memory 64KiB is less than the "
  run_mpi 2 query in.txt -f fixed.gdf -o out.txt --max-memory 64KiB
  expect_status 2
  one_message "$one"
  run_mpi 2 dedup in.txt -o out.txt --capacity 100 --no-grow --threads 2
  expect_status 2
  one_message "--threads is not supported under --mpi"
  [ ! -e out.txt ] || fail "a refused job left out.txt"
}

case_fingerprint_input() {
  # 8-byte records: ranges cut at multiples of 8 (a --piece-bytes that is
  # not one is rounded up), a compressed input read in chunks, and a file
  # with bytes past its last whole fingerprint.
  fingerprints 30000 6000 31 >a.u64
  fingerprints 20000 6000 32 | gzip -c >b.u64.gz
  same_bytes dedup a.u64 b.u64.gz -o @OUT -f @FILTER --input-format u64 --capacity 8000 \
    --no-grow --piece-bytes 3001
  same_bytes build a.u64 -f @FILTER --input-format u64 --capacity 8000 --no-grow \
    --piece-bytes 4K
  "$GDEDUP" build a.u64 -f known.gdf --input-format u64 --capacity 8000 --no-grow -q ||
    fail "one process could not build the filter"
  START=known.gdf same_bytes query b.u64.gz a.u64 -f @FILTER -o @OUT --absent \
    --input-format u64 --piece-bytes 2K
  { head -c 8000 a.u64; printf 'abc'; } >ragged.u64
  run_mpi 3 dedup a.u64 ragged.u64 -o out.txt --input-format u64 --capacity 8000 --no-grow \
    --piece-bytes 2K
  expect_status 1
  one_message "ragged.u64 is not a whole number of 64-bit fingerprints: it has 8003 bytes"
  [ ! -e out.txt ] || fail "a failed job left an output"
}

case_progress_line() {
  # Rank 0 draws the job's progress after each round; the output is as
  # without it.
  random_lines 20000 4000 97 >a.txt
  random_lines 20000 4000 98 | gzip -c >b.gz
  same_bytes dedup a.txt b.gz -o @OUT --capacity 8000 --no-grow --piece-bytes 8K --progress
  run_mpi 2 dedup a.txt b.gz -o out.txt --capacity 8000 --no-grow --piece-bytes 8K --progress
  expect_status 0
  expect_message "records, "
  expect_message " of 2, "
}

run_cases
