// The record splitter across buffer and input boundaries, over plain and
// compressed inputs, and the decoders on damaged compressed data.
//
// Input: a 7-byte header, then the payload.
//   framing    (byte % 11) 0 plain; 1 gzip, 2 zstd, 5 xz, 6 bzip2, 7 lz4 (the
//              payload compressed here, in one or two members/frames/
//              streams); 3, 4, 8, 9, 10: the payload itself fed to the gzip,
//              zstd, xz, bzip2 or lz4 decoder, as damaged or hand-made
//              compressed data
//   batch      batch_bytes (1..1024) and batch_records (1..64, or unlimited)
//   pieces     largest read a source returns (1..256 bytes) and its seed
//   inputs     1..3 inputs: the payload cut in parts, each its own source
//
// Properties (compressed here or plain): the records are the reference split
// of each part (bytes between '\n's; an unterminated last line of a part is
// a record), so joined with '\n' they give back the data; batches respect
// their limits and positions add up; no batch counts more records verified
// than handed out. Raw decoder input: reading ends or throws gdedup::Error,
// and keeps throwing once it has; nothing else.
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../codec_util.h"
#include "../test_util.h"
#include "fuzz_util.h"
#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/bzip2_source.h"
#include "io/gzip_source.h"
#include "io/lz4_source.h"
#include "io/multi_source.h"
#include "io/record_reader.h"
#include "io/xz_source.h"
#include "io/zstd_source.h"

