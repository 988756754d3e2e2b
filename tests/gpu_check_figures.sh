#!/usr/bin/env bash
# bench/gpu_figures.sh, which gives figures.json and the log's summary of a
# device run (bench/gpu_check.sh), on a saved gpu_ops_bench JSON: every
# benchmark is a row with its keys/s and every counter it sets, the exact
# set's test_and_insert (set_MiB, growths) as much as a filter's operations
# (fill_percent), and one that could not run with its error; and the check
# of the rows that would not measure what they say (a streamed call in
# fewer than 4 batches, an exact set that grew while timed).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu_figures_test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

# Google Benchmark's JSON as gpu_ops_bench writes it (the stand-in's run,
# cut to three benchmarks and one that could not run).
cat >"$work/bench.json" <<'JSON'
{
  "context": {
    "date": "2026-12-03T17:51:00+00:00",
    "caches": [
      {
        "type": "Data",
        "level": 1,
        "size": 49152,
        "num_sharing": 1
      }
    ],
    "library_build_type": "release"
  },
  "benchmarks": [
    {
      "name": "gpu_device/test_and_set/random/64MiB/manual_time",
      "family_index": 0,
      "per_family_instance_index": 0,
      "run_name": "gpu_device/test_and_set/random/64MiB/manual_time",
      "run_type": "iteration",
      "repetitions": 1,
      "repetition_index": 0,
      "threads": 1,
      "iterations": 1,
      "real_time": 1.3477331161499023e+01,
      "cpu_time": 1.5197299999999970e-01,
      "time_unit": "ms",
      "fill_percent": 2.5000186637043953e+01,
      "items_per_second": 4.8626838069556439e+06,
      "label": "cuda (CUDA stand-in on the CPU, device 0)"
    },
    {
      "name": "gpu_device/test_and_insert/random/exact-set/manual_time",
      "family_index": 1,
      "per_family_instance_index": 0,
      "run_name": "gpu_device/test_and_insert/random/exact-set/manual_time",
      "run_type": "iteration",
      "repetitions": 1,
      "repetition_index": 0,
      "threads": 1,
      "iterations": 2,
      "real_time": 7.3663728237152100e+00,
      "cpu_time": 7.4643084999999960e+00,
      "time_unit": "ms",
      "growths": 1.0000000000000000e+00,
      "items_per_second": 8.8966444637466911e+06,
      "set_MiB": 9.6000000000000000e+01
    },
    {
      "name": "gpu_streamed/test_and_set/random/64MiB/manual_time",
      "family_index": 2,
      "per_family_instance_index": 0,
      "run_name": "gpu_streamed/test_and_set/random/64MiB/manual_time",
      "run_type": "iteration",
      "repetitions": 1,
      "repetition_index": 0,
      "threads": 1,
      "iterations": 1,
      "real_time": 2.0000000000000000e+01,
      "cpu_time": 1.0000000000000000e+00,
      "time_unit": "ms",
      "batches": 4.0000000000000000e+00,
      "copy_back_ms": 2.0000000000000000e-01,
      "copy_in_ms": 1.2000000000000000e+00,
      "fill_percent": 2.5000186637043953e+01,
      "kernel_ms": 1.5000000000000000e+01,
      "items_per_second": 5.2428800000000000e+07
    },
    {
      "name": "gpu_streamed/contains/random/64MiB/manual_time",
      "run_type": "iteration",
      "real_time": 2.5000000000000000e+01,
      "time_unit": "ms",
      "batches": 1.0000000000000000e+00,
      "items_per_second": 5.2428800000000000e+07
    },
    {
      "name": "gpu_device/test_and_insert/hot-key/exact-set/manual_time",
      "family_index": 3,
      "per_family_instance_index": 0,
      "run_name": "gpu_device/test_and_insert/hot-key/exact-set/manual_time",
      "run_type": "iteration",
      "repetitions": 1,
      "repetition_index": 0,
      "threads": 1,
      "iterations": 0,
      "real_time": 0.0000000000000000e+00,
      "cpu_time": 0.0000000000000000e+00,
      "time_unit": "ms",
      "error_occurred": true,
      "error_message": "the exact set needs a table of 96.0 MiB on GPU 0, more than its free memory"
    }
  ]
}
JSON

bash "$root/bench/gpu_figures.sh" json "$work/bench.json" >"$work/rows" || fail "json exited $?"
# As gpu_check.sh wraps them in figures.json.
{ printf '{"benchmarks": ['; cat "$work/rows"; printf '\n]}\n'; } >"$work/figures.json"
python3 - "$work/figures.json" <<'PY' || fail "figures.json rows: see above"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["benchmarks"]}
want = {
    "gpu_device/test_and_set/random/64MiB/manual_time":
        {"keys_per_second": 4862683.806955644, "fill_percent": 25.000186637043953},
    "gpu_device/test_and_insert/random/exact-set/manual_time":
        {"keys_per_second": 8896644.463746691, "ms_per_call": 7.36637282371521,
         "set_MiB": 96.0, "growths": 1.0},
    "gpu_device/test_and_insert/hot-key/exact-set/manual_time":
        {"error": "the exact set needs a table of 96.0 MiB on GPU 0, more than its free memory"},
    "gpu_streamed/test_and_set/random/64MiB/manual_time":
        {"batches": 4.0, "copy_in_ms": 1.2, "copy_back_ms": 0.2, "kernel_ms": 15.0},
    "gpu_streamed/contains/random/64MiB/manual_time": {"batches": 1.0},
}
ok = sorted(rows) == sorted(want)
for name, fields in want.items():
    for field, value in fields.items():
        ok = ok and rows.get(name, {}).get(field) == value
set_row = rows.get("gpu_device/test_and_insert/random/exact-set/manual_time", {})
ok = ok and "fill_percent" not in set_row
if not ok:
    print(json.dumps(rows, indent=1), file=sys.stderr)
sys.exit(0 if ok else 1)
PY

bash "$root/bench/gpu_figures.sh" text "$work/bench.json" >"$work/text" || fail "text exited $?"
[ "$(wc -l <"$work/text")" -eq 5 ] || fail "not one line a benchmark: $(cat "$work/text")"
set_line='^gpu_device/test_and_insert/random/exact-set/manual_time  *8\.897e+06 keys/s '
grep -q "$set_line.* growths=1 set_MiB=96\$" "$work/text" || fail "the exact set's row is not in the summary: $(cat "$work/text")"
grep -q '^gpu_device/test_and_set/random/64MiB/manual_time .*fill_percent=25$' "$work/text" ||
  fail "the filter's row is not in the summary: $(cat "$work/text")"
grep -q 'hot-key/exact-set/manual_time .*error: the exact set needs a table of 96.0 MiB' \
  "$work/text" || fail "the error is not in the summary: $(cat "$work/text")"

# The check names the exact set that grew and the streamed call of one
# batch, and nothing else (a row that could not run has its error already).
bash "$root/bench/gpu_figures.sh" check "$work/bench.json" >"$work/check" || fail "check exited $?"
cat >"$work/want_check" <<'TEXT'
gpu_device/test_and_insert/random/exact-set/manual_time grew its set (growths 1) inside the timed call
gpu_streamed/contains/random/64MiB/manual_time ran 1 batches a call, not at least 4: nothing overlapped
TEXT
diff "$work/want_check" "$work/check" >&2 || fail "the check's lines differ (above)"

# No benchmark JSON (the step was not run): nothing, and no failure.
[ -z "$(bash "$root/bench/gpu_figures.sh" json "$work/none.json")" ] || fail "rows without a file"
exit "$failed"
