#!/usr/bin/env python3
"""gdedup from Python against rbloom, pybloomfiltermmap3 and a Python set.

gdedup's exact set (gdedup.Set) runs beside its Bloom filter: growing from
its smallest size, and sized for the keys from the start; its count of new
keys must be the Python set's, exactly.

Every contender answers "was this URL seen before?" for each of the same
generated URLs, in order, one thread, each run on a fresh filter; the
figure is keys per second, the median of --runs runs, measured side by side
in one process. The answers are checked against the set's (exact): the
count of new keys a Bloom filter reports may fall short only by its false
positives.

    PYTHONPATH=build/python python3 bench/python_bench.py [--keys 3000000]

--against PATH runs the gdedup contenders with two builds side by side:
this one and the package at PATH (another build's python/ folder), one
process a build in turn, --runs rounds, each contender once a round; the
figures are the medians over the rounds, so that both builds meet the same
changes of load. --clock cpu times the process's CPU (every contender here
runs on one thread) rather than the wall clock: on a machine shared with
other work, the wall clock counts the time the process waited for a core.

Needs: gdedup (the build's python/ folder or `pip install .`), numpy,
pyarrow, and for the other filters rbloom and pybloomfiltermmap3 (pip; any
that is missing is reported and skipped). bench/RESULTS.md holds the
figures.
"""

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time

import gdedup


