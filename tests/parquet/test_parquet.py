"""Parquet in and out, end to end through the gdedup command.

The oracle is an order-keeping dedup over a Python dict, on rows that
pyarrow generates from a fixed seed (nulls, empty strings, invalid UTF-8 in
a binary column, a struct column, several row groups, three files). Exact
mode must equal it row for row; Bloom mode may only drop rows the oracle
keeps (false positives), at most a few at its planned rate. Bad inputs must
fail with a message that names the file, exit 1 or 2, and leave no output.

GDEDUP_BIN is the command; GDEDUP_PARQUET is ON where the build has Parquet
support, OFF where it has not (then only the refusal is checked).
"""
import os
import random
import subprocess

import pytest

BIN = os.environ.get("GDEDUP_BIN", "gdedup")
BUILT_WITH_PARQUET = os.environ.get("GDEDUP_PARQUET", "ON") == "ON"
pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed: no Parquet to test with")
pq = pytest.importorskip("pyarrow.parquet")
needs_parquet = pytest.mark.skipif(not BUILT_WITH_PARQUET,
                                   reason="this build has no Parquet support (GDEDUP_PARQUET)")

METADATA = {b"origin": b"gdedup parquet test", b"rows": b"generated"}


def make_files(folder, files=3, rows=4000, group=700, seed=45):
    """Three files of one schema, URLs drawn so that about half repeat."""
    rng = random.Random(seed)
    schema = pa.schema([
        ("url", pa.string()),
        ("n", pa.int64()),
        ("status", pa.int16()),
        ("payload", pa.binary()),
        ("meta", pa.struct([("host", pa.string())])),
    ], metadata=METADATA)
    paths, n = [], 0
    for f in range(files):
        urls, ns, statuses, payloads, metas = [], [], [], [], []
        for _ in range(rows):
            r = rng.random()
            if r < 0.03:
                url = None
            elif r < 0.06:
                url = ""
            else:
                url = "https://e%d.example/p/%d" % (rng.randrange(50), rng.randrange(2500))
            urls.append(url)
            ns.append(n)
            n += 1
            statuses.append(rng.choice([200, 301, 404, -1]))
            payloads.append(bytes(rng.randrange(256) for _ in range(rng.randrange(6))))
            metas.append(None if rng.random() < 0.02 else {"host": "h%d" % rng.randrange(40)})
        table = pa.table([urls, ns, statuses, payloads, metas], schema=schema)
        path = os.path.join(folder, "part%d.parquet" % f)
        pq.write_table(table, path, row_group_size=group, compression="zstd")
        paths.append(path)
    return paths


def key_of(row, column):
    value = row
    for name in column.split("."):
        value = None if value is None else value[name]
    return value


def oracle(paths, column, missing="keep", duplicates=False):
    """The rows an order-keeping dedup keeps, as a list of row dicts."""
    rows = pa.concat_tables([pq.read_table(p) for p in paths]).to_pylist()
    seen, out = set(), []
    for row in rows:
        key = key_of(row, column)
        if key is None:
            if missing == "keep" and not duplicates:
                out.append(row)
            continue
        repeated = key in seen
        seen.add(key)
        if repeated == duplicates:
            out.append(row)
    return out


def run(command, *args):
    return subprocess.run([BIN, command, "-q", *args], capture_output=True, text=True)


def assert_no_output(folder, name):
    left = [f for f in os.listdir(folder) if f.startswith(name)]
    assert left == [], "the failed job left %s" % left


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    return make_files(str(folder))


@needs_parquet
@pytest.mark.parametrize("column", ["url", "meta.host", "status", "payload"])
@pytest.mark.parametrize("missing", ["keep", "drop"])
def test_exact_equals_the_oracle(inputs, tmp_path, column, missing):
    out = str(tmp_path / "out.parquet")
    done = run("dedup", "--exact", "--key", "column:" + column, "--missing-key", missing,
               *inputs, "-o", out)
    assert done.returncode == 0, done.stderr
    got = pq.read_table(out)
    first = pq.read_table(inputs[0])
    assert got.schema.equals(first.schema, check_metadata=True)
    assert got.schema.metadata == first.schema.metadata
    assert got.to_pylist() == oracle(inputs, column, missing)


@needs_parquet
def test_duplicates_equal_the_oracle(inputs, tmp_path):
    out = str(tmp_path / "dups.parquet")
    done = run("dedup", "--exact", "--duplicates", "--key", "column:url", "--missing-key",
               "drop", *inputs, "-o", out)
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out).to_pylist() == oracle(inputs, "url", "drop", duplicates=True)


