"""gdedup.run as a Python caller meets it: its arguments, what it says
(logging, warnings, progress=), Ctrl-C, and dedup() refusing a path. The
jobs themselves are compared with the command in test_cli_parity.py."""

import logging
import os
import signal
import sys
import threading

import pytest

import gdedup


@pytest.fixture
def urls_file(tmp_path, urls):
    path = tmp_path / "urls.txt"
    path.write_bytes(b"".join(u + b"\n" for u in urls))
    return path


def exact_dedup(lines):
    seen = set()
    return [line for line in lines if not (line in seen or seen.add(line))]


@pytest.mark.parametrize("records", ["urls.txt", b"urls.txt", bytearray(b"urls.txt")])
def test_dedup_of_a_path_names_the_right_call(records, tmp_path):
    with pytest.raises(TypeError, match=r'gdedup.run\("dedup", .*urls.txt.*, output=\.\.\.\)'):
        gdedup.dedup(records)
    with pytest.raises(TypeError, match="gdedup.run"):
        gdedup.dedup(tmp_path / "urls.txt")     # os.PathLike
    assert list(gdedup.dedup([b"a", b"b", b"a"], capacity=10)) == [b"a", b"b"]


def test_paths_of_any_bytes_and_the_result(tmp_path, urls):
    odd = os.fsdecode(b"in \xff\n.txt")     # not UTF-8, with a newline
    (tmp_path / odd).write_bytes(b"".join(u + b"\n" for u in urls))
    out = tmp_path / os.fsdecode(b"out \xfe.txt")
    result = gdedup.run("dedup", [tmp_path / odd], output=out, capacity=len(urls))
    expected = exact_dedup(urls)
    assert out.read_bytes() == b"".join(u + b"\n" for u in expected)
    assert (result.status, result.records, result.kept) == ("complete", len(urls), len(expected))
    assert result.dropped == len(urls) - len(expected) and result.inputs == 1
    assert result.output_bytes == out.stat().st_size and result.backend.startswith("cpu")
    assert result.summary.startswith(f"{len(urls):,} records")


def test_arguments_that_cannot_work_are_refused(tmp_path, urls_file):
    with pytest.raises(TypeError, match="needs output="):
        gdedup.run("dedup", urls_file)
    with pytest.raises(TypeError, match="writes no records"):
        gdedup.run("build", urls_file, output=tmp_path / "o", filter=tmp_path / "f")
    with pytest.raises(TypeError, match="needs inputs"):
        gdedup.run("dedup", [], output=tmp_path / "o")
    with pytest.raises(TypeError, match="capacity="):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", capacity="many")
    with pytest.raises(gdedup.InvalidArgumentError, match='command="merge"'):
        gdedup.run("merge", urls_file, output=tmp_path / "o")
    with pytest.raises(gdedup.InvalidArgumentError,
                       match='^key= has no effect with input_format="u64"'):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", input_format="u64", key="field:2")
    with pytest.raises(gdedup.InvalidArgumentError, match="checkpoint_every_records=0"):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", checkpoint=tmp_path / "ck",
                   checkpoint_every_records=0)
    with pytest.raises(gdedup.InvalidArgumentError, match="needs checkpoint="):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", checkpoint_every_seconds=5)
    # What the job layer refuses for every front end, in Python's words.
    with pytest.raises(gdedup.InvalidArgumentError,
                       match="null_list=True has no effect without files_from="):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", null_list=True)
    with pytest.raises(gdedup.InvalidArgumentError, match="threads=2 has no effect with "
                       "input_format=u64"):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", input_format="u64", threads=2)
    # An empty path would read as none given: filter="" built a set of the
    # keys and saved it nowhere.
    for command, name in (("build", "filter"), ("build", "stats"), ("build", "checkpoint"),
                          ("build", "files_from"), ("dedup", "output"),
                          ("dedup", "output_parts")):
        with pytest.raises(gdedup.InvalidArgumentError,
                           match=f'{name}="": the path is empty: give {name}= a path'):
            gdedup.run(command, urls_file, exact=True, **{name: ""})
    assert sorted(os.listdir(tmp_path)) == ["urls.txt"]


