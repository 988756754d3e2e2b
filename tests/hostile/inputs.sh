#!/usr/bin/env bash
# The input side attacked: compressed formats the tool might take for text,
# lines with no end, inputs that change while read, and inputs shaped to fool
# the size estimate. No run may exit 0 having lost records or written
# compressed bytes out as records.
source "$(dirname "$0")/lib.sh"

# pzstd starts its output with a skippable frame, which once made the whole
# file pass for text.
case_pzstd_output_is_decoded() {
  seq 1 100000 >s.txt
  pzstd -q s.txt -o sp.zst || { fail "pzstd failed"; return; }
  snapshot s.txt sp.zst
  run_gdedup dedup --capacity 1M sp.zst -o o.txt
  expect_status 0
  check_dedup_output s.txt o.txt 1e-4
  check_unchanged
}

case_xz_bzip2_and_lz4_are_decoded() {
  { distinct_urls 30000 https://x.example/; distinct_urls 10000 https://x.example/; } >in.txt
  xz -T1 -c in.txt >in.xz
  bzip2 -c in.txt >in.bz2
  lz4 -q -c in.txt >in.lz4
  # Concatenated streams, as parallel compressors write them.
  cat in.xz in.xz >twice.xz
  local f
  for f in in.xz in.bz2 in.lz4 twice.xz; do
    run_gdedup dedup --capacity 100000 "$f" -o "out-$f.txt"
    expect_status 0
    check_dedup_output in.txt "out-$f.txt" 1e-4
  done
}

# `gzip -t` accepts zeros after the last member; so must we.
case_gzip_with_zero_padding_is_accepted() {
  distinct_urls 20000 https://g.example/ >in.txt
  gzip -c in.txt >pad.gz
  truncate -s +4096 pad.gz
  gzip -t pad.gz 2>/dev/null || { fail "gzip -t refuses the padded file"; return; }
  run_gdedup dedup --capacity 100000 pad.gz -o out.txt
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
}

# A format recognised but not decoded is refused by name, its bytes never
# written out as records.
case_lz4_legacy_format_is_refused() {
  distinct_urls 20000 https://l.example/ >in.txt
  lz4 -q -l -c in.txt >legacy.lz4
  run_gdedup dedup --capacity 100000 legacy.lz4 -o out.txt
  expect_failure
  expect_message "legacy.lz4 is in lz4's legacy format"
  [ ! -s out.txt ] || fail "compressed bytes were written out as records"
}

# A stream with no newline must not grow memory without bound: it is
# refused at the record length limit (64 MiB by default), naming the record.
case_endless_record_is_refused_at_the_limit() {
  head -c 200M /dev/zero | "$GDEDUP" dedup --capacity 10 -o z.txt >stdout 2>stderr
  STATUS=$?
  ERR=$(cat stderr)
  expect_failure
  expect_message "standard input: record 1 (at byte offset 0) is longer than the record length limit of 67108864 bytes"
  [ ! -s z.txt ] || fail "part of the endless record was written"
  # A smaller limit refuses sooner; records before the long one are
  # streamed to standard output.
  { echo first; head -c 5000 /dev/zero; echo; echo last; } >in.txt
  run_gdedup dedup --capacity 10 --max-record-length 4KiB in.txt
  expect_failure
  expect_message "in.txt: record 2 (at byte offset 6) is longer than the record length limit of 4096 bytes"
  [ "$(cat "$SCRATCH/stdout")" = first ] || fail "the record before the long one was not written"
}

# The size estimate once read only the start of the input. Each shape below
# fooled it into a filter far too small, and the job exited 0 having dropped
# a large share of the unique records.
# long_lines N LEN PREFIX: N distinct lines of about LEN bytes.
long_lines() {
  awk -v n="$1" -v len="$2" -v p="$3" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
    s = p i "/"; while (length(s) < len) s = s sprintf("%x", int(rand() * 2^30)); print s } }'
}

