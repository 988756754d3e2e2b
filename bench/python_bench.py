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

Needs: gdedup (the build's python/ folder or `pip install .`), numpy,
pyarrow, and for the other filters rbloom and pybloomfiltermmap3 (pip; any
that is missing is reported and skipped). bench/RESULTS.md holds the
figures.
"""

import argparse
import gc
import os
import random
import statistics
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


def gdedup_set_one_by_one(urls, capacity, fpr):
    s = gdedup.Set(threads=1)
    return sum(1 for url in urls if not s.test_and_set(url))


def time_runs(name, function, data, runs, capacity, fpr):
    """The median seconds of `runs` calls, and the new-key count they gave."""
    seconds, news = [], set()
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        news.add(function(data, capacity, fpr))
        seconds.append(time.perf_counter() - start)
    if len(news) != 1:
        sys.exit("%s: the runs disagree on the count of new keys: %s" % (name, sorted(news)))
    return statistics.median(seconds), news.pop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=3_000_000, help="URLs to generate (3M)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each contender; the median is reported")
    parser.add_argument("--fpr", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    urls = make_urls(args.keys, args.seed)
    capacity = len(urls)  # every contender sized for the worst case, as a user would
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
    ]
    try:
        import pyarrow

        contenders.append(("gdedup, test_and_set(pyarrow binary array)", gdedup_arrow, pyarrow.array(urls, pyarrow.binary())))
        contenders.append(("gdedup, test_and_set(pyarrow string array)", gdedup_arrow, pyarrow.array(urls, pyarrow.binary()).cast(pyarrow.string())))
        contenders.append(("gdedup.Set, test_and_set(pyarrow binary)", gdedup_set,
                           pyarrow.array(urls, pyarrow.binary())))
    except ImportError:
        print("pyarrow is missing: no Arrow figures", file=sys.stderr)

    print("%d URLs, %d runs each, FPR %g, one thread, load average %.2f at start" % (len(urls), args.runs, args.fpr, os.getloadavg()[0]))
    print("%-45s %12s %12s %10s  %s" % ("contender", "median s", "keys/s", "vs set", "new keys"))
    results = {}
    for name, function, data in contenders:
        try:
            seconds, new = time_runs(name, function, data, args.runs, capacity, args.fpr)
        except ImportError as error:
            print("%-45s skipped: %s" % (name, error))
            continue
        results[name] = (seconds, new)
        ratio = results[contenders[0][0]][0] / seconds
        print("%-45s %12.3f %11.2fM %9.2fx  %s" % (name, seconds, len(urls) / seconds / 1e6, ratio, "-" if new is None else "{:,}".format(new)))

    exact = results[contenders[0][0]][1]
    for name, (_, new) in results.items():
        if name.startswith("gdedup.Set") and new != exact:
            sys.exit("%s found %d new keys where there are %d: an exact set finds them all"
                     % (name, new, exact))
        if new is not None and not (exact * (1 - 10 * args.fpr) - 10 <= new <= exact):
            sys.exit("%s found %d new keys where there are %d: more than its false positives explain" % (name, new, exact))
    print("new-key counts agree with the set's within the false-positive rate "
          "(gdedup.Set's exactly)")


if __name__ == "__main__":
    main()
