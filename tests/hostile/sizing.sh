#!/usr/bin/env bash
# Filters too small for their input: no job loses unique records with exit 0
# beyond its planned rate. It is refused before any work (a plan above a rate
# of 0.5), or ends with exit 4 and a loss figure that is near the truth or
# says "at least", and then saves no filter that would go on dropping
# records in later jobs.
source "$(dirname "$0")/lib.sh"
SWEEP=$(cd "$(dirname "$0")/../../bench" && pwd)/sizing_sweep.sh

# lost_figure: "about N" or "at least N" from the exit-4 line in $ERR.
lost_figure() {
  sed -n 's/.* and \(about\|at least\) \([0-9,]*\) unique records.*/\1 \2/p' <<<"$ERR" | tr -d ,
}

# Fixed filters and --memory budgets from 1/100 to 2 times the right size
# (docs/HARDENING.md, "Sizing sweep").
case_sizing_sweep_keeps_its_promises() {
  bash "$SWEEP" "$GDEDUP" 20000 sweep >sweep.md || fail "$(grep BROKEN sweep.md)"
}

# A --memory far below the input's needs (an expected rate of 0.94) was run
# and lost 45% of the unique records with exit 0, silent under -q.
case_absurd_plan_is_refused_before_work() {
  distinct_urls 20000 https://m.example/ >in.txt
  run_gdedup dedup -q in.txt --memory 1KiB -o out.txt -f seen.gdf
  expect_status 2
  expect_message "expected false-positive rate of"
  expect_message "--allow-high-fpr"
  [ -e out.txt ] || [ -e seen.gdf ] && fail "a refused job wrote a file: $(ls)"
  run_gdedup build -q in.txt --fpr 0.9 --capacity 20000 -f seen.gdf
  expect_status 2
  expect_message "--fpr 0.9 would take about 90.00% of new keys"
  # Meant: it runs, warned even under -q, and loses what the plan said.
  run_gdedup dedup -q in.txt --memory 1KiB --allow-high-fpr -o out.txt
  expect_status 0
  expect_message "warning: the new filter of 1.00 KiB"
  # Costly but not absurd: warned under -q, and kept to its rate.
  run_gdedup dedup -q in.txt --memory 24KiB -o out.txt
  expect_status 0
  expect_message "warning: the new filter of 24.0 KiB"
  check_dedup_output in.txt out.txt 0.02
}

# --capacity 2000 --no-grow on 1.7M unique records said "about 2,319" were
# lost (it was 1,737,357) and advised a capacity that failed again.
case_saturated_filter_says_at_least_and_sizes_from_records() {
  distinct_urls 60000 https://s.example/ >in.txt
  head -20000 in.txt >>in.txt
  run_gdedup dedup -q in.txt --capacity 200 --no-grow -o out.txt
  expect_status 4
  local how n lost capacity
  read -r how n <<<"$(lost_figure)"
  lost=$((60000 - $(wc -l <out.txt)))
  [ "$how" = at ] || fail "a saturated filter's loss is not a lower bound: $ERR"
  n=${n##* }
  [ "${n:-0}" -gt 0 ] && [ "$n" -le "$lost" ] || fail "at least '$n' is not within 1..$lost"
  capacity=$(sed -n 's/.*--capacity \([0-9]*\) (or more.*/\1/p' <<<"$ERR")
  [ "${capacity:-0}" -ge 60000 ] || fail "advised --capacity '$capacity' for 60,000 keys: $ERR"
  run_gdedup dedup -q in.txt --capacity "$capacity" --no-grow -o out.txt
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
}

# --no-grow on a grown filter file saturated its newest layer and saved it
# over the file; following the advice ("without --no-grow") then lost 96%
# of the new keys and blamed a merge.
case_overfull_growing_file_is_left_as_it_was() {
  distinct_urls 20000 https://a.example/ >a.txt
  distinct_urls 40000 https://b.example/ >b.txt
  run_gdedup build -q a.txt -f day.gdf --capacity 1000
  expect_status 0
  snapshot day.gdf
  run_gdedup dedup -q b.txt -f day.gdf --no-grow -o out.txt
  expect_status 4
  expect_message "The filter was not saved: day.gdf was left as it was before the job."
  expect_message "Run the job again without --no-grow."
  check_unchanged
  ls day.gdf.tmp.* day.gdf.lock >/dev/null 2>&1 && fail "a temporary or lock file is left"
  run_gdedup dedup -q b.txt -f day.gdf -o out.txt
  expect_status 0
  check_dedup_output b.txt out.txt 1e-4
  expect_keys_in day.gdf "after the advice" a.txt b.txt
}

# A fixed filter far past its plan is not saved either: a new file is not
# written, an existing one keeps its keys.
case_overfull_fixed_filter_is_not_saved() {
  distinct_urls 20000 https://f.example/ >in.txt
  run_gdedup build -q in.txt -f new.gdf --capacity 100 --no-grow
  expect_status 4
  expect_message "The filter was not saved: new.gdf was not written."
  [ -e new.gdf ] && fail "new.gdf was written"
  head -50 in.txt >few.txt
  run_gdedup build -q few.txt -f old.gdf --capacity 100 --no-grow
  expect_status 0
  snapshot old.gdf
  run_gdedup dedup -q in.txt -f old.gdf -o out.txt
  expect_status 4
  expect_message "start a new filter file with --capacity"
  expect_message "old.gdf was left as it was before the job"
  check_unchanged
}

# From a pipe the plan is for the keys --memory holds at 1e-4: far more
# arrive, and the job ends with exit 4 under -q.
case_memory_on_a_pipe_ends_overfull() {
  distinct_urls 20000 https://p.example/ >in.txt
  cat in.txt | "$GDEDUP" dedup -q - --memory 128B -o out.txt 2>"$SCRATCH/stderr"
  STATUS=$?
  ERR=$(cat "$SCRATCH/stderr")
  expect_status 4
  local how n lost
  read -r how n <<<"$(lost_figure)"
  n=${n##* }
  lost=$((20000 - $(wc -l <out.txt)))
  [ "${n:-0}" -le "$lost" ] || fail "reported $how $n lost, the truth is $lost"
}

run_cases
