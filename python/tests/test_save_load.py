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
