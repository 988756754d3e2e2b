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

# Room taken from the input's estimate: the first 65,536 records are all
# new, so the set takes room for every record being new, four times the
# keys that come. Under a cap that holds the set grown key by key (from a
# pipe, which has no estimate) the run with room taken ends well too, with
# the same output and set file (room no key came for goes back before the
# cap refuses one: exact_set_test, KeySet.RoomReserved...); a cap below
# that still ends with status 4 and no set file.
case_room_from_the_estimate_never_fails_a_capped_job() {
  python3 -c "
import random
r = random.Random(29)
keys = ['https://r.example/%d' % i for i in range(150000)]
rest = [r.choice(keys) for _ in range(450000)]
open('in.txt', 'w').write(''.join(k + '\\n' for k in keys + rest))
"
  exact_oracle in.txt want.txt
  run_gdedup dedup --exact -o grown.txt -f grown.set - < <(cat in.txt)
  expect_status 0
  expect_message "the set starts small and doubles as keys arrive"
  run_gdedup info grown.set
  local bytes
  bytes=$(sed -n 's/^memory .*(\([0-9,]*\) bytes,.*/\1/p' "$SCRATCH/stdout" | tr -d ,)
  [ -n "$bytes" ] || fail "no memory in gdedup info: $(cat "$SCRATCH/stdout")"
  run_gdedup dedup --exact --max-memory "$bytes" in.txt -o out.txt -f out.set
  expect_status 0
  expect_message "from its first 65,536 records on, the set takes room ahead of the keys"
  cmp -s out.txt want.txt || fail "the output with room taken differs from the exact dedup"
  cmp -s grown.txt want.txt || fail "the output from standard input differs from the exact dedup"
  cmp -s out.set grown.set || fail "the set file with room taken differs from the grown set's"
  run_gdedup dedup --exact --max-memory $((bytes / 2)) in.txt -o half.txt -f half.set
  expect_status 4
  [ ! -e half.set ] || fail "a set file was written past --max-memory"
}

case_what_exact_mode_cannot_take_is_refused() {
  printf 'a\nb\n' >in.txt
  local args
  for args in "--fpr 0.01" "--memory 1G" "--block-bits 512" "--no-grow" "--allow-high-fpr" \
      "--input-format u64"; do
    # shellcheck disable=SC2086
    run_gdedup dedup --exact $args in.txt -o out.txt
    expect_status 2
    expect_message "--exact"
    [ ! -e out.txt ] || fail "$args: an output was written"
  done
}

