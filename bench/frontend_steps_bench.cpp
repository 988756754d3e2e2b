// The CPU cost of each front-end step on one core, per byte and per record,
// for the scaling model in bench/README.md: reading a file from the page
// cache, decoding each codec the project reads, splitting into records,
// selecting and normalizing keys, fingerprinting; then the steps together on
// plain, gzip and zstd files, on one thread (is the sum of the steps the
// whole?) and on two (does the work of independent inputs add up?).
//
// The data is the first 64 MiB of gen_urls' seed-1 dump (url_generator.h),
// about a million URLs of 67 bytes; every step runs the library's own code.
// Rates are per CPU second of the timing thread (user and system time: the
// kernel's copy out of the page cache counts), except the two-thread runs,
// which are per wall second of both threads together. The counters cpu/byte
// and cpu/record are CPU time per uncompressed byte and per record (wall
// time of both threads for the two-thread runs).
//
// Not measured: reads that miss the page cache. posix_fadvise(DONTNEED) only
// drops clean pages a process may drop and says nothing of the disk under a
// real job; a cold read is the disk's speed, not a CPU cost.
#include <benchmark/benchmark.h>
#include <bzlib.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gdedup/fingerprint.h"
#include "gdedup/key_extractor.h"
#include "gdedup/key_options.h"
#include "io/byte_source.h"
#include "io/fd_source.h"
#include "io/record_reader.h"
#include "piece_source.h"
#include "url_generator.h"

namespace {

using gdedup::io::ByteSource;
using gdedup::io::RecordBatch;
using gdedup::io::RecordReader;
using gdedup::io::ReaderOptions;

constexpr size_t kDataBytes = size_t{64} << 20;
// The pipeline's batch: 8 MiB of text, at most 2^18 records.
constexpr size_t kBatchBytes = size_t{8} << 20;
constexpr size_t kBatchRecords = size_t{1} << 18;
// io::RecordReader asks its source for at most 1 MiB a call, and sources
// in memory hand out at most that much.
constexpr size_t kPiece = size_t{1} << 20;

const std::string& url_text() {
  static const std::string data = gdedup::bench::generate_urls(1, kDataBytes);
  return data;
}

const std::vector<std::string_view>& url_records() {
  static const std::vector<std::string_view> records = [] {
    std::vector<std::string_view> r;
    const std::string& d = url_text();
    size_t start = 0;
    for (size_t nl = d.find('\n'); nl != std::string::npos; nl = d.find('\n', start)) {
      r.emplace_back(d.data() + start, nl - start);
      start = nl + 1;
    }
    return r;
  }();
  return records;
}

// CPU seconds per byte and per record (uncompressed bytes, records of the
// data; printed as 234ps, 15.7ns), and Google Benchmark's own rates.
void report(benchmark::State& state, uint64_t bytes, uint64_t records) {
  const auto per = benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.counters["cpu/byte"] = benchmark::Counter(static_cast<double>(bytes), per);
  state.counters["cpu/record"] = benchmark::Counter(static_cast<double>(records), per);
}

// ---------------------------------------------------------------- codecs
// Each at the level its command line tool uses by default, as users' files
// are made: gzip -6, zstd -3, xz -6, bzip2 -9, lz4 -1 with 4 MiB blocks and
// a content checksum.
enum class Codec { gzip, zstd, xz, bzip2, lz4 };

std::string gzip_compress(const std::string& in) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate");
  return out;
}

std::string zstd_compress(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

std::string xz_compress(const std::string& in) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  size_t pos = 0;
  if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(in.data()),
                              in.size(), reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()) != LZMA_OK) {
    throw std::runtime_error("lzma_easy_buffer_encode");
  }
  out.resize(pos);
  return out;
}

std::string bzip2_compress(const std::string& in) {
  unsigned int n = static_cast<unsigned int>(in.size() + in.size() / 100 + 600);
  std::string out(n, '\0');
  if (BZ2_bzBuffToBuffCompress(out.data(), &n, const_cast<char*>(in.data()), static_cast<unsigned int>(in.size()), 9,
                               0, 0) != BZ_OK) {
    throw std::runtime_error("BZ2_bzBuffToBuffCompress");
  }
  out.resize(n);
  return out;
}