@needs_parquet
def test_bloom_drops_only_what_the_oracle_keeps_at_its_rate(inputs, tmp_path):
    out = str(tmp_path / "bloom.parquet")
    done = run("dedup", "--key", "column:url", "--missing-key", "keep", *inputs, "-o", out)
    assert done.returncode == 0, done.stderr
    got = [r["n"] for r in pq.read_table(out).to_pylist()]
    want = [r["n"] for r in oracle(inputs, "url", "keep")]
    # A subsequence: rows in input order, none the oracle drops.
    it = iter(want)
    assert all(n in it for n in got)
    # About 7,000 distinct keys at the planned 1e-4: a false positive or two
    # at most, five is far past the rate.
    assert len(want) - len(got) <= 5


@needs_parquet
def test_row_groups_follow_the_input_and_compression_too(inputs, tmp_path):
    out = str(tmp_path / "out.parquet")
    assert run("dedup", "--exact", "--key", "column:n", inputs[0], "-o", out).returncode == 0
    meta = pq.ParquetFile(out).metadata
    assert meta.num_rows == 4000
    assert meta.num_row_groups == pq.ParquetFile(inputs[0]).metadata.num_row_groups
    assert meta.row_group(0).column(0).compression == "ZSTD"


@needs_parquet
def test_a_filter_built_from_a_column_refuses_another_key(inputs, tmp_path):
    gdf = str(tmp_path / "seen.gdf")
    assert run("build", "--key", "column:url", "--missing-key", "drop", *inputs,
               "-f", gdf).returncode == 0
    out = str(tmp_path / "q.parquet")
    done = run("query", "--key", "column:url", "--missing-key", "drop", "-f", gdf, inputs[0],
               "-o", out)
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out).num_rows == sum(
        1 for r in pq.read_table(inputs[0]).to_pylist() if r["url"] is not None)
    lines = tmp_path / "urls.jsonl"
    lines.write_text('{"url": "x"}\n')
    done = run("query", "--key", "json:url", "-f", gdf, str(lines))
    assert done.returncode == 2
    assert "column:url" in done.stderr and "json:url" in done.stderr


@needs_parquet
def test_null_keys_fail_by_default_naming_the_row(inputs, tmp_path):
    done = run("dedup", "--key", "column:url", *inputs, "-o", str(tmp_path / "o.parquet"))
    assert done.returncode in (1, 2)
    first_null = next(i for i, r in enumerate(pq.read_table(inputs[0]).to_pylist())
                      if r["url"] is None)
    assert "%s: row %d " % (inputs[0], first_null + 1) in done.stderr
    assert "--missing-key" in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")


