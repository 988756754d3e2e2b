#!/usr/bin/env bash
# The files a job writes (output, filter, checkpoint, --stats) under attack:
# two jobs on one file at once, links planted at every name a job uses, a
# full disk, an output edited before a resume.
source "$(dirname "$0")/lib.sh"

# Two builds into one filter at once, 50 times: the second waits for the
# first and starts from its filter, so both exit 0 and every key of both is
# in the file. (Before the lock, one run's keys were silently lost.)
case_concurrent_builds_keep_every_key() {
  distinct_urls 3000 https://one.example/ >a.txt
  distinct_urls 3000 https://two.example/ >b.txt
  local round waited=0 sa sb
  for round in $(seq 1 50); do
    rm -f R.gdf
    "$GDEDUP" build --capacity 10000 a.txt -f R.gdf 2>err.a & local pa=$!
    "$GDEDUP" build --capacity 10000 b.txt -f R.gdf 2>err.b & local pb=$!
    wait $pa; sa=$?
    wait $pb; sb=$?
    [ "$sa" -eq 0 ] && [ "$sb" -eq 0 ] || fail "round $round: exit $sa and $sb: $(cat err.a err.b)"
    grep -qh "waiting for it to finish" err.a err.b && waited=$((waited + 1))
    local keys
    for keys in a.txt b.txt; do
      run_gdedup query "$keys" -f R.gdf --absent -o absent.txt
      expect_status 0
      [ ! -s absent.txt ] || fail "round $round: $(wc -l <absent.txt) keys of $keys missing"
    done
    ls R.gdf.tmp.* R.gdf.lock >/dev/null 2>&1 && fail "round $round: a temporary or lock file is left"
  done
  echo "  50 rounds, the second build waited in $waited"
}

# A job stopped after its second checkpoint, then resumed twice at once, 50
# times: exactly one resume runs, and its output is the uninterrupted one.
case_concurrent_resumes_never_share_a_checkpoint() {
  distinct_urls 12000 https://c.example/ >in.txt
  distinct_urls 6000 https://c.example/ >>in.txt
  local job=(dedup --capacity 20000 in.txt -o out.txt --batch 1000 --checkpoint ck
             --checkpoint-every 3000 -q)
  run_gdedup dedup --capacity 20000 in.txt -o ref.txt -q
  GDEDUP_TEST_FAIL_CHECKPOINT_WRITE=3 run_gdedup "${job[@]}"
  expect_status 1
  [ -f ck ] || { fail "no checkpoint to resume from"; return; }
  cp ck ck.saved; cp out.txt out.saved
  local round ok refused=0 sa sb
  for round in $(seq 1 50); do
    cp ck.saved ck; cp out.saved out.txt
    "$GDEDUP" "${job[@]}" --resume 2>err.a & local pa=$!
    "$GDEDUP" "${job[@]}" --resume 2>err.b & local pb=$!
    wait $pa; sa=$?
    wait $pb; sb=$?
    ok=$(( (sa == 0) + (sb == 0) ))
    [ "$ok" -eq 1 ] || fail "round $round: $ok resumes exited 0: $(cat err.a err.b)"
    cmp -s out.txt ref.txt || fail "round $round: the output differs from the uninterrupted run"
    grep -qh "is in use by another gdedup job (pid [0-9]*)" err.a err.b && refused=$((refused + 1))
  done
  echo "  50 rounds, the second resume was refused while the first ran in $refused"
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
}

# A full disk mid-record: the output is cut back to its last whole record,
# the message says so and says what the output holds.
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
  [ -s small/out.txt ] || fail "the output is empty: the first flush should have fitted"
  [ "$(tail -c 1 small/out.txt | od -An -c | tr -d ' ')" = '\n' ] || fail "the output ends inside a record"
  head -n "$(wc -l <small/out.txt)" in.txt | cmp -s - small/out.txt ||
    fail "the output is not the first records of the input"
  umount small
}

# Bytes changed inside what the checkpoint counted: the resume is refused
# and the output left alone.
case_resume_refuses_an_edited_output() {
  distinct_urls 20000 https://g.example/ >in.txt
  local job=(dedup --capacity 20000 in.txt -o out.txt --batch 1000 --checkpoint ck
             --checkpoint-every 4000 -q)
  GDEDUP_TEST_FAIL_CHECKPOINT_WRITE=2 run_gdedup "${job[@]}"
  expect_status 1
  printf 'X' | dd of=out.txt bs=1 seek=100 conv=notrunc status=none
  snapshot out.txt ck
  run_gdedup "${job[@]}" --resume
  expect_failure
  expect_message "are not those the interrupted run wrote"
  check_unchanged
}

run_cases
