// Record splitting from memory: the ceiling the reader stage puts on the
// pipeline before any I/O or decompression. 60-byte URL lines, the shape of
// the e2e data.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "io/byte_source.h"
#include "io/record_reader.h"

namespace {

using gdedup::io::ByteSource;

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(const std::string& data) : data_(data) {}
  size_t read(char* buf, size_t cap) override {
    const size_t n = std::min(cap, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  const std::string& name() const override { return name_; }
  uint64_t raw_bytes_read() const override { return pos_; }
  std::optional<uint64_t> raw_size() const override { return data_.size(); }

 private:
  const std::string& data_;
  size_t pos_ = 0;
  std::string name_ = "memory";
};

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
    gdedup::io::RecordReader reader(std::make_unique<MemorySource>(data));
    gdedup::io::RecordBatch batch;
    while (reader.next(batch)) records += batch.size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
  state.counters["records/s"] = benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SplitShortLines)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
