#!/usr/bin/env python3
"""The front end's scaling model (bench/README.md): from the step costs that
frontend_steps_bench measured on one core, the records/s and GB/s that
`gdedup dedup` should reach on N cores for plain, gzip and zstd input, and
which bound holds it there.

    build/bench/frontend_steps_bench --benchmark_out=steps.json --benchmark_out_format=json
    python3 bench/scaling_model.py steps.json
    python3 bench/scaling_model.py steps.json --cores 16 --backend gpu --markdown

A worker's cost per byte of text is read (of the bytes as stored) + decode +
split + fingerprint (+ key normalization with --key url); the sum is checked
against the steps measured together (BM_FrontEnd). On N cores, N workers
(`--threads N`) share the cores with the in-order stage (filter calls) and
the writer. The rate is the least of:
  work    N cores / the CPU time of every stage per byte (workers, filter on
          the CPU backend, writer);
  pieces  workers busy: P pieces over W workers take ceil(P / W) rounds, so
          W_eff = P / ceil(P / W) (16 shards on 15 workers: 8; --workers);
  filter  the filter stage: CPU backend threads at their measured ns/key, or
          the GPU's host path (PCIe, 9 bytes a key);
  writer  one thread copying the kept records (a memcpy of their bytes); with
          --no-writer-stage the filter's thread also writes (filter + writer);
  memory  the machine's memory bandwidth over the bytes moved per byte of
          text (page cache read, copy into the batch, its re-read: about 4).
"""
import argparse
import json
import math
import sys