std::string lz4_compress(const std::string& in) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max4MB;
  prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  std::string out(LZ4F_compressFrameBound(in.size(), &prefs), '\0');
  const size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) throw std::runtime_error(LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

// The uncompressed sample of a codec: all the data, except for xz and
// bzip2, whose compression at their default levels takes seconds a
// megabyte-second here; 16 MiB of them decode long enough to measure.
std::string_view sample(Codec c) {
  const size_t n = c == Codec::xz || c == Codec::bzip2 ? size_t{16} << 20 : kDataBytes;
  const std::string& d = url_text();
  return std::string_view(d.data(), d.rfind('\n', n - 1) + 1);
}

// Compressed once, when a benchmark first asks (threads may ask at once).
const std::string& compressed(Codec c) {
  static std::mutex mutex;
  static std::map<Codec, std::string> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(c);
  if (it != cache.end()) return it->second;
  const std::string in(sample(c));
  std::string out;
  switch (c) {
    case Codec::gzip: out = gzip_compress(in); break;
    case Codec::zstd: out = zstd_compress(in); break;
    case Codec::xz: out = xz_compress(in); break;
    case Codec::bzip2: out = bzip2_compress(in); break;
    case Codec::lz4: out = lz4_compress(in); break;
  }
  return cache.emplace(c, std::move(out)).first->second;
}

uint64_t count_records(std::string_view text) {
  uint64_t n = 0;
  for (char ch : text) n += ch == '\n';
  return n;
}

// Drains a source as io::RecordReader reads it: at most 1 MiB a call, into
// successive places of a batch-sized buffer (wrapping around at its end);
// returns the bytes it gave.
uint64_t drain(ByteSource& source, std::vector<char>& buf) {
  uint64_t total = 0;
  size_t at = 0;
  for (;;) {
    if (at == buf.size()) at = 0;
    const size_t n = source.read(buf.data() + at, std::min(kPiece, buf.size() - at));
    if (n == 0) return total;
    total += n;
    at += n;
  }
}

// ---------------------------------------------------------------- files
// The data and its gzip and zstd forms as files in $TMPDIR (default /tmp),
// written once and removed at exit: just written, they are in the page cache.
// Safe to call from the threads of one benchmark.
class TempFiles {
 public:
  ~TempFiles() {
    for (const auto& [name, path] : paths_) unlink(path.c_str());
  }
  const std::string& path(const std::string& name, const std::string& bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = paths_.find(name);
    if (it != paths_.end()) return it->second;
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/frontend_steps_bench." + name + ".XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd < 0) throw std::runtime_error("cannot create " + path);
    const bool ok = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    close(fd);
    if (!ok) {
      unlink(path.c_str());
      throw std::runtime_error("cannot write " + path + " (a full disk? set TMPDIR)");
    }
    return paths_.emplace(name, path).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> paths_;
};

TempFiles& temp_files() {
  static TempFiles files;
  return files;
}

const std::string& plain_file() { return temp_files().path("txt", url_text()); }

// ---------------------------------------------------------------- steps

// The data copied from memory in 1 MiB reads into a batch buffer
// (test::PieceSource): the memory floor of one core, and the copy that the
// split benchmark below includes.
void BM_MemoryCopy(benchmark::State& state) {
  const std::string& data = url_text();
  std::vector<char> buf(kBatchBytes);
  for (auto _ : state) {
    state.PauseTiming();
    gdedup::test::PieceSource source(data, kPiece);
    state.ResumeTiming();
    benchmark::DoNotOptimize(drain(source, buf));
    benchmark::ClobberMemory();
  }
  report(state, data.size(), url_records().size());
}
BENCHMARK(BM_MemoryCopy)->Unit(benchmark::kMillisecond);

// read(2) of a file in the page cache through io::FdSource into a batch
// buffer: the kernel's copy, what `cat` does.
void BM_ReadPageCache(benchmark::State& state) {
  const std::string& path = plain_file();
  std::vector<char> buf(kBatchBytes);
  uint64_t bytes = 0;
  for (auto _ : state) {
    auto source = gdedup::io::FdSource::open(path);
    bytes = drain(*source, buf);
  }
  report(state, bytes, url_records().size());
}
BENCHMARK(BM_ReadPageCache)->Unit(benchmark::kMillisecond);

// Decoding from memory through the project's decoder for the codec
// (io::wrap_decoder picks it from the magic, as for a file). ns/byte is per
// decoded byte; the label gives the compression ratio.
void BM_Decode(benchmark::State& state, Codec codec) {
  const std::string& packed = compressed(codec);
  const std::string_view text = sample(codec);
  std::vector<char> buf(kBatchBytes);
  for (auto _ : state) {
    state.PauseTiming();
    auto source = gdedup::io::wrap_decoder(std::make_unique<gdedup::test::PieceSource>(packed, kPiece));
    state.ResumeTiming();
    if (drain(*source, buf) != text.size()) {
      state.SkipWithError("the decoded size differs from the data's");
      return;
    }
  }
  report(state, text.size(), count_records(text));
  state.SetLabel("ratio " + std::to_string(static_cast<double>(text.size()) / static_cast<double>(packed.size()))
                     .substr(0, 4) +
#ifdef GDEDUP_HAVE_ISAL
                 (codec == Codec::gzip ? ", ISA-L" : "")
#else
                 (codec == Codec::gzip ? ", zlib" : "")
#endif
  );
}
BENCHMARK_CAPTURE(BM_Decode, gzip, Codec::gzip)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, zstd, Codec::zstd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, xz, Codec::xz)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, bzip2, Codec::bzip2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Decode, lz4, Codec::lz4)->Unit(benchmark::kMillisecond);