case_long_lines_first_then_many_short_ones() {
  { long_lines 6000 200 https://a.example.org/; distinct_urls 500000 https://b.org/; } >in.txt
  snapshot in.txt
  run_gdedup dedup in.txt -o out.txt
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
  check_unchanged
}

case_gzip_of_random_hex_then_short_urls() {
  { long_lines 60000 32 ""; distinct_urls 1000000 https://b.org/; } >in.txt
  gzip -1 -c in.txt >in.gz
  run_gdedup dedup in.gz -o out.txt
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
}

case_one_huge_first_line_then_short_urls() {
  { head -c 2097152 /dev/zero | tr '\0' x; echo; distinct_urls 300000 https://c.org/; } >in.txt
  run_gdedup dedup in.txt -o out.txt
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
}

# Standard input redirected from a file is sized like the file (it once
# needed --capacity where /dev/stdin did not).
case_stdin_from_a_file_is_sized_like_the_file() {
  distinct_urls 50000 https://s.example/ >in.txt
  "$GDEDUP" dedup - -o out.txt <in.txt >stdout 2>stderr
  STATUS=$?
  ERR=$(cat stderr)
  expect_status 0
  expect_message "estimated 50,000 records"
  check_dedup_output in.txt out.txt 1e-4
}

# A filter that ends far past its plan breaks the promise; the job says so
# with its own exit status, how much was lost and the capacity to use, after
# writing what it could (still no record twice, still in order).
case_filter_far_past_its_plan_exits_4() {
  distinct_urls 200000 https://o.example/ >in.txt
  run_gdedup dedup --no-grow --capacity 20000 in.txt -o out.txt
  expect_status 4
  expect_message "the filter ended far past its plan: planned for 20,000 distinct keys"
  expect_message "unique records were dropped as duplicates. Run the job again with --capacity"
  local lost
  lost=$(grep -o 'about [0-9,]* unique records' <<<"$ERR" | tr -dc 0-9)
  local actual=$((200000 - $(wc -l <out.txt)))
  # The estimate of the loss is within a fifth of the true loss.
  [ "$((lost * 5))" -ge "$((actual * 4))" ] && [ "$((lost * 5))" -le "$((actual * 6))" ] ||
    fail "reported $lost records lost, $actual were"
  local capacity
  capacity=$(grep -o -- '--capacity [0-9]*' <<<"$ERR" | tail -1 | tr -dc 0-9)
  [ "${capacity:-0}" -ge 200000 ] || fail "suggested --capacity $capacity for 200,000 keys"
  run_gdedup dedup --capacity "$capacity" in.txt -o again.txt
  expect_status 0
  check_dedup_output in.txt again.txt 1e-4
  # A filter a little past its plan is within its promise: exit 0.
  run_gdedup dedup --capacity 190000 in.txt -o near.txt
  expect_status 0
}

# An input truncated while the job reads it: the job must fail loudly, not
# end as if the file had been that short. The truncation comes once the
# output's temporary file shows the job is reading, with most of the input
# still ahead.
case_input_truncated_while_read_fails() {
  seq 1 8000000 >in.txt
  "$GDEDUP" dedup -q --capacity 10M --batch 1000 in.txt -o out.txt >stdout 2>stderr &
  local pid=$!
  local tries=0
  while [ ! -s "$(compgen -G 'out.txt.tmp.*' | head -1)" ] && [ $tries -lt 500 ]; do
    sleep 0.01
    tries=$((tries + 1))
  done
  truncate -s 1000000 in.txt
  wait "$pid"
  STATUS=$?
  ERR=$(cat stderr)
  # A job that finished reading before the truncation (a stalled machine)
  # has nothing to detect: its output must then be complete.
  if [ "$STATUS" -eq 0 ] && [ "$(wc -l <out.txt)" -eq 8000000 ]; then
    echo "  note [$CASE]: the job ended before the truncation; nothing to check"
    return
  fi
  expect_failure
  expect_message "input in.txt changed size while it was being read"
}

# Damage inside a gzip member is found only by the CRC at the member's end,
# after its records were written: the message must say from which output
# record and byte on the output may be damaged (the members before passed
# their checks), and the job must fail. The output is standard output,
# streamed as the job runs (an output file would be left as it was).
case_damage_inside_a_gzip_member_names_the_suspect_output() {
  distinct_urls 100000 https://g.example/ >good.txt
  distinct_urls 100000 https://h.example/ >more.txt
  gzip -c good.txt >good.gz
  gzip -c more.txt >more.gz
  # Flip one byte of compressed data in the middle of the second member.
  local size
  size=$(stat -c %s more.gz)
  printf '\x55' | dd of=more.gz bs=1 seek=$((size / 2)) conv=notrunc status=none
  cat good.gz more.gz >in.gz
  run_gdedup dedup --capacity 1M in.gz
  expect_failure
  expect_message "so from output record 100001 (byte offset $(stat -c %s good.txt)) on the output may hold damaged data; the 100000 records before it passed their checks."
  cmp -s <(head -c "$(stat -c %s good.txt)" "$SCRATCH/stdout") good.txt ||
    fail "the checked part of the output is not the first member's records"
  # Without --capacity the size estimate decodes the start of the file and
  # may meet the damage first: the job must still run up to it and say the
  # same, not stop before writing anything.
  run_gdedup dedup in.gz
  expect_failure
  expect_message "so from output record 100001 (byte offset $(stat -c %s good.txt)) on the output may hold damaged data"
  cmp -s <(head -c "$(stat -c %s good.txt)" "$SCRATCH/stdout") good.txt ||
    fail "without --capacity, the checked records were not written"
}

# The --files-from list is read once, at the start: rewriting it while the
# job runs (to name another file and a missing one) changes nothing.
case_files_from_list_is_read_once() {
  distinct_urls 400000 https://a.example/ >a.txt
  distinct_urls 400000 https://b.example/ >b.txt
  echo a.txt >list
  start_gdedup dedup --capacity 1M --files-from list -o out.txt
  # Its first line (the plan) comes after the list was read.
  local i
  for ((i = 0; i < 2000; i++)); do
    [ -s "$SCRATCH/bg.stderr" ] && break
    sleep 0.01
  done
  printf 'b.txt\nmissing.txt\n' >list
  finish_gdedup
  expect_status 0
  cmp -s a.txt out.txt || fail "the output is not that of the list as it was at the start"
}

# A NUL-separated list carries paths with newlines; read one per line the
# same list names paths that do not exist, and the job stops before work.
case_files_from_paths_with_newlines() {
  distinct_urls 1000 https://n.example/ >$'two\nlines.txt'
  printf 'two\nlines.txt\0' >list0
  run_gdedup dedup --capacity 10000 -0 --files-from list0 -o out.txt
  expect_status 0
  check_dedup_output $'two\nlines.txt' out.txt 1e-4
  run_gdedup dedup --capacity 10000 --files-from list0 -o out2.txt
  expect_status 2
  expect_message "holds NUL bytes, so its paths are not one per line; give -0"
  tr '\0' '\n' <list0 >list
  run_gdedup dedup --capacity 10000 --files-from list -o out2.txt
  expect_status 1
  expect_message "cannot open input two: No such file or directory"
  [ ! -e out2.txt ] || fail "a job with a missing input created its output"
}

# A --files-from job killed with SIGKILL once a checkpoint exists, resumed
# (and killed again) until it completes: the output is the uninterrupted
# run's, byte for byte. The reference reads on one thread, the killed runs
# on three workers that each take a shard, and resume with two.
case_files_from_job_killed_and_resumed() {
  local i
  for ((i = 0; i < 30; i++)); do
    seq $((i * 20000)) $((i * 20000 + 39999)) | sed 's|^|https://k.example/|' >"shard $i.txt"
    printf '%s\0' "shard $i.txt" >>list0
  done
  local job=(dedup --capacity 1M --batch 20000 -q -0 --files-from list0)
  run_gdedup "${job[@]}" --threads 1 -o ref.txt
  expect_status 0
  killed_and_resumed 3 2 "${job[@]}" -o out.txt --checkpoint ck --checkpoint-every 100K
  cmp -s ref.txt out.txt || fail "the resumed output differs from the uninterrupted run's"
}

# A tree deeper than PATH_MAX: its files are read like any other, in the
# order `find` sorted by bytes gives (each file holds its depth and name, as
# its path cannot be handed to cat). With few descriptors the walk cannot
# reach the bottom: that entry is named, by its full path, and stops the job
# unless --skip-missing.
case_recursive_tree_deeper_than_path_max() {
  local name i
  name=$(printf 'd%.0s' {1..200})
  mkdir deep && echo 0-top.txt >deep/top.txt
  (cd deep && for ((i = 1; i <= 25; i++)); do
     mkdir "$name" && cd "$name" || exit 1
     [ "$i" -eq 10 ] && echo 10-mid.txt >mid.txt
   done
   echo 25-z.txt >z.txt) || { fail "cannot make the deep tree"; return; }
  find deep -type f | LC_ALL=C sort | awk -F/ '{ print NF - 2 "-" $NF }' >want.txt
  [ "$(wc -l <want.txt)" -eq 3 ] || fail "find lists $(wc -l <want.txt) files, not 3"
  run_gdedup dedup -r deep -o out.txt --stats st.json
  expect_status 0
  cmp -s want.txt out.txt || fail "the output is not the tree's files in find's order"
  grep -q '"inputs": 3,' st.json || fail "--stats does not count 3 inputs: $(cat st.json)"
  # How deep the walk gets depends on the descriptors already open.
  local named="cannot read deep/$name/$name/"
  local why="(under input deep, --recursive): Too many open files"
  (ulimit -n 20 && run_gdedup dedup -r deep -o out2.txt
   expect_status 1
   expect_message "gdedup: $named" && expect_message "$why; give --skip-missing"
   run_gdedup dedup -r deep -o out2.txt --skip-missing --stats st2.json
   expect_status 0
   expect_message "warning: $named" && expect_message "$why; left out (--skip-missing)"
   grep -q '"inputs_skipped": 1' st2.json || fail "the unreadable folder is not counted")
  grep -v '^25-' want.txt | cmp -s - out2.txt ||
    fail "--skip-missing did not read the files it could reach"
}

# A plain input is read through a mapping: cut short by another program
# after the reader looked, its pages read as zeros, and a job wrote all of
# its 3,000,000 records as NUL bytes with exit 0. Cut at several moments:
# every run either fails, or read the whole file before the cut, or (on a
# slow machine) opened it after the cut: exit 0 with the exact dedup of the
# file as it was.
case_input_cut_short_while_its_records_are_used() {
  distinct_urls 1500000 https://t.example/page/ >half.txt
  cat half.txt half.txt >whole.txt
  head -c 10000000 whole.txt >cut.txt
  exact_dedup cut.txt cut.dedup
  local delay
  for delay in 0.05 0.1 0.2 0.3 0.5; do
    cp whole.txt in.txt
    rm -f out.txt
    start_gdedup dedup -q in.txt -o out.txt --capacity 3e6
    sleep "$delay"
    truncate -s 10000000 in.txt
    finish_gdedup
    if [ "$STATUS" -eq 0 ]; then
      cmp -s out.txt half.txt || cmp -s out.txt cut.dedup ||
        fail "cut after ${delay}s: exit 0 with a wrong output"
    else
      [ "$STATUS" -eq 1 ] || fail "cut after ${delay}s: exit $STATUS: $ERR"
      [ -e out.txt ] && fail "cut after ${delay}s: a failed job left out.txt"
    fi
  done
}

# JSON Lines keys (--key json:url) read in every way the front end reads:
# compressed, in small pieces on several threads, in batches of one record
# and of many; the records kept are those whose URL is new, as awk keeps
# them. A record without its key is named by its file, number and offset
# whichever way it was read.
case_json_keys_read_every_way_keep_the_same_records() {
  local i
  for i in $(seq 0 29999); do
    printf '{"id":%d,"meta":{"u":"x"},"url":"https://j.example/%d"}\n' "$i" $((i % 20011))
  done >in.jsonl
  sed 's/.*"url":"\([^"]*\)".*/\1/' in.jsonl | awk '!seen[$0]++ { print NR }' >want.lines
  awk 'NR == FNR { keep[$1] = 1; next } FNR in keep' want.lines in.jsonl >want.jsonl
  gzip -c in.jsonl >in.jsonl.gz
  zstd -q -c in.jsonl >in.jsonl.zst
  local f args
  for f in in.jsonl in.jsonl.gz in.jsonl.zst; do
    for args in "--threads 1" "--threads 4 --piece-bytes 4099" "--batch 1" \
                "--batch 7 --threads 2"; do
      # shellcheck disable=SC2086
      run_gdedup dedup -q --exact --key json:url $args "$f" -o out.jsonl
      expect_status 0
      cmp -s out.jsonl want.jsonl || fail "$f $args: not the records awk keeps"
    done
  done
  # Record 12,345 of the second input loses its URL: named by that file
  # and its offset there, numbered over both inputs.
  awk 'NR == 12345 { sub(/"url":/, "\"uri\":") } { print }' in.jsonl >bad.jsonl
  local offset
  offset=$(head -n 12344 bad.jsonl | wc -c)
  for args in "--threads 1" "--threads 4 --piece-bytes 4099" "--batch 1"; do
    rm -f out.jsonl
    # shellcheck disable=SC2086
    run_gdedup dedup -q --key json:url $args in.jsonl bad.jsonl -o out.jsonl
    expect_failure
    expect_message "bad.jsonl: record $((30000 + 12345)) (at byte offset $offset) has no key"
    [ -e out.jsonl ] && fail "$args: a failed job left out.jsonl"
  done
  # A reader that goes away ends the job quietly.
  "$GDEDUP" dedup -q --key json:url in.jsonl in.jsonl in.jsonl | head -n 1 >head.txt
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "a closed pipe failed the job"
}

# Two JSON records glued on one line are not one record: under the default
# --missing-key error the job fails naming it, and under keep it is written
# as a record of its own (the second record's URL is not taken for a
# duplicate of the first's).
case_glued_json_records_have_no_key() {
  printf '{"url":"a"}\n{"url":"a"}{"url":"b"}\n{"url":"b"}\n' >in.jsonl
  run_gdedup dedup -q --key json:url in.jsonl -o out.jsonl
  expect_status 1
  expect_message "in.jsonl: record 2 (at byte offset 12) has no key json:url"
  [ -e out.jsonl ] && fail "a failed job left out.jsonl"
  run_gdedup dedup -q --key json:url --missing-key keep in.jsonl -o out.jsonl
  expect_status 0
  cmp -s in.jsonl out.jsonl || fail "--missing-key keep: not every record kept: $(cat out.jsonl)"
  printf 's t {"url":"a"}\ns t {"url":"a"} {"url":"b"}\n' >in.cdxj
  run_gdedup dedup -q --key cdxj:url --missing-key drop --stats - in.cdxj -o out.cdxj
  expect_status 0
  grep -q '"missing_keys": 1' "$SCRATCH/stdout" || fail "CDXJ: $(cat "$SCRATCH/stdout")"
}

# JSONTestSuite's one-line documents placed before the key: with
# --strict-json none of the 182 that every parser must reject gives a key,
# and all 91 that every parser must accept do.
JSON_SUITE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data" && pwd)/json_suite.txt
case_strict_json_keys_only_records_that_are_json() {
  local suite=$JSON_SUITE want=0 kind name text i=0
  : >want.jsonl
  while IFS=$'\t' read -r kind name text; do
    i=$((i + 1))
    # The file escapes a backslash as \\ and other bytes as \xHH: %b reads both.
    printf '{"v":%b,"url":"%s-%d"}\n' "$text" "$kind" "$i" >>in.jsonl
    [ "$kind" = y ] && tail -n 1 in.jsonl >>want.jsonl && want=$((want + 1))
  done < <(grep -v '^#' "$suite")
  [ "$i" -eq 273 ] && [ "$want" -eq 91 ] || fail "read $i cases, $want to accept, from $suite"
  run_gdedup dedup -q --key json:url --strict-json --missing-key drop --stats - in.jsonl \
    -o out.jsonl
  expect_status 0
  cmp -s want.jsonl out.jsonl || fail "not the records to accept: $(diff want.jsonl out.jsonl)"
  grep -q '"missing_keys": 182' "$SCRATCH/stdout" || fail "$(cat "$SCRATCH/stdout")"
  run_gdedup dedup -q --key json:url --strict-json in.jsonl -o out.jsonl
  expect_status 1
  expect_message "has no key json:url: it lacks that value or is not one JSON value."
  run_gdedup dedup -q --strict-json in.jsonl -o out.jsonl
  expect_status 2
  expect_message "--strict-json has no effect with --key whole"
}

run_cases
