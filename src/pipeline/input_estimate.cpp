#include "pipeline/input_estimate.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/parquet_table.h"
#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/random_access.h"

namespace gdedup {
namespace {

// Inputs up to this size are read whole: the count is exact and costs
// little.
constexpr uint64_t kReadWholeBelow = uint64_t{4} << 20;
// A plain file is measured in windows spread evenly from its first byte to
// its last: 33 windows of 64 KiB, 2 MiB of reads in all.
constexpr int kWindows = 33;
constexpr size_t kWindow = size_t{64} << 10;
// A compressed stream cannot be entered midway: it is decoded from its start
// over at least this many compressed chunks of the decoder (1 MiB each), and
// the densest of them stands for the rest of the file ...
constexpr size_t kCompressedPlaces = 8;
// ... once the sample holds enough records to say anything (one long first
// line says nothing about the lines after it) ...
constexpr uint64_t kMinRecords = 1000;
// ... and without decoding more than this, or, when records are still too
// few, more than the hard limit.
constexpr uint64_t kMaxDecoded = uint64_t{256} << 20;
constexpr uint64_t kHardMaxDecoded = uint64_t{1} << 30;
// Inputs past this many are sized from the densest place of those sampled.
constexpr size_t kMaxSampledInputs = 16;

// What one input was found to hold.
struct Sample {
  double records = 0;       // counted (whole) or estimated
  bool whole = false;       // read to its end: `records` is exact
  int places = 0;           // windows or compressed chunks measured
  double densest = 0;       // records per file byte at the densest place
  uint64_t decoded = 0;     // compressed inputs: bytes decoded ...
  uint64_t raw = 0;         // ... from this many file bytes
};

// What ends a record: the separator of text records, or 8 bytes.
struct Records {
  InputFormat format;
  char separator;
};

// Records among `n` bytes of data: its separators, or its 8-byte words.
double records_in(const char* data, size_t n, Records kind) {
  if (kind.format == InputFormat::kU64) return static_cast<double>(n) / 8;
  return static_cast<double>(std::count(data, data + n, kind.separator));
}

// The whole stream counted, or its start measured chunk by chunk (see the
// constants above) and the rest taken to be as dense as its densest chunk.
Sample sample_stream(io::ByteSource& source, uint64_t size, Records kind) {
  std::vector<char> buf(size_t{64} << 10);
  Sample s;
  double counted = 0;          // records up to the end of the last whole chunk
  double chunk_records = 0;    // records since then
  // File offset where the current chunk began (past the bytes format
  // detection read) and file bytes of the whole chunks.
  uint64_t chunk_start = source.raw_bytes_read();
  uint64_t counted_raw = 0;
  bool last_was_separator = true;
  // Ends the chunk in progress at file offset `end`: one more place.
  auto close_chunk = [&](uint64_t end) {
    s.densest = std::max(s.densest, chunk_records / static_cast<double>(end - chunk_start));
    ++s.places;
    counted += chunk_records;
    chunk_records = 0;
    chunk_start = counted_raw = end;
  };
  for (;;) {
    const uint64_t raw_before = source.raw_bytes_read();
    size_t n = 0;
    try {
      n = source.read(buf.data(), buf.size());
    } catch (const io::DamagedData&) {
      // The job itself will meet the damage, after writing the records
      // before it, and say so: size it from what came before.
      if (raw_before > chunk_start) close_chunk(raw_before);
      break;
    }
    if (n == 0) {
      // Exact: a last record without its separator is a record; a u64 tail
      // rounds up.
      double total = counted + chunk_records;
      if (kind.format == InputFormat::kU64) total = std::ceil(total);
      else if (!last_was_separator) total += 1;
      s.records = total;
      s.whole = true;
      return s;
    }
    s.decoded += n;
    const double read_records = records_in(buf.data(), n, kind);
    last_was_separator = buf[n - 1] == kind.separator;
    // The decoder fetched its next chunk in this read: the previous chunk
    // ends here, and this read's records count for the new one (a read is
    // 64 KiB of output, a chunk several MiB). Plain streams are read whole.
    if (source.compressed() && source.raw_bytes_read() > raw_before && raw_before > chunk_start) {
      close_chunk(raw_before);
      chunk_records = read_records;
      const bool enough = counted >= kMinRecords;
      const bool far_enough =
          static_cast<size_t>(s.places) >= kCompressedPlaces || s.decoded >= kMaxDecoded;
      if ((enough && far_enough) || s.decoded >= kHardMaxDecoded) break;
    } else {
      chunk_records += read_records;
    }
  }
  s.raw = counted_raw;
  s.records = counted + static_cast<double>(size - std::min(size, counted_raw)) * s.densest;
  return s;
}

// A plain file measured in windows from its first byte to its last. Each
// stretch between two windows is taken to be as dense as the denser of the
// two: a change of record length between them (6,000 long URLs, then short
// ones) is planned for at its dense side.
Sample sample_windows(const io::RandomAccessInput& input, Records kind) {
  const uint64_t size = input.size();
  std::vector<char> buf(kWindow);
  std::vector<uint64_t> at(kWindows);
  std::vector<double> density(kWindows);
  double last_records = 0;
  for (int i = 0; i < kWindows; ++i) {
    at[i] = (size - kWindow) * static_cast<uint64_t>(i) / (kWindows - 1);
    const size_t n = input.read_at(at[i], buf.data(), kWindow);
    last_records = records_in(buf.data(), n, kind);
    density[i] = last_records / static_cast<double>(kWindow);
  }
  Sample s;
  s.places = kWindows;
  for (int i = 0; i + 1 < kWindows; ++i) {
    const double denser = std::max(density[i], density[i + 1]);
    s.records += static_cast<double>(at[i + 1] - at[i]) * denser;
    s.densest = std::max(s.densest, denser);
  }
  // The last window is counted, plus a last record that may lack its separator.
  s.records += last_records + 1;
  return s;
}

Sample sample_input(const io::RandomAccessInput& input, Records kind) {
  std::unique_ptr<io::ByteSource> stream = input.stream();
  if (stream->compressed() || input.size() <= kReadWholeBelow) {
    Sample s = sample_stream(*stream, input.size(), kind);
    if (!stream->compressed()) s.decoded = s.raw = 0;
    return s;
  }
  if (kind.format == InputFormat::kU64) {
    Sample s;
    s.records = std::ceil(static_cast<double>(input.size()) / 8);
    s.whole = true;
    return s;
  }
  return sample_windows(input, kind);
}

// Whether `input` begins with Parquet's magic, as is_parquet_input asks of
// a path.
bool starts_as_parquet(const io::RandomAccessInput& input) {
  char head[columnar::kParquetMagic.size()];
  return input.read_at(0, head, sizeof head) == sizeof head &&
         std::string_view(head, sizeof head) == columnar::kParquetMagic;
}

}  // namespace

std::optional<RecordEstimate> estimate_records(const std::vector<std::string>& inputs,
                                               InputFormat format, char separator,
                                               std::string* unsized) {
  const Records kind{format, separator};
  double records = 0;
  double densest = 0;  // records per file byte, over every place measured
  uint64_t unsampled = 0, decoded = 0, compressed_raw = 0;
  RecordEstimate e;
  e.counted = true;
  // One input open at a time: a job of 100,000 files must not need a
  // descriptor for each.
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::unique_ptr<io::RandomAccessInput> input = io::RandomAccessInput::open(inputs[i]);
    if (!input) {
      if (unsized != nullptr) {
        *unsized = inputs[i] == "-" ? std::string("standard input")
                                    : inputs[i] + " (not a regular file)";
      }
      return std::nullopt;
    }
    // A Parquet file's footer counts its rows. Its magic is read from the
    // input already open, so that a job of many line files opens each once.
    if (inputs[i] != "-" && starts_as_parquet(*input)) {
      uint64_t size = 0;
      records += static_cast<double>(columnar::parquet_file_rows(inputs[i], size));
      e.input_bytes += size;
      ++e.places;
      continue;
    }
    const uint64_t size = input->size();
    e.input_bytes += size;
    if (i >= kMaxSampledInputs) {
      unsampled += size;
      e.counted = false;
      continue;
    }
    const Sample s = sample_input(*input, kind);
    records += s.records;
    e.counted = e.counted && s.whole;
    e.places += s.places;
    densest = std::max(densest, s.whole && size > 0 ? s.records / static_cast<double>(size)
                                                    : s.densest);
    decoded += s.decoded;
    compressed_raw += s.raw;
  }
  records += static_cast<double>(unsampled) * densest;
  e.records = static_cast<uint64_t>(std::ceil(records));
  if (compressed_raw > 0) {
    e.compression = static_cast<double>(decoded) / static_cast<double>(compressed_raw);
  }
  return e;
}

}  // namespace gdedup
