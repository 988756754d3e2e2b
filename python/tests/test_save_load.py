"""Save and load round trips: the same answers and the same bytes."""

import threading

import numpy as np
import pytest

import gdedup


@pytest.mark.parametrize("kwargs", [{"capacity": 3000}, {"capacity": 20000, "grow": False},
                                    {}, {"memory": 32 << 10}])
def test_round_trip_keeps_answers_and_bytes(tmp_path, urls, kwargs):
    f = gdedup.Filter(**kwargs)
    f.add(urls)
    f.save(tmp_path / "a.gdf")
    g = gdedup.Filter.load(tmp_path / "a.gdf")
    assert g.contains(urls).all()
    probe = [b"absent %d" % i for i in range(5000)]
    assert g.contains(probe).tolist() == f.contains(probe).tolist()
    assert (g.layers, g.grows, g.insertions, g.plan) == (f.layers, f.grows, f.insertions, f.plan)
    g.save(str(tmp_path / "b.gdf"))   # str and os.PathLike paths
    assert (tmp_path / "a.gdf").read_bytes() == (tmp_path / "b.gdf").read_bytes()


def test_loaded_filter_keeps_its_key_rules(tmp_path):
    f = gdedup.Filter(capacity=100, normalize="url")
    f.add("HTTP://Example.COM:80/a#frag")
    f.save(tmp_path / "u.gdf")
    g = gdedup.Filter.load(tmp_path / "u.gdf")
    assert g.key_rules == f.key_rules
    assert "http://example.com/a" in g


