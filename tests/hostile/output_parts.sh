#!/usr/bin/env bash
# --output-parts DIR (docs/CLI.md, "Output in parts"): the parts the
# manifest lists, concatenated in order, are the bytes -o would hold; the
# manifest is written last, so a job that fails leaves the folder's previous
# output standing, and one that completes removes the previous parts; a
# planted manifest can make a job remove nothing outside the folder.
source "$(dirname "$0")/lib.sh"

case_parts_are_the_output() {
  distinct_urls 30000 https://a.example/ >a.txt
  { distinct_urls 20000 https://a.example/; distinct_urls 20000 https://b.example/; } >b.txt
  run_gdedup dedup a.txt b.txt -o whole.txt -q
  expect_status 0
  run_gdedup dedup a.txt b.txt --output-parts out -q
  expect_status 0
  head -1 out/MANIFEST | grep -qx 'gdedup output parts 1' || fail "no manifest header: $(cat out/MANIFEST)"
  assembled out | cmp -s - whole.txt || fail "the parts differ from the -o output"
  # A second run replaces the first one's parts.
  local first
  first=$(tail -n +2 out/MANIFEST | cut -f1)
  run_gdedup dedup b.txt --output-parts out -q
  expect_status 0
  run_gdedup dedup b.txt -o whole.txt -q
  assembled out | cmp -s - whole.txt || fail "the second run's parts differ from its -o output"
  for name in $first; do
    [ ! -e "out/$name" ] || fail "the first run's part $name was left"
  done
  # Nothing kept: a manifest of no parts.
  run_gdedup dedup b.txt -f f.gdf -q -o /dev/null
  run_gdedup dedup b.txt -f f.gdf --output-parts out -q
  expect_status 0
  [ "$(wc -l <out/MANIFEST)" -eq 1 ] || fail "parts of nothing: $(cat out/MANIFEST)"
  [ "$(ls out | grep -c '^part-')" -eq 0 ] || fail "empty parts were left: $(ls out)"
}

case_failed_job_keeps_the_previous_output() {
  distinct_urls 50000 https://a.example/ >good.txt
  { cat good.txt; head -c 3000 /dev/zero | tr '\0' z; echo; } >bad.txt
  run_gdedup dedup good.txt --output-parts out -q
  expect_status 0
  cp out/MANIFEST saved
  ls out >listed
  run_gdedup dedup bad.txt --output-parts out --max-record-length 1K -q
  expect_status 1
  expect_message "longer than the record length limit"
  cmp -s out/MANIFEST saved || fail "a failed job changed the manifest"
  ls out | cmp -s - listed || fail "a failed job changed the folder: $(ls out)"
}

case_refusals() {
  distinct_urls 100 https://a.example/ >in.txt
  run_gdedup dedup in.txt --output-parts out -o x.txt
  expect_status 2
  expect_message "excludes"
  run_gdedup dedup in.txt --output-parts out --checkpoint ck
  expect_status 2
  expect_message "--output-parts cannot be checkpointed yet"
  run_gdedup build in.txt -f f.gdf --output-parts out
  expect_status 2
  echo x >file
  run_gdedup dedup in.txt --output-parts file
  expect_status 2
  expect_message "is not a folder"
  run_gdedup dedup in.txt --output-parts missing/deeper
  expect_status 1
  expect_message "cannot create the folder missing/deeper"
  # An input among the parts the run would replace.
  mkdir -p out
  cp in.txt out/part-0-000000
  run_gdedup dedup out/part-0-000000 --output-parts out
  expect_status 2
  expect_message "lies in the --output-parts folder"
  # A planted manifest that names a file outside the folder: refused, and
  # the file stays.
  echo keep >precious
  printf 'gdedup output parts 1\n../precious\t5\t0x0\thost\n' >out/MANIFEST
  run_gdedup dedup in.txt --output-parts out
  expect_status 1
  expect_message "which is not a part's name"
  [ "$(cat precious)" = keep ] || fail "a planted manifest removed a file outside the folder"
  printf 'not a manifest\n' >out/MANIFEST
  run_gdedup dedup in.txt --output-parts out
  expect_status 1
  expect_message "is not a manifest of gdedup output parts"
}

run_cases
