#!/usr/bin/env bash
# Byte identity of two builds of the command: runs each scenario below with
# OLD and NEW on the same generated URLs and compares, scenario by scenario,
# the exit status, standard output, the output file, the filter file, the
# --stats JSON (less its timings) and the messages on stderr (less the
# numbers that are times or rates). For a change that must not change
# behaviour: a refactoring of how jobs run.
#
# usage: OLD=old/gdedup NEW=build/gdedup [GEN=build/bench/gen_urls] bench/identity.sh
# Exit status 1 when a scenario differs (each difference is printed).
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

# The parts of stderr and --stats that differ from run to run.
untimed_err() { sed -E 's/[0-9.]+ s \([^)]*\)/T/; s/in [0-9.]+ s/in T/' "$1"; }
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
run() {
  local name=$1 side
  shift
  for side in old new; do
    local dir=$work/$name.$side bin=$OLD
    [ "$side" = new ] && bin=$NEW
    mkdir -p "$dir"
    cp "$work/urls.txt" "$work/more.txt" "$work/urls.txt.gz" "$work/list.txt" "$dir/"
    (cd "$dir" && BIN=$bin && eval "${SETUP:-}" && eval "$*" >stdout 2>stderr </dev/null
     echo $? >status)
    sed -i "s|$dir|DIR|g" "$dir/stderr" "$dir/stdout"
  done
  local a=$work/$name.old b=$work/$name.new f
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
[ $failed = 0 ] && echo "identical: every scenario" || echo "DIFFERENCES found"
exit $failed
