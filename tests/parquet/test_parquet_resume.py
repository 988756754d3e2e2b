"""Checkpoints and resume of Parquet jobs, end to end through the command.

A job of three Parquet files (42 row groups) checkpointed after every row
group is killed (SIGKILL) or stopped (SIGTERM) at chosen file calls:
writes of the output's temporary file, the writes and the rename of the
checkpoint, and again during a resume; each time it is resumed until it
completes. The output and the -f filter or set file must equal those of
one uninterrupted run byte for byte, and the rows the oracle's. A resume
with a changed input, a damaged or missing output temporary, or other
options is refused.

gdedup-faults (tests/tools/gdedup_faults.cpp) kills the command at the
Nth call OP on a file named from PREFIX (GDEDUP_KILL_AT=OP:N:PREFIX), or
sends it a signal there (GDEDUP_SIGNAL_AT=SIG:OP:N:PREFIX), the same
every run.
"""
import os
import signal
import subprocess

import pytest

from test_parquet import BIN, make_files, needs_parquet, oracle, pa, pq

FAULTS = os.environ.get("GDEDUP_FAULTS_BIN", os.path.join(os.path.dirname(BIN), "gdedup-faults"))
needs_faults = pytest.mark.skipif(not os.path.exists(FAULTS),
                                  reason="gdedup-faults is not built (GDEDUP_FAULTS_BIN)")
KILLED = -signal.SIGKILL
INTERRUPTED = 3  # stopped by a signal, with a checkpoint (docs/CLI.md)

