"""Shared fixtures: the gdedup command the results are compared with, and
inputs made from fixed seeds."""

import fcntl
import os
import random
import shutil
import subprocess
import time

import pytest


@pytest.fixture(scope="session")
def gdedup_bin():
    """The built command: $GDEDUP_BIN (ctest sets it), else gdedup on PATH.
    Without one the tests that compare with it fail: a skip would pass a
    build whose command is missing."""
    path = os.environ.get("GDEDUP_BIN") or shutil.which("gdedup")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"no gdedup command ({path or 'GDEDUP_BIN is not set'}): set GDEDUP_BIN "
                    "to the built one")
    return path


@pytest.fixture
def run_cli(gdedup_bin):
    """Runs the command with arguments; returns the finished process."""

    def run(*args, check=True):
        proc = subprocess.run([gdedup_bin, *map(str, args)], capture_output=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"gdedup {' '.join(map(str, args))} exited "
                                 f"{proc.returncode}: {proc.stderr.decode(errors='replace')}")
        return proc

    return run


def make_urls(count, distinct, seed):
    """`count` URLs as bytes drawn from `distinct` ones, with repeats, from a
    fixed seed; some with a tab-separated second field."""
    rng = random.Random(seed)
    pool = [f"https://host{rng.randrange(1000)}.example/p/{i}?q={rng.randrange(10**6)}".encode()
            for i in range(distinct)]
    return [rng.choice(pool) for _ in range(count)]


def exact_seen(keys):
    """test_and_set's answers for an exact set: was each key seen before."""
    seen, out = set(), []
    for k in keys:
        out.append(k in seen)
        seen.add(k)
    return out


@pytest.fixture
def urls():
    return make_urls(20000, 12000, seed=7)


def wait_until_locked(job, path):
    """Waits until the running command `job` holds PATH.lock, as a job
    that will save `path` does for its life."""
    lock = str(path) + ".lock"
    deadline = time.monotonic() + 60
    while True:
        assert job.poll() is None and time.monotonic() < deadline
        try:
            with open(lock, "rb") as held:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        except FileNotFoundError:
            pass
        time.sleep(0.01)