namespace {

using gdedup::fuzz::show;
using gdedup::test::reference_split;

std::string gzip(std::string_view data, int level) {
  // One compressor per level, reset between uses: setting one up costs
  // hundreds of KiB of fresh memory, which would dominate each run.
  static z_stream streams[10];
  static bool ready[10];
  z_stream& z = streams[level];
  if (!ready[level]) {
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
    ready[level] = true;
  } else if (deflateReset(&z) != Z_OK) {
    std::abort();
  }
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  return out;
}

std::string zstd(std::string_view data, int level) {
  static ZSTD_CCtx* const cctx = ZSTD_createCCtx();  // reused: a context is large
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compressCCtx(cctx, out.data(), out.size(), data.data(), data.size(), level);
  if (ZSTD_isError(n)) std::abort();
  out.resize(n);
  return out;
}

enum Framing : int {
  kPlain = 0, kGzip = 1, kZstd = 2, kRawGzip = 3, kRawZstd = 4,
  kXz = 5, kBzip2 = 6, kLz4 = 7, kRawXz = 8, kRawBzip2 = 9, kRawLz4 = 10, kFramings = 11
};

bool compressed_here(int framing) {
  return framing == kGzip || framing == kZstd || framing == kXz || framing == kBzip2 ||
         framing == kLz4;
}

// One or two members/frames/streams, split at `cut` (a fraction of 256).
std::string compress(int framing, std::string_view part, uint8_t cut, int level) {
  auto one = [&](std::string_view d) {
    switch (framing) {
      case kGzip: return gzip(d, level);
      case kZstd: return zstd(d, level);
      case kXz: return gdedup::test::xz(std::string(d));
      case kBzip2: return gdedup::test::bzip2(std::string(d));
      default: return gdedup::test::lz4(std::string(d));
    }
  };
  if (cut == 0) return one(part);
  const size_t at = part.size() * cut / 256;
  return one(part.substr(0, at)) + one(part.substr(at));
}

// The decoder a raw framing feeds its payload to.
std::unique_ptr<gdedup::io::ByteSource> raw_decoder(
    int framing, std::unique_ptr<gdedup::io::ByteSource> raw) {
  switch (framing) {
    case kRawGzip: return std::make_unique<gdedup::io::GzipSource>(std::move(raw));
    case kRawZstd: return std::make_unique<gdedup::io::ZstdSource>(std::move(raw));
    case kRawXz: return std::make_unique<gdedup::io::XzSource>(std::move(raw));
    case kRawBzip2: return std::make_unique<gdedup::io::Bzip2Source>(std::move(raw));
    default: return std::make_unique<gdedup::io::Lz4Source>(std::move(raw));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const int framing = in.byte() % kFramings;
  gdedup::io::ReaderOptions options;
  options.batch_bytes = 1 + in.u16() % 1024;
  const uint8_t records_byte = in.byte();
  options.batch_records = records_byte >= 192 ? SIZE_MAX : 1 + records_byte % 64;
  const size_t max_piece = 1 + in.byte();
  const uint8_t seed = in.byte();
  const uint8_t layout = in.byte();
  const int inputs = 1 + layout % 3;
  const uint8_t cut = layout / 3;  // members per part, and where parts are cut
  const std::string_view payload = in.rest();

  // Cut the payload into parts at fixed fractions of its length.
  std::vector<std::string_view> parts;
  for (int i = 0; i < inputs; ++i) {
    const size_t from = payload.size() * i / inputs;
    const size_t to = payload.size() * (i + 1) / inputs;
    parts.push_back(payload.substr(from, to - from));
  }

  std::vector<std::unique_ptr<gdedup::io::ByteSource>> sources;
  std::vector<std::string> expected;
  for (size_t i = 0; i < parts.size(); ++i) {
    const uint32_t piece_seed = seed * 131u + static_cast<uint32_t>(i);
    if (framing == 0) {
      sources.push_back(std::make_unique<gdedup::fuzz::PieceSource>(
          std::string(parts[i]), max_piece, piece_seed));
    } else if (compressed_here(framing)) {
      const int level = 1 + seed % 3;
      // Detected by magic bytes, as open_input() does for files.
      sources.push_back(gdedup::io::wrap_decoder(std::make_unique<gdedup::fuzz::PieceSource>(
          compress(framing, parts[i], cut, level), max_piece, piece_seed)));
    } else {
      sources.push_back(raw_decoder(framing, std::make_unique<gdedup::fuzz::PieceSource>(
                                                 std::string(parts[i]), max_piece, piece_seed)));
    }
    for (auto& r : reference_split(parts[i])) expected.push_back(std::move(r));
  }

  gdedup::io::RecordReader reader(gdedup::io::MultiSource(std::move(sources)), options);
  gdedup::io::RecordBatch batch;
  std::vector<std::string> got;
  uint64_t offset = 0;
  try {
    while (reader.next(batch)) {
      FUZZ_CHECK(!batch.empty(), "next() returned true with an empty batch");
      FUZZ_CHECK(batch.size() <= options.batch_records,
                 std::to_string(batch.size()) + " records in a batch");
      FUZZ_CHECK(batch.begin().records == got.size(), "batch begins at the wrong record");
      FUZZ_CHECK(batch.begin().offset == offset, "batch begins at the wrong offset");
      uint64_t bytes = 0;
      for (size_t i = 0; i < batch.size(); ++i) {
        got.emplace_back(batch[i]);
        bytes += batch[i].size();
      }
      // Each record spans its bytes and its '\n', but an input's
      // unterminated last line has none.
      const uint64_t spanned = batch.end().offset - batch.begin().offset;
      FUZZ_CHECK(batch.end().offset >= batch.begin().offset && spanned >= bytes &&
                     spanned <= bytes + batch.size(),
                 "batch spans " + std::to_string(spanned) + " bytes for " +
                     std::to_string(batch.size()) + " records of " + std::to_string(bytes));
      offset = batch.end().offset;
      FUZZ_CHECK(batch.end().records == got.size(), "batch ends at the wrong record");
      FUZZ_CHECK(reader.position().records == batch.end().records, "position() lags");
      FUZZ_CHECK(batch.verified_records() <= batch.end().records,
                 "more records verified than handed out");
    }
  } catch (const gdedup::Error& e) {
    FUZZ_CHECK(framing != kPlain && !compressed_here(framing),
               std::string("intact input failed: ") + e.what());
    bool again = false;
    try {
      reader.next(batch);
    } catch (const gdedup::Error&) {
      again = true;
    }
    FUZZ_CHECK(again, "a reader that failed read on");
    return 0;
  }
  FUZZ_CHECK(!reader.next(batch) && batch.empty(), "a finished reader handed out more");
  if (framing == kPlain || compressed_here(framing)) {
    if (got != expected) {
      size_t i = 0;
      while (i < got.size() && i < expected.size() && got[i] == expected[i]) ++i;
      FUZZ_CHECK(got == expected,
                 "records differ: " + std::to_string(got.size()) + " read, " +
                     std::to_string(expected.size()) + " expected; first difference at record " +
                     std::to_string(i) + ": read " + (i < got.size() ? show(got[i]) : "none") +
                     ", expected " + (i < expected.size() ? show(expected[i]) : "none") +
                     "; payload " + show(payload));
    }
    FUZZ_CHECK(reader.position().offset == payload.size(),
               "the stream ends at offset " + std::to_string(reader.position().offset) +
                   " of a " + std::to_string(payload.size()) + "-byte payload");
    FUZZ_CHECK(reader.position().input_index == parts.size(), "input index at the end");
  }
  return 0;
}