# Filters: growing from a small first layer, fixed, and the exact set.
FILTERS = {
    "growing": ["--capacity", "500"],
    "fixed": ["--capacity", "20000", "--no-grow"],
    "exact": ["--exact"],
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return make_files(str(tmp_path_factory.mktemp("resume_inputs")), group=300)


def job(mode, inputs, filt, extra=()):
    """The command line of a checkpointed job in the current folder."""
    output = [] if mode == "build" else ["-o", "out.parquet"]
    return [mode, "-q", "--key", "column:url", "--missing-key", "keep", *FILTERS[filt],
            *inputs, *output, "-f", "filter", "--checkpoint", "ck", "--checkpoint-every", "1",
            *extra]


def run(folder, args, env_extra=None, command=BIN):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([command, *args], capture_output=True, text=True, cwd=folder, env=env)


def reference(tmp_path, mode, inputs, filt):
    """The files of one run that never stopped and wrote no checkpoint."""
    folder = tmp_path / "reference"
    folder.mkdir()
    args = [a for a in job(mode, inputs, filt) if a not in ("--checkpoint", "ck",
                                                            "--checkpoint-every", "1")]
    done = run(folder, args)
    assert done.returncode == 0, done.stderr
    return folder


def read(path):
    with open(path, "rb") as f:
        return f.read()


def assert_same_files(folder, ref, mode):
    names = ["filter"] + ([] if mode == "build" else ["out.parquet"])
    for name in names:
        assert read(folder / name) == read(ref / name), name
    # A fresh run killed before its first checkpoint, and a kill while a
    # checkpoint is written, leave a temporary file nothing names
    # (docs/CHECKPOINT.md): only the checkpoint must be gone.
    assert not os.path.exists(folder / "ck")


def stop_and_resume(folder, args, faults):
    """Runs the job once per fault (each a GDEDUP_* variable and value), then
    resumes it, with --resume once a checkpoint exists; a job stopped before
    its first checkpoint is started again. Returns the exit statuses."""
    statuses = []
    for name, value in faults:
        resume = ["--resume"] if os.path.exists(folder / "ck") else []
        done = run(folder, args + resume, {name: value}, FAULTS)
        statuses.append(done.returncode)
        assert done.returncode in (0, KILLED, INTERRUPTED), done.stderr
        if done.returncode == INTERRUPTED:
            assert "--resume" in done.stderr
    resume = ["--resume"] if os.path.exists(folder / "ck") else []
    done = run(folder, args + resume)
    assert done.returncode == 0, done.stderr
    return statuses


# Where the job is stopped: the Nth write of the output's temporary file (a
# checkpoint's flush), the Nth write and rename of the checkpoint, the
# Nth sync of the output.
KILL_POINTS = [
    [("write", 1, "out.parquet.tmp")],
    [("write", 5, "out.parquet.tmp")],
    [("write", 17, "out.parquet.tmp"), ("write", 4, "out.parquet.tmp")],
    [("rename", 3, "ck"), ("rename", 1, "ck"), ("write", 2, "ck.tmp")],
    [("write", 1, "ck.tmp"), ("sync", 8, "out.parquet.tmp")],
]


def resumed_equals_one_run(inputs, tmp_path, mode, filt, faults):
    """Runs the job through `faults` (stop_and_resume) and checks its files
    against one uninterrupted run's; returns the exit statuses."""
    ref = reference(tmp_path, mode, inputs, filt)
    folder = tmp_path / "job"
    folder.mkdir()
    statuses = stop_and_resume(folder, job(mode, inputs, filt), faults)
    assert_same_files(folder, ref, mode)
    if mode == "dedup" and filt == "exact":
        assert pq.read_table(folder / "out.parquet").to_pylist() == oracle(inputs, "url")
    return statuses


@needs_parquet
@needs_faults
@pytest.mark.parametrize("filt", sorted(FILTERS))
@pytest.mark.parametrize("points", range(len(KILL_POINTS)))
def test_killed_and_resumed_equals_one_run(inputs, tmp_path, filt, points):
    faults = [("GDEDUP_KILL_AT", "%s:%d:%s" % point) for point in KILL_POINTS[points]]
    assert KILLED in resumed_equals_one_run(inputs, tmp_path, "dedup", filt, faults)


@needs_parquet
@needs_faults
@pytest.mark.parametrize("filt", sorted(FILTERS))
def test_stopped_by_sigterm_and_resumed_equals_one_run(inputs, tmp_path, filt):
    faults = [("GDEDUP_SIGNAL_AT", "TERM:write:%d:out.parquet.tmp" % n) for n in (3, 2, 6)]
    statuses = resumed_equals_one_run(inputs, tmp_path, "dedup", filt, faults)
    assert statuses == [INTERRUPTED] * 3


@needs_parquet
@needs_faults
@pytest.mark.parametrize("filt", sorted(FILTERS))
def test_a_build_killed_and_resumed_saves_the_same_filter(inputs, tmp_path, filt):
    faults = [("GDEDUP_KILL_AT", "rename:%d:ck" % n) for n in (4, 9)]
    statuses = resumed_equals_one_run(inputs, tmp_path, "build", filt, faults)
    assert statuses == [KILLED, KILLED]


@needs_parquet
def test_a_checkpoint_after_every_row_group_changes_no_byte(inputs, tmp_path):
    ref = reference(tmp_path, "dedup", inputs, "exact")
    folder = tmp_path / "job"
    folder.mkdir()
    done = run(folder, job("dedup", inputs, "exact"))
    assert done.returncode == 0, done.stderr
    assert_same_files(folder, ref, "dedup")
    assert pq.ParquetFile(folder / "out.parquet").metadata.num_row_groups == 42


@needs_parquet
@needs_faults
def test_a_job_stopped_before_it_kept_a_row_resumes_to_one_runs_file(tmp_path):
    # Five row groups of new URLs, then one that repeats some: --duplicates
    # keeps no row before the sixth.
    urls = ["https://e.example/%d" % i for i in range(1000)]
    urls += urls[::7]
    path = str(tmp_path / "in.parquet")
    pq.write_table(pa.table({"url": urls, "n": list(range(len(urls)))}), path,
                   row_group_size=200)
    args = ["dedup", "-q", "--duplicates", "--exact", "--key", "column:url", path, "-o",
            "out.parquet", "--checkpoint", "ck", "--checkpoint-every", "1"]
    ref = tmp_path / "reference"
    ref.mkdir()
    assert run(ref, args[:-4]).returncode == 0
    folder = tmp_path / "job"
    folder.mkdir()
    done = run(folder, args, {"GDEDUP_SIGNAL_AT": "TERM:rename:1:ck"}, FAULTS)
    assert done.returncode == INTERRUPTED, done.stderr
    # No footer is written at the stop (the resume would cut it off): the
    # file so far is "PAR1" and the row groups of the rows kept, if any.
    kept = read(temporary(folder))
    assert kept == b"PAR1" or (kept.startswith(b"PAR1") and not kept.endswith(b"PAR1"))
    # Resumed on more threads and in smaller batches: the same file.
    done = run(folder, args + ["--resume", "--threads", "2", "--batch", "50"])
    assert done.returncode == 0, done.stderr
    assert read(folder / "out.parquet") == read(ref / "out.parquet")


def stopped_job(inputs, tmp_path, filt="exact", stops=3):
    """A job stopped by SIGTERM at its `stops`th checkpoint flush."""
    folder = tmp_path / "job"
    folder.mkdir()
    done = run(folder, job("dedup", inputs, filt),
               {"GDEDUP_SIGNAL_AT": "TERM:write:%d:out.parquet.tmp" % stops}, FAULTS)
    assert done.returncode == INTERRUPTED, done.stderr
    return folder


def temporary(folder):
    names = [f for f in os.listdir(folder) if f.startswith("out.parquet.tmp.")]
    assert len(names) == 1, names
    return folder / names[0]


@needs_parquet
@needs_faults
def test_a_resume_with_a_changed_input_is_refused(inputs, tmp_path):
    copies = []
    for i, path in enumerate(inputs):
        copy = tmp_path / ("in%d.parquet" % i)
        copy.write_bytes(read(path))
        copies.append(str(copy))
    folder = stopped_job(copies, tmp_path)
    # Another file of the same schema and row groups in the last input's place.
    table = pq.read_table(copies[2])
    pq.write_table(table.slice(1), copies[2], row_group_size=300, compression="zstd")
    done = run(folder, job("dedup", copies, "exact", ["--resume"]))
    assert done.returncode in (1, 2), done.stderr
    assert copies[2] in done.stderr
    assert os.path.exists(folder / "ck")


@needs_parquet
@needs_faults
def test_a_resume_with_a_damaged_output_temporary_is_refused(inputs, tmp_path):
    folder = stopped_job(inputs, tmp_path)
    path = temporary(folder)
    data = bytearray(read(path))
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))
    done = run(folder, job("dedup", inputs, "exact", ["--resume"]))
    assert done.returncode == 1, done.stderr
    assert str(path.name) in done.stderr and "are not those" in done.stderr
    assert not os.path.exists(folder / "out.parquet")


