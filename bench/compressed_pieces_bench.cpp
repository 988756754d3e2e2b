// Decoding one big compressed file whole against in independent pieces
// (io/compressed_pieces.h) on 1 and 2 threads, and what planning the pieces
// costs. The file: 128 MiB of 60-byte URL lines (the e2e data's shape) as
// BGZF (64 KiB members), gzip members of 4 MiB (`cat a.gz b.gz ...`) or
// zstd frames of 4 MiB, in the page cache.
// GDEDUP_PIECES_BENCH_MIB changes the size.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec_util.h"
#include "io/byte_source.h"
#include "io/compressed_pieces.h"
#include "io/random_access.h"

namespace {

using gdedup::io::CompressedPieceSource;
using gdedup::io::PiecePlan;
using gdedup::io::RandomAccessInput;

size_t text_bytes() {
  const char* mib = std::getenv("GDEDUP_PIECES_BENCH_MIB");
  return (mib != nullptr ? std::strtoull(mib, nullptr, 10) : 128) << 20;
}

const std::string& url_lines() {
  static const std::string data = [] {
    std::string d;
    std::mt19937_64 rng(3);
    while (d.size() < text_bytes()) {
      d += "https://h" + std::to_string(rng() % 1000000) + ".example.com/";
      for (int i = 0; i < 30; ++i) d.push_back(static_cast<char>('a' + rng() % 26));
      d.push_back('\n');
    }
    return d;
  }();
  return data;
}

enum Format { kBgzf, kGzipMembers, kZstd };
const char* const kSuffix[] = {".bgz", ".gz", ".zst"};
const char* const kLabel[] = {"bgzf", "gzip members", "zstd"};

// The file of `format`, written once per run, removed at exit.
const std::string& file_of(Format format) {
  static std::string paths[3];
  std::string& p = paths[format];
  if (p.empty()) {
    p = "/tmp/gdedup_pieces_bench_" + std::to_string(::getpid()) + kSuffix[format];
    constexpr size_t kFrame = size_t{4} << 20;
    std::ofstream(p, std::ios::binary)
        << (format == kBgzf           ? gdedup::test::bgzf(url_lines(), 65280)
            : format == kGzipMembers ? gdedup::test::gzip_members(url_lines(), kFrame)
                                     : gdedup::test::zstd_frames(url_lines(), kFrame));
    std::atexit([] {
      for (const std::string& q : paths) {
        if (!q.empty()) ::unlink(q.c_str());
      }
    });
  }
  return p;
}

uint64_t drain(gdedup::io::ByteSource& src, std::vector<char>& buf) {
  uint64_t total = 0;
  while (size_t n = src.read(buf.data(), buf.size())) total += n;
  return total;
}

void set_counters(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * url_lines().size()));
  state.SetLabel(kLabel[state.range(0)]);
}

// The whole-file decoder, as a one-thread run reads the file today.
void BM_DecodeWhole(benchmark::State& state) {
  const std::string& p = file_of(static_cast<Format>(state.range(0)));
  std::vector<char> buf(size_t{1} << 20);
  for (auto _ : state) {
    auto src = gdedup::io::open_input(p);
    if (drain(*src, buf) != url_lines().size()) state.SkipWithError("short decode");
  }
  set_counters(state);
}
BENCHMARK(BM_DecodeWhole)->DenseRange(kBgzf, kZstd)->Unit(benchmark::kMillisecond)->UseRealTime();

// Planning (included) and decoding 16 pieces on range(1) threads, each
// taking every range(1)-th piece.
void BM_DecodePieces(benchmark::State& state) {
  const std::string& p = file_of(static_cast<Format>(state.range(0)));
  const auto threads = static_cast<size_t>(state.range(1));
  for (auto _ : state) {
    const auto input = RandomAccessInput::open(p);
    const auto plan =
        std::make_shared<const PiecePlan>(gdedup::io::find_pieces(*input, input->size() / 16 + 1));
    std::vector<uint64_t> decoded(threads);
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        std::vector<char> buf(size_t{1} << 20);
        for (size_t i = t; i < plan->ranges.size(); i += threads) {
          CompressedPieceSource piece(*input, plan, i);
          decoded[t] += drain(piece, buf);
        }
      });
    }
    for (std::thread& w : workers) w.join();
    uint64_t total = 0;
    for (uint64_t d : decoded) total += d;
    if (total != url_lines().size()) state.SkipWithError("pieces do not add up");
    state.counters["pieces"] = static_cast<double>(plan->ranges.size());
  }
  set_counters(state);
}
BENCHMARK(BM_DecodePieces)
    ->ArgsProduct({{kBgzf, kGzipMembers, kZstd}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// find_pieces alone, with pieces of 1 MiB; "per GB" counters are per GB of
// compressed file.
void BM_FindPieces(benchmark::State& state) {
  const std::string& p = file_of(static_cast<Format>(state.range(0)));
  const auto input = RandomAccessInput::open(p);
  size_t pieces = 0;
  for (auto _ : state) pieces = gdedup::io::find_pieces(*input, 1 << 20).ranges.size();
  state.counters["pieces"] = static_cast<double>(pieces);
  state.counters["compressed MB"] = static_cast<double>(input->size()) / 1e6;
  // Seconds per iteration over GB per iteration, in ms.
  state.counters["ms per GB"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(input->size()) / 1e12,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(kLabel[state.range(0)]);
}
BENCHMARK(BM_FindPieces)->DenseRange(kBgzf, kZstd)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
