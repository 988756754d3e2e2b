"""gdedup.Set's files: Set.save writes the command's set file, byte for byte
what `gdedup build --exact` writes from the same keys, and Set.load reads it
with every check the command makes (its key rules, damage, a Bloom filter's
file, the cap); saves are guarded as a Filter's are (tested for both
classes in test_cli_parity.py and test_processes.py)."""

import json
import os

import numpy as np
import pytest

import gdedup
from conftest import exact_seen, make_urls


def write_lines(path, keys):
    path.write_bytes(b"".join(k + b"\n" for k in keys))


@pytest.mark.parametrize("threads", [1, 3])
def test_save_writes_the_commands_bytes_whatever_the_order(tmp_path, run_cli, threads):
    keys = make_urls(30000, 18000, seed=21)
    write_lines(tmp_path / "in.txt", keys)
    run_cli("build", "--exact", tmp_path / "in.txt", "-f", tmp_path / "cli.gds", "-q")
    s = gdedup.Set(threads=threads)
    s.add(keys[::-1])   # another order, and grown key by key
    s.save(tmp_path / "py.gds")
    assert (tmp_path / "py.gds").read_bytes() == (tmp_path / "cli.gds").read_bytes()


def test_a_loaded_set_answers_as_the_saved_one(tmp_path, urls):
    s = gdedup.Set()
    s.add(urls[:10000])
    s.save(tmp_path / "s.gds")
    t = gdedup.Set.load(tmp_path / "s.gds")
    assert len(t) == len(s) and t.key_rules == s.key_rules and not t.read_only
    assert t.test_and_set(urls[10000:]).tolist() == exact_seen(urls)[10000:]


def test_the_commands_set_file_loads_and_a_job_reads_a_saved_one(tmp_path, run_cli, urls):
    write_lines(tmp_path / "first.txt", urls[:8000])
    run_cli("build", "--exact", tmp_path / "first.txt", "-f", tmp_path / "seen.gds", "-q")
    s = gdedup.Set.load(tmp_path / "seen.gds")
    assert s.contains(urls[:8000]).all() and len(s) == len(set(urls[:8000]))
    s.add(urls[8000:12000])
    s.save(tmp_path / "seen.gds")
    write_lines(tmp_path / "rest.txt", urls)
    run_cli("dedup", "--exact", tmp_path / "rest.txt", "-f", tmp_path / "seen.gds",
            "-o", tmp_path / "new.txt", "-q")
    seen = set(urls[:12000])
    expected = [k for k, was in zip(urls, exact_seen(urls)) if not was and k not in seen]
    assert (tmp_path / "new.txt").read_bytes() == b"".join(k + b"\n" for k in expected)


def test_key_rules_given_to_load_must_be_the_files(tmp_path):
    gdedup.Set(key="field:2").save(tmp_path / "s.gds")
    assert gdedup.Set.load(tmp_path / "s.gds", key="field:2").key_rules == \
        gdedup.Set(key="field:2").key_rules
    with pytest.raises(gdedup.InvalidArgumentError, match=r"the set .*s\.gds was built with "
                       r"key rules .*field:2.* ask for .*whole"):
        gdedup.Set.load(tmp_path / "s.gds", key="whole")


