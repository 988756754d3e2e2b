#!/usr/bin/env python3
"""Parquet dedup against an independent oracle at scale: ROWS rows (10M by
default) in three files generated from a fixed seed, with null and empty
url keys, binary payloads that are not UTF-8 and a nested struct column,
deduplicated by url through gdedup (exact and Bloom) and by pyarrow plus a
Python set. The exact output must equal the oracle's rows and schema, the
Bloom output must be the oracle's rows less a few (its false positives),
in order. Prints what it compared and exits 1 on a difference.

    python3 bench/parquet_oracle.py BUILD/gdedup [ROWS] [FOLDER]
"""
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

GDEDUP = sys.argv[1]
ROWS = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10_000_000
FOLDER = sys.argv[3] if len(sys.argv) > 3 else "/tmp/gdedup-parquet-oracle"
GROUP = 500_000


def generate(paths):
    rng = np.random.default_rng(4545)
    per_file = -(-ROWS // len(paths))
    rn = 0
    for path in paths:
        writer = None
        for start in range(0, per_file, GROUP):
            n = min(GROUP, per_file - start, ROWS - rn)
            if n <= 0:
                break
            ids = rng.integers(0, int(ROWS * 0.6), n)
            kind = rng.random(n)
            urls = ["" if k < 0.01 else "https://h%d.example/p/%d" % (i % 997, i)
                    for i, k in zip(ids, kind)]
            mask = kind > 0.995  # null keys
            payload = [bytes([0xff, 0xfe, i % 256]) + b"\x00\n" for i in ids]
            table = pa.table({
                "url": pa.array(urls, mask=mask),
                "rn": pa.array(np.arange(rn, rn + n, dtype=np.int64)),
                "payload": pa.array(payload, pa.binary()),
                "meta": pa.StructArray.from_arrays(
                    [pa.array(["h%d" % (i % 997) for i in ids]),
                     pa.array((ids % 7).astype(np.int32))], ["host", "shard"]),
            })
            table = table.replace_schema_metadata({"source": "parquet_oracle"})
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=GROUP)
            rn += n
        writer.close()


def oracle_rows(paths):
    """The rn of each row the order-keeping dedup keeps (null keys kept, as
    --missing-key keep writes them)."""
    seen = set()
    kept = []
    for path in paths:
        for batch in pq.ParquetFile(path).iter_batches(columns=["url", "rn"]):
            for url, rn in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()):
                if url is None:
                    kept.append(rn)
                elif url not in seen:
                    seen.add(url)
                    kept.append(rn)
    return np.array(kept, dtype=np.int64), len(seen)


def main():
    os.makedirs(FOLDER, exist_ok=True)
    paths = [os.path.join(FOLDER, "part-%d-%d.parquet" % (i, ROWS)) for i in range(3)]
    if not all(os.path.exists(p) for p in paths):
        generate(paths)
    expected, distinct = oracle_rows(paths)
    print("%d rows in 3 files, %d distinct non-null urls, the oracle keeps %d rows"
          % (ROWS, distinct, len(expected)))
    failed = False
    for mode in ["--exact", "--bloom"]:
        out = os.path.join(FOLDER, "out%s.parquet" % mode)
        argv = [GDEDUP, "dedup", "-q", "--key", "column:url", "--missing-key", "keep",
                *paths, "-o", out]
        if mode == "--exact":
            argv.insert(2, "--exact")
        subprocess.run(argv, check=True)
        table = pq.read_table(out)
        got = table.column("rn").to_numpy()
        source = pq.read_table(paths[0]).schema
        same_schema = table.schema.equals(source, check_metadata=True)
        if mode == "--exact":
            same = np.array_equal(got, expected)
            rows = pa.concat_tables([pq.read_table(p) for p in paths])
            by_rn = rows.take(pa.array(expected))
            same_rows = by_rn.equals(table)
            print("exact: %d rows, rn %s, every column %s, schema and metadata %s" % (
                len(got), "equal" if same else "DIFFER", "equal" if same_rows else "DIFFER",
                "equal" if same_schema else "DIFFER"))
            failed |= not (same and same_rows and same_schema)
        else:
            subset = np.isin(got, expected).all() and np.all(np.diff(got) > 0)
            missing = len(expected) - len(got)
            print("bloom: %d rows, in order and within the oracle's: %s, %d uniques "
                  "dropped as false positives (%.2e of %d), schema %s" % (
                      len(got), subset, missing, missing / max(distinct, 1), distinct,
                      "equal" if same_schema else "DIFFER"))
            failed |= not (subset and same_schema and missing >= 0)
        os.remove(out)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
