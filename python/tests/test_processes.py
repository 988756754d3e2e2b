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


@needs_fork
@pytest.mark.parametrize("exact", [False, True])
def test_a_closed_standard_output_saves_no_keys(tmp_path, exact):
    """In a process whose standard output is closed, the lock file of the
    filter or set took descriptor 1 and received the records meant for
    standard output, and the file was saved with their keys. The engine's
    files never take a standard stream's number: the write fails, and
    nothing is saved."""
    inputs = tmp_path / "in.txt"
    inputs.write_bytes(b"".join(b"https://e.example/%d\n" % i for i in range(100)))
    saved = tmp_path / ("seen.gds" if exact else "seen.gdf")

    def child():
        os.close(1)
        try:
            gdedup.run("dedup", inputs, output="-", filter=saved, exact=exact)
        except gdedup.FileError as e:
            return "cannot write to standard output" in str(e)
        return False

    assert exit_status_of_forked(child) == 0
    assert not saved.exists() and not list(tmp_path.glob("seen.*.*"))


@needs_fork
def test_a_closed_standard_input_replaces_no_output(tmp_path):
    """The output's lock file took descriptor 0 and was read as the input:
    the output was replaced with nothing. Now standard input fails to read,
    and the output stays as it was."""
    out = tmp_path / "out.txt"
    out.write_bytes(b"old\n")

    def child():
        os.close(0)
        try:
            gdedup.run("dedup", "-", output=out)
        except gdedup.FileError as e:
            return "cannot read input standard input" in str(e)
        return False

    assert exit_status_of_forked(child) == 0
    assert out.read_bytes() == b"old\n" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]


# The filter that multiprocessing's forked workers inherit.
_inherited = None


def _contains_all(keys):
    return bool(_inherited.contains(keys).all())


@needs_fork
def test_a_multiprocessing_pool_of_forked_workers_queries_a_filter_loaded_before():
    """docs/PYTHON.md's "load, then fork" with the default threads: the
    workers' calls start threads of their own (the pool hung)."""
    import multiprocessing
    global _inherited
    keys = gdedup.fingerprint([b"key %d" % i for i in range(400_000)])
    _inherited = gdedup.Filter(capacity=1_000_000, backend="cpu", threads=2)
    _inherited.add(keys)
    _inherited.contains(keys)  # the parent's helper threads start here
    try:
        with multiprocessing.get_context("fork").Pool(2) as pool:
            batches = [keys[i::4] for i in range(4)]
            assert pool.map_async(_contains_all, batches).get(timeout=30) == [True] * 4
    finally:
        _inherited = None


@needs_fork
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork with threads, Python 3.12+
def test_a_child_forked_while_another_thread_is_in_a_call_raises_instead_of_hanging():
    """A fork while a thread is inside a call leaves the child a lock that
    no thread of it will release, and an engine part way through the call:
    the child's calls raise (they hung). Children forked between two calls
    use the filter as usual. Forks are tried until one lands inside a call
    (nearly all do: the thread is in calls almost all the time)."""
    import threading
    keys = gdedup.fingerprint([b"key %d" % i for i in range(300_000)])
    f = gdedup.Filter(capacity=1_000_000, backend="cpu", threads=2)
    f.add(keys)
    running = threading.Event()
    stop = threading.Event()

    def add_again_and_again():
        while not stop.is_set():
            f.add(keys)
            running.set()

    def child():
        try:
            return f.contains(keys[:1000]).all()
        except gdedup.Error as e:
            os._exit(3 if "forked" in str(e) else 4)

    thread = threading.Thread(target=add_again_and_again)
    thread.start()
    try:
        assert running.wait(timeout=60)
        for _ in range(50):  # until a fork lands inside a call
            status = exit_status_of_forked(child)
            if status != 0:
                break
    finally:
        stop.set()
        thread.join()
    assert status == 3  # refused: not hung, no other error
    assert f.contains(keys).all()  # the parent's filter is unharmed


def run_python(script, *args, timeout=60):
    """Runs `script` in a new Python process: a crash is its exit status."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", script, *map(str, args)], env=env,
                          capture_output=True, timeout=timeout, text=True)


# Maps a filter file, cuts it short as another program would, and tries
# every call that reads the bits: each must raise, none may end the process
# with SIGBUS (exit status -7, 135 from a shell).
CUT_SHORT = r"""
import os, sys
import gdedup
path, copy, whole, kind = sys.argv[1:]
keys = [b"key %d" % i for i in range(20000)]
f = gdedup.Filter(memory=1 << 20) if kind == "fixed" else gdedup.Filter(capacity=5000)
f.add(keys)
f.save(path)
mapped = gdedup.Filter.load(path, mmap=True, read_only=True, backend="cpu")
assert mapped.contains(keys).all()
os.truncate(path, 8192)  # the headers stay, the bit arrays go
calls = {
    "contains": lambda: mapped.contains(keys),
    "in": lambda: b"key 1" in mapped,
    "fill": lambda: mapped.fill,
    "info": lambda: mapped.info(),
    "save": lambda: mapped.save(copy),
    "merge": lambda: gdedup.Filter.load(whole).merge(mapped),
}
for name, call in calls.items():
    try:
        call()
        print(name, "answered")
    except gdedup.InputChangedError as e:
        print(name, "raised", "cut short" in str(e) and path in str(e))