def test_files_that_are_not_sets_are_refused(tmp_path, run_cli):
    write_lines(tmp_path / "in.txt", [b"a", b"b"])
    run_cli("build", tmp_path / "in.txt", "-f", tmp_path / "bloom.gdf", "-q")
    with pytest.raises(gdedup.InvalidArgumentError, match="Bloom filter cannot become a set"):
        gdedup.Set.load(tmp_path / "bloom.gdf")
    with pytest.raises(gdedup.FileError, match="missing.gds"):
        gdedup.Set.load(tmp_path / "missing.gds")
    s = gdedup.Set()
    s.add([b"a", b"b", b"c"])
    s.save(tmp_path / "s.gds")
    data = bytearray((tmp_path / "s.gds").read_bytes())
    data[-9] ^= 0x10   # a byte of the keys
    (tmp_path / "bad.gds").write_bytes(bytes(data))
    with pytest.raises(gdedup.DamagedFileError, match="bad.gds"):
        gdedup.Set.load(tmp_path / "bad.gds")
    (tmp_path / "short.gds").write_bytes(bytes(data[:len(data) // 2]))
    with pytest.raises(gdedup.DamagedFileError, match="short.gds"):
        gdedup.Set.load(tmp_path / "short.gds")
    with pytest.raises(gdedup.InvalidArgumentError):
        gdedup.Filter.load(tmp_path / "s.gds")


def test_a_file_of_the_other_mode_is_named_with_pythons_way_to_use_it(tmp_path, run_cli):
    """A Bloom filter's file where a set's belongs, or the other way round:
    OtherModeError (an InvalidArgumentError), the engine's words on what
    the file is, then Python's on how to take it; never a flag."""
    write_lines(tmp_path / "in.txt", [b"a", b"b"])
    run_cli("build", tmp_path / "in.txt", "-f", tmp_path / "bloom.gdf", "-q")
    run_cli("build", "--exact", tmp_path / "in.txt", "-f", tmp_path / "set.gds", "-q")
    cases = [
        (lambda: gdedup.Set.load(tmp_path / "bloom.gdf"),
         "bloom.gdf is a Bloom filter file, not an exact set: a Bloom filter cannot become a "
         "set; gdedup.Filter.load reads it"),
        (lambda: gdedup.Filter.load(tmp_path / "set.gds"),
         "set.gds is an exact set, not a Bloom filter file; gdedup.Set.load reads it"),
        (lambda: gdedup.run("dedup", tmp_path / "in.txt", output=tmp_path / "out.txt",
                            filter=tmp_path / "set.gds"),
         "set.gds is an exact set, not a Bloom filter file; pass exact=True to use it"),
        (lambda: gdedup.run("query", tmp_path / "in.txt", output=tmp_path / "out.txt",
                            filter=tmp_path / "bloom.gdf", exact=True),
         "bloom.gdf is a Bloom filter file, not an exact set: a Bloom filter cannot become a "
         "set; leave out exact=True to use it"),
    ]
    for load, says in cases:
        with pytest.raises(gdedup.OtherModeError) as raised:
            load()
        assert isinstance(raised.value, gdedup.InvalidArgumentError)
        assert raised.value.kind == "other_mode"
        assert str(raised.value).endswith(says), str(raised.value)
        assert "--" not in str(raised.value)
    assert not (tmp_path / "out.txt").exists()


def test_load_within_max_memory(tmp_path):
    keys = make_urls(50000, 50000, seed=5)
    s = gdedup.Set()
    s.add(keys)
    s.save(tmp_path / "s.gds")
    # The smallest set is past this cap: refused as Set(max_memory=...)'s
    # and a job's --max-memory are.
    with pytest.raises(gdedup.SetFullError, match=r"more than max_memory=1000 allows"):
        gdedup.Set.load(tmp_path / "s.gds", max_memory=1000)
    # Past it from the file's header, before the keys are read.
    with pytest.raises(gdedup.SetFullError, match=r"the set of .*s\.gds takes"):
        gdedup.Set.load(tmp_path / "s.gds", max_memory=s.nbytes // 2)
    t = gdedup.Set.load(tmp_path / "s.gds", max_memory=s.nbytes)
    assert len(t) == len(s) and t.max_memory == s.nbytes and t.nbytes <= s.nbytes


def test_read_only_refuses_every_change(tmp_path):
    s = gdedup.Set()
    s.add([b"a", b"b"])
    s.save(tmp_path / "s.gds")
    r = gdedup.Set.load(tmp_path / "s.gds", read_only=True)
    assert r.read_only and b"a" in r and r.contains([b"a", b"z"]).tolist() == [True, False]
    for change in (lambda: r.add(b"z"), lambda: r.test_and_set([b"z"]),
                   lambda: r.merge(gdedup.Set())):
        with pytest.raises(gdedup.InvalidArgumentError, match="read_only=True"):
            change()
    assert len(r) == 2
    r.save(tmp_path / "copy.gds")
    assert (tmp_path / "copy.gds").read_bytes() == (tmp_path / "s.gds").read_bytes()


def test_info_is_the_commands_less_the_files_fields(tmp_path, run_cli):
    keys = make_urls(5000, 3000, seed=9)
    s = gdedup.Set()
    s.add(keys)
    s.save(tmp_path / "s.gds")
    cli = json.loads(run_cli("info", "--json", tmp_path / "s.gds").stdout)
    got = s.info()
    for field in ("info_version", "key_rules", "keys", "collision_chance"):
        assert got[field] == cli[field], field
    assert got["bytes"] == s.nbytes and got["load"] == s.fill
    assert got["bytes_per_key"] == pytest.approx(s.nbytes / len(s))
    assert set(got) == set(cli) - {"file", "kind", "version", "file_bytes", "file_bytes_per_key"}


def test_a_failed_save_leaves_the_set_as_it_was(tmp_path):
    s = gdedup.Set()
    s.add(np.array([b"a", b"b"], dtype=object))
    with pytest.raises(gdedup.FileError, match="no-such-folder"):
        s.save(tmp_path / "no-such-folder" / "s.gds")
    assert len(s) == 2 and s.contains([b"a", b"b"]).all()


@pytest.mark.parametrize("make", [gdedup.Set, lambda: gdedup.Filter(capacity=100)],
                         ids=["Set", "Filter"])
def test_a_save_a_job_could_not_make_is_refused_as_the_command_refuses_it(tmp_path, make):
    """The rename would replace a pipe or a link itself (the link's file
    left stale): refused, as `gdedup build -f` refuses them, nothing
    changed."""
    obj = make()
    obj.add(b"a")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "real").write_bytes(b"keep")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for name, says in (("pipe", "not a regular file"), ("link", "symbolic link"),
                       ("missing/f", "folder"), ("", "folder")):
        with pytest.raises(gdedup.FileError, match=says):
            obj.save(tmp_path / name)
    assert (tmp_path / "pipe").is_fifo() and (tmp_path / "link").is_symlink()
    assert (tmp_path / "real").read_bytes() == b"keep"
