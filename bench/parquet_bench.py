#!/usr/bin/env python3
"""Parquet to Parquet, order-keeping dedup by the url column: gdedup against
pyarrow's own read and write of the whole table and DuckDB's window query.

Generates ROWS rows (url, status, rn, crawl; zstd, GROUP-row groups, 1M
by default) from a fixed seed with about 60% distinct URLs, then times each
tool RUNS times, one run of each in turn, and prints the medians and each
tool's highest peak RSS (the child's ru_maxrss). GDEDUP may name several
builds, comma-separated, to compare them in one run. DuckDB is skipped,
saying so, where it is not installed.

    python3 bench/parquet_bench.py BUILD/gdedup[,OTHER/gdedup] [ROWS] [RUNS] [FOLDER] [GROUP]
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

GDEDUP = sys.argv[1].split(",")
ROWS = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10_000_000
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
FOLDER = sys.argv[4] if len(sys.argv) > 4 else "/tmp/gdedup-parquet-bench"
GROUP = int(float(sys.argv[5])) if len(sys.argv) > 5 else 1_000_000


def generate(path):
    rng = np.random.default_rng(45)
    writer = None
    for start in range(0, ROWS, GROUP):
        n = min(GROUP, ROWS - start)
        ids = rng.integers(0, int(ROWS * 0.75), n)
        urls = pa.array(["https://h%d.example/p/%d?q=%d" % (i % 9973, i, i % 7) for i in ids])
        table = pa.table({
            "url": urls,
            "status": pa.array(rng.choice([200, 301, 404], n).astype(np.int16)),
            "rn": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "crawl": pa.array(["CC-MAIN-2026-%02d" % (i % 50) for i in ids]),
        })
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, compression="zstd")
        writer.write_table(table, row_group_size=GROUP)
    writer.close()


def timed(argv):
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        sys.exit("%s failed: %s" % (argv[:3], child.stderr.read().decode()))
    return seconds, usage.ru_maxrss / 1024


PYARROW = """
import sys, pyarrow.parquet as pq
pq.write_table(pq.read_table(sys.argv[1]), sys.argv[2], compression="zstd",
               row_group_size=1_000_000)
"""
DUCKDB = """
import sys, duckdb
duckdb.sql("COPY (SELECT * FROM read_parquet('%s') QUALIFY row_number() OVER "
           "(PARTITION BY url ORDER BY rn) = 1 ORDER BY rn) TO '%s' "
           "(FORMAT parquet, COMPRESSION zstd)" % (sys.argv[1], sys.argv[2]))
"""


def main():
    os.makedirs(FOLDER, exist_ok=True)
    source = os.path.join(FOLDER, "rows-%d%s.parquet" % (
        ROWS, "" if GROUP == 1_000_000 else "-groups-%d" % GROUP))
    if not os.path.exists(source):
        generate(source)
    out = os.path.join(FOLDER, "out.parquet")
    tools = {}
    for gdedup in GDEDUP:
        which = "" if len(GDEDUP) == 1 else " (%s)" % gdedup
        tools["gdedup dedup (Bloom)" + which] = [gdedup, "dedup", "-q", "--key", "column:url",
                                                 source, "-o", out]
        tools["gdedup dedup --exact" + which] = [gdedup, "dedup", "-q", "--exact", "--key",
                                                 "column:url", source, "-o", out]
    tools["pyarrow read + write"] = [sys.executable, "-c", PYARROW, source, out]
    try:
        import duckdb  # noqa: F401
        tools["DuckDB order-keeping query"] = [sys.executable, "-c", DUCKDB, source, out]
    except ImportError:
        print("DuckDB not installed: left out")
    size = os.path.getsize(source) / 1e6
    print("%d rows, %.0f MB, %d runs each" % (ROWS, size, RUNS))
    print("| tool | median s | runs s | peak RSS MiB |")
    print("|---|---|---|---|")
    # In turn, so that a change in the machine's load falls on every tool.
    runs = {name: [] for name in tools}
    for _ in range(RUNS):
        for name, argv in tools.items():
            runs[name].append(timed(argv))
    for name in tools:
        seconds = [r[0] for r in runs[name]]
        print("| %s | %.2f | %s | %.0f |" % (name, statistics.median(seconds),
                                             " ".join("%.2f" % s for s in seconds),
                                             max(r[1] for r in runs[name])))


main()