def test_threads_share_a_filter(urls):
    """Concurrent calls on one filter are serialized: the union is exact."""
    f = gdedup.Filter(capacity=len(urls), fpr=1e-9)
    parts = [urls[i::4] for i in range(4)]
    results = [None] * 4

    def work(i):
        results[i] = f.test_and_set(parts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    new = sum(int((~r).sum()) for r in results)
    assert new == len(set(urls)) == f.insertions


def test_a_filter_far_past_its_plan_is_not_saved_unless_asked(tmp_path):
    """As a job does not save one: every job that used it would take new
    keys for old ones."""
    import warnings
    f = gdedup.Filter(capacity=100, grow=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warning of the filter passing its plan
        f.test_and_set([b"k%d" % i for i in range(20000)])
    path = tmp_path / "over.gdf"
    with pytest.raises(gdedup.FilterOverfullError,
                       match=r"far past its plan \(planned for 100 distinct keys.*"
                             r"not saved to .*allow_overfull=True"):
        f.save(path)
    assert not path.exists()
    f.save(path, allow_overfull=True)
    assert gdedup.Filter.load(path).insertions == f.insertions
    # Within its plan it saves as ever.
    ok = gdedup.Filter(capacity=100, grow=False)
    ok.test_and_set([b"k%d" % i for i in range(100)])
    ok.save(tmp_path / "ok.gdf")


def test_the_gil_is_released_while_the_engine_runs():
    """With a switch interval no call reaches, the main thread can run
    while the worker is in test_and_set only if the call released the GIL."""
    import sys
    # A call long enough (tens of ms) for the main thread to be scheduled
    # in it on a busy machine, too.
    keys = np.arange(1, 4000001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    f = gdedup.Filter(capacity=len(keys))
    started, state = threading.Event(), {"done": False}

    def work():
        started.set()
        f.test_and_set(keys)
        state["done"] = True

    interval = sys.getswitchinterval()
    sys.setswitchinterval(100)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        ran_during_the_call = not state["done"]
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert ran_during_the_call


def bit_array_offsets(data):
    """Where each layer's bit array starts in a version 4 filter file
    (docs/FORMAT.md): after the 4096-byte header, the rules section and the
    layers section's count and table, each at the next multiple of 4096."""
    import struct
    assert data[:8] == b"GDEDUPBF" and struct.unpack_from("<I", data, 8)[0] == 4
    rules_bytes = struct.unpack_from("<Q", data, 16)[0]
    table = 4096 + rules_bytes
    layers = struct.unpack_from("<Q", data, table)[0]
    offsets, end = [], table + 16 + 64 * layers
    for i in range(layers):
        payload_bytes = struct.unpack_from("<Q", data, table + 8 + 64 * i + 24)[0]
        offsets.append((end + 4095) // 4096 * 4096)
        end = offsets[-1] + payload_bytes
    assert end == len(data)
    return table + 16 + 64 * layers, offsets


def as_version3(data):
    """The version 3 file of the same filter, as the releases before
    version 4 wrote it: the bit arrays back to back after the layer table."""
    import struct
    table_end, offsets = bit_array_offsets(data)
    rules_bytes = struct.unpack_from("<Q", data, 16)[0]
    out = bytearray(data[:table_end])
    table = 4096 + rules_bytes
    for i, at in enumerate(offsets):
        payload_bytes = struct.unpack_from("<Q", data, table + 8 + 64 * i + 24)[0]
        out += data[at:at + payload_bytes]
    struct.pack_into("<I", out, 8, 3)
    struct.pack_into("<Q", out, 32, len(out) - table)
    struct.pack_into("<Q", out, 4088, int(gdedup.fingerprint(bytes(out[:4088]), seed=0)))
    return bytes(out)


def growing_and_fixed(tmp_path, urls):
    """A fixed filter and a growing one of several layers, saved."""
    fixed = gdedup.Filter(capacity=20000, grow=False)
    fixed.add(urls)
    fixed.save(tmp_path / "fixed.gdf")
    growing = gdedup.Filter(capacity=300)
    growing.add(urls)
    assert growing.layers >= 3
    growing.save(tmp_path / "growing.gdf")
    return [tmp_path / "fixed.gdf", tmp_path / "growing.gdf"]


def test_each_bit_array_starts_at_a_page_multiple(tmp_path, urls):
    for path in growing_and_fixed(tmp_path, urls):
        data = path.read_bytes()
        table_end, offsets = bit_array_offsets(data)
        assert all(at % 4096 == 0 for at in offsets)
        assert data[table_end:offsets[0]] == bytes(offsets[0] - table_end)
    # A fixed filter with the default key rules: its table ends at byte
    # 4223, its bit array starts at 8192.
    assert bit_array_offsets((tmp_path / "fixed.gdf").read_bytes()) == (4223, [8192])


def test_a_mapped_filter_answers_as_a_loaded_one(tmp_path, urls):
    probe = urls + [b"absent %d" % i for i in range(20000)]
    for path, kwargs in zip(growing_and_fixed(tmp_path, urls),
                            [{"capacity": 20000, "grow": False}, {"capacity": 300}]):
        loaded = gdedup.Filter.load(path)
        mapped = gdedup.Filter.load(path, mmap=True, read_only=True)
        assert mapped.read_only
        assert mapped.contains(probe).tolist() == loaded.contains(probe).tolist()
        assert mapped.contains(gdedup.fingerprint(probe)).tolist() == \
            loaded.contains(gdedup.fingerprint(probe)).tolist()
        assert all(u in mapped for u in urls[:50])
        assert (mapped.layers, mapped.grows, mapped.insertions, mapped.plan, mapped.fill,
                mapped.key_rules, mapped.info()) == \
            (loaded.layers, loaded.grows, loaded.insertions, loaded.plan, loaded.fill,
             loaded.key_rules, loaded.info())
        mapped.save(tmp_path / "copy.gdf")
        assert (tmp_path / "copy.gdf").read_bytes() == path.read_bytes()
        # Merging a mapped filter into a writable one reads it only.
        empty = gdedup.Filter(**kwargs)
        empty.merge(mapped)
        assert empty.contains(probe).tolist() == mapped.contains(probe).tolist()
        with pytest.raises(gdedup.InvalidArgumentError, match="read_only"):
            mapped.add(b"new")
        with pytest.raises(gdedup.InvalidArgumentError, match="read_only"):
            mapped.merge(loaded)


def test_mmap_needs_read_only(tmp_path):
    path = tmp_path / "seen.gdf"
    gdedup.Filter(capacity=1000).save(path)
    with pytest.raises(gdedup.InvalidArgumentError, match="read_only=True") as caught:
        gdedup.Filter.load(path, mmap=True)
    assert str(path) in str(caught.value) and "mmap=True" in str(caught.value)


def test_mapped_filters_past_the_guarded_mappings_are_refused(tmp_path):
    """Each mapped filter takes one of the 256 guards against its file
    being cut short; past them a mapped load raises, naming the way out,
    and a guard is free again once its filter is gone."""
    path = tmp_path / "seen.gdf"
    gdedup.Filter(capacity=1000).save(path)
    mapped = []
    with pytest.raises(gdedup.FileError, match="load it without mmap") as caught:
        for _ in range(300):
            mapped.append(gdedup.Filter.load(path, mmap=True, read_only=True, backend="cpu"))
    assert str(path) in str(caught.value)
    assert len(mapped) <= 256
    mapped.pop()
    mapped.append(gdedup.Filter.load(path, mmap=True, read_only=True, backend="cpu"))
    assert b"a" not in gdedup.Filter.load(path, read_only=True)  # a load without mmap


def test_a_damaged_mapped_file_is_refused(tmp_path, urls):
    for path in growing_and_fixed(tmp_path, urls):
        good = path.read_bytes()
        table_end, offsets = bit_array_offsets(good)
        bad = tmp_path / "bad.gdf"
        for at, words in [(offsets[-1] + 5, "bit array does not match"),
                          (len(good) - 1, "bit array does not match"),
                          (offsets[0] - 1, "in the zero padding"),
                          (table_end, "in the zero padding")]:
            data = bytearray(good)
            data[at] ^= 0x01
            bad.write_bytes(bytes(data))
            with pytest.raises(gdedup.DamagedFileError, match=words) as caught:
                gdedup.Filter.load(bad, mmap=True, read_only=True)
            assert str(bad) in str(caught.value)
        bad.write_bytes(good[:-1])
        with pytest.raises(gdedup.DamagedFileError, match="truncated"):
            gdedup.Filter.load(bad, mmap=True, read_only=True)


def test_a_version_3_file_loads_but_is_not_mapped(tmp_path, urls):
    for path in growing_and_fixed(tmp_path, urls):
        old = tmp_path / "old.gdf"
        old.write_bytes(as_version3(path.read_bytes()))
        loaded = gdedup.Filter.load(old, read_only=True)
        assert loaded.contains(urls).all()
        with pytest.raises(gdedup.InvalidArgumentError, match="it is version 3") as caught:
            gdedup.Filter.load(old, mmap=True, read_only=True)
        assert str(old) in str(caught.value) and "save it again" in str(caught.value)
        loaded.save(tmp_path / "again.gdf")  # version 4 once saved again
        assert (tmp_path / "again.gdf").read_bytes() == path.read_bytes()


# A crawler process of the test below: loads the filter as told, queries
# every key, says "ready", waits for a line on stdin (until every process
# has queried), reports its private memory growth and its answers, and
# waits for another line (until every process has measured) to exit: a
# page of a file mapped by one process alone counts as private to it.
CRAWLER = """
import sys
import numpy as np
import gdedup
sys.path.insert(0, sys.argv[3])
from test_save_load import private_bytes
keys = np.load(sys.argv[2])
before = private_bytes()
f = gdedup.Filter.load(sys.argv[1], mmap=sys.argv[4] == "mmap", read_only=True,
                       backend="cpu", threads=1)
found = f.contains(keys)
print("ready", flush=True)
sys.stdin.readline()
print(private_bytes() - before, int(found.sum()), f.nbytes, flush=True)
sys.stdin.readline()
"""


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/smaps_rollup"),
                    reason="needs /proc/self/smaps_rollup (Linux)")
def test_independent_processes_share_one_mapped_filter(tmp_path):
    """The sharing docs/PYTHON.md promises for mmap=True: two processes that
    map one 32 MiB filter and query every page of it each add far less
    private memory than the filter (they share the page cache's copy); two
    that load it without mmap add about the filter each (the control: the
    measure sees a copy)."""
    import os
    import subprocess
    import sys
    f = gdedup.Filter(memory=32 << 20)
    keys = gdedup.fingerprint([b"key %d" % i for i in range(400_000)])
    f.add(keys[::2])
    f.save(tmp_path / "seen.gdf")
    np.save(tmp_path / "keys.npy", keys)
    expected = int(f.contains(keys).sum())
    here = os.path.dirname(os.path.abspath(__file__))

    def crawl(mode):
        procs = [subprocess.Popen([sys.executable, "-c", CRAWLER, str(tmp_path / "seen.gdf"),
                                   str(tmp_path / "keys.npy"), here, mode],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                 for _ in range(2)]
        for p in procs:  # both have mapped and queried before either measures
            assert p.stdout.readline().strip() == "ready"
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        reports = [[int(x) for x in p.stdout.readline().split()] for p in procs]
        for p in procs:
            p.communicate("exit\n", timeout=120)
            assert p.returncode == 0
        return reports

    for growth, found, nbytes in crawl("mmap"):
        assert found == expected and nbytes == f.nbytes
        assert growth < nbytes // 8, (growth, nbytes)
    for growth, found, nbytes in crawl("load"):
        assert found == expected
        assert growth > nbytes // 2, (growth, nbytes)


def private_bytes():
    """This process's private memory, from /proc/self/smaps_rollup."""
    total = 0
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1]) * 1024
    return total


@pytest.mark.skipif(not hasattr(__import__("os"), "fork") or
                    not __import__("os").path.exists("/proc/self/smaps_rollup"),
                    reason="needs fork and /proc/self/smaps_rollup (Linux)")
def test_a_read_only_filter_loaded_before_fork_is_shared_not_copied(tmp_path):
    """The sharing docs/PYTHON.md promises: processes forked after a
    read_only load query the parent's pages. A child's private memory grows
    by far less than the filter while its queries touch every page, and by
    about the filter when it writes (the control: the measure sees a copy)."""
    import os
    f = gdedup.Filter(memory=32 << 20)
    # Fingerprints in one NumPy array: a list of bytes objects would be
    # copied page by page as the child's queries count references to them.
    keys = gdedup.fingerprint([b"key %d" % i for i in range(400_000)])
    new_keys = gdedup.fingerprint([b"new %d" % i for i in range(400_000)])
    f.add(keys[::2])
    f.save(tmp_path / "seen.gdf")
    # One thread each: the stacks of helper threads the child starts would
    # count in its private memory.
    shared = gdedup.Filter.load(tmp_path / "seen.gdf", read_only=True, backend="cpu", threads=1)
    writable = gdedup.Filter.load(tmp_path / "seen.gdf", backend="cpu", threads=1)
    expected = shared.contains(keys)
    assert expected[::2].all() and expected[1::2].sum() < 100
    writable.contains(keys)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without pytest's cleanup
        status = 1
        try:
            before = private_bytes()
            same = (shared.contains(keys) == expected).all()
            after_reads = private_bytes()
            writable.add(new_keys)
            after_writes = private_bytes()
            os.write(write, b"%d %d %d" % (same, after_reads - before, after_writes - after_reads))
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    report = os.read(read, 200).split()
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert status == 0 and len(report) == 3
    same, read_growth, write_growth = map(int, report)
    assert same == 1
    assert read_growth < shared.nbytes // 8, (read_growth, shared.nbytes)
    assert write_growth > shared.nbytes // 2, (write_growth, shared.nbytes)
