#!/usr/bin/env bash
# The standard streams attacked: a job started with descriptor 0, 1 or 2
# closed (`<&-`, `>&-`, `2>&-`, as a daemon or a careless cron line starts
# it), standard output on a full disk, and a reader that went away. A
# closed stream the job does not use costs nothing; one it uses fails the
# job as a failing stream does, with no file replaced and nothing saved; no
# file of the job ever takes a closed stream's number (docs/HARDENING.md).
source "$(dirname "$0")/lib.sh"

# run_with STDIN STDOUT CLOSED ARGS...: run_gdedup with standard input from
# the file STDIN and standard output to the file STDOUT (or, as "&N", to
# descriptor N), then the descriptors CLOSED names ("0", "12", "012"...)
# closed. A closed stderr leaves $ERR empty.
run_with() {
  local in=$1 out=$2 closed=$3
  shift 3
  : >"$SCRATCH/stderr"
  (
    exec <"$in" 2>"$SCRATCH/stderr"
    if [[ $out == '&'* ]]; then exec >&"${out#&}"; else exec >"$out"; fi
    [[ $closed != *0* ]] || exec <&-
    [[ $closed != *1* ]] || exec >&-
    [[ $closed != *2* ]] || exec 2>&-
    exec "$GDEDUP" "$@"
  )
  STATUS=$?
  ERR=$(cat "$SCRATCH/stderr")
}

# state: a line for each file under the current folder with its checksum; a
# statistics file without its timings, and an output-parts folder as its
# count of files and the records they assemble to (part names are new each
# run). Two runs that did the same leave the same state; a run that changed
# nothing leaves the state it found.
state() {
  find . -type f ! -path './parts/*' ! -name st.json -print0 | LC_ALL=C sort -z |
    xargs -0 -r sha256sum
  if [ -f st.json ]; then echo "st.json $(grep -vE 'seconds|per_second' st.json | sha256sum)"; fi
  if [ -d parts ]; then echo "parts: $(ls parts | wc -l) files, $(assembled parts | sha256sum)"; fi
}

