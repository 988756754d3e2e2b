"""Filters and other processes: a fork()ed child, a mapped file cut short
by another program, two processes that would write one filter. Each case
runs where a crash or a hang fails the test instead of ending pytest: in a
forked child or a subprocess, waited for with a timeout."""

import os
import subprocess
import sys
import time

import pytest

import gdedup

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)")


def exit_status_of_forked(child, timeout=20):
    """Runs child() in a forked process, which exits 0 when it returns True;
    returns the exit status, or "hung" after `timeout` seconds."""
    pid = os.fork()
    if pid == 0:  # leave without pytest's cleanup, whatever happens
        status = 1
        try:
            status = 0 if child() else 1
        finally:
            os._exit(status)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return "hung"


@needs_fork
@pytest.mark.parametrize("read_only", [True, False])
def test_a_forked_child_uses_a_filter_whose_threads_the_parent_started(tmp_path, read_only):
    """The CPU backend's helper threads, started by the parent's calls, are
    not in the child: its calls start helpers of its own (they waited for
    the parent's forever, so multiprocessing's fork pools hung)."""
    keys = gdedup.fingerprint([b"key %d" % i for i in range(200_000)])
    f = gdedup.Filter(capacity=400_000, backend="cpu", threads=2)
    f.add(keys[::2])
    if read_only:
        f.save(tmp_path / "f.gdf")
        f = gdedup.Filter.load(tmp_path / "f.gdf", read_only=True, backend="cpu", threads=2)
    assert "2 threads" in f.backend
    expected = f.contains(keys)  # the parent's helpers run this call

    def child():
        same = (f.contains(keys) == expected).all()
        if not read_only:
            f.add(keys[1::2])
            same = same and f.contains(keys).all()
        return same

    assert exit_status_of_forked(child) == 0
    assert (f.contains(keys) == expected).all()  # the parent's filter is its own
