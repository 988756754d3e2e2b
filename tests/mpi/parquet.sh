#!/usr/bin/env bash
# Parquet input on ranks (docs/SCALE-OUT.md, "Parquet"): the ranks share the
# row groups, and the output and the filter or set file are one process's,
# byte for byte, Bloom and --exact, for dedup, build and query; what ranks
# do not do yet for Parquet is refused with one message and no output.
# The inputs are tests/parquet's three generated files (nulls, empty
# strings, binary payloads, a struct column, several row groups each).
# Skipped (77) where the build has no Parquet or pyarrow is missing.
source "$(dirname "$0")/lib.sh"

PARQUET_TESTS=$(cd "$(dirname "$0")/../parquet" && pwd)
if [ "${GDEDUP_PARQUET:-ON}" != ON ]; then
  echo "skipped: this build has no Parquet support"
  exit 77
fi
if ! python3 -c "import pyarrow.parquet, pytest" 2>/dev/null; then
  echo "skipped: pyarrow and pytest are needed to make the Parquet inputs"
  exit 77
fi

# parquet_inputs: the three files, their paths in INPUTS, and beside them
# (made once for all cases, in one Python): late_null.parquet, the second
# file's rows with a first row group of keys that are not null;
# page.parquet, the
# third with a page of its second row group damaged; v0 and v1.parquet,
# string views in row groups that fill several data pages a column.
parquet_inputs() {
  local folder=$HOSTILE_ROOT/inputs
  if [ ! -e "$folder/made" ]; then
    mkdir -p "$folder"
    (cd "$folder" && python3 -c "
import random, sys
import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
sys.path.insert(0, '$PARQUET_TESTS')
from test_parquet import make_files
paths = make_files('.')
table = pq.read_table(paths[1])
valid = pc.is_valid(table['url'])
first = table.filter(valid).slice(0, 700)
rest = table.filter(pc.invert(pc.is_in(table['n'], value_set=first['n'])))
assert rest.slice(0, 700)['url'].null_count > 0
pq.write_table(pa.concat_tables([first, rest]), 'late_null.parquet', row_group_size=700)
chunk = pq.ParquetFile(paths[2]).metadata.row_group(1).column(0)
data = bytearray(open(paths[2], 'rb').read())
for i in range(chunk.data_page_offset, chunk.data_page_offset + 200):
    data[i] ^= 0x5A
open('page.parquet', 'wb').write(bytes(data))
rng = random.Random(45)
for f in range(2):
    urls = [None if rng.random() < 0.01 else
            'https://e%d.example/a/longer/path/%d' % (rng.randrange(50), rng.randrange(30000))
            for _ in range(40000)]
    pq.write_table(pa.table({'url': pa.array(urls, pa.string_view()),
                             'n': pa.array(range(40000), pa.int64())}),
                   'v%d.parquet' % f, row_group_size=20000, compression='zstd')") ||
      fail "the Parquet inputs could not be made"
    touch "$folder/made"
  fi
  PARQUET=$folder
  INPUTS=("$folder"/part0.parquet "$folder"/part1.parquet "$folder"/part2.parquet)
}

# The last count of $RANKS alone, for the cases that need not run on each.
LAST_RANKS=${RANKS##* }

# Batches smaller than a row group: the ranks still take each row group
# whole, and one process's output must not depend on its batches.
case_bloom_dedup_equals_one_process() {
  parquet_inputs
  same_bytes dedup --key column:url --missing-key keep --batch 256 "${INPUTS[@]}" -o @OUT \
    -f @FILTER
}

case_exact_duplicates_by_a_nested_column_equal_one_process() {
  parquet_inputs
  same_bytes dedup --exact --duplicates --key column:meta.host --missing-key drop \
    "${INPUTS[@]}" -o @OUT -f @FILTER
}

case_exact_build_then_query_absent_equal_one_process() {
  parquet_inputs
  RANKS=$LAST_RANKS same_bytes build --exact --key column:url --missing-key drop \
    "${INPUTS[0]}" "${INPUTS[1]}" -f @FILTER
  cp one.gdf set.gdf || return
  RANKS=$LAST_RANKS START=set.gdf same_bytes query --absent --exact --key column:url \
    --missing-key keep "${INPUTS[2]}" "${INPUTS[0]}" -o @OUT -f @FILTER
}

# String views, whose kept rows travel to rank 0 in slices of their own.
case_view_columns_and_full_pages_equal_one_process() {
  parquet_inputs
  RANKS=$LAST_RANKS same_bytes dedup --key column:url --missing-key keep \
    "$PARQUET"/v0.parquet "$PARQUET"/v1.parquet -o @OUT
}

# mpi_refused R STATUS TEXT ARGS...: `gdedup ARGS` on R ranks exits with
# STATUS and one message holding TEXT, and leaves no out.parquet.
mpi_refused() {
  local ranks=$1 status=$2 text=$3
  shift 3
  run_mpi "$ranks" "$@"
  expect_status "$status"
  one_message "$text"
  [ ! -e out.parquet ] || fail "$*: the failed job left out.parquet"
  ls out.parquet.tmp* >/dev/null 2>&1 && fail "$*: the failed job left a temporary file"
}

case_what_ranks_cannot_do_yet_is_refused() {
  parquet_inputs
  mpi_refused 1 2 "cannot be checkpointed on the ranks of an MPI job yet" \
    dedup --key column:url --missing-key keep "${INPUTS[@]}" -o out.parquet --checkpoint c.ck
  [ ! -e c.ck ] || fail "the refused job left a checkpoint"
  mpi_refused 1 2 "cannot be written in parts on the ranks of an MPI job yet" \
    dedup --key column:url --missing-key keep "${INPUTS[@]}" --output-parts parts
}

# one_process_failure ARGS...: one process's message for `gdedup ARGS`, up
# to what it says of its output, in WANT; fails unless it failed.
one_process_failure() {
  "$GDEDUP" "$@" -q 2>one.err && fail "one process did not fail: $*"
  WANT=$(sed -n 's/^gdedup: //; s/ The output .*//p' one.err | head -n 1)
  [ -n "$WANT" ] || fail "one process said nothing: $*"
}

# A null key under the default --missing-key error, and a damaged page,
# each in the second row group, which rank 1 reads: one process's failure.
case_failures_in_a_later_row_group_end_the_job() {
  parquet_inputs
  one_process_failure dedup --key column:url "$PARQUET"/late_null.parquet -o one.parquet
  mpi_refused 3 1 "$WANT" dedup --key column:url "$PARQUET"/late_null.parquet -o out.parquet
  expect_message "rank 1 on "
  one_process_failure dedup --key column:url --missing-key keep "$PARQUET"/page.parquet \
    -o one.parquet
  mpi_refused 3 1 "$WANT" dedup --key column:url --missing-key keep "$PARQUET"/page.parquet \
    -o out.parquet
  expect_message "rank 1 on "
}

run_cases
