#!/usr/bin/env python3
"""Keys per second of gdedup.Filter.test_and_set from Python, one thread.

The same 3M generated URLs (bytes, 67 on average, half of them repeats) as a
list of bytes (objects in list order, as split from a file; and the same
objects scattered over memory), a pyarrow binary array, a large_string
array and NumPy fingerprints, each into a new filter planned for them on the CPU backend
with one thread; also gdedup.fingerprint alone. Medians of --repeat runs,
all forms in one run, so their ratios are measured side by side.

    PYTHONPATH=build/python python3 bench/python_keys_bench.py [--keys N] [--repeat R]

The goals of issue 13: >= 20M keys/s on a list of bytes, >= 30M on Arrow.
"""

import argparse
import random
import statistics
import time

import numpy as np
import pyarrow as pa

import gdedup


def make_urls(count, seed=13):
    """`count` URLs, half of them repeats of earlier ones, each its own bytes
    object made in list order, as splitting a file's lines makes them."""
    rng = random.Random(seed)
    distinct = count // 2
    pool = [f"https://www.host{rng.randrange(50000)}.example.com/articles/{i}/"
            f"view?id={rng.randrange(10**9)}".encode() for i in range(distinct)]
    lines = [pool[rng.randrange(distinct)] if i % 2 else pool[i // 2] for i in range(count)]
    return b"\n".join(lines).split(b"\n")


def shuffled_objects(urls, seed=13):
    """The same keys as references to objects spread in random order over
    memory: each key a cache and TLB miss (a list built from a dict's keys,
    say)."""
    order = list(range(len(urls)))
    random.Random(seed).shuffle(order)
    objects = [bytes(bytearray(urls[i])) for i in order]
    placed = [None] * len(urls)
    for i, obj in zip(order, objects):
        placed[i] = obj
    return placed


def median_rate(run, keys, repeat, prepare=lambda: None):
    """keys / the median seconds of run(prepare()), prepare not timed."""
    times = []
    for _ in range(repeat):
        state = prepare()
        start = time.perf_counter()
        run(state)
        times.append(time.perf_counter() - start)
    return keys / statistics.median(times), statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=3_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    urls = make_urls(args.keys)
    forms = {
        "list of bytes": urls,
        "list, scattered": shuffled_objects(urls),
        "arrow binary": pa.array(urls, type=pa.binary()),
        "arrow large_string": pa.array(urls, type=pa.large_string()),
        "numpy fingerprints": gdedup.fingerprint(urls),
    }
    capacity = len(set(urls))
    print(f"{args.keys:,} keys ({capacity:,} distinct, mean "
          f"{sum(map(len, urls)) / len(urls):.0f} bytes), median of {args.repeat}, "
          f"backend cpu, 1 thread")
    expected = None
    for name, keys in forms.items():
        answers = []

        def new_filter():
            return gdedup.Filter(capacity=capacity, backend="cpu", threads=1)

        rate, seconds = median_rate(lambda f: answers.append(f.test_and_set(keys)), args.keys,
                                    args.repeat, new_filter)
        if expected is None:
            expected = answers[0]
        assert np.array_equal(answers[-1], expected), name
        print(f"  test_and_set  {name:<20} {rate / 1e6:6.1f} M keys/s  ({seconds * 1e3:.0f} ms)")
    rate, seconds = median_rate(lambda _: gdedup.fingerprint(urls), args.keys, args.repeat)
    print(f"  fingerprint   {'list of bytes':<20} {rate / 1e6:6.1f} M keys/s  ({seconds * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
