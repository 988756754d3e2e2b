"""Save and load round trips: the same answers and the same bytes."""

import threading

import numpy as np
import pytest

import gdedup


@pytest.mark.parametrize("kwargs", [{"capacity": 3000}, {"capacity": 3000, "grow": False},
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


def test_the_gil_is_released_while_the_engine_runs():
    """With a switch interval no call reaches, the main thread can run
    while the worker is in test_and_set only if the call released the GIL."""
    import sys
    keys = gdedup.fingerprint([b"%d" % i for i in range(300000)])
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


def first_bit_array_offset(data):
    """Where layer 0's bit array starts in a version 3 filter file
    (docs/FORMAT.md): after the 4096-byte header, the rules section and the
    layers section's count and table."""
    import struct
    assert data[:8] == b"GDEDUPBF" and struct.unpack_from("<I", data, 8)[0] == 3
    rules_bytes = struct.unpack_from("<Q", data, 16)[0]
    layers = struct.unpack_from("<Q", data, 4096 + rules_bytes)[0]
    return 4096 + rules_bytes + 16 + 64 * layers


def test_mmap_is_refused_naming_the_file_and_the_alignment(tmp_path):
    f = gdedup.Filter(capacity=1000, grow=False)
    path = tmp_path / "seen.gdf"
    f.save(path)
    offset = first_bit_array_offset(path.read_bytes())
    assert offset == 4223 and offset % 4 != 0  # the number the message and docs give
    with pytest.raises(gdedup.InvalidArgumentError, match="byte 4223") as caught:
        gdedup.Filter.load(path, mmap=True, read_only=True)
    assert str(path) in str(caught.value) and "mmap=True" in str(caught.value)


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
    # One thread each: a forked child has no other threads to run on.
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