def test_notes_go_to_logging_and_warnings_to_warnings(tmp_path, urls_file, caplog):
    with caplog.at_level(logging.INFO, logger="gdedup"):
        with pytest.warns(RuntimeWarning, match="expected false-positive rate"):
            gdedup.run("build", urls_file, filter=tmp_path / "f.gdf", memory=32768,
                       capacity=20000)
    assert any("backend cpu" in r.getMessage() for r in caplog.records)


def test_progress_is_called_after_each_batch_and_may_stop_the_job(tmp_path, urls_file, urls):
    seen = []
    gdedup.run("dedup", urls_file, output=tmp_path / "out.txt", capacity=30000,
               batch_records=5000, progress=seen.append)
    assert [c["records"] for c in seen][:4] == [5000, 10000, 15000, 20000]
    assert seen[-1]["records"] == len(urls) and seen[-1]["inputs"] == 1

    def fails(counts):
        raise RuntimeError("no more")
    # Without a checkpoint the job ends at once and the files stay as they were.
    with pytest.raises(RuntimeError, match="no more"):
        gdedup.run("dedup", urls_file, output=tmp_path / "stopped.txt", filter=tmp_path / "f",
                   capacity=30000, batch_records=5000, progress=fails)
    assert not (tmp_path / "stopped.txt").exists() and not (tmp_path / "f").exists()


@pytest.fixture
def sigint_at():
    """progress= callables that send this process SIGINT, as Ctrl-C does,
    once `records` records are done, and wait until the main thread, which
    alone runs Python's signal handlers, has taken it (the job would
    otherwise end first)."""
    taken = threading.Event()

    def handler(signum, frame):
        taken.set()
        signal.default_int_handler(signum, frame)

    before = signal.signal(signal.SIGINT, handler)

    def at(records):
        def progress(counts):
            if counts["records"] >= records and not taken.is_set():
                os.kill(os.getpid(), signal.SIGINT)
                assert taken.wait(60)
        return progress

    yield at
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_stops_a_checkpointed_job_at_a_checkpoint(tmp_path, urls_file, urls, sigint_at):
    files = dict(output=tmp_path / "out.txt", filter=tmp_path / "f.gdf",
                 checkpoint=tmp_path / "ck", capacity=30000, batch_records=1000)
    with pytest.raises(gdedup.JobInterrupted, match="resume") as caught:
        gdedup.run("dedup", urls_file, progress=sigint_at(1000), **files)
    assert isinstance(caught.value, KeyboardInterrupt)
    stopped = caught.value.result
    assert stopped.status == "interrupted" and 1000 <= stopped.records < len(urls)
    assert (tmp_path / "ck").exists() and not (tmp_path / "out.txt").exists()
    result = gdedup.run("dedup", urls_file, resume=True, **files)
    assert result.resumed_records == stopped.records and result.records == len(urls)
    expected = exact_dedup(urls)
    assert (tmp_path / "out.txt").read_bytes() == b"".join(u + b"\n" for u in expected)


def test_ctrl_c_ends_a_job_without_checkpoints(tmp_path, urls_file, sigint_at):
    (tmp_path / "out.txt").write_bytes(b"before\n")
    with pytest.raises(KeyboardInterrupt) as caught:
        gdedup.run("dedup", urls_file, output=tmp_path / "out.txt", filter=tmp_path / "f.gdf",
                   capacity=30000, batch_records=1000, progress=sigint_at(1000))
    assert not isinstance(caught.value, gdedup.JobInterrupted)
    assert (tmp_path / "out.txt").read_bytes() == b"before\n"
    assert not (tmp_path / "f.gdf").exists()


