#!/usr/bin/env bash
# Byte identity of two builds of the command: runs each scenario below with
# OLD and NEW on the same generated URLs and compares, scenario by scenario,
# the exit status, standard output, the output file, the filter file, the
# --stats JSON (less its timings) and the messages on stderr (less the
# numbers that are times or rates). For a change that must not change
# behaviour: a refactoring of how jobs run.
#
# usage: OLD=old/gdedup NEW=build/gdedup [GEN=build/bench/gen_urls]
#        [FAULTS=build/gdedup-faults] bench/identity.sh
# FAULTS (a build that fails its Nth checkpoint write, GDEDUP_FAIL_REPLACEMENT)
# leaves the checkpoints that the resume scenarios continue; without it they
# are skipped. Exit status 1 when a scenario differs (each difference is
# printed).
set -uo pipefail
# mpirun as root, on shared memory (as tests/mpi/lib.sh).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
: "${OLD:?set OLD to the old gdedup}" "${NEW:?set NEW to the new gdedup}"
OLD=$(realpath "$OLD") NEW=$(realpath "$NEW")
gen=${GEN:-$(dirname "$NEW")/bench/gen_urls}
work=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
"$gen" -n 200000 -s 7 -o "$work/urls.txt" -q
"$gen" -n 50000 -s 8 -o "$work/more.txt" -q
gzip -c "$work/urls.txt" >"$work/urls.txt.gz"
printf '%s\n' "$work/more.txt" "$work/urls.txt.gz" >"$work/list.txt"
# The URLs as JSON lines and CDXJ lines, every 997th without its url (and
# every 1999th not JSON at all), for the json: and cdxj: keys.
awk '{ gsub(/[\\"]/, "\\\\&") }
     NR % 1999 == 0 { print "not json " $0; next }
     NR % 997 == 0 { printf "{\"n\":%d}\n", NR; next }
     { printf "{\"n\":%d,\"url\":\"%s\"}\n", NR, $0 }' "$work/urls.txt" >"$work/urls.jsonl"
awk '{ gsub(/[\\"]/, "\\\\&") }
     NR % 997 == 0 { printf "com,example)/%d 2024%010d {\"status\":\"200\"}\n", NR, NR; next }
     { printf "com,example)/%d 2024%010d {\"url\":\"%s\"}\n", NR % 5000, NR, $0 }' \
  "$work/urls.txt" >"$work/urls.cdxj"
inputs=("$work/urls.txt" "$work/more.txt" "$work/urls.txt.gz" "$work/list.txt" "$work/urls.jsonl"
        "$work/urls.cdxj")

# The parts of stderr and --stats that differ from run to run.
# mpirun's report of a rank that failed names whichever failed first.
untimed_err() {
  sed -E 's/[0-9.]+ s \([^)]*\)/T/; s/in [0-9.]+ s/in T/; /^ *Process name: \[\[/d' "$1"
}
untimed_stats() { grep -vE '"(seconds|records_per_second)"' "$1" 2>/dev/null || true; }

failed=0
# compare WHAT A B: says how A and B differ, if they do.
compare() {
  diff "$2" "$3" >"$work/diff" && return
  echo "$1 differ"
  cat "$work/diff"
  failed=1
}

# run NAME COMMAND...: runs COMMAND, in which $BIN is the build, with each
# build in a fresh folder of its own
# (a copy of the inputs), then compares what the two left.
# ONLY, a regular expression, runs only the scenarios whose names match it.
run() {
  local name=$1 side
  shift
  [[ -z "${ONLY:-}" || $name =~ $ONLY ]] || return 0
  for side in old new; do
    local dir=$work/$name.$side bin=$OLD
    [ "$side" = new ] && bin=$NEW
    mkdir -p "$dir"
    cp "${inputs[@]}" "$dir/"
    (cd "$dir" && BIN=$bin && FAULTS=${FAULTS:-} && eval "${SETUP:-}" 2>setup.err &&
       eval "$*" >stdout 2>stderr </dev/null
     echo $? >status)
    sed -i "s|$dir|DIR|g" "$dir/stderr" "$dir/stdout"
  done
  local a=$work/$name.old b=$work/$name.new f
  # A checkpoint names its output's temporary file, a random name: whether
  # one is left is compared.
  local left_a=no left_b=no
  [ -e "$a/ck" ] && left_a=yes
  [ -e "$b/ck" ] && left_b=yes
  [ $left_a = $left_b ] || { echo "$name: a checkpoint is left by one build only"; failed=1; }
  for f in status stdout out.txt seen.gdf; do
    if [ -e "$a/$f" ] || [ -e "$b/$f" ]; then
      cmp -s "$a/$f" "$b/$f" || { echo "$name: $f differs"; failed=1; }
    fi
  done
  compare "$name: stats" <(untimed_stats "$a/stats.json") <(untimed_stats "$b/stats.json")
  compare "$name: stderr" <(untimed_err "$a/stderr") <(untimed_err "$b/stderr")
  echo "$name: exit $(cat "$a/status")"
}

