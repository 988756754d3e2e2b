"""The gdedup command and the Python package agree.

One table of jobs drives both front ends: each step runs as `gdedup
COMMAND ...` and as gdedup.run(COMMAND, ..., **kwargs), in folders of their
own, and then every file each wrote (outputs, filter files) is byte for
byte the other's, the --stats counts are equal (and are gdedup.run's
result), and a failure is the same failure: the exit status and the
exception class of one table (EXPECTED_CLASS). Below it, the Filter: the
same records kept and filter files written by hand, and each front end
reads the other's filters."""

import gzip
import json
import os

import numpy as np
import pytest

import gdedup

from conftest import make_urls, wait_until_locked


def write_lines(path, records):
    path.write_bytes(b"".join(r + b"\n" for r in records))
    return path


@pytest.fixture
def day1(tmp_path):
    return make_urls(30000, 20000, seed=1)


@pytest.fixture
def day2(tmp_path):
    return make_urls(30000, 20000, seed=2)


# gdedup.run's keyword arguments as the command's flags; True is a switch.
FLAGS = {
    "output": "-o", "filter": "-f", "stats": "--stats", "files_from": "--files-from",
    "recursive": "--recursive", "skip_missing": "--skip-missing", "capacity": "--capacity",
    "fpr": "--fpr", "memory": "--memory", "block_bits": "--block-bits",
    "allow_high_fpr": "--allow-high-fpr", "max_memory": "--max-memory", "key": "--key",
    "delimiter": "--delimiter", "normalize": "--normalize", "missing_key": "--missing-key",
    "strict_json": "--strict-json", "ignore_key_rules": "--ignore-key-rules",
    "input_format": "--input-format", "output_format": "--output-format",
    "null_data": "--null-data", "threads": "--threads", "filter_threads": "--filter-threads",
    "backend": "--backend", "device": "--device",
    "batch_records": "--batch",
    "compressed_piece_bytes": "--compressed-piece-bytes",
    "parquet_compression": "--parquet-compression", "row_group_rows": "--row-group-rows",
    "checkpoint": "--checkpoint", "resume": "--resume", "duplicates": "--duplicates",
    "absent": "--absent", "exact": "--exact",
}
# The arguments that name a file the job writes: each front end's own.
WRITTEN = ("output", "filter", "stats", "checkpoint")
# A job's end as an exit status of the command (cli/exit_status.h) and as
# the class gdedup.run raises.
EXPECTED_CLASS = {
    1: gdedup.FileError,              # a runtime error: here, a missing input
    2: gdedup.InvalidArgumentError,   # a usage error
    3: gdedup.JobInterrupted,         # stopped at a checkpoint
    4: gdedup.FilterOverfullError,    # the filter ended far past its plan
}


def cli_args(command, inputs, kwargs):
    args = [command, *inputs]
    for name, value in kwargs.items():
        if name == "grow":
            args += [] if value else ["--no-grow"]
        elif value is True:
            args.append(FLAGS[name])
        else:
            args += [FLAGS[name], str(value)]
    return args


def step(command, inputs, exit_status=0, **kwargs):
    return (command, inputs, exit_status, kwargs)


