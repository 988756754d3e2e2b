"""Parquet through gdedup.run: a row group read in slices of batch_records
rows (one progress call each), and the output options, byte for byte the
command's."""
import random

import pytest

import gdedup

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed: no Parquet to test with")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture
def one_group(tmp_path):
    """200,000 rows in one row group, about half of the URLs repeated."""
    rng = random.Random(11)
    rows = 200000
    urls = ["https://h%d.example/p/%d" % (rng.randrange(31), rng.randrange(rows // 2))
            for _ in range(rows)]
    path = tmp_path / "one.parquet"
    pq.write_table(pa.table({"url": urls, "n": list(range(rows))}), path,
                   row_group_size=rows, compression="zstd")
    return path


def test_a_row_group_is_read_in_slices_of_batch_records(tmp_path, one_group, run_cli):
    calls = []
    out = tmp_path / "py.parquet"
    try:
        gdedup.run("dedup", one_group, output=out, key="column:url", batch_records=10000,
                   progress=calls.append)
    except gdedup.InvalidArgumentError as e:
        if "no Parquet support" in str(e):
            pytest.skip(str(e))
        raise
    # A call a batch, and the last when the job puts its results in place.
    assert len(calls) >= 20
    assert [c["records"] for c in calls[:3]] == [10000, 20000, 30000]
    whole = tmp_path / "cli.parquet"
    run_cli("dedup", "-q", "--key", "column:url", "--batch", "1000000", one_group, "-o", whole)
    assert out.read_bytes() == whole.read_bytes()


def test_the_output_options_are_the_commands(tmp_path, one_group, run_cli):
    out = tmp_path / "py.parquet"
    try:
        gdedup.run("dedup", one_group, output=out, key="column:url", exact=True,
                   parquet_compression="snappy", row_group_rows=30000)
    except gdedup.InvalidArgumentError as e:
        if "no Parquet support" in str(e):
            pytest.skip(str(e))
        raise
    cli = tmp_path / "cli.parquet"
    run_cli("dedup", "-q", "--exact", "--key", "column:url", "--parquet-compression", "snappy",
            "--row-group-rows", "30000", one_group, "-o", cli)
    assert out.read_bytes() == cli.read_bytes()
    meta = pq.ParquetFile(out).metadata
    assert meta.row_group(0).num_rows == 30000
    assert meta.row_group(0).column(0).compression == "SNAPPY"