# The filter file an earlier job left.
built='$BIN build more.txt -f seen.gdf -q'
run dedup-fixed \$BIN dedup urls.txt -o out.txt -f seen.gdf --capacity 300K --stats stats.json
run dedup-grow \$BIN dedup urls.txt more.txt -o out.txt -f seen.gdf --stats stats.json
run dedup-layers \$BIN dedup urls.txt -o out.txt -f seen.gdf --capacity 1000 --stats stats.json
run dedup-gzip \$BIN dedup urls.txt.gz -o out.txt --stats stats.json
run dedup-list \$BIN dedup --files-from list.txt -o out.txt --stats stats.json
run duplicates \$BIN dedup --duplicates urls.txt -o out.txt --capacity 300K
run dedup-stdout \$BIN dedup urls.txt --capacity 300K
run dedup-threads \$BIN dedup urls.txt -o out.txt --threads 2 --piece-bytes 1M --capacity 300K
run overfull \$BIN dedup urls.txt -o out.txt -f seen.gdf --capacity 1000 --no-grow \
  --stats stats.json
run max-memory \$BIN dedup urls.txt -o out.txt -f seen.gdf --capacity 1000 --max-memory 64K
run build \$BIN build urls.txt -f seen.gdf --capacity 300K --stats stats.json
SETUP=$built run build-extend \$BIN \
  build urls.txt -f seen.gdf --stats stats.json
SETUP=$built run query \$BIN query urls.txt -f seen.gdf -o out.txt --stats stats.json
SETUP=$built run query-absent \$BIN query --absent urls.txt -f seen.gdf -o out.txt
SETUP='$BIN build more.txt -f seen.gdf -q --key field:2 --delimiter /' \
  run rules-refused \$BIN dedup urls.txt -f seen.gdf -o out.txt
run checkpointed \$BIN dedup urls.txt -o out.txt -f seen.gdf --checkpoint ck \
  --checkpoint-every 50K --stats stats.json
SETUP='touch ck' run checkpoint-exists \$BIN dedup urls.txt -o out.txt --checkpoint ck
run resume-none \$BIN dedup urls.txt -o out.txt --checkpoint ck --resume
run bad-capacity \$BIN dedup urls.txt --capacity 0
run bad-fpr \$BIN dedup urls.txt --fpr 0.9
run high-memory-fpr \$BIN dedup urls.txt -o out.txt --memory 4K
run fixed-max-memory \$BIN dedup urls.txt --no-grow --max-memory 1G
run missing-input \$BIN dedup nothing.txt -o out.txt
run stdin-twice \$BIN dedup - - -o out.txt
run stdin-no-size \$BIN dedup --no-grow -o out.txt
run resume-stdout \$BIN dedup urls.txt --checkpoint ck
for ranks in 1 2 3; do
  run mpi-dedup-$ranks mpirun --oversubscribe -n $ranks \$BIN dedup --mpi urls.txt more.txt \
    -o out.txt -f seen.gdf --stats stats.json
  run mpi-build-$ranks mpirun --oversubscribe -n $ranks \$BIN build --mpi urls.txt -f seen.gdf \
    --capacity 1000 --stats stats.json
done

# Exact mode: a new set, an existing set file, query, checkpoints and
# resume, the cap, a capacity, and what exact mode refuses.
set_built='$BIN build --exact more.txt -f seen.gdf -q'
run exact-dedup \$BIN dedup --exact urls.txt more.txt -o out.txt -f seen.gdf --stats stats.json
run exact-gzip \$BIN dedup --exact --files-from list.txt -o out.txt --stats stats.json
run exact-duplicates \$BIN dedup --exact --duplicates urls.txt -o out.txt
run exact-threads \$BIN dedup --exact urls.txt -o out.txt --threads 2 --filter-threads 1 \
  --piece-bytes 1M --stats stats.json
run exact-stdout \$BIN dedup --exact urls.txt
run exact-build \$BIN build --exact urls.txt -f seen.gdf --stats stats.json
SETUP=$set_built run exact-extend \$BIN dedup --exact urls.txt -f seen.gdf -o out.txt \
  --stats stats.json