# Each case: the steps of one job history, run in order in each front
# end's folder. Inputs are the names of files in the shared data folder.
CASES = {
    "dedup-growing": [step("dedup", ["day1.txt"], output="out.txt", filter="f.gdf",
                           stats="stats.json", capacity=5000)],
    "dedup-fixed-key-rules": [step("dedup", ["fields.txt"], output="out.txt", filter="f.gdf",
                                   stats="stats.json", capacity=25000, grow=False,
                                   key="field:2", delimiter="comma", normalize="url")],
    "dedup-duplicates": [step("dedup", ["day1.txt"], output="out.txt", stats="stats.json",
                              capacity=25000, duplicates=True)],
    "dedup-gzip-and-list": [step("dedup", ["day1.txt.gz"], output="out.txt", filter="f.gdf",
                                 files_from="list.txt", stats="stats.json", fpr=1e-6)],
    "dedup-gzip-in-parts": [step("dedup", ["day1.txt.gz"], output="out.txt", filter="f.gdf",
                                 capacity=25000, threads=2, compressed_piece_bytes=4096)],
    "build-then-query": [
        step("build", ["day1.txt"], filter="f.gdf", capacity=25000, fpr=1e-6, block_bits=512,
             stats="build.json"),
        step("query", ["day2.txt"], output="present.txt", filter="f.gdf", stats="query.json"),
        step("query", ["day2.txt"], output="absent.txt", filter="f.gdf", absent=True),
        # Another key rule than the file's: refused, unless ignored.
        step("query", ["day2.txt"], 2, output="norm.txt", filter="f.gdf", normalize="url"),
    ],
    "growth-of-an-existing-filter": [
        step("build", ["day1.txt"], filter="f.gdf", capacity=4000),
        step("dedup", ["day2.txt"], output="out.txt", filter="f.gdf", stats="stats.json"),
        step("dedup", ["day2.txt"], 2, output="again.txt", filter="f.gdf", max_memory=4096),
    ],
    "memory-budget": [step("build", ["day1.txt"], filter="f.gdf", memory=65536,
                           capacity=20000)],
    "overfull": [step("dedup", ["day1.txt"], 4, output="out.txt", filter="f.gdf",
                      stats="stats.json", capacity=1000, grow=False)],
    "refused-plan": [step("dedup", ["day1.txt"], 2, output="out.txt", filter="f.gdf",
                          memory=64, capacity=1000000),
                     step("dedup", ["day1.txt"], output="out.txt", memory=64,
                          capacity=1000000, allow_high_fpr=True)],
    "bad-values": [step("dedup", ["day1.txt"], 2, output="out.txt", capacity=0),
                   step("dedup", ["day1.txt"], 2, output="out.txt", key="field:0"),
                   step("dedup", ["day1.txt"], 2, output="out.txt", fpr=0.9),
                   step("build", ["day1.txt"], 2, filter="f.gdf", grow=False,
                        max_memory=1 << 20),
                   # A cap of no bytes, never taken for no cap.
                   step("dedup", ["day1.txt"], 2, output="out.txt", max_memory=0),
                   step("build", ["day1.txt"], 2, filter="s.set", exact=True, max_memory=0),
                   # Thread counts of none, and past the most a job takes.
                   step("dedup", ["day1.txt"], 2, output="out.txt", threads=0),
                   step("dedup", ["day1.txt"], 2, output="out.txt", threads=4097),
                   step("dedup", ["day1.txt"], 2, output="out.txt", exact=True,
                        filter_threads=4097),
                   # Options that another option makes the job ignore.
                   step("dedup", ["day1.txt"], 2, output="out.txt", fpr=1e-6, memory=65536),
                   step("dedup", ["day1.txt"], 2, output="out.txt", backend="cpu", device=0),
                   step("dedup", ["day1.txt"], 2, output="out.txt", input_format="u64",
                        missing_key="error"),
                   step("dedup", ["day1.txt"], 2, output="out.txt", device=-1),
                   # An output format for records, which are written as read,
                   # for fingerprints, and for a build, which writes none.
                   step("dedup", ["day1.txt"], 2, output="out.txt", output_format="lines"),
                   step("dedup", ["day1.txt"], 2, output="out.txt", input_format="u64",
                        output_format="lines"),
                   step("build", ["day1.txt"], 2, filter="f.gdf", output_format="lines")],
    "exact-set-file": [
        step("build", ["day1.txt"], filter="s.set", exact=True, stats="build.json"),
        step("dedup", ["day2.txt"], output="out.txt", filter="s.set", exact=True,
             stats="stats.json", threads=2),
        step("query", ["day2.txt"], output="absent.txt", filter="s.set", exact=True,
             absent=True),
        # Another key rule than the set's, and a Bloom filter's sizing: refused.
        step("query", ["day2.txt"], 2, output="norm.txt", filter="s.set", exact=True,
             normalize="url"),
        step("dedup", ["day1.txt"], 2, output="fpr.txt", exact=True, fpr=1e-6),
    ],
    # Records without their JSON key: two glued on one line, one whose
    # value before the key is not JSON (a key only when read strictly).
    "json-keys": [
        step("dedup", ["records.jsonl"], 2, output="out.txt", strict_json=True),
        step("dedup", ["records.jsonl"], output="out.txt", key="json:url",
             missing_key="keep", stats="stats.json"),
        step("dedup", ["records.jsonl"], output="strict.txt", key="json:url",
             missing_key="drop", strict_json=True, stats="strict.json"),
    ],
    "missing-input": [step("dedup", ["day1.txt", "gone.txt"], 1, output="out.txt"),
                      step("dedup", ["day1.txt", "gone.txt"], output="out.txt",
                           skip_missing=True, stats="stats.json")],
}

# Parquet input, where the build has its module (beside the extension
# module) and pyarrow is there to write it: the key column as lines, the
# rows as Parquet, and null keys that lines cannot write.
try:
    import pyarrow
    import pyarrow.parquet
except ImportError:
    pyarrow = None
PARQUET = pyarrow is not None and os.path.exists(
    os.path.join(os.path.dirname(gdedup.__file__), "libgdedup_parquet.so"))
if PARQUET:
    parquet_dedup = dict(key="column:url", missing_key="drop")
    CASES["parquet-output-formats"] = [
        step("dedup", ["rows.parquet"], output="keys.txt", output_format="lines",
             stats="stats.json", **parquet_dedup),
        step("dedup", ["rows.parquet"], output="rows.parquet", output_format="parquet",
             **parquet_dedup),
        step("dedup", ["rows.parquet"], 2, output="nulls.txt", key="column:url",
             missing_key="keep", output_format="lines"),
    ]


