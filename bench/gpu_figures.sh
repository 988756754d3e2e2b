#!/usr/bin/env bash
# The benchmark figures of a device run (bench/gpu_check.sh), read from
# gpu_ops_bench's JSON (Google Benchmark's own output, one field a line):
#
#   bash bench/gpu_figures.sh json BENCH_JSON   the rows of figures.json's
#                                               "benchmarks" array
#   bash bench/gpu_figures.sh text BENCH_JSON   one line a benchmark, for the
#                                               log's summary
#   bash bench/gpu_figures.sh check BENCH_JSON  one line a row that does not
#                                               measure what it says: a
#                                               streamed row without at least
#                                               4 batches, an exact-set row
#                                               whose set grew (none: nothing)
#
# Every benchmark is a row, whatever it measures: its name, keys/s, ms a
# call, every counter it sets (fill_percent of a filter's add, contains and
# test_and_set; set_MiB and growths of the exact set's test_and_insert) and
# the error of one that could not run. Nothing is printed without the file.
set -uo pipefail

mode=${1:?usage: gpu_figures.sh json|text|check BENCH_JSON}
json=${2:?usage: gpu_figures.sh json|text|check BENCH_JSON}
[ -f "$json" ] || exit 0
case "$mode" in
  json | text | check) ;;
  *) echo "gpu_figures.sh: the mode is json, text or check, not $mode" >&2; exit 2 ;;
esac

awk -v mode="$mode" '
  BEGIN {
    # The fields Google Benchmark writes itself: any other number is a counter.
    n = split("family_index per_family_instance_index run_name run_type repetitions " \
              "repetition_index threads iterations real_time cpu_time time_unit " \
              "items_per_second bytes_per_second label error_occurred error_message " \
              "aggregate_name aggregate_unit", fields, " ")
    for (i = 1; i <= n; ++i) standard[fields[i]] = 1
  }
  function value(line) { sub(/^[^:]*: */, "", line); sub(/,$/, "", line); return line }
  function key(line) { sub(/^ *"/, "", line); sub(/".*/, "", line); return line }
  function unquoted(text) { gsub(/^"|"$/, "", text); return text }
  function counter_of(wanted,   i) {
    for (i = 1; i <= count; ++i) if (counter[i] == wanted) return amount[i]
    return ""
  }
  function flush(   i, line, batches, growths) {
    if (name == "") return
    if (mode == "check") {
      batches = counter_of("batches"); growths = counter_of("growths")
      if (err == "" && name ~ /^"gpu_streamed\// && (batches == "" || batches + 0 < 4))
        printf "%s ran %s batches a call, not at least 4: nothing overlapped\n", unquoted(name),
               batches == "" ? "no count of" : sprintf("%g", batches)
      if (err == "" && name ~ /\/exact-set/ && (growths == "" || growths + 0 != 0))
        printf "%s grew its set (growths %s) inside the timed call\n", unquoted(name),
               growths == "" ? "not counted" : sprintf("%g", growths)
    } else if (mode == "json") {
      line = sprintf("{\"name\": %s, \"keys_per_second\": %s, \"ms_per_call\": %s", name,
                     ips == "" ? "null" : ips, ms == "" ? "null" : ms)
      for (i = 1; i <= count; ++i) line = line sprintf(", \"%s\": %s", counter[i], amount[i])
      if (err != "") line = line ", \"error\": " err
      printf "%s\n    %s}", sep, line
      sep = ","
    } else {
      line = sprintf("%-60s %s", unquoted(name),
                     ips == "" ? "        -" : sprintf("%9.4g keys/s", ips))
      if (ms != "") line = line sprintf(" %9.4g ms", ms)
      for (i = 1; i <= count; ++i) line = line sprintf(" %s=%.4g", counter[i], amount[i])
      if (err != "") line = line " error: " unquoted(err)
      print line
    }
    name = ""; ips = ""; ms = ""; err = ""; count = 0
  }
  /"benchmarks": \[/ { inside = 1; next }
  !inside { next }
  /^    [{]/ { flush(); next }
  /^      "/ {
    k = key($0); v = value($0)
    if (k == "name") name = v
    else if (k == "items_per_second") ips = v
    else if (k == "real_time") ms = v
    else if (k == "error_message") err = v
    else if (!(k in standard) && v ~ /^-?[0-9]/) { counter[++count] = k; amount[count] = v }
  }
  END { flush() }
' "$json"