SETUP=$set_built run exact-query \$BIN query --exact urls.txt -f seen.gdf -o out.txt \
  --stats stats.json
SETUP=$set_built run exact-query-absent \$BIN query --exact --absent urls.txt -f seen.gdf \
  -o out.txt
run exact-query-none \$BIN query --exact urls.txt -f seen.gdf -o out.txt
SETUP='$BIN build --exact more.txt -f seen.gdf -q --key field:2 --delimiter /' \
  run exact-rules-refused \$BIN dedup --exact urls.txt -f seen.gdf -o out.txt
SETUP='$BIN build --exact more.txt -f seen.gdf -q --key field:2 --delimiter /' \
  run exact-rules-ignored \$BIN dedup --exact urls.txt -f seen.gdf -o out.txt \
  --ignore-key-rules
SETUP=$built run exact-on-filter \$BIN dedup --exact urls.txt -f seen.gdf -o out.txt
SETUP=$set_built run filter-on-set \$BIN dedup urls.txt -f seen.gdf -o out.txt
run exact-checkpointed \$BIN dedup --exact urls.txt -o out.txt -f seen.gdf --checkpoint ck \
  --checkpoint-every 50K --stats stats.json
SETUP='touch ck' run exact-checkpoint-exists \$BIN dedup --exact urls.txt -o out.txt \
  --checkpoint ck
run exact-resume-none \$BIN dedup --exact urls.txt -o out.txt --checkpoint ck --resume
run exact-max-memory \$BIN dedup --exact urls.txt -o out.txt -f seen.gdf --max-memory 1M
SETUP=$set_built run exact-max-memory-file \$BIN dedup --exact urls.txt -f seen.gdf \
  -o out.txt --max-memory 4K
run exact-capacity \$BIN dedup --exact urls.txt -o out.txt --capacity 300K --stats stats.json
run exact-capacity-cap \$BIN dedup --exact urls.txt -o out.txt --capacity 100M --max-memory 1M
run exact-capacity-zero \$BIN dedup --exact urls.txt -o out.txt --capacity 0
for refused in '--fpr 0.01' '--memory 1M' '--block-bits 256' '--allow-high-fpr' '--no-grow' \
               '--input-format u64' '--backend nope' '--threads 0'; do
  run "exact-refused${refused// /}" \$BIN dedup --exact urls.txt -o out.txt $refused
done
if [ -n "${FAULTS:-}" ]; then
  FAULTS=$(realpath "$FAULTS")
  # The checkpoint left by a run (exact where $1 is --exact) whose third
  # checkpoint write failed.
  stopped() {
    echo "GDEDUP_FAIL_REPLACEMENT=3:ck \$FAULTS dedup $* urls.txt more.txt -o out.txt" \
      "-f seen.gdf --checkpoint ck --checkpoint-every 30K --batch 5000 -q; [ -e ck ]"
  }
  SETUP=$(stopped) run resume \$BIN dedup urls.txt more.txt -o out.txt -f seen.gdf \
    --checkpoint ck --checkpoint-every 30K --batch 5000 --resume --stats stats.json
  SETUP=$(stopped --exact) run exact-resume \$BIN dedup --exact urls.txt more.txt -o out.txt \
    -f seen.gdf --checkpoint ck --checkpoint-every 30K --batch 5000 --resume --stats stats.json
  SETUP=$(stopped --exact) run exact-resume-other \$BIN dedup --exact urls.txt -o out.txt \
    -f seen.gdf --checkpoint ck --resume
  SETUP=$(stopped --exact) run exact-resume-as-filter \$BIN dedup urls.txt more.txt \
    -o out.txt -f seen.gdf --checkpoint ck --resume
  SETUP=$(stopped --exact) run exact-resume-cap \$BIN dedup --exact urls.txt more.txt \
    -o out.txt -f seen.gdf --checkpoint ck --resume --max-memory 4K
  SETUP=$(stopped) run mpi-resume mpirun --oversubscribe -n 2 \$BIN dedup --mpi urls.txt \
    more.txt -o out.txt -f seen.gdf --checkpoint ck --checkpoint-every 30K --resume \
    --stats stats.json
  SETUP=$(stopped --exact) run mpi-exact-resume mpirun --oversubscribe -n 2 \$BIN dedup \
    --mpi --exact urls.txt more.txt -o out.txt -f seen.gdf --checkpoint ck \
    --checkpoint-every 30K --resume --stats stats.json