@pytest.fixture
def data(tmp_path, day1, day2):
    folder = tmp_path / "data"
    folder.mkdir()
    write_lines(folder / "day1.txt", day1)
    write_lines(folder / "day2.txt", day2)
    write_lines(folder / "fields.txt", [b"%d,%s" % (i % 7, u) for i, u in enumerate(day1)])
    (folder / "day1.txt.gz").write_bytes(gzip.compress((folder / "day1.txt").read_bytes()))
    (folder / "list.txt").write_text(f"{folder / 'day2.txt'}\n")
    write_lines(folder / "records.jsonl", [b'{"url":"a"}', b'{"url":"a"}{"url":"b"}',
                                           b'{"v":[1,,2],"url":"b"}', b'{"url":"b"}'])
    if PARQUET:
        urls = [u.decode() if i % 50 else None for i, u in enumerate(day1)]
        pyarrow.parquet.write_table(pyarrow.table({"url": urls, "n": list(range(len(urls)))}),
                                    folder / "rows.parquet", row_group_size=4000)
    return folder


def run_both(step_, data, cli_dir, py_dir, run_cli):
    """Runs one step in both front ends; returns the Python result (or
    None) after checking that both ended alike."""
    command, inputs, exit_status, kwargs = step_
    paths = [str(data / name) for name in inputs]
    mine = dict(kwargs)
    if "files_from" in mine:
        mine["files_from"] = str(data / mine["files_from"])
    theirs = dict(mine)
    for name in WRITTEN:
        if name in kwargs:
            theirs[name] = str(cli_dir / kwargs[name])
            mine[name] = str(py_dir / kwargs[name])
    proc = run_cli(*cli_args(command, paths, theirs), "--quiet", check=False)
    assert proc.returncode == exit_status, proc.stderr
    if exit_status == 0:
        return gdedup.run(command, paths, **mine)
    with pytest.raises(EXPECTED_CLASS[exit_status]) as caught:
        gdedup.run(command, paths, **mine)
    return getattr(caught.value, "result", None)


def comparable_stats(path):
    stats = json.loads(path.read_bytes())
    for timed in ("seconds", "records_per_second"):
        del stats[timed]
    return stats


@pytest.mark.parametrize("case", list(CASES))
def test_the_command_and_run_do_the_same_job(tmp_path, data, run_cli, case):
    cli_dir, py_dir = tmp_path / "cli", tmp_path / "py"
    cli_dir.mkdir()
    py_dir.mkdir()
    for step_ in CASES[case]:
        result = run_both(step_, data, cli_dir, py_dir, run_cli)
        stats = step_[3].get("stats")
        if result is not None and stats and (cli_dir / stats).exists():
            counted = comparable_stats(cli_dir / stats)
            assert counted == comparable_stats(py_dir / stats)
            for count in ("records", "kept", "dropped", "input_bytes", "output_bytes",
                          "inputs", "inputs_skipped", "checkpoints"):
                assert getattr(result, count) == counted[count], count
    files = sorted(p.name for p in cli_dir.iterdir())
    assert files == sorted(p.name for p in py_dir.iterdir())
    for name in files:
        if not name.endswith(".json"):
            assert (cli_dir / name).read_bytes() == (py_dir / name).read_bytes(), name


def stop_at_first_batch(counts):
    raise KeyboardInterrupt


def test_a_job_stopped_by_run_resumes_in_either_front_end(tmp_path, data, run_cli):
    """A checkpointed job stopped at its first batch (a KeyboardInterrupt
    from progress=, as Ctrl-C stops it) resumes through the command and
    through gdedup.run to the same output and filter file as a job never
    stopped."""
    job = dict(batch_records=1000, capacity=25000)
    whole = tmp_path / "whole"
    whole.mkdir()
    gdedup.run("dedup", str(data / "day1.txt"), output=whole / "out.txt",
               filter=whole / "f.gdf", **job)
    resumed = {}
    for front_end in ("cli", "py"):
        folder = tmp_path / front_end
        folder.mkdir()
        files = dict(output=str(folder / "out.txt"), filter=str(folder / "f.gdf"),
                     checkpoint=str(folder / "ck"))
        with pytest.raises(gdedup.JobInterrupted, match="resume") as caught:
            gdedup.run("dedup", str(data / "day1.txt"), progress=stop_at_first_batch,
                       **files, **job)
        assert caught.value.result.records == 1000
        assert isinstance(caught.value.__context__ or caught.value.__cause__,
                          KeyboardInterrupt)
        assert not (folder / "out.txt").exists() and (folder / "ck").exists()
        if front_end == "cli":
            run_cli(*cli_args("dedup", [data / "day1.txt"], dict(**files, **job, resume=True)))
        else:
            result = gdedup.run("dedup", str(data / "day1.txt"), resume=True, **files, **job)
            assert result.resumed_records == 1000 and result.records == 30000
        assert not (folder / "ck").exists()
        resumed[front_end] = [(folder / name).read_bytes() for name in ("out.txt", "f.gdf")]
    assert resumed["cli"] == resumed["py"]
    assert resumed["py"] == [(whole / name).read_bytes() for name in ("out.txt", "f.gdf")]