# The set on a GPU (GDEDUP_GPU_BIN: the CUDA stand-in's build, or the
# command on a GPU machine) against the CPU's: the same output and set file,
# byte for byte, on duplicate-heavy keys and one key in 15 of 16 records,
# for batches of 1 to 1e6; auto takes the GPU; its cap ends a job with status 4.
case_gpu_set_matches_the_cpu_set() {
  local gpu=${GDEDUP_GPU_BIN:-}
  if [ -z "$gpu" ]; then
    echo "  skipped: this build has neither the CUDA backend nor its stand-in"
    return 0
  fi
  # Batches of 7 records are a device round trip each, about 2 ms on the
  # stand-in's threads: 8000 records (1143 batches of 7, 2 of 4096), as
  # 40,000 made this case the release suite's longest (50 s). Under
  # AddressSanitizer, where a round trip takes several times as long, a
  # fourth of the records and a third of the small input's, with as many
  # repeats of each key: still hundreds of round trips of each batch size.
  local records=8000 small=1500
  if [ "$SANITIZED" -eq 1 ]; then
    records=2000 small=500
    echo "  $records records, $small in the small input (AddressSanitizer)"
  fi
  python3 -c "
import random
r = random.Random(17)
open('heavy.txt', 'w').write(''.join('k%d\n' % r.randrange($records * 3 // 8)
                                     for _ in range($records)))
open('hot.txt', 'w').write(''.join('hot\n' if i % 16 else 'r%d\n' % r.randrange(10**9)
                                   for i in range($records)))
open('small.txt', 'w').write(''.join('k%d\n' % r.randrange($small // 5) for _ in range($small)))
"
  local input batch
  for input in heavy hot small; do
    run_gdedup dedup --exact -q "$input.txt" -o "$input.cpu.txt" -f "$input.cpu.set"
    expect_status 0
    for batch in 1 7 4096 1000000; do
      # Batches of one record are a device round trip each: the small input only.
      [ "$batch" -eq 1 ] && [ "$input" != small ] && continue
      GDEDUP="$gpu" run_gdedup dedup --exact --backend gpu --batch "$batch" -q "$input.txt" \
        -o out.txt -f out.set
      expect_status 0
      cmp -s out.txt "$input.cpu.txt" || fail "$input, --batch $batch: the GPU's output differs"
      cmp -s out.set "$input.cpu.set" || fail "$input, --batch $batch: the GPU's set differs"
      rm -f out.set
    done
  done
  GDEDUP="$gpu" run_gdedup dedup --exact heavy.txt -o out.txt
  expect_status 0
  expect_message "backend gpu exact set"
  local standin=0
  grep -q "stand-in" <<<"$ERR" && standin=1
  # Past --max-memory: exit status 4 as on the CPU, and no set file. 2^22
  # slots (48 MiB) are the smallest table; 600,000 keys outgrow it.
  seq 600000 >many.txt
  GDEDUP="$gpu" run_gdedup dedup --exact --backend gpu --max-memory 50M many.txt -o many.out \
    -f many.set
  expect_status 4
  expect_message "more than the cap of 50.0 MiB"
  [ ! -e many.set ] || fail "a set file was written past --max-memory"
  # Past the device's memory (the stand-in's, cut to 100 MiB: the 48 MiB
  # table cannot double beside itself): exit status 1, with the flags that
  # help an exact set, none that --exact refuses.
  [ "$standin" -eq 1 ] || return 0
  GDEDUP_STANDIN_DEVICE_BYTES=$((100 << 20)) GDEDUP="$gpu" run_gdedup dedup --exact \
    --backend gpu many.txt -o many.out -f many.set
  expect_status 1
  expect_message "more than its free memory"
  expect_message "use --backend cpu to hold the set in host memory, or --max-memory to cap it"
  ! grep -q -- "--fpr" <<<"$ERR" || fail "the advice names --fpr, which --exact refuses: $ERR"
  [ ! -e many.set ] || fail "a set file was written past the device's memory"
}

# Where the command has no usable GPU, --backend gpu fails with the reason
# and writes nothing; auto runs on the CPU.
case_gpu_set_without_a_device_is_refused() {
  if [ "${GDEDUP_GPU_BIN:-}" = "$GDEDUP" ]; then
    echo "  skipped: this command's GPU backend runs here"
    return 0
  fi
  printf 'a\nb\na\n' >in.txt
  run_gdedup dedup --exact --backend gpu in.txt -o out.txt -f out.set
  expect_status 1
  expect_message "use --backend cpu"
  [ ! -e out.txt ] && [ ! -e out.set ] || fail "--backend gpu without a GPU wrote a file"
  run_gdedup dedup --exact in.txt -o out.txt
  expect_status 0
  expect_message "backend cpu exact set"
}

# Killed with SIGKILL once a checkpoint exists, resumed (and killed again)
# until it completes: the output and the set file are the uninterrupted
# run's, byte for byte, though the killed runs read with other threads.
case_killed_and_resumed_gives_the_same_output_and_set() {
  python3 -c "
import random
r = random.Random(13)
open('in.txt', 'w').write(''.join('https://k.example/%d\n' % r.randrange(300000) for _ in range(600000)))
"
  local job=(dedup --exact --batch 20000 -q in.txt)
  run_gdedup "${job[@]}" --threads 1 -o ref.txt -f ref.set
  expect_status 0
  killed_and_resumed 2 1 "${job[@]}" -o out.txt -f out.set --checkpoint ck \
    --checkpoint-every 100K
  cmp -s ref.txt out.txt || fail "the resumed output differs from the uninterrupted run's"
  cmp -s ref.set out.set || fail "the resumed set file differs from the uninterrupted run's"
  [ ! -e ck ] || fail "the checkpoint is left after the job completed"
}

# An earlier run's checkpoint is refused, not written over or deleted, also
# when the run takes a set file that exists.
case_an_earlier_checkpoint_is_refused_beside_an_existing_set() {
  printf 'a\nb\nc\n' >in.txt
  run_gdedup build --exact in.txt -f s.set
  expect_status 0
  echo "an earlier run's checkpoint" >ck
  run_gdedup dedup --exact in.txt -f s.set -o out.txt --checkpoint ck
  expect_status 1
  expect_message "checkpoint ck exists from an earlier run"
  [ "$(cat ck)" = "an earlier run's checkpoint" ] || fail "the earlier checkpoint was changed"
  [ ! -e out.txt ] || fail "a refused job wrote its output"
}

# The set file's bytes are a function of its keys: the same keys in another
# order, in other batches, on other threads, give the same file.
case_set_file_bytes_depend_on_the_keys_alone() {
  seq 1 50000 | sed 's|^|https://o.example/|' >a.txt
  tac a.txt >b.txt
  run_gdedup build --exact a.txt -f a.set
  expect_status 0
  run_gdedup build --exact --batch 7 --threads 2 --filter-threads 2 b.txt -f b.set
  expect_status 0
  cmp -s a.set b.set || fail "the same keys in another order gave another set file"
}

# Two jobs extend one set file at once: the second waits for the first's
# lock and starts from its save, so the file ends with both jobs' keys.
case_two_jobs_on_one_set_file() {
  seq 1 40000 | sed 's|^|https://one.example/|' >one.txt
  seq 1 40000 | sed 's|^|https://two.example/|' >two.txt
  "$GDEDUP" build --exact one.txt -f s.set -q &
  local first=$!
  "$GDEDUP" build --exact two.txt -f s.set -q
  local second=$?
  wait "$first"
  local first_status=$?
  [ "$first_status" -eq 0 ] && [ "$second" -eq 0 ] || fail "exit statuses $first_status, $second"
  local keys
  for keys in one.txt two.txt; do
    run_gdedup query --exact --absent "$keys" -f s.set -o absent.txt
    expect_status 0
    [ ! -s absent.txt ] || fail "$(wc -l <absent.txt) keys of $keys are missing from the set"
  done
}

# Past --max-memory the job ends with exit status 4 and says what it
# needed; the output is left as it was; nothing is saved.
case_past_max_memory_ends_with_status_4() {
  seq 1 300000 | sed 's|^|https://m.example/|' >in.txt
  echo before >out.txt
  run_gdedup dedup --exact --max-memory 1MiB in.txt -o out.txt -f s.set
  expect_status 4
  expect_message "--max-memory"
  [ "$(cat out.txt)" = before ] || fail "the output changed"
  [ ! -e s.set ] || fail "a set file was saved"
  # A cap that holds the set: the job completes.
  run_gdedup dedup --exact --max-memory 64MiB in.txt -o out.txt -f s.set
  expect_status 0
  cmp -s in.txt out.txt || fail "a set under its cap lost records"
  # A set file past the cap is refused from its header, before its keys
  # are loaded into the memory the cap denies.
  cp s.set before.set
  run_gdedup dedup --exact -f s.set in.txt -o q.txt --max-memory 1MiB
  expect_status 4
  expect_message "the set of s.set takes"
  [ ! -e q.txt ] || fail "a job past its cap wrote its output"
  cmp -s s.set before.set || fail "a job past its cap changed the set file"
  # So is a checkpoint past the cap, on resume, and it is kept for a resume
  # with a larger cap, which loses nothing.
  # Long enough that the job is killed after its first checkpoint; under
  # AddressSanitizer, which runs it some ten times slower, a third as long.
  local records=3000000
  [ "$SANITIZED" -eq 1 ] && records=1000000
  seq 1 "$records" | sed 's|^|https://m.example/|' >in.txt
  local job=(dedup --exact --batch 1000 --checkpoint ck --checkpoint-every 200K -q in.txt
             -o c.txt)
  start_gdedup "${job[@]}"
  while [ ! -e ck ] && [ -e "/proc/$BG_PID" ]; do sleep 0.01; done
  kill -s KILL "$BG_PID" 2>/dev/null
  finish_gdedup
  if [ "$STATUS" -eq 0 ]; then
    echo "  note [$CASE]: the job ended before the signal; no checkpoint to resume"
    return
  fi
  cp ck before.ck
  run_gdedup "${job[@]}" --resume --max-memory 1MiB
  expect_status 4
  expect_message "the set of checkpoint ck takes"
  cmp -s ck before.ck || fail "a resume past its cap changed the checkpoint"
  run_gdedup "${job[@]}" --resume
  expect_status 0
  cmp -s in.txt c.txt || fail "the resume after a refused one lost records"
}

# flip_middle_byte FILE: damages a byte of FILE's body, which only loading
# the file finds (its keys' or bit array's checksum), not its header.
flip_middle_byte() {
  python3 - "$1" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0xFF
open(sys.argv[1], "wb").write(data)
EOF
}

# query --max-memory refuses a set file past the cap from its header (exit
# status 4, as dedup refuses one), and a Bloom filter file past it as dedup
# refuses one (exit status 2); both before the file is loaded, which a
# damaged body shows: with the cap the refusal comes first, without it the
# damage is found. Within the cap the answers are the query's without it.
case_query_max_memory_refuses_a_file_past_it_from_its_header() {
  seq 1 300000 | sed 's|^|https://q.example/|' >in.txt
  seq 299990 300010 | sed 's|^|https://q.example/|' >keys.txt
  seq 300001 300010 | sed 's|^|https://q.example/|' >absent.txt
  run_gdedup build --exact -f s.set in.txt
  expect_status 0
  run_gdedup build -f fixed.gdf --memory 2MiB in.txt
  expect_status 0
  run_gdedup build -f growing.gdf in.txt
  expect_status 0
  local file
  for file in s.set fixed.gdf growing.gdf; do
    local exact=() status=2 says
    case $file in
      s.set)
        exact=(--exact) status=4
        says="the set of damaged takes 4.00 MiB, more than --max-memory 512KiB allows" ;;
      fixed.gdf)
        says="--max-memory 512KiB is less than the 2.00 MiB of the fixed filter damaged" ;;
      # One layer, sized by the estimate from the input's bytes.
      growing.gdf) says=" KiB of the growing filter damaged; raise it, or leave it out" ;;
    esac
    run_gdedup query "${exact[@]}" -f "$file" keys.txt -o whole.txt
    expect_status 0
    run_gdedup query "${exact[@]}" -f "$file" keys.txt -o capped.txt --max-memory 64MiB
    expect_status 0
    cmp -s whole.txt capped.txt || fail "query of $file within its cap answered otherwise"
    run_gdedup query "${exact[@]}" -f "$file" --absent keys.txt -o capped.txt --max-memory 64M
    expect_status 0
    cmp -s absent.txt capped.txt || fail "query --absent of $file: $(cat capped.txt)"
    cp "$file" damaged
    flip_middle_byte damaged
    run_gdedup query "${exact[@]}" -f damaged keys.txt -o out.txt
    expect_status 1
    expect_message "damaged is damaged"
    run_gdedup query "${exact[@]}" -f damaged keys.txt -o out.txt --max-memory 512KiB
    expect_status "$status"
    expect_message "--max-memory 512KiB"
    expect_message "$says"
    [ ! -e out.txt ] || fail "a query of $file past its cap wrote its output"
  done
}

# A set file built within --max-memory loads within it: loading takes room
# for the file's keys only within the cap, as a set grown key by key does
# (62,000 keys grow to 1 MiB; room for them at once would take 1.30 MiB).
case_a_set_built_within_a_cap_loads_within_it() {
  seq 1 62000 | sed 's|^|https://r.example/|' >in.txt
  run_gdedup build --exact -f s.set in.txt --max-memory 1MiB
  expect_status 0
  run_gdedup query --exact -f s.set in.txt -o out.txt --max-memory 1MiB
  expect_status 0
  cmp -s in.txt out.txt || fail "a query within the cap lost keys"
  run_gdedup dedup --exact -f s.set in.txt -o out.txt --max-memory 1MiB
  expect_status 0
  [ -e out.txt ] && [ ! -s out.txt ] || fail "a dedup within the cap kept a record of the set"
}

# A --capacity whose set is past --max-memory, or a cap below the smallest
# set, contradicts itself: refused as a usage error (exit 2) before the set
# is made, even one of terabytes that no machine could allocate.
case_capacity_past_max_memory_is_refused_before_the_set_is_made() {
  printf 'a\nb\n' >in.txt
  run_gdedup dedup --exact --capacity 1T --max-memory 1MiB in.txt -o out.txt -f s.set
  expect_status 2
  expect_message "a set sized for --capacity 1T takes"
  expect_message "more than --max-memory 1MiB allows; give a smaller --capacity"
  [ ! -e out.txt ] && [ ! -e s.set ] || fail "a refused job wrote a file"
  run_gdedup build --exact --capacity 10M --max-memory 1MiB in.txt -f s.set
  expect_status 2
  expect_message "a set sized for --capacity 10M takes"
  run_gdedup dedup --exact --max-memory 1KiB in.txt -o out.txt
  expect_status 2
  expect_message "the smallest set takes"
  expect_message "give a larger --max-memory"
  run_gdedup dedup --exact --capacity 10K --max-memory 1MiB in.txt -o out.txt
  expect_status 0
}

# A set file that cannot be written is named as one before any work.
case_an_unwritable_set_file_is_named() {
  printf 'a\nb\n' >in.txt
  run_gdedup dedup --exact in.txt -o out.txt -f missing/s.set
  expect_status 1
  expect_message "cannot write set file missing/s.set"
  [ ! -e out.txt ] || fail "an output was written"
}

# A disk that fails the set file's write, at its rename (gdedup-faults) or
# part way as a full disk does (a file size limit): the job fails naming
# the set file, which keeps its previous keys, or is not created.
case_failing_set_file_write_keeps_the_previous_file() {
  seq 1 20000 | sed 's|^|https://f.example/|' >a.txt
  seq 10001 40000 | sed 's|^|https://f.example/|' >b.txt
  run_gdedup build --exact a.txt -f s.set
  expect_status 0
  cp s.set s.before
  run_gdedup_failing_write 1 s.set dedup --exact b.txt -f s.set -o out.txt
  expect_status 1
  expect_message "cannot save set to s.set: renaming"
  cmp -s s.set s.before || fail "a failed save changed the set file"
  run_gdedup_failing_write 1 new.set build --exact b.txt -f new.set
  expect_status 1
  expect_message "cannot save set to new.set"
  [ ! -e new.set ] || fail "a failed save left new.set"
  # The set of 30,000 keys is past 200 KiB; the earlier one is not.
  (trap '' XFSZ; ulimit -f 200; run_gdedup dedup --exact b.txt -f s.set -o /dev/null
   expect_status 1
   expect_message "cannot save set to s.set: writing")
  cmp -s s.set s.before || fail "a set file write cut short changed the set file"
  [ -z "$(compgen -G 's.set.tmp.*')" ] || fail "a temporary set file was left: $(ls)"
}

# A failing set checkpoint write stops the job, naming the checkpoint; the
# previous checkpoint is intact and the resume gives the uninterrupted
# run's set file, byte for byte.
case_failing_set_checkpoint_write_keeps_the_previous_checkpoint() {
  seq 1 300000 | sed 's|^|https://c.example/|' >in.txt
  local job=(build --exact in.txt -f s.set --batch 20000 --checkpoint ck --checkpoint-every 100K)
  run_gdedup build --exact in.txt -f ref.set
  expect_status 0
  run_gdedup_failing_write 2 ck "${job[@]}"
  expect_status 1
  expect_message "cannot write set checkpoint ck"
  expect_message "the previous checkpoint, at record 100000, is intact"
  [ ! -e s.set ] || fail "a stopped job saved its set file"
  run_gdedup "${job[@]}" --resume -q
  expect_status 0
  cmp -s s.set ref.set || fail "the resumed set file differs from the uninterrupted run's"
  rm -f s.set
  # The second checkpoint (200,000 keys) cut short by a full disk.
  (trap '' XFSZ; ulimit -f 1200; run_gdedup "${job[@]}"
   expect_status 1
   expect_message "cannot write set checkpoint ck: writing")
  run_gdedup info ck
  expect_status 0
  grep -q "100,000 records done" "$SCRATCH/stdout" || fail "the checkpoint is not the first one"
  run_gdedup "${job[@]}" --resume -q
  expect_status 0
  cmp -s s.set ref.set || fail "the resumed set file differs from the uninterrupted run's"
}

# A set file records its key rules as a filter file does, and query, dedup
# and build with it hold to them as with a filter: --normalize url given
# again answers the URLs as the set saw them; left out, the command is
# refused naming the set and both rules, or with --ignore-key-rules warned
# and run with the set's seed.
case_set_file_key_rules_are_held_as_a_filters() {
  printf 'https://Example.com/a\nhttps://example.com/b/\n' >seen.txt
  printf 'https://example.com/a\nHTTPS://EXAMPLE.COM:443/b/\nhttps://example.com/c\n' >asked.txt
  printf 'https://example.com/c\n' >want.txt
  local kind file exact
  for kind in set filter; do
    file=seen.$kind
    if [ "$kind" = set ]; then exact=(--exact); else exact=(); fi
    run_gdedup build "${exact[@]}" --normalize url seen.txt -f "$file"
    expect_status 0
    run_gdedup query "${exact[@]}" --normalize url --absent asked.txt -f "$file" -o absent.txt
    expect_status 0
    cmp -s absent.txt want.txt || fail "$kind: the absent URLs are $(cat absent.txt)"
    run_gdedup query "${exact[@]}" asked.txt -f "$file" -o out.txt
    expect_status 2
    expect_message "the $kind $file was built with key rules \"input text, key whole, \
delimiter tab, normalize trim,lowercase-scheme"
    expect_message "give the --key, --delimiter, --normalize"
    [ ! -e out.txt ] || fail "$kind: a refused query wrote its output"
    run_gdedup dedup "${exact[@]}" asked.txt -f "$file" -o out.txt
    expect_status 2
    expect_message "the $kind $file was built with key rules"
    run_gdedup query "${exact[@]}" --ignore-key-rules --absent asked.txt -f "$file" -o absent.txt
    expect_status 0
    expect_message "used anyway (--ignore-key-rules)"
    # The raw keys: only the one already in its canonical form is found.
    tail -n 2 asked.txt | cmp -s absent.txt - || fail "$kind: the raw keys found $(cat absent.txt)"
  done
}

# A set file and a Bloom filter file are not mixed, either way: each is
# named as what it is, with the way to use it (exit status 1; a merge's 2).
case_sets_and_filters_are_not_mixed() {
  seq 1 1000 >in.txt
  run_gdedup build in.txt -f bloom.gdf
  expect_status 0
  run_gdedup build --exact in.txt -f exact.set
  expect_status 0
  run_gdedup dedup --exact in.txt -f bloom.gdf -o out.txt
  expect_status 1
  expect_message "gdedup: bloom.gdf is a Bloom filter file, not an exact set: a Bloom filter"
  expect_message "cannot become a set; leave out --exact to use it"
  run_gdedup query in.txt -f exact.set -o out.txt
  expect_status 1
  expect_message "gdedup: exact.set is an exact set, not a Bloom filter file; give --exact to"
  run_gdedup merge bloom.gdf exact.set -o both
  expect_status 2
  expect_message "a set of the Bloom filter's keys is built from its inputs, with gdedup build"
  [ ! -e both ] || fail "a merge of a set and a filter wrote a file"
}

# merge --max-memory: a union past the cap ends with status 4 and leaves
# the output (here an existing set with a space in its name) and its folder
# as they were; within the cap the union is the set built from all keys.
case_merge_past_max_memory_writes_nothing() {
  seq 1 2000 >a.txt
  seq 1000 60000 >b.txt
  seq 1 60000 >whole.txt
  local f
  for f in a b whole; do
    run_gdedup build --exact "$f.txt" -f "$f.set"
    expect_status 0
  done
  cp a.set "out put.set"
  local before
  before=$(ls -A | wc -l)
  run_gdedup merge a.set b.set -o "out put.set" --max-memory 300K
  expect_status 4
  expect_message "the union takes at least"
  expect_message "nothing was written"
  cmp -s a.set "out put.set" || fail "a merge past --max-memory changed its output"
  [ "$(ls -A | wc -l)" = "$before" ] || fail "a merge past --max-memory left a file: $(ls -A)"
  run_gdedup merge a.set b.set -o "out put.set" --max-memory 64M
  expect_status 0
  cmp -s whole.set "out put.set" || fail "the union differs from the set of all keys"
}

run_cases
