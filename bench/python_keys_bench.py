#!/usr/bin/env python3
"""Keys per second of gdedup.Filter.test_and_set from Python, one thread.

The same 3M generated URLs (bytes, about 60 each, half of them repeats) as a
list of bytes, a pyarrow binary array, a large_string array and NumPy
fingerprints, each into a new filter planned for them on the CPU backend
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
    rng = random.Random(seed)
    distinct = count // 2
    pool = [f"https://www.host{rng.randrange(50000)}.example.com/articles/{i}/"
            f"view?id={rng.randrange(10**9)}".encode() for i in range(distinct)]
    return [pool[rng.randrange(distinct)] if i % 2 else pool[i // 2] for i in range(count)]


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