def test_dedup_keeps_the_records_the_command_keeps(tmp_path, run_cli, day1):
    data = write_lines(tmp_path / "in.txt", day1 + [b"last line without newline"])
    data.write_bytes(data.read_bytes()[:-1])
    run_cli("dedup", data, "-o", tmp_path / "cli.txt", "--capacity", 5000,
            "-f", tmp_path / "cli.gdf", "--quiet")
    f = gdedup.Filter(capacity=5000)
    with open(data, "rb") as lines:
        kept = b"".join(gdedup.dedup(lines, filter=f))
    # The command ends every record it writes with a newline; dedup yields
    # the records as they were read.
    assert kept + b"\n" == (tmp_path / "cli.txt").read_bytes()
    assert f.layers > 1    # it grew past 5000 keys, as the command's did
    f.save(tmp_path / "py.gdf")
    assert (tmp_path / "py.gdf").read_bytes() == (tmp_path / "cli.gdf").read_bytes()


@pytest.mark.parametrize("options,kwargs", [
    (["--no-grow"], {"grow": False}),
    (["--normalize", "url", "--key", "field:2", "--delimiter", "comma"],
     {"normalize": "url", "key": "field:2", "delimiter": "comma"}),
    (["--fpr", "1e-6", "--block-bits", "512"], {"fpr": 1e-6, "block_bits": 512}),
])
def test_build_writes_the_same_filter_file(tmp_path, run_cli, day1, options, kwargs):
    records = [b"%d,%s" % (i % 7, u) for i, u in enumerate(day1)]
    data = write_lines(tmp_path / "in.txt", records)
    run_cli("build", data, "-f", tmp_path / "cli.gdf", "--capacity", 25000, "--quiet", *options)
    f = gdedup.Filter(capacity=25000, **kwargs)
    f.add(records)
    f.save(tmp_path / "py.gdf")
    assert (tmp_path / "py.gdf").read_bytes() == (tmp_path / "cli.gdf").read_bytes()


def test_memory_sized_filter_matches_the_command(tmp_path, run_cli, day1):
    data = write_lines(tmp_path / "in.txt", day1)
    run_cli("build", data, "-f", tmp_path / "cli.gdf", "--memory", "64KiB", "--capacity", 20000,
            "--quiet")
    f = gdedup.Filter(memory=64 << 10, capacity=20000)
    f.add(day1)
    f.save(tmp_path / "py.gdf")
    assert (tmp_path / "py.gdf").read_bytes() == (tmp_path / "cli.gdf").read_bytes()


def test_a_loaded_filter_continues_as_one_run(tmp_path, run_cli, day1, day2):
    run_cli("build", write_lines(tmp_path / "1.txt", day1), "-f", tmp_path / "day1.gdf",
            "--capacity", 4000, "--quiet")
    run_cli("build", write_lines(tmp_path / "both.txt", day1 + day2), "-f",
            tmp_path / "both.gdf", "--capacity", 4000, "--quiet")
    f = gdedup.Filter.load(tmp_path / "day1.gdf")
    assert f.grows and f.key_rules.startswith("input text, key whole")
    f.add(day2)
    f.save(tmp_path / "py.gdf")
    assert (tmp_path / "py.gdf").read_bytes() == (tmp_path / "both.gdf").read_bytes()


def test_the_command_queries_a_python_filter(tmp_path, run_cli, day1, day2):
    f = gdedup.Filter(capacity=20000, fpr=1e-9)
    f.add(day1)
    f.save(tmp_path / "py.gdf")
    data = write_lines(tmp_path / "q.txt", day1[:100] + day2[:100])
    seen = set(day1)
    out = run_cli("query", data, "-f", tmp_path / "py.gdf", "--quiet").stdout
    expected = b"".join(r + b"\n" for r in day1[:100] + day2[:100] if r in seen)
    assert out == expected


def test_fingerprints_are_the_commands(tmp_path, run_cli, day1):
    records = [b"x\t" + u.upper() for u in day1[:2000]]
    run_cli("build", write_lines(tmp_path / "in.txt", records), "-f", tmp_path / "cli.gdf",
            "--capacity", 2000, "--no-grow", "--key", "field:2", "--normalize", "url",
            "--quiet")
    f = gdedup.Filter.load(tmp_path / "cli.gdf")
    fps = gdedup.fingerprint(records, key="field:2", normalize="url")
    assert fps.dtype == np.uint64
    assert f.contains(fps).all()
    assert f.contains(records).all()      # the file's key rules are taken with it
    assert gdedup.fingerprint(records[0], key="field:2", normalize="url") == int(fps[0])
    # u64 input: the command's 8-byte little-endian fingerprints
    (tmp_path / "fps.u64").write_bytes(fps.astype("<u8").tobytes())
    out = run_cli("query", tmp_path / "fps.u64", "--input-format", "u64", "-f",
                  tmp_path / "cli.gdf", "--ignore-key-rules", "--quiet").stdout
    assert out == (tmp_path / "fps.u64").read_bytes()