def make_urls(count, seed):
    """`count` URLs as bytes, about 2/3 of them distinct, from a fixed seed."""
    rng = random.Random(seed)
    distinct = count * 2 // 3
    hosts = ["www.site%d.example" % rng.randrange(10**6) for _ in range(max(1, distinct // 50))]
    pool = [
        b"https://%s/path/%d/item?id=%d" % (rng.choice(hosts).encode(), i, rng.randrange(10**9))
        for i in range(distinct)
    ]
    return [rng.choice(pool) for _ in range(count)]


def set_loop(urls, capacity, fpr):
    seen = set()
    new = 0
    for url in urls:
        if url not in seen:
            seen.add(url)
            new += 1
    return new


def rbloom_loop(urls, capacity, fpr):
    import rbloom

    bloom = rbloom.Bloom(capacity, fpr)
    new = 0
    for url in urls:
        if url not in bloom:
            bloom.add(url)
            new += 1
    return new


def rbloom_update(urls, capacity, fpr):
    """Adds all, answers nothing: not a dedup, the floor of a bulk call."""
    import rbloom

    rbloom.Bloom(capacity, fpr).update(urls)
    return None


def pybloomfiltermmap3_loop(urls, capacity, fpr):
    import pybloomfilter

    bloom = pybloomfilter.BloomFilter(capacity, fpr)  # anonymous memory, no file
    return sum(1 for url in urls if not bloom.add(url))  # add() answers "was present"


def gdedup_filter(capacity, fpr):
    return gdedup.Filter(capacity=capacity, fpr=fpr, backend="cpu", threads=1)


def gdedup_one_by_one(urls, capacity, fpr):
    f = gdedup_filter(capacity, fpr)
    return sum(1 for url in urls if not f.test_and_set(url))


def gdedup_list(urls, capacity, fpr):
    f = gdedup_filter(capacity, fpr)
    return len(urls) - int(f.test_and_set(urls).sum())


def gdedup_arrow(array, capacity, fpr):
    f = gdedup_filter(capacity, fpr)
    return len(array) - int(f.test_and_set(array).sum())


def gdedup_set(urls, capacity, fpr):
    s = gdedup.Set(threads=1)
    return len(urls) - int(s.test_and_set(urls).sum())


def gdedup_set_sized(urls, capacity, fpr):
    s = gdedup.Set(capacity=capacity, threads=1)
    return len(urls) - int(s.test_and_set(urls).sum())


def gdedup_set_sized_add(urls, capacity, fpr):
    s = gdedup.Set(capacity=capacity, threads=1)
    return s.add(urls)


def gdedup_set_contains(urls, capacity, fpr):
    """The Python side alone: each key hashed and looked up in an empty set
    (a table that stays in the cache), the answers made."""
    gdedup.Set(threads=1).contains(urls)
    return None


def gdedup_set_one_by_one(urls, capacity, fpr):
    s = gdedup.Set(threads=1)
    return sum(1 for url in urls if not s.test_and_set(url))


def time_runs(name, function, data, runs, capacity, fpr, clock=time.perf_counter):
    """The median seconds of `runs` calls, and the new-key count they gave."""
    seconds, news = [], set()
    for _ in range(runs):
        gc.collect()
        start = clock()
        news.add(function(data, capacity, fpr))
        seconds.append(clock() - start)
    if len(news) != 1:
        sys.exit("%s: the runs disagree on the count of new keys: %s" % (name, sorted(news)))
    return statistics.median(seconds), news.pop()


def contenders_for(urls):
    """(name, function, data) of every contender, the Python set first."""
    contenders = [
        ("python set, test-then-add loop", set_loop, urls),
        ("rbloom, test-then-add loop", rbloom_loop, urls),
        ("rbloom, bulk update (adds only)", rbloom_update, urls),
        ("pybloomfiltermmap3, add loop", pybloomfiltermmap3_loop, urls),
        ("gdedup, test_and_set one key a call", gdedup_one_by_one, urls),
        ("gdedup, test_and_set(list of bytes)", gdedup_list, urls),
        ("gdedup.Set, test_and_set one key a call", gdedup_set_one_by_one, urls),
        ("gdedup.Set, test_and_set(list of bytes)", gdedup_set, urls),
        ("gdedup.Set(capacity), test_and_set(list)", gdedup_set_sized, urls),
        ("gdedup.Set(capacity), add(list)", gdedup_set_sized_add, urls),
        ("gdedup.Set, contains(list), empty set", gdedup_set_contains, urls),
        ("gdedup.Set(capacity), test_and_set(list of str)", gdedup_set_sized,
         [u.decode() for u in urls]),
    ]
    try:
        import numpy

        contenders.append(("gdedup.Set(capacity), test_and_set(NumPy S)", gdedup_set_sized,
                           numpy.array(urls)))
    except ImportError:
        print("numpy is missing: no NumPy figures", file=sys.stderr)
    try:
        import pyarrow

        contenders.append(("gdedup, test_and_set(pyarrow binary array)", gdedup_arrow, pyarrow.array(urls, pyarrow.binary())))
        contenders.append(("gdedup, test_and_set(pyarrow string array)", gdedup_arrow, pyarrow.array(urls, pyarrow.binary()).cast(pyarrow.string())))
        contenders.append(("gdedup.Set, test_and_set(pyarrow binary)", gdedup_set,
                           pyarrow.array(urls, pyarrow.binary())))
        contenders.append(("gdedup.Set(capacity), test_and_set(pyarrow binary)",
                           gdedup_set_sized, pyarrow.array(urls, pyarrow.binary())))
    except ImportError:
        print("pyarrow is missing: no Arrow figures", file=sys.stderr)
    return contenders


def side_by_side(args):
    """Each round, a process for this build and one for the other, in turn;
    the medians of their seconds, contender by contender."""
    builds = [("this build", os.environ.get("PYTHONPATH", "")), ("--against", args.against)]
    seconds = {}
    for _ in range(args.runs):
        for label, path in builds:
            command = [sys.executable, os.path.abspath(__file__), "--keys", str(args.keys),
                       "--seed", str(args.seed), "--fpr", str(args.fpr), "--runs", "1",
                       "--clock", args.clock, "--only", args.only or "gdedup", "--json"]
            done = subprocess.run(command, env=dict(os.environ, PYTHONPATH=path),
                                  capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit("%s (PYTHONPATH=%s) failed:\n%s" % (label, path, done.stderr))
            for name, value in json.loads(done.stdout.splitlines()[-1]).items():
                seconds.setdefault(name, {}).setdefault(label, []).append(value)
    print("%d URLs, %d rounds, %s clock, medians; load average %.2f at the end"
          % (args.keys, args.runs, args.clock, os.getloadavg()[0]))
    print("%-50s %12s %12s %8s" % ("contender", "this build", "--against", "ratio"))
    for name, by_build in seconds.items():
        this, other = (statistics.median(by_build[label]) for label, _ in builds)
        print("%-50s %11.2fM %11.2fM %7.2fx"
              % (name, args.keys / this / 1e6, args.keys / other / 1e6, other / this))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=3_000_000, help="URLs to generate (3M)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each contender; the median is reported")
    parser.add_argument("--fpr", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: time.perf_counter; cpu: time.process_time")
    parser.add_argument("--only", default="", help="the contenders whose name holds this text")
    parser.add_argument("--against", metavar="PATH",
                        help="another build's python/ folder, to run side by side with this one")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        return side_by_side(args)

    urls = make_urls(args.keys, args.seed)
    capacity = len(urls)  # every contender sized for the worst case, as a user would
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    contenders = contenders_for(urls)
    reference = contenders[0][0]
    contenders = [c for c in contenders if c[0] == reference or args.only in c[0]]

    out = sys.stderr if args.json else sys.stdout
    print("%d URLs, %d runs each, FPR %g, one thread, %s clock, load average %.2f at start"
          % (len(urls), args.runs, args.fpr, args.clock, os.getloadavg()[0]), file=out)
    print("%-50s %12s %12s %10s  %s" % ("contender", "median s", "keys/s", "vs set", "new keys"),
          file=out)
    results = {}
    for name, function, data in contenders:
        try:
            seconds, new = time_runs(name, function, data, args.runs, capacity, args.fpr, clock)
        except ImportError as error:
            print("%-50s skipped: %s" % (name, error), file=out)
            continue
        results[name] = (seconds, new)
        ratio = results[reference][0] / seconds
        print("%-50s %12.3f %11.2fM %9.2fx  %s"
              % (name, seconds, len(urls) / seconds / 1e6, ratio,
                 "-" if new is None else "{:,}".format(new)), file=out)

    exact = results[reference][1]
    for name, (_, new) in results.items():
        if name.startswith("gdedup.Set") and new is not None and new != exact:
            sys.exit("%s found %d new keys where there are %d: an exact set finds them all"
                     % (name, new, exact))
        if new is not None and not (exact * (1 - 10 * args.fpr) - 10 <= new <= exact):
            sys.exit("%s found %d new keys where there are %d: more than its false positives explain" % (name, new, exact))
    print("new-key counts agree with the set's within the false-positive rate "
          "(gdedup.Set's exactly)", file=out)
    if args.json:
        print(json.dumps({name: seconds for name, (seconds, _) in results.items()
                          if name != reference}))


if __name__ == "__main__":
    main()
