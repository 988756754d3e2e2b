#!/usr/bin/env bash
# Attacks that cross the areas of the other scripts, on the commands they
# leave out: merge racing a build on one filter, merge's output named after
# files of other kinds.
source "$(dirname "$0")/lib.sh"

# A build and a merge into one filter at once, 50 times: the merge's output
# is one of its inputs, so whichever runs second must start from the filter
# the first saved. Both exit 0 and every key of both is in the file. (Before
# merge locked its output, it could read the filter, let the build save its
# keys, and rename its own result over them.)
case_merge_and_build_into_one_filter_keep_every_key() {
  distinct_urls 3000 https://m1.example/ >a.txt
  distinct_urls 3000 https://m2.example/ >b.txt
  distinct_urls 3000 https://m3.example/ >c.txt
  run_gdedup build --capacity 10000 a.txt -f A.gdf -q
  expect_status 0
  run_gdedup build --capacity 10000 c.txt -f C.gdf -q
  expect_status 0
  local round sm sb
  for round in $(seq 1 "$(rounds 50)"); do
    cp C.gdf R.gdf
    "$GDEDUP" merge R.gdf A.gdf -o R.gdf -q 2>err.m & local pm=$!
    "$GDEDUP" build --capacity 10000 b.txt -f R.gdf -q 2>err.b & local pb=$!
    wait $pm; sm=$?
    wait $pb; sb=$?
    [ "$sm" -eq 0 ] && [ "$sb" -eq 0 ] || fail "round $round: exit $sm and $sb: $(cat err.m err.b)"
    expect_keys_in R.gdf "round $round" a.txt b.txt c.txt
  done
}

# merge -o names a file that is not a filter, a link, a pipe or a folder:
# refused before anything is read, and the file left as it was.
case_merge_output_of_another_kind_is_refused() {
  distinct_urls 500 https://m4.example/ >in.txt
  run_gdedup build --capacity 1000 in.txt -f A.gdf -q
  cp A.gdf B.gdf
  echo "precious" >victim.txt
  ln -s victim.txt link.gdf
  mkfifo pipe.gdf
  mkdir folder
  snapshot in.txt victim.txt link.gdf A.gdf B.gdf
  run_gdedup merge A.gdf B.gdf -o in.txt
  expect_status 2
  expect_message "output in.txt exists and is not a readable gdedup filter file"
  run_gdedup merge A.gdf B.gdf -o link.gdf
  expect_status 1
  expect_message "cannot write output link.gdf: it is a symbolic link"
  run_gdedup merge A.gdf B.gdf -o pipe.gdf
  expect_status 1
  expect_message "cannot write output pipe.gdf: it is not a regular file"
  [ -p pipe.gdf ] || fail "the pipe pipe.gdf was replaced"
  run_gdedup merge A.gdf B.gdf -o folder
  expect_status 1
  expect_message "cannot write output folder: it is a folder"
  run_gdedup merge A.gdf B.gdf -o /nonexistent/dir/M.gdf
  expect_status 1
  expect_message "cannot write output /nonexistent/dir/M.gdf: folder /nonexistent/dir"
  check_unchanged
  # Into one of its inputs, or over another filter: the merged filter.
  run_gdedup merge A.gdf B.gdf -o B.gdf
  expect_status 0
  expect_keys_in B.gdf "merged into an input" in.txt
}

# Two jobs on one output, the second naming it through a symbolic link or a
# hard link: the second is refused while the first runs (both once exited 0
# with the two outputs interleaved in the file). The first job holds its
# locks while it waits for input from a pipe this script keeps open.
case_output_under_another_name_shares_its_lock() {
  distinct_urls 2000 https://m5.example/ >in.txt
  distinct_urls 2000 https://m6.example/ >other.txt
  exact_dedup in.txt want.txt
  mkfifo feed
  local name i
  for name in link.txt hard.txt; do
    rm -f out.txt link.txt hard.txt
    : >out.txt
    if [ "$name" = link.txt ]; then ln -s out.txt link.txt; else ln out.txt hard.txt; fi
    exec 3<>feed
    start_gdedup dedup --capacity 4000 feed -o out.txt -q 3>&-
    for ((i = 0; i < 1000; i++)); do [ -e out.txt.lock ] && break; sleep 0.01; done
    run_gdedup dedup --capacity 4000 other.txt -o "$name" -q
    expect_status 1
    expect_message "output $name is in use by another gdedup job (pid $BG_PID)"
    cat in.txt >&3
    exec 3>&-
    finish_gdedup
    expect_status 0
    cmp -s out.txt want.txt || fail "out.txt is not the first job's output ($name)"
  done
  [ -L link.txt ] || [ -e hard.txt ] || fail "the second name is gone"
}

# A file that happens to be called like a lock file (OUTPUT.lock, here the
# input itself) is neither taken for a lock nor deleted when the job ends.
case_a_file_named_like_a_lock_is_kept() {
  distinct_urls 500 https://m7.example/ >out.txt.lock
  cp out.txt.lock F.gdf.lock
  snapshot out.txt.lock F.gdf.lock
  run_gdedup dedup --capacity 1000 out.txt.lock -o out.txt
  expect_status 1
  expect_message "the name of its lock file out.txt.lock is taken by a file that is not a gdedup lock file"
  run_gdedup build --capacity 1000 out.txt.lock -f F.gdf
  expect_status 1
  expect_message "cannot lock filter F.gdf: the name of its lock file F.gdf.lock"
  [ ! -e F.gdf ] || fail "the build ran without its lock"
  check_unchanged
}

# A file the job writes named after another one's lock file: the lock file
# is deleted when the job ends, and the statistics (or checkpoint) with it.
case_a_written_file_named_like_a_lock_is_refused() {
  distinct_urls 500 https://m8.example/ >in.txt
  run_gdedup dedup --capacity 1000 in.txt -o out.txt --stats out.txt.lock
  expect_status 2
  expect_message "statistics file out.txt.lock is the lock file of the output out.txt"
  run_gdedup build --capacity 1000 in.txt -f F.gdf --stats ./F.gdf.lock
  expect_status 2
  expect_message "is the lock file of the filter F.gdf"
  run_gdedup dedup --capacity 1000 in.txt -o out.txt --checkpoint out.txt.lock
  expect_status 2
  expect_message "checkpoint out.txt.lock is the lock file of the output out.txt"
  [ ! -e out.txt ] && [ ! -e F.gdf ] || fail "a refused job created a file"
  run_gdedup dedup --capacity 1000 in.txt -o s.json.lock --stats s.json -q
  expect_status 0
}

run_cases
