#include "io/piece_boundaries.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "gdedup/error.h"

namespace gdedup::io {

namespace {

// Keeps the member starts at least `target` bytes after the last one kept.
class Grouping {
 public:
  explicit Grouping(uint64_t target) : target_(target) {}
  void offer(uint64_t start) {
    if (start - last_ < target_) return;
    starts_.push_back(start);
    last_ = start;
  }
  // The first offset offer() would keep.
  uint64_t wanted() const { return last_ + target_; }
  std::vector<uint64_t> take() { return std::move(starts_); }

 private:
  uint64_t target_;
  uint64_t last_ = 0;
  std::vector<uint64_t> starts_;
};

// Up to `size` bytes at `offset`: fewer only at the end of the file.
std::string bytes_at(const RandomAccessInput& input, uint64_t offset, size_t size) {
  std::string out(size, '\0');
  out.resize(input.read_at(offset, out.data(), size));
  return out;
}

unsigned byte(std::string_view s, size_t i) { return static_cast<unsigned char>(s[i]); }

uint32_t le32(std::string_view s, size_t i) {
  return byte(s, i) | byte(s, i + 1) << 8 | byte(s, i + 2) << 16 | uint32_t{byte(s, i + 3)} << 24;
}

// gzip's fixed header (RFC 1952): magic 1f 8b, method 8 (deflate), flags
// with the reserved bits 5-7 clear, mtime, xfl, os; then, with FEXTRA (bit
// 2), the extra field's 2-byte length and the field.
constexpr size_t kGzipFixedHeader = 10;
constexpr unsigned kFlagExtra = 4;
constexpr unsigned kReservedFlags = 0xe0;

bool gzip_header_at(std::string_view s, size_t i) {
  return i + 4 <= s.size() && byte(s, i) == 0x1f && byte(s, i + 1) == 0x8b && byte(s, i + 2) == 8 &&
         (byte(s, i + 3) & kReservedFlags) == 0;
}

// The length of the BGZF member at `at` (its "BC" subfield's BSIZE plus 1),
// or 0 when none starts there or its length cannot hold its own header and
// trailer.
uint64_t bgzf_member_length(const RandomAccessInput& input, uint64_t at) {
  // The fixed header, XLEN and bgzip's 6-byte extra field in one read.
  constexpr size_t kUsual = kGzipFixedHeader + 2 + 6;
  std::string h = bytes_at(input, at, kUsual);
  if (h.size() < kGzipFixedHeader + 2 || !gzip_header_at(h, 0) || !(byte(h, 3) & kFlagExtra)) {
    return 0;
  }
  const size_t xlen = byte(h, 10) | byte(h, 11) << 8;
  if (h.size() < kGzipFixedHeader + 2 + xlen) {
    h = bytes_at(input, at, kGzipFixedHeader + 2 + xlen);
    if (h.size() < kGzipFixedHeader + 2 + xlen) return 0;
  }
  // Subfields: SI1, SI2, a 2-byte length, the data.
  for (size_t i = kGzipFixedHeader + 2; i + 4 <= kGzipFixedHeader + 2 + xlen;) {
    const size_t slen = byte(h, i + 2) | byte(h, i + 3) << 8;
    if (byte(h, i) == 'B' && byte(h, i + 1) == 'C' && slen == 2 &&
        i + 6 <= kGzipFixedHeader + 2 + xlen) {
      const uint64_t length = (byte(h, i + 4) | byte(h, i + 5) << 8) + uint64_t{1};
      // A deflate stream takes at least 2 bytes, the trailer 8.
      return length >= kGzipFixedHeader + 2 + xlen + 2 + 8 ? length : 0;
    }
    i += 4 + slen;
  }
  return 0;
}

// zstd frame format (RFC 8878): the magic, the frame header descriptor
// (content size flag in bits 6-7, single segment in bit 5, checksum in bit
// 2, dictionary id size in bits 0-1), then blocks with 3-byte headers (last
// block in bit 0, type in bits 1-2, size above). Skippable frames: a magic
// 0x184D2A5?, then a 4-byte length.
constexpr uint32_t kZstdMagic = 0xFD2FB528;
constexpr uint32_t kSkippableMask = 0xFFFFFFF0;
constexpr uint32_t kSkippableMagic = 0x184D2A50;

// The length of the zstd or skippable frame at `at`, or 0 when none starts
// there or its blocks are not well formed (the decoder will say why).
uint64_t zstd_frame_length(const RandomAccessInput& input, uint64_t at) {
  const std::string h = bytes_at(input, at, 8);
  if (h.size() < 5) return 0;
  const uint32_t magic = le32(h, 0);
  if ((magic & kSkippableMask) == kSkippableMagic) {
    return h.size() == 8 ? 8 + uint64_t{le32(h, 4)} : 0;
  }
  if (magic != kZstdMagic) return 0;
  const unsigned descriptor = byte(h, 4);
  if (descriptor & 0x08) return 0;  // the reserved bit
  static constexpr unsigned kDictIdBytes[4] = {0, 1, 2, 4};
  static constexpr unsigned kContentSizeBytes[4] = {0, 2, 4, 8};
  const bool single_segment = descriptor & 0x20;
  const unsigned size_flag = descriptor >> 6;
  uint64_t pos = at + 5 + (single_segment ? 0 : 1) + kDictIdBytes[descriptor & 3] +
                 (size_flag == 0 && single_segment ? 1 : kContentSizeBytes[size_flag]);
  for (;;) {
    const std::string b = bytes_at(input, pos, 3);
    if (b.size() < 3) return 0;
    const uint32_t header = byte(b, 0) | byte(b, 1) << 8 | byte(b, 2) << 16;
    const unsigned type = (header >> 1) & 3;
    if (type == 3) return 0;                   // reserved
    pos += 3 + (type == 1 ? 1 : header >> 3);  // an RLE block holds one byte
    if (header & 1) break;
  }
  if (descriptor & 0x04) pos += 4;  // the content checksum
  return pos - at;
}

// Walks the members or frames that `length` measures from the start of the
// file, offering each start to the grouping, until the end of the file or
// anything that does not measure up.
template <typename Length>
std::vector<uint64_t> walk(const RandomAccessInput& input, uint64_t target, Length length) {
  Grouping grouping(target);
  const uint64_t size = input.size();
  for (uint64_t at = 0; at < size;) {
    const uint64_t n = length(input, at);
    if (n == 0 || n > size - at) break;
    at += n;
    if (at < size) grouping.offer(at);
  }
  return grouping.take();
}

// The scan's view of the file: 1 MiB and a trial's input more at a time,
// kept while the scan and the trials stay inside it, so that header
// patterns close together cost no reads of their own.
constexpr size_t kTrialInput = size_t{16} << 10;

class ScanWindow {
 public:
  explicit ScanWindow(const RandomAccessInput& input) : input_(input) {}
  // The bytes from `at` on: more than `want` of them unless the file ends
  // first. Valid until the next call.
  std::string_view from(uint64_t at, size_t want) {
    const uint64_t end = start_ + bytes_.size();
    // More than `want` kept after `at`, so that a scan of the window
    // always moves on.
    if (at < start_ || (at + want >= end && end < input_.size())) {
      constexpr size_t kWindow = size_t{1} << 20;
      start_ = at;
      bytes_ = bytes_at(input_, at, kWindow + want);
    }
    return std::string_view(bytes_).substr(static_cast<size_t>(at - start_));
  }
  bool reaches_end(uint64_t at, std::string_view view) const {
    return at + view.size() >= input_.size();
  }