def test_key_rules_mismatch_is_refused_both_ways(tmp_path, run_cli, day1):
    run_cli("build", write_lines(tmp_path / "in.txt", day1[:100]), "-f", tmp_path / "cli.gdf",
            "--capacity", 1000, "--normalize", "url", "--quiet")
    with pytest.raises(gdedup.InvalidArgumentError, match="key rules"):
        gdedup.Filter.load(tmp_path / "cli.gdf", normalize="lowercase")
    same = gdedup.Filter.load(tmp_path / "cli.gdf", normalize="url")
    assert "normalize" in same.key_rules

    f = gdedup.Filter(capacity=1000, key="field:2")
    f.save(tmp_path / "py.gdf")
    proc = run_cli("query", tmp_path / "in.txt", "-f", tmp_path / "py.gdf", check=False)
    assert proc.returncode == 2 and b"key rules" in proc.stderr


@pytest.mark.parametrize(
    "kwargs",
    [{"capacity": 2000}, {"capacity": 25000, "grow": False}, {"capacity": 40000}],
    ids=["growing-several-layers", "fixed", "growing-one-layer"],
)
def test_info_is_the_commands(tmp_path, run_cli, day1, kwargs):
    """info() is `gdedup info --json` of the saved file, member for member
    and value for value, but for the file's own members."""
    import json
    f = gdedup.Filter(normalize="url", **kwargs)
    f.add(day1)
    if kwargs["capacity"] == 2000:
        assert f.layers >= 3  # totals over several layers, rates compounded
    f.save(tmp_path / "f.gdf")
    cli = json.loads(run_cli("info", "--json", tmp_path / "f.gdf").stdout)
    assert cli["info_version"] == 2 and cli["layer_count"] == f.layers
    for member in ("file", "kind", "version"):
        del cli[member]
    mine = f.info()
    assert list(mine) == list(cli)  # the same members, in the same order
    assert mine == cli
    assert [list(layer) for layer in mine["layers"]] == [list(layer) for layer in cli["layers"]]


def test_merge_is_the_commands(tmp_path, run_cli, day1, day2):
    a = gdedup.Filter(capacity=4000)
    a.add(day1)
    a.save(tmp_path / "a.gdf")
    b = gdedup.Filter(capacity=4000)
    b.add(day2[:100])      # merged layers within their plan: the command refuses others
    b.save(tmp_path / "b.gdf")
    run_cli("merge", tmp_path / "a.gdf", tmp_path / "b.gdf", "-o", tmp_path / "cli.gdf",
            "--quiet")
    b.merge(a)      # b has fewer layers: it takes a's extra ones
    assert b.layers == a.layers
    assert b.contains(day1).all() and b.contains(day2[:100]).all()
    b.save(tmp_path / "py.gdf")
    assert (tmp_path / "py.gdf").read_bytes() == (tmp_path / "cli.gdf").read_bytes()


def test_merged_growing_filter_decides_growth_where_the_commands_does(tmp_path, run_cli):
    """Two growing filters whose first layers hold 601 and 603 keys of the
    1,000 planned: the merged layer could take in more than planned before
    the next growth decision, so the keys offered are rounded up to it
    (docs/FORMAT.md, "Merging"), in Python as in the command."""
    a = gdedup.Filter(capacity=1000)
    b = gdedup.Filter(capacity=1000)
    a.add([b"a/%d" % i for i in range(601)])
    b.add([b"b/%d" % i for i in range(603)])
    a.save(tmp_path / "a.gdf")
    b.save(tmp_path / "b.gdf")
    run_cli("merge", tmp_path / "a.gdf", tmp_path / "b.gdf", "-o", tmp_path / "cli.gdf", "--quiet")
    a.merge(b)
    every = a.plan["check_every"]
    assert 601 + 603 < every * 2 and a.info()["growth"]["keys_offered"] == every * 2
    a.save(tmp_path / "py.gdf")
    assert (tmp_path / "py.gdf").read_bytes() == (tmp_path / "cli.gdf").read_bytes()