fi

# JSON and CDXJ keys, and records without theirs.
for missing in keep drop error; do
  run json-$missing \$BIN dedup urls.jsonl --key json:url --missing-key $missing -o out.txt \
    -f seen.gdf --stats stats.json
  run exact-json-$missing \$BIN dedup --exact urls.jsonl --key json:url --missing-key $missing \
    -o out.txt -f seen.gdf --stats stats.json
  run cdxj-$missing \$BIN dedup urls.cdxj --key cdxj:url --missing-key $missing -o out.txt \
    --stats stats.json
  run exact-cdxj-$missing \$BIN dedup --exact urls.cdxj --key cdxj:url --missing-key $missing \
    -o out.txt --stats stats.json
done
run cdxj-surt \$BIN dedup urls.cdxj --key cdxj:surt -o out.txt -f seen.gdf --stats stats.json
run json-normalized \$BIN dedup --exact urls.jsonl --key json:url --normalize url \
  --missing-key drop -o out.txt --stats stats.json
SETUP='$BIN build urls.jsonl --key json:url --missing-key drop -f seen.gdf -q' \
  run json-query \$BIN query urls.jsonl --key json:url --missing-key keep -f seen.gdf -o out.txt
SETUP='$BIN build urls.jsonl --key json:url --missing-key drop -f seen.gdf -q' \
  run json-rules-refused \$BIN dedup urls.txt -f seen.gdf -o out.txt

# merge of filters and of sets.
two='$BIN build more.txt -f a.gdf -q --capacity 300K && $BIN build urls.txt -f b.gdf -q'
SETUP="$two --capacity 300K" run merge-filters \$BIN merge a.gdf b.gdf -o seen.gdf
SETUP='$BIN build more.txt -f a.gdf -q && $BIN build urls.txt -f b.gdf -q --capacity 1000' \
  run merge-grown \$BIN merge a.gdf b.gdf -o seen.gdf
SETUP="$two --capacity 1M" run merge-unlike \$BIN merge a.gdf b.gdf -o seen.gdf
SETUP='$BIN build --exact more.txt -f a.gdf -q && $BIN build --exact urls.txt -f b.gdf -q' \
  run merge-sets \$BIN merge a.gdf b.gdf -o seen.gdf
SETUP='$BIN build --exact more.txt -f a.gdf -q && $BIN build --exact urls.txt -f b.gdf -q' \
  run merge-sets-cap \$BIN merge a.gdf b.gdf -o seen.gdf --max-memory 64K
SETUP='$BIN build --exact more.txt -f a.gdf -q && $BIN build urls.txt -f b.gdf -q' \
  run merge-mixed \$BIN merge a.gdf b.gdf -o seen.gdf

# Exact mode on 1 to 3 ranks: new, from a set file, capped, refused.
for ranks in 1 2 3; do
  mpi="mpirun --oversubscribe -n $ranks \$BIN"
  run mpi-exact-dedup-$ranks $mpi dedup --mpi --exact urls.txt more.txt -o out.txt -f seen.gdf \
    --stats stats.json
  run mpi-exact-build-$ranks $mpi build --mpi --exact urls.txt -f seen.gdf --capacity 1000 \
    --stats stats.json
  SETUP=$set_built run mpi-exact-query-$ranks $mpi query --mpi --exact urls.txt -f seen.gdf \
    -o out.txt --stats stats.json
  run mpi-exact-max-memory-$ranks $mpi dedup --mpi --exact urls.txt -o out.txt --max-memory 64K
done
SETUP=$built run mpi-query mpirun --oversubscribe -n 2 \$BIN query --mpi urls.txt -f seen.gdf \
  -o out.txt --stats stats.json
run mpi-exact-cap-run mpirun --oversubscribe -n 2 \$BIN dedup --mpi --exact urls.txt \
  -o out.txt -f seen.gdf --max-memory 512K
SETUP=$set_built run mpi-exact-cap-file mpirun --oversubscribe -n 2 \$BIN dedup --mpi --exact \
  urls.txt -f seen.gdf -o out.txt --max-memory 4K
run mpi-exact-gpu mpirun --oversubscribe -n 2 \$BIN dedup --mpi --exact --backend gpu urls.txt \
  -o out.txt
run mpi-exact-threads mpirun --oversubscribe -n 2 \$BIN dedup --mpi --exact --threads 2 \
  urls.txt -o out.txt
[ $failed = 0 ] && echo "identical: every scenario" || echo "DIFFERENCES found"
exit $failed