 private:
  const RandomAccessInput& input_;
  uint64_t start_ = 0;
  std::string bytes_;
};

// A trial decode of the member at the start of `bytes` (kTrialInput of
// them, or up to the end of the file): true when its header and deflate
// data are valid that far or up to the member's end. A header pattern inside
// compressed data rarely passes; one inside a stored block can, and costs
// only the speed of the piece it starts.
class TrialDecoder {
 public:
  TrialDecoder() {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) {
      throw Error("cannot start a gzip decoder (out of memory).", ErrorKind::out_of_memory);
    }
  }
  ~TrialDecoder() { inflateEnd(&z_); }
  TrialDecoder(const TrialDecoder&) = delete;
  TrialDecoder& operator=(const TrialDecoder&) = delete;

  bool valid(std::string_view bytes) {
    // Highly compressible data could expand 1000-fold: stop at 256 KiB.
    constexpr uLong kTrialOutput = uLong{256} << 10;
    const size_t size = std::min(bytes.size(), kTrialInput);
    inflateReset(&z_);
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z_.avail_in = static_cast<uInt>(size);
    for (;;) {
      z_.next_out = out_;
      z_.avail_out = sizeof out_;
      const int ret = inflate(&z_, Z_NO_FLUSH);
      if (ret == Z_STREAM_END) return true;
      if (ret != Z_OK && ret != Z_BUF_ERROR) return false;
      if (z_.total_out >= kTrialOutput) return true;
      // All input used without an error: valid if there was a full trial's
      // worth of it (not the end of the file inside the member).
      if (z_.avail_in == 0) return size == kTrialInput;
      if (ret == Z_BUF_ERROR) return false;
    }
  }

 private:
  z_stream z_{};
  Bytef out_[64 << 10];
};

// The first offset from `from` on where a gzip header pattern starts, or
// the file's size when there is none.
uint64_t next_gzip_header(ScanWindow& window, uint64_t from, uint64_t size) {
  while (from < size) {
    const std::string_view view = window.from(from, kTrialInput);
    // Positions with a whole trial's input after them, or all at the end.
    const size_t scan = window.reaches_end(from, view) ? view.size() : view.size() - kTrialInput;
    for (const char* p = view.data();
         (p = static_cast<const char*>(std::memchr(p, 0x1f, view.data() + scan - p))); ++p) {
      const size_t i = static_cast<size_t>(p - view.data());
      if (gzip_header_at(view, i)) return from + i;
    }
    from += scan;
  }
  return size;
}

}  // namespace

std::optional<std::vector<uint64_t>> bgzf_member_starts(const RandomAccessInput& input,
                                                        uint64_t target_bytes) {
  if (bgzf_member_length(input, 0) == 0) return std::nullopt;
  return walk(input, target_bytes, bgzf_member_length);
}

std::vector<uint64_t> gzip_member_starts(const RandomAccessInput& input, uint64_t target_bytes) {
  // Past this many false candidates the rest of the file stays one piece:
  // a file built of header patterns costs a bounded planning time.
  constexpr int kMaxFalseCandidates = 4096;
  Grouping grouping(target_bytes);
  ScanWindow window(input);
  TrialDecoder trial;
  const uint64_t size = input.size();
  int false_candidates = 0;
  for (uint64_t from = grouping.wanted(); from < size;) {
    const uint64_t at = next_gzip_header(window, from, size);
    if (at == size) break;
    if (trial.valid(window.from(at, kTrialInput))) {
      grouping.offer(at);
      from = grouping.wanted();
    } else if (++false_candidates == kMaxFalseCandidates) {
      break;
    } else {
      from = at + 1;
    }
  }
  return grouping.take();
}

std::vector<uint64_t> zstd_frame_starts(const RandomAccessInput& input, uint64_t target_bytes) {
  return walk(input, target_bytes, zstd_frame_length);
}

}  // namespace gdedup::io