# The folder every job of a case starts from: in.txt (URLs, a third of
# them repeats), other.txt, ref.gdf and ref.gds (in.txt's keys), other.gds
# (other.txt's), an earlier output out.txt and q.txt, and the parts of an
# earlier run of other.txt in parts/.
make_template() {
  mkdir template
  (
    cd template || exit
    { distinct_urls 300 https://in.example/; distinct_urls 150 https://in.example/; } >in.txt
    distinct_urls 50 https://other.example/ >other.txt
    "$GDEDUP" build in.txt -f ref.gdf -q
    "$GDEDUP" build in.txt --exact -f ref.gds -q
    "$GDEDUP" build other.txt --exact -f other.gds -q
    "$GDEDUP" dedup other.txt --output-parts parts -q
    echo old >out.txt
    echo old >q.txt
  )
  [ -f template/ref.gds ] && [ -f template/parts/MANIFEST ] || fail "the template was not made"
}

# fresh NAME: a copy of the template, entered.
fresh() {
  cd "$SCRATCH" && rm -rf "$1" && cp -r template "$1" && cd "$1" || exit
}

# Each job, with the streams it uses: i standard input (given in.txt), o
# standard output, - neither. Every job writes or replaces files, and many
# hold locks and temporary files meanwhile: the numbers a closed stream
# would give away.
JOBS=(
  "o|dedup in.txt"
  "-|dedup in.txt -o out.txt"
  "o|dedup in.txt --exact -f s.gds --stats st.json"
  "o|dedup in.txt -f f.gdf --stats st.json"
  "-|dedup in.txt --exact -o out.txt -f s.gds --stats st.json"
  "-|dedup in.txt -o out.txt -f f.gdf --checkpoint ck"
  "-|dedup in.txt --output-parts parts -f f.gdf"
  "i|dedup -o out.txt"
  "i|dedup --output-parts parts"
  "io|dedup --exact -f s.gds --stats st.json"
  "-|build in.txt -f b.gdf"
  "i|build --exact -f b.gds"
  "o|query in.txt --exact -f ref.gds"
  "-|query in.txt -f ref.gdf -o q.txt"
  "-|merge ref.gds other.gds -o m.gds"
  "o|info ref.gdf ref.gds"
  "o|plan --exact --capacity 1000"
)

# Every job with every choice of closed streams: a job that does not use a
# closed stream does all it does with every stream open, byte for byte (and
# prints the same on standard output if that is open); one that uses it
# fails, says why if it can, and leaves every file as it found it. (A lock
# file or temporary file left behind, or a file created, changes the state.)
# Under AddressSanitizer each stream closed alone and all three: the pairs
# join what those run, and the release build runs them (152 runs of the
# command were 31 s of the sanitizer suite).
case_each_job_with_each_stream_closed() {
  make_template
  local job uses args closed reference printed before used
  local closures=(0 1 2 01 02 12 012)
  if [ "$SANITIZED" -eq 1 ]; then
    closures=(0 1 2 012)
    echo "  streams closed: ${closures[*]} (AddressSanitizer)"
  fi
  before=$(cd template && state)
  for job in "${JOBS[@]}"; do
    uses=${job%%|*}
    args=${job#*|}
    local in=/dev/null
    [[ $uses != *i* ]] || in=in.txt
    fresh reference
    run_with "$in" "$SCRATCH/stdout" "" $args
    if [ "$STATUS" -ne 0 ]; then
      fail "$args: exit status $STATUS with every stream open: $ERR"
      continue
    fi
    reference=$(state)
    printed=$(sha256sum <"$SCRATCH/stdout")
    for closed in "${closures[@]}"; do
      fresh run
      : >"$SCRATCH/stdout"
      run_with "$in" "$SCRATCH/stdout" "$closed" $args
      used=0
      [[ $closed != *0* || $uses != *i* ]] || used=1
      [[ $closed != *1* || $uses != *o* ]] || used=1
      local what="$args, descriptors $closed closed"
      if [ "$used" -eq 1 ]; then
        [ "$STATUS" -ne 0 ] || fail "$what: exit status 0"
        [ "$(state)" = "$before" ] ||
          fail "$what: files changed: $(diff <(echo "$before") <(state))"
        [[ $closed == *2* ]] || grep -qF "Bad file descriptor" <<<"$ERR" ||
          fail "$what: no word of the closed stream: $ERR"
      else
        [ "$STATUS" -eq 0 ] || fail "$what: exit status $STATUS: $ERR"
        [ "$(state)" = "$reference" ] ||
          fail "$what: not what it did with every stream open:" \
            "$(diff <(echo "$reference") <(state))"
        [[ $closed == *1* ]] || [ "$(sha256sum <"$SCRATCH/stdout")" = "$printed" ] ||
          fail "$what: printed something else than with every stream open"
      fi
    done
  done
}

# The repro of a closed standard output with a file to save: the kept
# records went into the lock file of the set or filter (descriptor 1), the
# file was saved with their keys, exit 0, and the next run dropped them as
# seen. Now nothing is saved, and the next run keeps them all.
case_closed_stdout_saves_no_keys() {
  distinct_urls 100 https://kept.example/ >in.txt
  local file extra
  for file in seen.gds seen.gdf; do
    for extra in "" "--stats st.json"; do
      rm -f seen.* st.json
      local exact=""
      [ "$file" = seen.gdf ] || exact=--exact
      run_with /dev/null /dev/null 1 dedup in.txt $exact -f "$file" $extra
      expect_failure
      expect_message "cannot write to standard output: Bad file descriptor"
      expect_message "was not updated"
      [ ! -e "$file" ] || fail "$file $extra: saved although its records were not written"
      [ ! -e st.json ] || fail "$file $extra: the statistics file was written"
      ls ./*.lock ./*.tmp.* >/dev/null 2>&1 && fail "$file $extra: a lock or temporary file is left"
      run_gdedup dedup in.txt $exact -f "$file"
      expect_status 0
      cmp -s "$SCRATCH/stdout" in.txt ||
        fail "$file $extra: the next run did not keep every record"
    done
  done
}

# The repro of a closed standard input: the output's lock file was read as
# the input, and the output replaced with nothing (or the parts of the
# previous run deleted for an empty MANIFEST, or an empty filter made),
# exit 0. Now the job fails and every file is as it was.
case_closed_stdin_replaces_nothing() {
  mkdir work && cd work || return
  distinct_urls 20 https://old.example/ >old.txt
  "$GDEDUP" dedup old.txt --output-parts parts -q
  "$GDEDUP" build old.txt -f old.gdf -q
  cp old.txt out.txt
  cp old.gdf keep.gdf
  local args
  for args in "dedup -o out.txt" "dedup --exact -o out.txt" "dedup --output-parts parts" \
              "build -f new.gdf" "build -f keep.gdf" "query -f old.gdf -o out.txt" \
              "dedup -o out.txt -f keep.gdf"; do
    local before
    before=$(state)
    run_with /dev/null /dev/null 0 $args
    expect_failure
    expect_message "cannot read input standard input at byte offset 0: Bad file descriptor"
    [ "$(state)" = "$before" ] || fail "$args: files changed: $(diff <(echo "$before") <(state))"
  done
  # The list of inputs from a closed standard input is unreadable, not empty.
  run_with /dev/null /dev/null 0 dedup --files-from - -o out.txt
  expect_status 1
  expect_message \
    "cannot read the list of inputs --files-from - (standard input): Bad file descriptor"
  cmp -s old.txt out.txt || fail "--files-from -: out.txt changed"
}

# A closed stream named as a file (/dev/stdin, /dev/stdout) leads nowhere
# either: its number is held by a descriptor that no name opens, not by
# /dev/null, whose reads would be an empty input and whose writes would
# vanish (with --recursive, a held root folder would be read whole).
case_closed_stream_named_as_a_file() {
  distinct_urls 20 https://named.example/ >in.txt
  cp in.txt out.txt
  local recursive
  for recursive in "" --recursive; do
    run_with /dev/null /dev/null 0 dedup /dev/stdin -o out.txt $recursive
    expect_failure
    expect_message "cannot open input /dev/stdin: No such device or address"
    cmp -s in.txt out.txt || fail "/dev/stdin $recursive: out.txt changed"
  done
  run_with /dev/null /dev/null 1 dedup in.txt -o /dev/stdout -f f.gdf
  expect_failure
  expect_message "cannot create output /dev/stdout: No such device or address"
  [ ! -e f.gdf ] || fail "-o /dev/stdout: f.gdf saved although the records went nowhere"
}

# Every command that prints on standard output fails, exit 1, when standard
# output cannot take it (a full disk: /dev/full), instead of leaving a
# short or empty file and exit 0; a job's file is not saved either.
case_full_stdout_is_an_error() {
  [ -w /dev/full ] || { echo "  (no /dev/full here: case skipped)"; return; }
  make_template
  cd template || return
  local args
  for args in "dedup in.txt" "dedup in.txt --exact" "query in.txt -f ref.gdf" \
              "info ref.gdf" "info --json ref.gds" "info ref.gdf ref.gds --json" \
              "plan --capacity 1e6" "plan --capacity 1e6 --json" "plan --exact --capacity 1e6" \
              "plan --exact --capacity 1e6 --json" "bench --list-backends" \
              "bench --keys 1000 --urls 1000" "bench --keys 1000 --urls 0 --json" \
              "--help" "--version" "dedup --help" "info --help"; do
    run_with /dev/null /dev/full "" $args
    [ "$STATUS" -eq 1 ] || fail "$args > /dev/full: exit status $STATUS, expected 1: $ERR"
    grep -qF "cannot write to standard output: No space left on device" <<<"$ERR" ||
      fail "$args > /dev/full: no word of the full disk: $ERR"
  done
  run_with /dev/null /dev/full "" dedup in.txt --exact -f s.gds
  [ "$STATUS" -eq 1 ] && [ ! -e s.gds ] || fail "dedup -f > /dev/full: status $STATUS, or saved"
}

# A reader that went away before the command printed (`| head`) is no
# error, for these commands as for the records of dedup: exit 0, nothing
# said. The pipe has its writer and no reader, so the first write fails.
case_gone_reader_is_no_error() {
  make_template
  cd template || return
  mkfifo pipe
  local reader writer args
  exec {reader}<>pipe {writer}>pipe
  exec {reader}<&-
  for args in "info ref.gdf" "info --json ref.gds" "plan --capacity 1e6" \
              "plan --exact --capacity 1e6" "bench --list-backends" "--help" "--version"; do
    run_with /dev/null "&$writer" "" $args
    [ "$STATUS" -eq 0 ] || fail "$args | (gone): exit status $STATUS: $ERR"
    [ -z "$ERR" ] || fail "$args | (gone): said something: $ERR"
  done
  exec {writer}>&-
}

run_cases