"""


@pytest.mark.parametrize("kind", ["fixed", "growing"])
def test_a_mapped_file_cut_short_raises_instead_of_ending_python(tmp_path, kind):
    cut, copy = tmp_path / "cut.gdf", tmp_path / "copy.gdf"
    # merge() is given an unmapped filter of the same rules to merge into.
    whole = tmp_path / "whole.gdf"
    if kind == "fixed":
        gdedup.Filter(memory=1 << 20).save(whole)
    else:
        gdedup.Filter(capacity=5000).save(whole)
    proc = run_python(CUT_SHORT, cut, copy, whole, kind)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    calls = ["contains", "in", "fill", "info", "save", "merge"]
    assert proc.stdout.split("\n")[:-1] == [f"{c} raised True" for c in calls], proc.stdout
    assert not copy.exists()  # save wrote nothing from the zeros


# Maps the filter file, tries to write to it, then (after a line on stdin)
# queries it again: prints what it found.
MAPPED_WRITER = r"""
import sys
import gdedup
path = sys.argv[1]
old = [b"old %d" % i for i in range(1000)]
new = [b"new %d" % i for i in range(1000)]
mapped = gdedup.Filter.load(path, mmap=True, read_only=True)
for call in (lambda: mapped.add(new), lambda: mapped.test_and_set(new),
             lambda: gdedup.Filter.load(path, mmap=True)):
    try:
        call()
        print("written", flush=True)
    except gdedup.InvalidArgumentError:
        print("refused", flush=True)
sys.stdin.readline()  # the other process has saved over the file meanwhile
print(int(mapped.contains(old).sum()), int(mapped.contains(new).sum()), flush=True)
"""


def test_two_processes_cannot_write_one_mapped_filter(tmp_path):
    """A mapped filter is never written, by any process: adding keys to it
    is refused (mmap=True needs read_only=True). A process that adds keys
    does so in its own copy (a load without mmap) and saves it by rename:
    the mapping process goes on with the bits it mapped, unharmed, and a
    new mapping sees the new keys."""
    path = tmp_path / "shared.gdf"
    old = [b"old %d" % i for i in range(1000)]
    new = [b"new %d" % i for i in range(1000)]
    f = gdedup.Filter(capacity=10_000, fpr=1e-9)
    f.add(old)
    f.save(path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    with subprocess.Popen([sys.executable, "-c", MAPPED_WRITER, str(path)], env=env, text=True,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as other:
        try:
            assert [other.stdout.readline() for _ in range(3)] == ["refused\n"] * 3
            with pytest.raises(gdedup.InvalidArgumentError, match="read_only"):
                gdedup.Filter.load(path, mmap=True)
            writable = gdedup.Filter.load(path)
            writable.add(new)
            writable.save(path)
            other.stdin.write("go\n")
            other.stdin.flush()
            assert other.stdout.readline() == "1000 0\n"  # its mapped copy, whole
        finally:
            other.stdin.close()
            assert other.wait(timeout=60) == 0
    remapped = gdedup.Filter.load(path, mmap=True, read_only=True)
    assert remapped.contains(old).all() and remapped.contains(new).all()


ADD_AND_SAVE = r"""
import sys
import gdedup
f = getattr(gdedup, sys.argv[2]).load(sys.argv[1])
f.add([b"theirs %d" % i for i in range(1000)])
f.save(sys.argv[1])
"""

# A new Filter or Set of each kind, its file's name and the noun its
# messages use.
SAVED_KINDS = {
    "Filter": (lambda: gdedup.Filter(capacity=10_000, fpr=1e-9), "seen.gdf", "filter"),
    "Set": (gdedup.Set, "seen.gds", "set"),
}


@pytest.mark.parametrize("kind", list(SAVED_KINDS))
def test_a_save_over_keys_another_process_saved_since_the_load_is_refused(tmp_path, kind):
    """Two processes load one filter (or set) file, add keys and save it:
    the second save would replace the first one's keys, so it raises and
    leaves the file as it is; merging the file in first keeps both
    processes' keys."""
    make, name, noun = SAVED_KINDS[kind]
    cls = getattr(gdedup, kind)
    path = tmp_path / name
    make().save(path)
    ours = [b"ours %d" % i for i in range(1000)]
    theirs = [b"theirs %d" % i for i in range(1000)]
    f = cls.load(path)
    f.add(ours)
    proc = run_python(ADD_AND_SAVE, path, kind)
    assert proc.returncode == 0, proc.stderr
    saved = path.read_bytes()
    with pytest.raises(gdedup.InputChangedError,
                       match=rf"changed since this {noun} .*{kind}\.load") as caught:
        f.save(path)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == saved
    f.merge(cls.load(path))
    f.save(path)
    f.save(path)  # its own save is not a change
    both = cls.load(path)
    assert both.contains(ours).all() and both.contains(theirs).all()
