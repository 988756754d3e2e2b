#!/usr/bin/env python3
"""A Parquet dataset too large for memory, and the order-keeping dedup of it
by gdedup (Bloom and --exact) and DuckDB: issue 45's billion-row goal.

Writes ROWS rows with bench/parquet_bench.py's columns and URL shape (url,
status int16, rn int64, crawl; zstd, 1M-row groups) into FILES files, one
row group at a time from a fixed seed, so the generator itself holds one
group. It counts the distinct URLs as it goes (a URL is one id, so a bitmap
of the ids seen is the count) and checks each tool's kept rows against it.
Each tool's wall time and peak RSS (the child's ru_maxrss) are printed;
DuckDB is given MEMORY_LIMIT, a temporary folder under FOLDER and
DUCKDB_TIMEOUT seconds, after which it is killed and reported so, and
at most DUCKDB_SPILL of spilled data. The
dataset and the outputs are deleted at the end unless KEEP=1.

    python3 bench/parquet_large.py BUILD/gdedup [ROWS] [FILES] [FOLDER]
    env: TOOLS=bloom,exact,duckdb  MEMORY_LIMIT=8GB  DUCKDB_TIMEOUT=900  DUCKDB_SPILL=15GB
         KEEP=0
"""
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

GDEDUP = sys.argv[1]
ROWS = int(float(sys.argv[2])) if len(sys.argv) > 2 else 200_000_000
FILES = int(sys.argv[3]) if len(sys.argv) > 3 else 8
FOLDER = sys.argv[4] if len(sys.argv) > 4 else "/tmp/gdedup-parquet-large"
TOOLS = os.environ.get("TOOLS", "bloom,exact,duckdb").split(",")
MEMORY_LIMIT = os.environ.get("MEMORY_LIMIT", "8GB")
DUCKDB_TIMEOUT = float(os.environ.get("DUCKDB_TIMEOUT", "900"))
DUCKDB_SPILL = os.environ.get("DUCKDB_SPILL", "15GB")
GROUP = 1_000_000


def group_table(rng, start, n):
    """Rows start..start+n: parquet_bench.py's columns, built with Arrow's
    compute functions rather than a Python loop (the same strings)."""
    ids = rng.integers(0, int(ROWS * 0.75), n)
    as_text = lambda values: pc.cast(pa.array(values), pa.string())
    urls = pc.binary_join_element_wise(
        "https://h", as_text(ids % 9973), ".example/p/", as_text(ids), "?q=", as_text(ids % 7), "")
    crawl = pc.binary_join_element_wise(
        "CC-MAIN-2026-", pc.utf8_lpad(as_text(ids % 50), 2, "0"), "")
    table = pa.table({
        "url": urls,
        "status": pa.array(rng.choice([200, 301, 404], n).astype(np.int16)),
        "rn": pa.array(np.arange(start, start + n, dtype=np.int64)),
        "crawl": crawl,
    })
    return table, ids


def generate(paths):
    """Writes the files, a GROUP of rows at a time; returns the number of
    distinct URLs (ids)."""
    rng = np.random.default_rng(45)
    seen = np.zeros(int(ROWS * 0.75), dtype=bool)
    per_file = -(-ROWS // len(paths))
    start = 0
    for path in paths:
        writer = None
        end = min(ROWS, start + per_file)
        while start < end:
            n = min(GROUP, end - start)
            table, ids = group_table(rng, start, n)
            seen[ids] = True
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=GROUP)
            start += n
        writer.close()
    return int(np.count_nonzero(seen))


def timed(name, argv, timeout=None):
    """Runs argv; returns (seconds, peak RSS MiB, status), status None when
    it was killed at the timeout."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    killed = False
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if timeout and time.perf_counter() - started > timeout and not killed:
            os.killpg(child.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    err = child.stderr.read().decode(errors="replace").strip()
    code = None if killed else os.waitstatus_to_exitcode(status)
    if code not in (0, None):
        print("%s exited %s: %s" % (name, code, err[-2000:]))
    return seconds, usage.ru_maxrss / 1024, code


DUCKDB = """
import sys, duckdb
con = duckdb.connect()
con.execute("SET memory_limit = '%s'" % sys.argv[3])
con.execute("SET temp_directory = '%s'" % sys.argv[4])
con.execute("SET max_temp_directory_size = '%s'" % sys.argv[5])
con.execute("SET preserve_insertion_order = true")
con.execute("COPY (SELECT * FROM read_parquet(%r) QUALIFY row_number() OVER "
            "(PARTITION BY url ORDER BY rn) = 1 ORDER BY rn) TO '%s' "
            "(FORMAT parquet, COMPRESSION zstd)" % (sys.argv[1].split(","), sys.argv[2]))
"""


def kept_rows(path):
    return pq.ParquetFile(path).metadata.num_rows


def main():
    os.makedirs(FOLDER, exist_ok=True)
    paths = [os.path.join(FOLDER, "part-%02d.parquet" % i) for i in range(FILES)]
    started = time.perf_counter()
    distinct = generate(paths)
    size = sum(os.path.getsize(p) for p in paths)
    print("%d rows in %d files, %.2f GB, %d distinct URLs, generated in %.0f s"
          % (ROWS, FILES, size / 1e9, distinct, time.perf_counter() - started))
    out = os.path.join(FOLDER, "out.parquet")
    tools = {
        "bloom": ("gdedup dedup (Bloom)", [GDEDUP, "dedup", "-q", "--key", "column:url"]),
        "exact": ("gdedup dedup --exact", [GDEDUP, "dedup", "-q", "--exact", "--key",
                                           "column:url"]),
    }
    print("| tool | wall s | peak RSS MiB | kept rows | check | load before |")
    print("|---|---|---|---|---|---|")
    try:
        for tool in TOOLS:
            load = "%.1f" % os.getloadavg()[0]
            if tool in tools:
                name, argv = tools[tool]
                seconds, rss, code = timed(name, argv + paths + ["-o", out])
            elif tool == "duckdb":
                name = "DuckDB order-keeping query (memory_limit %s)" % MEMORY_LIMIT
                temp = os.path.join(FOLDER, "duckdb-temp")
                os.makedirs(temp, exist_ok=True)
                seconds, rss, code = timed(
                    name, [sys.executable, "-c", DUCKDB, ",".join(paths), out, MEMORY_LIMIT,
                           temp, DUCKDB_SPILL], DUCKDB_TIMEOUT)
                shutil.rmtree(temp, ignore_errors=True)
            else:
                sys.exit("unknown tool %s: give bloom, exact or duckdb" % tool)
            if code == 0:
                kept = kept_rows(out)
                if tool == "bloom":
                    check = "%d short of the distinct count" % (distinct - kept)
                else:
                    check = "equals the distinct count" if kept == distinct else (
                        "DIFFERS from the distinct count %d" % distinct)
            else:
                kept, check = "-", ("killed after %.0f s" % seconds if code is None
                                    else "exit %s" % code)
            print("| %s | %.1f | %.0f | %s | %s | %s |" % (name, seconds, rss, kept, check, load),
                  flush=True)
            if os.path.exists(out):
                os.remove(out)
    finally:
        if os.environ.get("KEEP") != "1":
            shutil.rmtree(FOLDER, ignore_errors=True)


main()