@needs_parquet
@needs_faults
def test_a_resume_with_a_short_or_missing_output_temporary_is_refused(inputs, tmp_path):
    folder = stopped_job(inputs, tmp_path)
    path = temporary(folder)
    data = read(path)
    path.write_bytes(data[:len(data) // 2])
    done = run(folder, job("dedup", inputs, "exact", ["--resume"]))
    assert done.returncode == 1, done.stderr
    assert path.name in done.stderr
    os.unlink(path)
    done = run(folder, job("dedup", inputs, "exact", ["--resume"]))
    assert done.returncode == 1, done.stderr
    assert path.name in done.stderr


@needs_parquet
@needs_faults
@pytest.mark.parametrize("change, words", [
    (["--key", "column:meta.host"], "key"),
    (["--missing-key", "drop"], "missing"),
    (["--duplicates"], "mode"),
])
def test_a_resume_with_other_options_is_refused(inputs, tmp_path, change, words):
    folder = stopped_job(inputs, tmp_path)
    args = job("dedup", inputs, "exact", ["--resume"])
    for option in change:
        if option.startswith("--") and option in args:
            at = args.index(option)
            del args[at:at + 2]
    args[2:2] = change
    done = run(folder, args)
    assert done.returncode in (1, 2), done.stderr
    assert words in done.stderr
    assert os.path.exists(folder / "ck")


@needs_parquet
@needs_faults
def test_a_bloom_checkpoint_resumed_as_exact_is_refused(inputs, tmp_path):
    folder = stopped_job(inputs, tmp_path, filt="fixed")
    done = run(folder, job("dedup", inputs, "exact", ["--resume"]))
    assert done.returncode in (1, 2), done.stderr
    assert "ck" in done.stderr
    assert os.path.exists(folder / "ck")


@needs_parquet
def test_standard_output_with_a_checkpoint_is_refused(inputs, tmp_path):
    args = job("dedup", inputs, "exact")
    args[args.index("out.parquet")] = "-"
    done = run(tmp_path, args)
    assert done.returncode == 2, done.stderr
    assert "standard output" in done.stderr
