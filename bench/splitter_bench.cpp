// Record splitting from memory: the ceiling the reader stage puts on the
// pipeline before any I/O or decompression. 60-byte URL lines, the shape of
// the e2e data.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>

#include "io/record_reader.h"
#include "piece_source.h"

namespace {

const std::string& short_lines() {
  static const std::string data = [] {
    std::string d;
    std::mt19937_64 rng(3);
    while (d.size() < (size_t{64} << 20)) {
      d += "https://example.com/";
      for (int i = 0; i < 39; ++i) d.push_back(static_cast<char>('a' + rng() % 26));
      d.push_back('\n');
    }
    return d;
  }();
  return data;
}

void BM_SplitShortLines(benchmark::State& state) {
  const std::string& data = short_lines();
  uint64_t records = 0;
  for (auto _ : state) {
    // One piece as large as the data: every read is a plain memcpy. The
    // source holds its own copy of the data, made outside the timing.
    state.PauseTiming();
    gdedup::io::RecordReader reader(
        std::make_unique<gdedup::test::PieceSource>(data, data.size()));
    state.ResumeTiming();
    gdedup::io::RecordBatch batch;
    while (reader.next(batch)) records += batch.size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
  state.counters["records/s"] = benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SplitShortLines)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
