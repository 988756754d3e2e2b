#!/usr/bin/env bash
# Exact mode (--exact): the output is the exact dedup of the input, byte for
# byte, whatever the records hold, the input's compression, the key options,
# the batch size and the threads; what it cannot take is refused.
source "$(dirname "$0")/lib.sh"

# exact_oracle IN OUT [FIELD DELIMITER]: the first occurrence of each record
# (of each key: field FIELD, from 1, split at DELIMITER; a record without
# that field has the empty key), every record written with a newline, as
# the command writes them. Python, not awk: records may hold NUL bytes.
exact_oracle() {
  python3 - "$@" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
field = int(sys.argv[3]) if len(sys.argv) > 3 else 0
delimiter = sys.argv[4].encode() if len(sys.argv) > 4 else b"\t"
records = data.split(b"\n")
if records and records[-1] == b"" and data.endswith(b"\n"):
    records.pop()
if data == b"":
    records = []
seen, out = set(), []
for r in records:
    key = r
    if field:
        parts = r.split(delimiter)
        key = parts[field - 1] if len(parts) >= field else b""
    if key not in seen:
        seen.add(key)
        out.append(r + b"\n")
open(sys.argv[2], "wb").write(b"".join(out))
EOF
}

# hostile_records FILE: random URLs with repeats, and records a careless
# producer writes: CR, NUL, invalid UTF-8, empty ones, a 50 MB line, each
# twice, and no final newline.
hostile_records() {
  python3 - "$1" <<'EOF'
import random, sys
r = random.Random(28)
odd = [b"", b"a\rb", b"with\x00nul", b"\xff\xfe\xc3(", b"x" * (50 << 20), b"\r", b" "]
lines = [b"https://e.example/%d" % r.randrange(60000) for _ in range(100000)]
for o in odd * 2:
    lines.insert(r.randrange(len(lines)), o)
open(sys.argv[1], "wb").write(b"\n".join(lines))
EOF
}

case_output_is_the_exact_dedup_plain_gzip_and_zstd() {
  hostile_records in.txt
  exact_oracle in.txt want.txt
  gzip -k in.txt
  zstd -q -k in.txt
  local input
  for input in in.txt in.txt.gz in.txt.zst; do
    run_gdedup dedup --exact "$input" -o out.txt
    expect_status 0
    cmp -s out.txt want.txt || fail "--exact on $input differs from the exact dedup"
  done
  # The same records as duplicates: the lines the dedup dropped, in order.
  run_gdedup dedup --exact --duplicates in.txt -o dupes.txt
  expect_status 0
  # in.txt has no final newline: its records are its newlines plus one.
  [ "$(($(wc -l <dupes.txt) + $(wc -l <want.txt)))" -eq "$(($(wc -l <in.txt) + 1))" ] ||
    fail "kept and duplicates do not add up to the records"
}

case_field_keys_are_exact() {
  python3 -c "
import random
r = random.Random(7)
with open('in.txt', 'w') as f:
    for i in range(50000):
        f.write('%d,https://f.example/%d,%d\n' % (i, r.randrange(20000), r.randrange(9)))
    f.write('short\n')
"
  exact_oracle in.txt want.txt 2 ,
  run_gdedup dedup --exact --key field:2 --delimiter , in.txt -o out.txt
  expect_status 0
  cmp -s out.txt want.txt || fail "--exact --key field:2 differs from the exact dedup by field"
}

case_normalized_keys_agree_with_a_near_exact_filter() {
  python3 -c "
import random
r = random.Random(9)
with open('in.txt', 'w') as f:
    for i in range(40000):
        n = r.randrange(15000)
        f.write(r.choice(['HTTP://E.example:80/%d', 'http://e.example/%d#x', 'http://e.example/%d']) % n + '\n')
"
  run_gdedup dedup --exact --normalize url in.txt -o exact.txt
  expect_status 0
  # A Bloom filter at a rate of 1e-12 loses none of 15,000 keys but by a
  # chance of 1e-8: the same output.
  run_gdedup dedup --fpr 1e-12 --normalize url in.txt -o bloom.txt
  expect_status 0
  cmp -s exact.txt bloom.txt || fail "--exact --normalize url differs from a near-exact filter"
  [ "$(wc -l <exact.txt)" -le 15000 ] || fail "more than 15,000 normalized keys kept"
}

case_batches_and_threads_give_the_same_output() {
  python3 -c "
import random
r = random.Random(11)
open('in.txt', 'w').write(''.join('k%d\n' % r.randrange(30000) for _ in range(60000)))
"
  exact_oracle in.txt want.txt
  local batch threads
  for batch in 1 7 4096 1000000; do
    for threads in 1 2 4; do
      # Batches of one record are slow: one thread pair is enough for them.
      [ "$batch" -eq 1 ] && [ "$threads" -ne 1 ] && continue
      run_gdedup dedup --exact --batch "$batch" --threads "$threads" --filter-threads "$threads" \
        --piece-bytes 4096 in.txt -o out.txt
      expect_status 0
      cmp -s out.txt want.txt || fail "--batch $batch --threads $threads differs"
    done
  done
}

case_what_exact_mode_cannot_take_is_refused() {
  printf 'a\nb\n' >in.txt
  local args
  for args in "--fpr 0.01" "--memory 1G" "--block-bits 512" "--no-grow" "--allow-high-fpr" \
      "--backend gpu" "--input-format u64"; do
    # shellcheck disable=SC2086
    run_gdedup dedup --exact $args in.txt -o out.txt
    expect_status 2
    expect_message "--exact"
    [ ! -e out.txt ] || fail "$args: an output was written"
  done
}

run_cases