def step_costs(path):
    """ns per uncompressed byte of each benchmark, by name (CPU time, one thread)."""
    with open(path) as f:
        data = json.load(f)
    costs, ratios, record_bytes = {}, {}, None
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b["run_name"] if "run_name" in b else b["name"]
        if "/threads:" in name and not name.endswith("/threads:1"):
            continue
        name = name.split("/threads:")[0].split("/real_time")[0].split("/min_time")[0]
        if "cpu/byte" not in b:
            continue
        costs[name] = b["cpu/byte"] * 1e9
        if name.startswith("BM_Decode/") and "label" in b and b["label"].startswith("ratio "):
            ratios[name[len("BM_Decode/"):]] = float(b["label"].split()[1].rstrip(","))
        if name == "BM_Fingerprint":
            record_bytes = b["cpu/record"] / b["cpu/byte"]
    return costs, ratios, record_bytes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("steps_json", help="frontend_steps_bench --benchmark_out JSON")
    p.add_argument("--cores", default="1,2,16,64", help="core counts (default 1,2,16,64)")
    p.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--filter-ns", type=float, default=8.65,
                   help="CPU backend test_and_set ns/key on one thread (default 8.65: cpu_ops_bench, 64 MiB filter)")
    p.add_argument("--filter-threads", type=int, default=1, help="CPU backend threads (default 1)")
    p.add_argument("--filter-speedup", type=float, default=1.31,
                   help="CPU backend rate of 2+ threads over 1 (default 1.31: cpu_ops_bench, 64 MiB, 2 threads)")
    p.add_argument("--gpu-keys", type=float, default=5e9,
                   help="GPU backend keys/s from host memory (default 5e9: 9 bytes a key over ~45 GB/s of PCIe 5)")
    p.add_argument("--mem-gbs", type=float, default=300, help="memory bandwidth, GB/s (default 300: an assumption)")
    p.add_argument("--mem-bytes-per-byte", type=float, default=4, help="bytes moved per byte of text (default 4)")
    p.add_argument("--kept", type=float, default=0.588, help="share of records written (default 0.588: gen_urls)")
    p.add_argument("--key", choices=["whole", "url"], default="whole", help="key: whole record or URL-normalized")
    p.add_argument("--text-gb", type=float, default=0.670, help="GB of text (default 0.670: 10M gen_urls lines)")
    p.add_argument("--piece-mib", type=float, default=32, help="piece size of a plain file (default 32 MiB)")
    p.add_argument("--shards", type=int, default=16, help="compressed files, one piece each (default 16)")
    p.add_argument("--workers", default="cores", choices=["cores", "cores-1"],
                   help="front-end workers on N cores: N (default) or N - 1 (at least 1)")
    p.add_argument("--no-writer-stage", action="store_true",
                   help="the filter stage's thread writes the output itself (before a separate writer stage)")
    p.add_argument("--markdown", action="store_true")
    a = p.parse_args()

    costs, ratios, record_bytes = step_costs(a.steps_json)
    need = ["BM_ReadPageCache", "BM_MemoryCopy", "BM_Split", "BM_Fingerprint", "BM_Decode/gzip", "BM_Decode/zstd"]
    missing = [n for n in need if n not in costs]
    if missing:
        sys.exit(f"scaling_model.py: {a.steps_json} lacks {', '.join(missing)}: run frontend_steps_bench unfiltered")

    read = costs["BM_ReadPageCache"]
    split = costs["BM_Split"] - costs["BM_MemoryCopy"]  # the benchmark's copy stands for the read
    hash_ = costs["BM_Fingerprint"] + (costs.get("BM_Key/url", 0) if a.key == "url" else 0)
    worker = {
        "plain": read + split + hash_,
        "gzip": read / ratios.get("gzip", 4) + costs["BM_Decode/gzip"] + split + hash_,
        "zstd": read / ratios.get("zstd", 4) + costs["BM_Decode/zstd"] + split + hash_,
    }
    if a.backend == "cpu":
        filter_ns_byte = a.filter_ns / record_bytes
        filter_gbs = (a.filter_speedup if a.filter_threads > 1 else 1) / filter_ns_byte
    else:
        filter_ns_byte = 0.0  # the in-order thread hands batches over and waits
        filter_gbs = a.gpu_keys * record_bytes / 1e9
    writer_ns_byte = a.kept * costs["BM_MemoryCopy"]
    memory_gbs = a.mem_gbs / a.mem_bytes_per_byte

    print(f"one core, ns per byte of text ({record_bytes:.1f} bytes a record): read {read:.3f}, split {split:.3f}, "
          f"fingerprint{' + URL key' if a.key == 'url' else ''} {hash_:.3f}, gzip decode {costs['BM_Decode/gzip']:.3f}, "
          f"zstd decode {costs['BM_Decode/zstd']:.3f}, filter ({a.backend}) {filter_ns_byte:.3f}, "
          f"writer {writer_ns_byte:.3f}")
    measured = {k: costs.get(f"BM_FrontEnd/{k}") for k in worker}
    print("one worker, sum of the steps against the steps measured together (BM_FrontEnd): " +
          ", ".join(f"{k} {worker[k]:.3f} vs {m:.3f} ns/byte ({worker[k] / m:.2f}x)"
                    for k, m in measured.items() if m))
    print(f"bounds: filter {filter_gbs:.1f} GB/s, writer {1 / writer_ns_byte:.1f} GB/s, memory {memory_gbs:.0f} GB/s; "
          f"pieces: plain {a.text_gb:.2f} GB in {a.piece_mib:g} MiB pieces, compressed {a.shards} shards")
    rows = []
    for cores in [int(c) for c in a.cores.split(",")]:
        workers = cores if a.workers == "cores" else max(1, cores - 1)
        for kind, c in worker.items():
            pieces = max(1, math.ceil(a.text_gb * 1e9 / (a.piece_mib * 2**20))) if kind == "plain" else a.shards
            w_eff = pieces / math.ceil(pieces / workers)
            bounds = {
                "work": cores / (c + filter_ns_byte + writer_ns_byte),
                "pieces": w_eff / c,
                "filter": filter_gbs,
                "writer": 1 / writer_ns_byte,
                "filter + writer": 1 / (1 / filter_gbs + writer_ns_byte) if a.no_writer_stage else math.inf,
                "memory": memory_gbs,
            }
            limit = min(bounds, key=bounds.get)
            gbs = bounds[limit]
            rows.append((cores, kind, gbs * 1e9 / record_bytes / 1e6, gbs, limit))
    fmt = "| {} | {} | {:.1f}M | {:.2f} | {} |" if a.markdown else "{:>5} {:>6} {:>11.1f}M {:>9.2f} {:>15}"
    if a.markdown:
        print("\n| cores | input | records/s | GB/s | limited by |\n|---|---|---|---|---|")
    else:
        print("\n{:>5} {:>6} {:>12} {:>9} {:>15}".format("cores", "input", "records/s", "GB/s", "limited by"))
    for r in rows:
        print(fmt.format(*r))


if __name__ == "__main__":
    main()
