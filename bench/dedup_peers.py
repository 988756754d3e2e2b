#!/usr/bin/env python3
"""Exact dedup of a file of lines by the tools gdedup --exact is measured
against in bench/e2e.sh (--peers): each writes the distinct lines of INPUT
to OUTPUT (default /dev/null).

    python3 bench/dedup_peers.py TOOL INPUT [OUTPUT]

TOOL:
  duckdb-distinct  DuckDB SELECT DISTINCT: the distinct lines, in no order
  duckdb-first     DuckDB, the order kept: each line's first row by
                   row_number() and QUALIFY, in input order
  polars-unique    polars unique(maintain_order=True): input order kept
  python-set       a Python set, test-then-add over the lines: input order kept

DuckDB and polars read each line as one text column (a CSV of one column
with no quoting, split at a byte the lines do not hold), and use every core.
They come from PyPI (bench/python-requirements.txt). Lines are taken
without their newline; a line holding a \\x01 byte, or a last line without a
newline, is outside what these peers are measured on (bench/gen_urls writes
neither).
"""

import sys

# A byte no URL line holds: the CSV readers' field separator, so that a line
# is one field.
SEPARATOR = "\x01"


def sql_text(text):
    """`text` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def duckdb_copy(query, path, output):
    """Runs `query` on the view `lines` (the lines of `path`, one column
    `line`, in file order), writing its rows to `output`."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"CREATE VIEW lines AS SELECT * FROM read_csv({sql_text(path)}, "
                f"columns = {{'line': 'VARCHAR'}}, header = false, auto_detect = false, "
                f"delim = {sql_text(SEPARATOR)}, quote = '', escape = '')")
    con.execute(f"COPY ({query}) TO {sql_text(output)} (FORMAT csv, HEADER false, QUOTE '', "
                f"DELIMITER {sql_text(SEPARATOR)})")


def duckdb_distinct(path, output):
    duckdb_copy("SELECT DISTINCT line FROM lines", path, output)


def duckdb_first(path, output):
    duckdb_copy("SELECT line FROM (SELECT line, row_number() OVER () AS n FROM lines) "
                "QUALIFY row_number() OVER (PARTITION BY line ORDER BY n) = 1 ORDER BY n",
                path, output)


def polars_unique(path, output):
    import polars as pl

    lines = pl.read_csv(path, has_header=False, separator=SEPARATOR, quote_char=None,
                        new_columns=["line"], schema_overrides=[pl.String])
    lines.unique(maintain_order=True).write_csv(output, include_header=False,
                                                quote_style="never")


def python_set(path, output):
    seen = set()
    with open(path, "rb") as lines, open(output, "wb") as out:
        write = out.write
        for line in lines:
            if line not in seen:
                seen.add(line)
                write(line)


TOOLS = {
    "duckdb-distinct": duckdb_distinct,
    "duckdb-first": duckdb_first,
    "polars-unique": polars_unique,
    "python-set": python_set,
}


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in TOOLS:
        sys.exit("usage: dedup_peers.py {%s} INPUT [OUTPUT]" % ",".join(TOOLS))
    TOOLS[sys.argv[1]](sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "/dev/null")


if __name__ == "__main__":
    main()
