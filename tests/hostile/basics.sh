#!/usr/bin/env bash
# Ordinary jobs, checked with the same oracle as the hostile cases: the
# baseline the other scripts in this folder attack.
source "$(dirname "$0")/lib.sh"

case_dedup_keeps_first_occurrences() {
  { distinct_urls 5000 https://a.example/; distinct_urls 5000 https://a.example/; } >in.txt
  snapshot in.txt
  run_gdedup dedup --capacity 10000 in.txt -o out.txt
  expect_status 0
  check_dedup_output in.txt out.txt 1e-4
  check_unchanged
}

case_build_then_query_finds_every_key() {
  distinct_urls 3000 https://b.example/ >day1.txt
  run_gdedup build --capacity 3000 day1.txt -f day1.gdf
  expect_status 0
  run_gdedup query day1.txt -f day1.gdf --absent -o absent.txt
  expect_status 0
  [ ! -s absent.txt ] || fail "query reports keys of the build as absent"
}

run_cases