def test_a_stop_once_the_results_are_put_in_place_lets_the_job_complete(tmp_path, urls_file):
    """progress= raising at its last call, which comes once the output has
    taken its place: the job completes, its filter and statistics saved,
    and the exception is raised after with a note that says so. It used to
    end the job there, the output replaced and the filter not saved, while
    the exception meant that the files were left as they were."""
    files = dict(output=tmp_path / "out.txt", filter=tmp_path / "f.gdf",
                 stats=tmp_path / "st.json", capacity=30000, batch_records=1000)
    reference = dict(files, output=tmp_path / "ref.txt", filter=tmp_path / "ref.gdf",
                     stats=tmp_path / "ref.json")
    calls = []
    gdedup.run("dedup", urls_file, progress=calls.append, **reference)
    seen = []

    def fails_at_the_last_call(counts):
        seen.append(counts)
        if len(seen) == len(calls):
            raise RuntimeError("too late")

    (tmp_path / "out.txt").write_bytes(b"before\n")
    with pytest.raises(RuntimeError, match="too late") as caught:
        gdedup.run("dedup", urls_file, progress=fails_at_the_last_call, **files)
    assert (tmp_path / "out.txt").read_bytes() == (tmp_path / "ref.txt").read_bytes()
    assert (tmp_path / "f.gdf").read_bytes() == (tmp_path / "ref.gdf").read_bytes()
    assert (tmp_path / "st.json").exists()
    if sys.version_info >= (3, 11):
        assert caught.value.__notes__ == [
            "gdedup: this came as the job was finishing, so it completed: the output "
            f"{tmp_path / 'out.txt'}, the filter {tmp_path / 'f.gdf'} and the statistics file "
            f"{tmp_path / 'st.json'} hold this job's result"]


def test_an_overfull_filter_raises_with_its_result(tmp_path, urls_file, urls):
    with pytest.raises(gdedup.FilterOverfullError, match="far past its plan") as caught:
        gdedup.run("dedup", urls_file, output=tmp_path / "out.txt", capacity=100, grow=False,
                   filter=tmp_path / "f.gdf")
    result = caught.value.result
    assert result.status == "overfull"
    assert result.records == len(urls)
    assert (tmp_path / "out.txt").exists()     # written, as the command writes it
    # Its numbers: records were lost, and the capacity named is more than
    # the 100 planned.
    assert len(set(urls)) - result.kept > 0 and result.probably_lost > 0
    assert result.capacity_needed > 100
    assert not result.filter_saved and not (tmp_path / "f.gdf").exists()


def test_a_complete_job_says_its_filter_was_saved(tmp_path, urls_file):
    result = gdedup.run("dedup", urls_file, output=tmp_path / "out.txt",
                        filter=tmp_path / "f.gdf")
    assert result.filter_saved and (tmp_path / "f.gdf").exists()
    assert result.probably_lost is None and result.capacity_needed is None


def test_two_jobs_on_one_filter_at_once_keep_both_jobs_keys(tmp_path):
    """The second job waits for the first's lock on the filter file and
    starts from the filter it saved, as two commands do: neither job's keys
    are lost."""
    inputs = {}
    for name in ("a", "b"):
        inputs[name] = [b"https://%s.example/%d" % (name.encode(), i) for i in range(100000)]
        (tmp_path / f"{name}.txt").write_bytes(b"\n".join(inputs[name]) + b"\n")
    failures = []

    def job(name):
        try:
            gdedup.run("dedup", tmp_path / f"{name}.txt", output=tmp_path / f"{name}.out",
                       filter=tmp_path / "seen.gdf", capacity=1000000)
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=job, args=(name,)) for name in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    seen = gdedup.Filter.load(tmp_path / "seen.gdf")
    assert seen.contains(inputs["a"] + inputs["b"]).all()


def test_a_file_written_over_an_input_is_refused_before_any_work(tmp_path, urls_file):
    before = urls_file.read_bytes()
    with pytest.raises(gdedup.InvalidArgumentError, match="same file as input"):
        gdedup.run("dedup", urls_file, output=urls_file)
    with pytest.raises(gdedup.InvalidArgumentError, match="same file as input"):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", stats=urls_file)
    with pytest.raises(gdedup.Error, match="it is a folder"):
        gdedup.run("dedup", urls_file, output=tmp_path / "o", stats=tmp_path)
    assert urls_file.read_bytes() == before
    assert not (tmp_path / "o").exists()