// zlib's inflate called directly: the gzip decoder of builds without ISA-L
// (and of `gzip -dc`, `pigz -dc`), for the ratio between the two.
void BM_DecodeZlibInflate(benchmark::State& state) {
  const std::string& packed = compressed(Codec::gzip);
  const std::string_view text = sample(Codec::gzip);
  std::vector<char> buf(kBatchBytes);
  for (auto _ : state) {
    z_stream z{};
    inflateInit2(&z, 15 + 16);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
    z.avail_in = static_cast<uInt>(packed.size());
    int rc = Z_OK;
    while (rc == Z_OK) {
      z.next_out = reinterpret_cast<Bytef*>(buf.data());
      z.avail_out = static_cast<uInt>(buf.size());
      rc = inflate(&z, Z_NO_FLUSH);
    }
    const bool ok = rc == Z_STREAM_END && z.total_out == text.size();
    inflateEnd(&z);
    if (!ok) {
      state.SkipWithError("zlib could not decode the sample");
      return;
    }
  }
  report(state, text.size(), count_records(text));
}
BENCHMARK(BM_DecodeZlibInflate)->Unit(benchmark::kMillisecond);

// io::RecordReader over the data in memory: the 1 MiB copies of
// BM_MemoryCopy plus finding the newlines and recording each record.
void BM_Split(benchmark::State& state) {
  const std::string& data = url_text();
  uint64_t records = 0;
  for (auto _ : state) {
    state.PauseTiming();
    RecordReader reader(std::make_unique<gdedup::test::PieceSource>(data, kPiece),
                        ReaderOptions{kBatchBytes, kBatchRecords});
    state.ResumeTiming();
    RecordBatch batch;
    records = 0;
    while (reader.next(batch)) records += batch.size();
  }
  report(state, data.size(), records);
}
BENCHMARK(BM_Split)->Unit(benchmark::kMillisecond);

// Key selection on split records, without hashing: whole (the record
// itself), the host as field 3 of '/', the two URL normalization presets
// and Scrapy's canonical URL (docs/KEYS.md).
void BM_Key(benchmark::State& state, const char* key, const char* delimiter, const char* normalize) {
  const std::vector<std::string_view>& records = url_records();
  const gdedup::keys::KeyExtractor extractor(gdedup::KeyOptions::parse(key, delimiter, normalize));
  std::string scratch;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (const std::string_view r : records) sum += extractor.key(r, scratch).size();
    benchmark::DoNotOptimize(sum);
  }
  report(state, url_text().size(), records.size());
}
BENCHMARK_CAPTURE(BM_Key, whole, "whole", "tab", "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Key, host_field, "field:3", "/", "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Key, url, "whole", "tab", "url")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Key, url_aggressive, "whole", "tab", "url-aggressive")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Key, scrapy, "whole", "tab", "scrapy")->Unit(benchmark::kMillisecond);

// XXH3-64 of every whole record (gdedup::fingerprint).
void BM_Fingerprint(benchmark::State& state) {
  const std::vector<std::string_view>& records = url_records();
  for (auto _ : state) {
    uint64_t x = 0;
    for (const std::string_view r : records) x ^= gdedup::fingerprint(r.data(), r.size(), gdedup::kDefaultSeed);
    benchmark::DoNotOptimize(x);
  }
  report(state, url_text().size(), records.size());
}
BENCHMARK(BM_Fingerprint)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- together

// One worker's whole job on one file in the page cache: open (the decoder
// from the magic), read, decode, split, fingerprint the whole record, as
// the pipeline's reading and hashing stages do. Each thread reads its own
// pass over the file, so two threads show how independent inputs scale.
void BM_FrontEnd(benchmark::State& state, const char* kind) {
  const std::string& path = std::string(kind) == "gzip"   ? temp_files().path("gz", compressed(Codec::gzip))
                            : std::string(kind) == "zstd" ? temp_files().path("zst", compressed(Codec::zstd))
                                                          : plain_file();
  uint64_t records = 0;
  for (auto _ : state) {
    RecordReader reader(gdedup::io::open_input(path), ReaderOptions{kBatchBytes, kBatchRecords});
    RecordBatch batch;
    std::vector<uint64_t> fingerprints;
    records = 0;
    while (reader.next(batch)) {
      fingerprints.resize(batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        fingerprints[i] = gdedup::fingerprint(batch[i].data(), batch[i].size(), gdedup::kDefaultSeed);
      }
      benchmark::DoNotOptimize(fingerprints.data());
      records += batch.size();
    }
  }
  report(state, url_text().size(), records);
}
BENCHMARK_CAPTURE(BM_FrontEnd, plain, "plain")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FrontEnd, gzip, "gzip")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FrontEnd, zstd, "zstd")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FrontEnd, plain, "plain")->Threads(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FrontEnd, gzip, "gzip")->Threads(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FrontEnd, zstd, "zstd")->Threads(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