@pytest.mark.parametrize("grow", [False, True], ids=["fixed", "growing"])
def test_merge_past_the_plan_fails_as_the_commands_and_changes_nothing(tmp_path, run_cli, grow):
    """Two filters, each full, merge into one past its plan: the command
    writes it and exits 4; Filter.merge raises and leaves the filter as it
    was (its saved bytes, its answers)."""
    keys_a = [b"a/%d" % i for i in range(3000)]
    keys_b = [b"b/%d" % i for i in range(3000)]
    a = gdedup.Filter(capacity=3000, grow=grow)
    b = gdedup.Filter(capacity=3000, grow=grow)
    a.add(keys_a)
    b.add(keys_b)
    # Layer 1 of each is full (a growing filter adds its layer 2 just
    # before), so the merged layer 1 holds about twice its plan.
    a.save(tmp_path / "a.gdf")
    b.save(tmp_path / "b.gdf")
    proc = run_cli("merge", tmp_path / "a.gdf", tmp_path / "b.gdf", "-o", tmp_path / "cli.gdf",
                   check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"far past its plan" in proc.stderr
    message = "far past its plan: planned for 3,000 distinct keys.*This filter is unchanged"
    with pytest.raises(gdedup.InvalidArgumentError, match=message) as caught:
        a.merge(b)
    layers = "layer 1 of the %d layers of the merged filter" % max(a.layers, b.layers)
    assert (layers in str(caught.value)) == grow
    assert ("capacity=" in str(caught.value)) == (not grow)
    a.save(tmp_path / "after.gdf")
    assert (tmp_path / "after.gdf").read_bytes() == (tmp_path / "a.gdf").read_bytes()
    assert a.contains(keys_a).all()
    assert a.contains(keys_b).sum() < 10  # b's keys were not merged in


# A job's words for a filter or set file, a new one of each, and the file's
# name.
HELD_KINDS = {
    "Filter": (["--capacity", "100"], lambda: gdedup.Filter(capacity=100), "f.gdf"),
    "Set": (["--exact"], gdedup.Set, "s.gds"),
}


@pytest.mark.parametrize("kind", list(HELD_KINDS))
def test_save_is_refused_while_a_job_holds_the_file(tmp_path, gdedup_bin, kind):
    """A gdedup job that will save the filter (or set) holds its lock: a
    save from Python meanwhile fails loudly instead of being replaced at
    the job's end."""
    import os
    import subprocess
    flags, make, name = HELD_KINDS[kind]
    cls = getattr(gdedup, kind)
    path = tmp_path / name
    job = subprocess.Popen([gdedup_bin, "dedup", "-", "-f", str(path), *flags,
                            "-o", os.devnull, "--quiet"], stdin=subprocess.PIPE)
    try:
        wait_until_locked(job, path)
        f = make()
        f.add(b"from python")
        with pytest.raises(gdedup.FileError, match=f"in use by process {job.pid}"):
            f.save(path)
        assert not path.exists()
    finally:
        job.communicate(b"from the job\n", timeout=60)
    assert job.returncode == 0
    assert b"from the job" in cls.load(path)
    f.save(path)     # the job is done: saved
    assert b"from python" in cls.load(path)
    if kind == "Set":  # a new set read no file, and replaces it (exactly)
        assert b"from the job" not in cls.load(path)


# Every kind of key, and none given (the whole record), for the delimiter's
# rule: it separates the fields of a field key, and no other key has any.
DELIMITER_KEYS = [None, "whole", "line", "field:2", "json:url", "cdxj:url", "cdxj:surt",
                  "cdxj:timestamp"]


def neutral(message, spellings):
    """`message` with each front end's spelling of an option (and its
    value) replaced by the same words: what is left must be the same
    sentence in both."""
    for spelled, word in spellings:
        message = message.replace(spelled, word)
    return message


def cli_spellings(key, delimiter):
    return [(f"--delimiter {delimiter}", "<delimiter given>"),
            (f"--key {key or 'whole'}", "<key given>"),
            ("--key field:N", "<key field:N>"), ("--delimiter", "<delimiter>")]


def py_spellings(key, delimiter):
    return [(f'delimiter="{delimiter}"', "<delimiter given>"),
            (f'key="{key or "whole"}"', "<key given>"),
            ("key=field:N", "<key field:N>"), ("delimiter=", "<delimiter>")]


@pytest.fixture(scope="module")
def key_files(tmp_path_factory, gdedup_bin):
    """An empty input, which every key reads, and a filter file and a set
    file made by the command for each key (with its default delimiter)."""
    import subprocess
    folder = tmp_path_factory.mktemp("keys")
    (folder / "empty.txt").write_bytes(b"")
    files = {}
    for key in DELIMITER_KEYS:
        for exact, name in ((False, "f.gdf"), (True, "s.gds")):
            path = folder / f"{key or 'none'}.{name}".replace(":", "-")
            args = [gdedup_bin, "build", str(folder / "empty.txt"), "-f", str(path), "--quiet",
                    *(["--exact"] if exact else ["--capacity", "100"]),
                    *(["--key", key] if key else [])]
            subprocess.run(args, check=True)
            files[key, exact] = path
    return folder, files


@pytest.mark.parametrize("delimiter", [None, "comma"])
@pytest.mark.parametrize("key", DELIMITER_KEYS)
def test_a_delimiter_is_refused_alike_with_every_key(tmp_path, run_cli, key_files, key,
                                                     delimiter):
    """The same key and delimiter, refused or accepted alike by the command
    (a new filter, an existing filter or set file) and by Python
    (gdedup.run, Filter, Set, Filter.load, Set.load), and refused in the
    same words: a delimiter given with any key but a field key selects
    nothing, and the key rules a file records would hold it, so that the
    same key without it would be another key's rules."""
    folder, files = key_files
    data = str(folder / "empty.txt")
    kwargs = {name: value for name, value in (("key", key), ("delimiter", delimiter)) if value}
    flags = [a for name, value in kwargs.items() for a in (FLAGS[name], value)]
    refused = delimiter is not None and key != "field:2"
    # The files were made with the default delimiter: a field key with
    # another one is refused as other key rules.
    refused_by_file = delimiter is not None
    cli_runs = {
        "new": (["dedup", data, "-o", tmp_path / "out.txt"], refused),
        "filter file": (["query", data, "-f", files[key, False]], refused_by_file),
        "set file": (["query", data, "--exact", "-f", files[key, True]], refused_by_file),
    }
    words = set()
    for what, (args, refusal) in cli_runs.items():
        proc = run_cli(*args, *flags, "--quiet", check=False)
        assert proc.returncode == (2 if refusal else 0), (what, proc.stderr)
        if refused:
            words.add(neutral(proc.stderr.decode().strip().removeprefix("gdedup: "),
                              cli_spellings(key, delimiter)))
    py_calls = {
        "run": (lambda: gdedup.run("dedup", data, output=tmp_path / "py.txt", **kwargs),
                refused),
        "Filter": (lambda: gdedup.Filter(capacity=100, **kwargs), refused),
        "Set": (lambda: gdedup.Set(**kwargs), refused),
        "Filter.load": (lambda: gdedup.Filter.load(files[key, False], **kwargs),
                        refused_by_file),
        "Set.load": (lambda: gdedup.Set.load(files[key, True], **kwargs), refused_by_file),
    }
    for what, (call, refusal) in py_calls.items():
        if not refusal:
            call()
            continue
        with pytest.raises(gdedup.InvalidArgumentError) as caught:
            call()
        if refused:
            words.add(neutral(str(caught.value), py_spellings(key, delimiter)))
    assert len(words) <= 1, words


# One spec each, given to the command and to gdedup.run: both refuse it
# (exit status 2, InvalidArgumentError) in the same sentence but for the
# spelling of each option, or both run it. The first value of a quoted
# option is the command's, as typed; the second Python's, as quoted back.
# Every spec is checked by the library alone (check_job_spec).
REFUSED, ACCEPTED = 2, 0
SPECS = {
    # Options that another makes the job ignore.
    "rate-and-budget": (REFUSED, dict(fpr=1e-6, memory=65536),
                        {"fpr": ("1e-06", "1.00e-06"), "memory": ("65536", "65536")}),
    "device-on-the-cpu": (REFUSED, dict(backend="cpu", device=0),
                          {"device": ("0", "0"), "backend": ("cpu", '"cpu"')}),
    "key-option-with-u64": (REFUSED, dict(input_format="u64", missing_key="error"),
                            {"input_format": ("u64", '"u64"')}),
    "key-with-u64": (REFUSED, dict(input_format="u64", key="whole"),
                     {"input_format": ("u64", '"u64"')}),
    "normalize-with-u64": (REFUSED, dict(input_format="u64", normalize="url"),
                           {"input_format": ("u64", '"u64"')}),
    "delimiter-with-a-json-key": (REFUSED, dict(key="json:url", delimiter="comma"),
                                  {"key": ("json:url", '"json:url"'),
                                   "delimiter": ("comma", '"comma"')}),
    "checkpoint-every-without-checkpoint": (REFUSED, dict(checkpoint_every_seconds=5), {}),
    "checkpoint-records-without-checkpoint": (REFUSED, dict(checkpoint_every_records=5), {}),
    "block-bits-with-exact": (REFUSED, dict(exact=True, block_bits=256),
                              {"block_bits": ("256", "256")}),
    # Values that are no choice.
    "memory-0": (REFUSED, dict(memory=0), {"memory": ("0", "0")}),
    "memory-under-a-block": (REFUSED, dict(memory=31), {"memory": ("31", "31")}),
    "fpr-0": (REFUSED, dict(fpr=0.0), {"fpr": ("0.0", "0")}),
    "fpr-1": (REFUSED, dict(fpr=1.0), {"fpr": ("1.0", "1")}),
    "fpr-1-allowed-high": (REFUSED, dict(fpr=1.0, allow_high_fpr=True), {"fpr": ("1.0", "1")}),
    "fpr-high": (REFUSED, dict(fpr=0.9), {"fpr": ("0.9", "0.9")}),
    "block-bits-0": (REFUSED, dict(block_bits=0), {"block_bits": ("0", "0")}),
    "block-bits-128": (REFUSED, dict(block_bits=128), {"block_bits": ("128", "128")}),
    "batch-0": (REFUSED, dict(batch_records=0), {"batch_records": ("0", "0")}),
    "compressed-piece-bytes-0": (REFUSED, dict(compressed_piece_bytes=0),
                                 {"compressed_piece_bytes": ("0", "0")}),
    "capacity-0": (REFUSED, dict(capacity=0), {"capacity": ("0", "0")}),
    "row-group-rows-0": (REFUSED, dict(row_group_rows=0), {"row_group_rows": ("0", "0")}),
    "parquet-compression-unknown": (REFUSED, dict(parquet_compression="zip"),
                                    {"parquet_compression": ("zip", '"zip"')}),
    # Parquet's output options, for lines.
    "parquet-compression-for-lines": (REFUSED, dict(parquet_compression="zstd"), {}),
    "row-group-rows-for-lines": (REFUSED, dict(row_group_rows=5), {}),
    "max-memory-0": (REFUSED, dict(max_memory=0), {"max_memory": ("0", "0")}),
    "threads-0": (REFUSED, dict(threads=0), {"threads": ("0", "0")}),
    "filter-threads-past-the-most": (REFUSED, dict(filter_threads=4097),
                                     {"filter_threads": ("4097", "4097")}),
    "device-below-0": (REFUSED, dict(device=-1), {"device": ("-1", "-1")}),
    "device-past-the-most": (REFUSED, dict(device=4096), {"device": ("4096", "4096")}),
    # Their neighbours, run alike.
    "block-bits-512": (ACCEPTED, dict(block_bits=512), {}),
    "fpr-high-allowed": (ACCEPTED, dict(fpr=0.9, allow_high_fpr=True), {}),
    "memory-one-block": (ACCEPTED, dict(memory=32, allow_high_fpr=True), {}),
    "threads-1": (ACCEPTED, dict(threads=1, filter_threads=1), {}),
    "batch-1": (ACCEPTED, dict(batch_records=1, max_memory=1 << 30), {}),
    "delimiter-with-a-field-key": (ACCEPTED, dict(key="field:1", delimiter="comma"), {}),
}
# The command's flag for each interval of --checkpoint-every, and its unit.
EVERY = {"checkpoint_every_seconds": "s", "checkpoint_every_records": ""}


def spec_args(kwargs):
    """The command's flags for gdedup.run's `kwargs`."""
    every = {name: value for name, value in kwargs.items() if name in EVERY}
    args = cli_args("dedup", [], {n: v for n, v in kwargs.items() if n not in EVERY})[1:]
    for name, value in every.items():
        args += ["--checkpoint-every", f"{value}{EVERY[name]}"]
    return args


def spelled_alike(message, front_end, quoted):
    """`message` with each option, and each value `quoted`, in the same
    words for both front ends; OptionNames::with puts no space after a
    name that ends with '=', so none is kept after any."""
    cli = front_end == "cli"
    words = [(f"{FLAGS[name]} {values[0]}" if cli else f"{name}={values[1]}", f"<{name} given>")
             for name, values in quoted.items()]
    for name, flag in [*FLAGS.items(), ("grow", "--no-grow")]:
        words += [(flag, f"<{name}>")] if cli else [(f"{name}=True", f"<{name}>"),
                                                    (f"{name}=False", f"<{name}>"),
                                                    (f"{name}=", f"<{name}>")]
    words += [("--checkpoint-every", "<every>")] if cli else [(f"{n}=", "<every>") for n in EVERY]
    # Longest first: --checkpoint-every before --checkpoint, max_memory= before memory=.
    for spelled, word in sorted(words, key=lambda w: -len(w[0])):
        message = message.replace(spelled, word)
    return message.replace("> ", ">")


@pytest.mark.parametrize("case", list(SPECS))
def test_a_spec_is_refused_or_run_alike(tmp_path, run_cli, data, case):
    """The same spec through the command and through gdedup.run: refused
    by both in the same sentence, each option named in its front end's
    words, or run by both."""
    status, kwargs, quoted = SPECS[case]
    paths = [str(data / "day1.txt")]
    proc = run_cli("dedup", *paths, *spec_args(kwargs), "-o", tmp_path / "cli.txt", "--quiet",
                   check=False)
    assert proc.returncode == status, proc.stderr
    if status == ACCEPTED:
        gdedup.run("dedup", paths, output=tmp_path / "py.txt", **kwargs)
        assert (tmp_path / "cli.txt").read_bytes() == (tmp_path / "py.txt").read_bytes()
        return
    with pytest.raises(gdedup.InvalidArgumentError) as caught:
        gdedup.run("dedup", paths, output=tmp_path / "py.txt", **kwargs)
    said = proc.stderr.decode().strip().removeprefix("gdedup: ")
    # The input's path, which a message may name, is no option ("-o" in
    # "/tmp/pytest-of-root").
    said, raised = (m.replace(paths[0], "<input>") for m in (said, str(caught.value)))
    assert spelled_alike(said, "cli", quoted) == spelled_alike(raised, "py", quoted)