def damaged_copies(inputs, folder):
    data = open(inputs[0], "rb").read()
    truncated = os.path.join(folder, "truncated.parquet")
    open(truncated, "wb").write(data[: len(data) // 2])
    footer = os.path.join(folder, "footer.parquet")
    # The footer's length (the 4 bytes before the closing magic) pointing
    # past the file's start.
    open(footer, "wb").write(data[:-8] + b"\xff\xff\xff\x7f" + b"PAR1")
    page = os.path.join(folder, "page.parquet")
    # Bytes inside the first column chunk's pages overwritten.
    body = bytearray(data)
    for i in range(64, 400):
        body[i] ^= 0x5A
    open(page, "wb").write(bytes(body))
    return truncated, footer, page


@needs_parquet
@pytest.mark.parametrize("which", [0, 1, 2])
def test_damaged_files_fail_naming_them(inputs, tmp_path, which):
    bad = damaged_copies(inputs, str(tmp_path))[which]
    done = run("dedup", "--key", "column:url", "--missing-key", "keep", bad,
               "-o", str(tmp_path / "o.parquet"))
    assert done.returncode in (1, 2), done.stderr
    assert bad in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")


@needs_parquet
@pytest.mark.parametrize("column, words", [
    ("nope", "has no column nope"),
    ("meta", "cannot be a key"),
    ("meta.nope", "has no column meta.nope"),
    ("url.x", "not a struct"),
])
def test_bad_key_columns_are_refused(inputs, tmp_path, column, words):
    done = run("dedup", "--key", "column:" + column, inputs[0], "-o",
               str(tmp_path / "o.parquet"))
    assert done.returncode in (1, 2)
    assert inputs[0] in done.stderr and words in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")


@needs_parquet
def test_other_string_and_binary_types_and_integer_widths_key_alike(tmp_path):
    """large_string, string_view, fixed-size binary; int8 -1 is int64 -1."""
    path = str(tmp_path / "kinds.parquet")
    values = ["a", "b", "a", "", "b", ""]
    table = pa.table({
        "large": pa.array(values, pa.large_string()),
        "view": pa.array(values, pa.string_view()),
        "fixed": pa.array([v.encode().ljust(2, b"\0") for v in values], pa.binary(2)),
        "small": pa.array([-1, 1, -1, 0, 1, 0], pa.int8()),
        "wide": pa.array([2**64 - 1, 1, 2**64 - 1, 0, 1, 0], pa.uint64()),
    })
    pq.write_table(table, path)
    assert pq.read_table(path).schema.field("view").type == pa.string_view()
    for column in ["large", "view", "fixed", "small", "wide"]:
        out = str(tmp_path / (column + ".parquet"))
        done = run("dedup", "--exact", "--key", "column:" + column, path, "-o", out)
        assert done.returncode == 0, done.stderr
        # Rows 0, 1 and 3 (pyarrow's take has no kernel for string views).
        want = table.slice(0, 2).to_pylist() + table.slice(3, 1).to_pylist()
        assert pq.read_table(out).to_pylist() == want, column
    # int8's -1 and uint64's 2**64-1 are the same 8 bytes: a set built from
    # one finds the other's rows.
    gds = str(tmp_path / "small.gds")
    assert run("build", "--exact", "--key", "column:small", path, "-f", gds).returncode == 0
    out = str(tmp_path / "found.parquet")
    done = run("query", "--exact", "--key", "column:wide", "--ignore-key-rules", "-f", gds,
               path, "-o", out)
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out).num_rows == 6


@needs_parquet
def test_a_float_key_column_is_refused(tmp_path):
    path = str(tmp_path / "f.parquet")
    pq.write_table(pa.table({"x": [1.5, 2.5]}), path)
    done = run("dedup", "--key", "column:x", path, "-o", str(tmp_path / "o.parquet"))
    assert done.returncode in (1, 2)
    assert "double" in done.stderr and "cannot be a key" in done.stderr


@needs_parquet
def test_schemas_that_differ_are_refused_naming_both_files_and_the_column(inputs, tmp_path):
    other = str(tmp_path / "other.parquet")
    table = pq.read_table(inputs[1])
    table = table.set_column(2, "status", table.column("status").cast(pa.int64()))
    pq.write_table(table, other)
    done = run("dedup", "--key", "column:url", "--missing-key", "keep", inputs[0], other,
               "-o", str(tmp_path / "o.parquet"))
    assert done.returncode in (1, 2)
    assert inputs[0] in done.stderr and other in done.stderr and "status" in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")


@needs_parquet
def test_parquet_and_records_in_one_job_are_refused(inputs, tmp_path):
    lines = tmp_path / "urls.txt"
    lines.write_text("https://a.example/\n")
    done = run("dedup", "--key", "column:url", inputs[0], str(lines), "-o",
               str(tmp_path / "o.parquet"))
    assert done.returncode == 2 and "not both" in done.stderr
    done = run("dedup", str(lines), inputs[0], "-o", str(tmp_path / "o.txt"))
    assert done.returncode in (1, 2) and "is a Parquet file" in done.stderr
    assert_no_output(str(tmp_path), "o.")


@needs_parquet
@pytest.mark.parametrize("extra, words", [
    (["--key", "whole"], "column:NAME"),
    (["--key", "column:status", "--normalize", "url"], "does not hold strings"),
    (["-z"], "not records ended by a separator"),
    (["--checkpoint", "c.ckpt", "--output-format", "lines"],
     "cannot be checkpointed yet with its keys written as lines"),
])
def test_what_parquet_input_cannot_do_yet_is_refused(inputs, tmp_path, extra, words):
    args = [] if "--key" in extra else ["--key", "column:url", "--missing-key", "keep"]
    done = subprocess.run([BIN, "dedup", "-q", *args, *extra, inputs[0], "-o", "o.parquet"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert words in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")


@pytest.mark.skipif(BUILT_WITH_PARQUET, reason="this build has Parquet support")
def test_a_build_without_parquet_says_how_to_get_it(inputs, tmp_path):
    done = run("dedup", "--key", "column:url", inputs[0], "-o", str(tmp_path / "o.parquet"))
    assert done.returncode in (1, 2)
    assert "no Parquet support" in done.stderr and "GDEDUP_PARQUET" in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")



MODULE = "libgdedup_parquet.so"


@needs_parquet
def test_the_command_links_no_arrow():
    """Arrow's libraries are the Parquet module's, loaded when a job reads
    Parquet, never the command's own: its start maps none of them."""
    done = subprocess.run(["ldd", BIN], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip("ldd cannot read the command: " + done.stderr.strip())
    assert "libarrow" not in done.stdout and "libparquet" not in done.stdout, done.stdout
    assert os.path.exists(os.path.join(os.path.dirname(os.path.abspath(BIN)), MODULE))


def run_alone(tmp_path, inputs, module_bytes=None):
    """The command copied into a folder of its own, with `module_bytes` as
    the module beside it (none where None), run on a Parquet input."""
    folder = tmp_path / "bin"
    folder.mkdir()
    command = folder / "gdedup"
    command.write_bytes(open(BIN, "rb").read())
    command.chmod(0o755)
    if module_bytes is not None:
        (folder / MODULE).write_bytes(module_bytes)
    done = subprocess.run([str(command), "dedup", "-q", "--key", "column:url", "--missing-key",
                           "keep", inputs[0], "-o", "o.parquet"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert inputs[0] in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")
    return folder, done.stderr


@needs_parquet
def test_a_missing_module_is_named_with_the_places_tried(inputs, tmp_path):
    folder, stderr = run_alone(tmp_path, inputs)
    assert "Parquet module was not found" in stderr
    assert str(folder / MODULE) in stderr and str(folder / "..") in stderr


@needs_parquet
def test_a_module_that_cannot_load_is_named_with_the_loaders_words(inputs, tmp_path):
    folder, stderr = run_alone(tmp_path, inputs, b"not an ELF object\n")
    assert str(folder / MODULE) + " cannot be loaded" in stderr
    assert "too short" in stderr or "invalid ELF header" in stderr


# --output-format lines: the kept rows' key values, one record each.

def as_line(value, type_):
    """The oracle's record for a key value of a column of `type_`
    (docs/KEYS.md, "Parquet keys as lines")."""
    if pa.types.is_integer(type_):
        return str(value).encode()
    if pa.types.is_binary(type_) or pa.types.is_large_binary(type_) or \
            pa.types.is_fixed_size_binary(type_) or pa.types.is_binary_view(type_):
        return value.hex().encode()
    return value.encode()


def column_type(path, column):
    type_ = pq.read_schema(path).field(column.split(".")[0]).type
    for name in column.split(".")[1:]:
        type_ = type_.field(name).type
    return type_


def oracle_lines(paths, column, separator=b"\n", **kwargs):
    type_ = column_type(paths[0], column)
    return b"".join(as_line(key_of(row, column), type_) + separator
                    for row in oracle(paths, column, **kwargs))


@needs_parquet
@pytest.mark.parametrize("column", ["url", "meta.host", "status", "n", "payload"])
def test_lines_are_the_oracles_key_values(inputs, tmp_path, column):
    out = tmp_path / "keys.txt"
    done = run("dedup", "--exact", "--key", "column:" + column, "--missing-key", "drop",
               "--output-format", "lines", *inputs, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == oracle_lines(inputs, column, missing="drop")


@needs_parquet
def test_lines_of_duplicates_and_absent_queries_and_standard_output(inputs, tmp_path):
    done = subprocess.run([BIN, "dedup", "-q", "--exact", "--duplicates", "--key", "column:url",
                           "--missing-key", "keep", "--output-format", "lines", *inputs],
                          capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == oracle_lines(inputs, "url", missing="keep", duplicates=True)
    gds = str(tmp_path / "first.gds")
    assert run("build", "--exact", "--key", "column:url", "--missing-key", "drop", inputs[0],
               "-f", gds).returncode == 0
    out = tmp_path / "absent.txt"
    done = run("query", "--exact", "--absent", "--key", "column:url", "--missing-key", "drop",
               "-f", gds, "--output-format", "lines", inputs[1], "-o", str(out))
    assert done.returncode == 0, done.stderr
    seen = {r["url"] for r in pq.read_table(inputs[0]).to_pylist()}
    want = [r["url"] for r in pq.read_table(inputs[1]).to_pylist()
            if r["url"] is not None and r["url"] not in seen]
    assert out.read_bytes() == b"".join(u.encode() + b"\n" for u in want)


@needs_parquet
def test_lines_of_each_column_type(tmp_path):
    """Integers at their extremes in decimal, signed or not as their type;
    every binary type in hex (any bytes: a newline, a NUL, invalid UTF-8);
    every string type as it is."""
    path = str(tmp_path / "kinds.parquet")
    table = pa.table({
        "i64": pa.array([-2**63, 2**63 - 1, -1, 0], pa.int64()),
        "u64": pa.array([2**64 - 1, 0, 2**63, 7], pa.uint64()),
        "i8": pa.array([-128, 127, -1, 0], pa.int8()),
        "u16": pa.array([65535, 0, 1, 2], pa.uint16()),
        "bin": pa.array([b"\n", b"\x00\xff", b"", b"\xc3("], pa.binary()),
        "large_bin": pa.array([b"\n", b"\x00\xff", b"", b"\xc3("], pa.large_binary()),
        "fixed": pa.array([b"\n\x00", b"\xff\xfe", b"ab", b"\x00\x00"], pa.binary(2)),
        "large": pa.array(["é", "", "a b", "\t"], pa.large_string()),
        "view": pa.array(["é", "", "a b", "\t"], pa.string_view()),
    })
    pq.write_table(table, path)
    want = {
        "i64": b"-9223372036854775808\n9223372036854775807\n-1\n0\n",
        "u64": b"18446744073709551615\n0\n9223372036854775808\n7\n",
        "i8": b"-128\n127\n-1\n0\n",
        "u16": b"65535\n0\n1\n2\n",
        "bin": b"0a\n00ff\n\nc328\n",
        "large_bin": b"0a\n00ff\n\nc328\n",
        "fixed": b"0a00\nfffe\n6162\n0000\n",
        "large": "é\n\na b\n\t\n".encode(),
        "view": "é\n\na b\n\t\n".encode(),
    }
    for column, lines in want.items():
        out = tmp_path / (column + ".txt")
        done = run("dedup", "--exact", "--key", "column:" + column, "--output-format", "lines",
                   path, "-o", str(out))
        assert done.returncode == 0, done.stderr
        assert out.read_bytes() == lines, column


def strings_file(folder, values, group=2):
    path = str(folder / "strings.parquet")
    pq.write_table(pa.table({"s": pa.array(values, pa.string())}), path, row_group_size=group)
    return path


@needs_parquet
def test_a_string_holding_the_separator_fails_naming_its_row(tmp_path):
    path = strings_file(tmp_path, ["a", "b", "c", "two\nlines", "d"])
    out = tmp_path / "o.txt"
    done = run("dedup", "--key", "column:s", "--output-format", "lines", path, "-o", str(out))
    assert done.returncode == 1
    assert "%s: row 4 (in row group 2)" % path in done.stderr
    assert "newline" in done.stderr and "-z" in done.stderr
    assert_no_output(str(tmp_path), "o.txt")
    # With -z each value ends with a NUL, and the newline is a byte like
    # any other; a NUL inside a value is then refused the same way.
    done = run("dedup", "--key", "column:s", "--output-format", "lines", "-z", path,
               "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == b"a\0b\0c\0two\nlines\0d\0"
    out.unlink()
    path = strings_file(tmp_path, ["a", "n\0ul"])
    done = run("dedup", "--key", "column:s", "--output-format", "lines", "-z", path,
               "-o", str(out))
    assert done.returncode == 1
    assert "%s: row 2 (in row group 1)" % path in done.stderr and "NUL" in done.stderr
    assert_no_output(str(tmp_path), "o.txt")


@needs_parquet
def test_lines_hold_the_values_as_stored_not_as_normalized(tmp_path):
    path = strings_file(tmp_path, ["HTTP://A.example/x", "http://a.example/x", "b"])
    done = subprocess.run([BIN, "dedup", "-q", "--key", "column:s", "--normalize", "url",
                           "--output-format", "lines", path], capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"HTTP://A.example/x\nb\n"


@needs_parquet
def test_null_keys_in_lines_follow_missing_key(inputs, tmp_path):
    out = str(tmp_path / "o.txt")
    lines = ["--key", "column:url", "--output-format", "lines", inputs[0], "-o", out]
    # keep would write the rows of null keys, which have no value: refused
    # where the mode writes them (dedup, query --absent), before any output.
    done = run("dedup", "--exact", "--missing-key", "keep", *lines)
    assert done.returncode == 2 and "a null has none" in done.stderr, done.stderr
    assert "--missing-key drop" in done.stderr
    assert_no_output(str(tmp_path), "o.txt")
    # --duplicates never writes them.
    done = run("dedup", "--exact", "--duplicates", "--missing-key", "keep", *lines)
    assert done.returncode == 0, done.stderr
    with open(out, "rb") as written:
        assert written.read() == oracle_lines(inputs[:1], "url", missing="keep",
                                              duplicates=True)
    os.unlink(out)
    # error: the job fails at the first null, naming its row.
    done = run("dedup", *lines)
    assert done.returncode == 1 and "its value is null" in done.stderr, done.stderr
    assert_no_output(str(tmp_path), "o.txt")


@needs_parquet
def test_output_format_is_refused_where_it_means_nothing(inputs, tmp_path):
    lines = tmp_path / "urls.txt"
    lines.write_text("https://a.example/\n")
    for fmt in ("lines", "parquet"):
        done = run("dedup", "--output-format", fmt, str(lines), "-o", str(tmp_path / "o.txt"))
        assert done.returncode == 2 and "is not a Parquet file" in done.stderr, done.stderr
    done = run("dedup", "--output-format", "lines", "--input-format", "u64", str(lines),
               "-o", str(tmp_path / "o.txt"))
    assert done.returncode == 2 and "--output-format has no effect" in done.stderr
    done = run("dedup", "--output-format", "csv", "--key", "column:url", inputs[0])
    assert done.returncode == 2
    assert_no_output(str(tmp_path), "o.txt")
    # parquet, given, is the default.
    out = str(tmp_path / "o.parquet")
    done = run("dedup", "--exact", "--key", "column:url", "--missing-key", "drop",
               "--output-format", "parquet", *inputs, "-o", out)
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out).to_pylist() == oracle(inputs, "url", "drop")


@needs_parquet
@pytest.mark.parametrize("column", ["url", "meta.host", "payload", "status"])
def test_a_build_reading_the_key_alone_finds_every_rows_key(inputs, tmp_path, column):
    """A build decodes the key column alone; a query, reading whole rows,
    finds the key of every row in its set, nested ones (under a null
    struct too) included."""
    gds = str(tmp_path / "keys.gds")
    job = ["--exact", "--key", "column:" + column, "--missing-key", "drop"]
    assert run("build", *job, *inputs, "-f", gds).returncode == 0
    keyed = [r for p in inputs for r in pq.read_table(p).to_pylist()
             if key_of(r, column) is not None]
    for absent, want in ((False, keyed), (True, [])):
        out = str(tmp_path / "found.parquet")
        done = run("query", *job, *(["--absent"] if absent else []), "-f", gds, *inputs,
                   "-o", out)
        assert done.returncode == 0, done.stderr
        assert pq.read_table(out).to_pylist() == want


# --output-parts: one Parquet file a part, listed by the manifest.

def manifest_parts(folder):
    lines = (folder / "MANIFEST").read_text().splitlines()
    assert lines[0] == "gdedup output parts 1"
    return [folder / line.split("\t")[0] for line in lines[1:]]


def folder_bytes(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@needs_parquet
@pytest.mark.parametrize("missing", ["keep", "drop"])
def test_parts_hold_the_rows_of_the_single_file_output(inputs, tmp_path, missing):
    job = ["dedup", "--exact", "--key", "column:url", "--missing-key", missing, *inputs]
    single = str(tmp_path / "single.parquet")
    assert run(*job, "-o", single).returncode == 0
    parts = tmp_path / "parts"
    done = run(*job, "--output-parts", str(parts))
    assert done.returncode == 0, done.stderr
    listed = manifest_parts(parts)
    assert listed and sorted(p.name for p in parts.iterdir()) == sorted(
        ["MANIFEST"] + [p.name for p in listed])
    first = pq.read_table(inputs[0])
    for part in listed:
        table = pq.read_table(str(part))
        assert table.schema.equals(first.schema, check_metadata=True)
    rows = [row for part in listed for row in pq.read_table(str(part)).to_pylist()]
    assert rows == pq.read_table(single).to_pylist() == oracle(inputs, "url", missing)


@needs_parquet
def test_parts_of_lines_concatenate_to_the_single_file_output(inputs, tmp_path):
    job = ["dedup", "--exact", "--key", "column:url", "--missing-key", "drop",
           "--output-format", "lines", *inputs]
    single = tmp_path / "single.txt"
    assert run(*job, "-o", str(single)).returncode == 0
    parts = tmp_path / "parts"
    assert run(*job, "--output-parts", str(parts)).returncode == 0
    assert b"".join(p.read_bytes() for p in manifest_parts(parts)) == single.read_bytes()


@needs_parquet
def test_a_job_that_keeps_no_row_writes_one_part_of_the_schema(inputs, tmp_path):
    gds = str(tmp_path / "all.gds")
    assert run("build", "--exact", "--key", "column:n", *inputs, "-f", gds).returncode == 0
    parts = tmp_path / "parts"
    done = run("query", "--exact", "--absent", "--key", "column:n", "-f", gds, inputs[0],
               "--output-parts", str(parts))
    assert done.returncode == 0, done.stderr
    listed = manifest_parts(parts)
    assert len(listed) == 1
    table = pq.read_table(str(listed[0]))
    assert table.num_rows == 0
    assert table.schema.equals(pq.read_schema(inputs[0]), check_metadata=True)


@needs_parquet
def test_a_failed_job_in_parts_leaves_the_previous_folder(inputs, tmp_path):
    parts = tmp_path / "parts"
    done = run("dedup", "--exact", "--key", "column:url", "--missing-key", "drop", inputs[0],
               "--output-parts", str(parts))
    assert done.returncode == 0, done.stderr
    before = folder_bytes(parts)
    # A damaged page, met after rows were written; and a null key.
    page = damaged_copies(inputs, str(tmp_path))[2]
    for args in (["--missing-key", "drop", inputs[1], page],
                 ["--missing-key", "error", inputs[1]]):
        done = run("dedup", "--exact", "--key", "column:url", *args,
                   "--output-parts", str(parts))
        assert done.returncode == 1, done.stderr
        assert folder_bytes(parts) == before


def one_group_file(path, rows, seed=7):
    """One row group of `rows` rows (url with nulls, about half repeating;
    a row number; a dictionary-encoded crawl; a struct), zstd."""
    rng = random.Random(seed)
    urls = [None if rng.random() < 0.01 else
            "https://h%d.example/p/%d" % (rng.randrange(97), rng.randrange(rows // 2))
            for _ in range(rows)]
    table = pa.table({
        "url": pa.array(urls, pa.string()),
        "n": pa.array(range(rows), pa.int64()),
        "crawl": pa.array(["CC-%02d" % (i % 37) for i in range(rows)]).dictionary_encode(),
        "meta": pa.array([{"host": "h%d" % (i % 11)} for i in range(rows)]),
    }, metadata=METADATA)
    pq.write_table(table, path, row_group_size=rows, compression="zstd")
    return path


@pytest.fixture(scope="module")
def one_group(tmp_path_factory):
    """300,000 rows in one row group: kept rows span several of the
    writer's fixed calls (65,536 rows)."""
    return one_group_file(str(tmp_path_factory.mktemp("one_group") / "one.parquet"), 300000)


@needs_parquet
@pytest.mark.parametrize("exact", [[], ["--exact"]])
def test_output_bytes_do_not_depend_on_batch_size_or_threads(inputs, one_group, tmp_path,
                                                            exact):
    """A row group is read in slices of --batch rows, yet the output's bytes
    are the same for every slicing and thread count, on row groups smaller
    and larger than a slice."""
    for name, files in [("groups", inputs), ("one", [one_group])]:
        outputs = {}
        for batch, threads in [("1000000", "1"), ("1", "1"), ("999", "1"), ("65536", "2"),
                               ("99999", "3"), ("4096", "4")]:
            if name == "one" and batch == "1":
                continue  # 300,000 one-row batches: slow, and "999" cuts finer than a call
            out = str(tmp_path / ("%s-%s-%s.parquet" % (name, batch, threads)))
            done = run("dedup", *exact, "--key", "column:url", "--missing-key", "keep",
                       "--batch", batch, "--threads", threads, *files, "-o", out)
            assert done.returncode == 0, done.stderr
            outputs[batch, threads] = open(out, "rb").read()
        first = outputs["1000000", "1"]
        assert all(b == first for b in outputs.values()), (name, [
            k for k, b in outputs.items() if b != first])
        if exact:
            got = pq.read_table(str(tmp_path / ("%s-1000000-1.parquet" % name)))
            assert got.to_pylist() == oracle(files, "url", "keep")


@needs_parquet
def test_an_output_row_group_ends_with_its_input_row_group_or_at_row_group_rows(inputs,
                                                                               tmp_path):
    """Output row groups: one per input row group's kept rows, cut at
    --row-group-rows, never two input row groups' rows in one."""
    column = "url"
    want_groups = []
    seen = set()
    for path in inputs:
        f = pq.ParquetFile(path)
        for g in range(f.num_row_groups):
            kept = 0
            for row in f.read_row_group(g).to_pylist():
                key = row[column]
                if key is None or key not in seen:
                    kept += 1
                if key is not None:
                    seen.add(key)
            want_groups.append(kept)
    for limit in [None, 500, 64]:
        out = str(tmp_path / ("rg-%s.parquet" % limit))
        extra = [] if limit is None else ["--row-group-rows", str(limit)]
        done = run("dedup", "--exact", "--key", "column:url", "--missing-key", "keep",
                   "--batch", "300", *extra, *inputs, "-o", out)
        assert done.returncode == 0, done.stderr
        meta = pq.ParquetFile(out).metadata
        got = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
        want = []
        for kept in want_groups:
            step = kept if limit is None else limit
            want += [min(step, kept - i) for i in range(0, kept, step)]
        assert got == want, limit
        assert pq.read_table(out).to_pylist() == oracle(inputs, "url", "keep")


@needs_parquet
@pytest.mark.parametrize("codec, named", [("snappy", "SNAPPY"), ("uncompressed", "UNCOMPRESSED"),
                                          ("gzip", "GZIP"), ("zstd", "ZSTD"),
                                          ("brotli", "BROTLI"), ("lz4", "LZ4")])
def test_parquet_compression_chooses_the_codec(inputs, tmp_path, codec, named):
    out = str(tmp_path / "c.parquet")
    done = run("dedup", "--exact", "--key", "column:url", "--missing-key", "keep",
               "--parquet-compression", codec, *inputs, "-o", out)
    assert done.returncode == 0, done.stderr
    meta = pq.ParquetFile(out).metadata
    assert {meta.row_group(0).column(c).compression
            for c in range(meta.num_columns)} == {named}
    assert pq.read_table(out).to_pylist() == oracle(inputs, "url", "keep")


@needs_parquet
@pytest.mark.parametrize("extra, words", [
    (["--parquet-compression", "zip"], "--parquet-compression zip: give one of uncompressed, "
                                       "snappy, gzip, brotli, zstd, lz4"),
    (["--row-group-rows", "0"], "--row-group-rows 0: must be at least 1 row"),
])
def test_bad_output_options_are_refused(inputs, tmp_path, extra, words):
    done = run("dedup", "--key", "column:url", "--missing-key", "keep", *extra, inputs[0],
               "-o", str(tmp_path / "o.parquet"))
    assert done.returncode == 2, done.stderr
    assert words in done.stderr
    assert_no_output(str(tmp_path), "o.parquet")


@needs_parquet
@pytest.mark.parametrize("extra", [["--parquet-compression", "zstd"], ["--row-group-rows", "9"]])
def test_parquet_output_options_are_refused_for_lines(tmp_path, extra):
    lines = tmp_path / "urls.txt"
    lines.write_text("a\nb\na\n")
    done = run("dedup", *extra, str(lines), "-o", str(tmp_path / "o.txt"))
    assert done.returncode == 2, done.stderr
    assert "%s shapes Parquet output, but %s is not a Parquet file" % (extra[0], lines) \
        in done.stderr
    assert_no_output(str(tmp_path), "o.txt")


@needs_parquet
@pytest.mark.parametrize("column, values", [
    ("s", ["a", "b", None, "a", "", "b", "c", ""]),
    ("b", [b"\xff", b"x", b"\xff", None, b"", b"x", b"", b"y"]),
])
def test_a_dictionary_encoded_key_column_keys_as_its_values(tmp_path, column, values):
    """The same values plain and dictionary-encoded give the same rows, and
    a set built from one finds the other's keys. (Arrow reads dictionaries
    of strings and binary back as dictionaries; of integers, as integers.)"""
    n = list(range(len(values)))
    plain = str(tmp_path / "plain.parquet")
    encoded = str(tmp_path / "encoded.parquet")
    pq.write_table(pa.table({column: pa.array(values), "n": n}), plain, row_group_size=3)
    pq.write_table(pa.table({column: pa.array(values).dictionary_encode(), "n": n}), encoded,
                   row_group_size=3)
    assert pa.types.is_dictionary(pq.read_table(encoded).schema.field(column).type)
    rows = {}
    for name, path in [("plain", plain), ("encoded", encoded)]:
        out = str(tmp_path / (name + "-out.parquet"))
        done = run("dedup", "--exact", "--key", "column:" + column, "--missing-key", "keep",
                   "--batch", "2", path, "-o", out)
        assert done.returncode == 0, done.stderr
        rows[name] = pq.read_table(out).to_pylist()
    assert rows["plain"] == rows["encoded"] == oracle([plain], column, "keep")
    gds = str(tmp_path / "plain.gds")
    assert run("build", "--exact", "--key", "column:" + column, "--missing-key", "drop", plain,
               "-f", gds).returncode == 0
    out = str(tmp_path / "found.parquet")
    done = run("query", "--exact", "--key", "column:" + column, "--missing-key", "drop",
               "-f", gds, encoded, "-o", out)
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out).num_rows == sum(v is not None for v in values)
