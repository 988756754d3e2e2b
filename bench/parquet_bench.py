#!/usr/bin/env python3
"""Parquet to Parquet, order-keeping dedup by the url column: gdedup against
pyarrow's own read and write of the whole table and DuckDB's window query.

Generates ROWS rows (url, status, rn, crawl; zstd, 1M-row groups) from a
fixed seed with about 60% distinct URLs, then times each tool RUNS times
and prints the medians of wall and CPU time (user and system: the figure
that holds on a machine shared with other work) and each run's peak RSS
(the child's ru_maxrss).
DuckDB is skipped, saying so, where it is not installed.

With `lines` after the folder it times the url column written as text
instead: gdedup's dedup with --output-format lines (the kept URLs, one a
line) against DuckDB's COPY of the url column to a text file (every URL).

    python3 bench/parquet_bench.py BUILD/gdedup [ROWS] [RUNS] [FOLDER] [lines]
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

GDEDUP = sys.argv[1]
ROWS = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10_000_000
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
FOLDER = sys.argv[4] if len(sys.argv) > 4 else "/tmp/gdedup-parquet-bench"
LINES = len(sys.argv) > 5 and sys.argv[5] == "lines"
GROUP = 1_000_000


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
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


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
DUCKDB_TEXT = """
import sys, duckdb
duckdb.sql("COPY (SELECT url FROM '%s') TO '%s'" % (sys.argv[1], sys.argv[2]))
"""


def to_parquet(source, out):
    """Parquet to Parquet: the tools that keep every column."""
    tools = {
        "gdedup dedup (Bloom)": [GDEDUP, "dedup", "-q", "--key", "column:url", source, "-o", out],
        "gdedup dedup --exact": [GDEDUP, "dedup", "-q", "--exact", "--key", "column:url",
                                 source, "-o", out],
        "pyarrow read + write": [sys.executable, "-c", PYARROW, source, out],
    }
    try:
        import duckdb  # noqa: F401
        tools["DuckDB order-keeping query"] = [sys.executable, "-c", DUCKDB, source, out]
    except ImportError:
        print("DuckDB not installed: left out")
    return tools


def to_text(source, out):
    """The url column to text."""
    tools = {
        "gdedup dedup --output-format lines (Bloom)":
            [GDEDUP, "dedup", "-q", "--key", "column:url", "--output-format", "lines", source,
             "-o", out],
    }
    try:
        import duckdb  # noqa: F401
        tools["DuckDB COPY url to text"] = [sys.executable, "-c", DUCKDB_TEXT, source, out]
    except ImportError:
        print("DuckDB not installed: left out")
    return tools


def main():
    os.makedirs(FOLDER, exist_ok=True)
    source = os.path.join(FOLDER, "rows-%d.parquet" % ROWS)
    if not os.path.exists(source):
        generate(source)
    out = os.path.join(FOLDER, "out.txt" if LINES else "out.parquet")
    tools = to_text(source, out) if LINES else to_parquet(source, out)
    size = os.path.getsize(source) / 1e6
    print("%d rows, %.0f MB, %d runs each" % (ROWS, size, RUNS))
    print("| tool | median s | runs s | median CPU s | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for name, argv in tools.items():
        runs = [timed(argv) for _ in range(RUNS)]
        seconds = [r[0] for r in runs]
        print("| %s | %.2f | %s | %.2f | %.0f |" % (
            name, statistics.median(seconds), " ".join("%.2f" % s for s in seconds),
            statistics.median(r[2] for r in runs), max(r[1] for r in runs)))
        if name.startswith("gdedup dedup --exact"):
            kept = pq.ParquetFile(out).metadata.num_rows
            print("|  (kept %d of %d rows) | | | | |" % (kept, ROWS))
        if LINES:
            with open(out, "rb") as text:
                lines = sum(block.count(b"\n") for block in iter(lambda: text.read(1 << 20), b""))
            print("|  (wrote %d lines, %.0f MB) | | | | |" % (lines, os.path.getsize(out) / 1e6))


main()
