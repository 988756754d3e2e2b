// Format detection: read the first bytes, then replay them in front of the
// rest so that pipes, which cannot seek back, work like files.
#include <algorithm>
#include <cstring>
#include <string>

#include "io/byte_source.h"
#include "io/fd_source.h"
#include "io/gzip_source.h"
#include "io/zstd_source.h"

namespace gdedup::io {

namespace {

constexpr size_t kMagicBytes = 4;

// Hands out `prefix`, then whatever `rest` holds.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}

  size_t read(char* buf, size_t capacity) override {
    size_t n = 0;
    if (pos_ < prefix_.size()) {
      n = std::min(capacity, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, n);
      pos_ += n;
      if (pos_ < prefix_.size() || n == capacity) return n;
    }
    // Top up the same call: an exception here would hide the prefix bytes
    // already copied, so a failure waits for the next call.
    try {
      return n + rest_->read(buf + n, capacity - n);
    } catch (...) {
      if (n == 0) throw;
      return n;
    }
  }
  const std::string& name() const override { return rest_->name(); }
  uint64_t raw_bytes_read() const override { return rest_->raw_bytes_read(); }
  std::optional<uint64_t> raw_size() const override { return rest_->raw_size(); }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

}  // namespace

Compression detect_compression(const char* data, size_t size) {
  const auto* b = reinterpret_cast<const unsigned char*>(data);
  if (size >= 2 && b[0] == 0x1f && b[1] == 0x8b) return Compression::gzip;
  if (size >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) {
    return Compression::zstd;
  }
  return Compression::none;
}

std::unique_ptr<ByteSource> wrap_decoder(std::unique_ptr<ByteSource> raw) {
  // A pipe may deliver the magic in pieces: read until 4 bytes or the end.
  char magic[kMagicBytes];
  size_t have = 0;
  while (have < kMagicBytes) {
    size_t n = raw->read(magic + have, kMagicBytes - have);
    if (n == 0) break;
    have += n;
  }
  Compression kind = detect_compression(magic, have);
  auto replay = std::make_unique<PrefixedSource>(std::string(magic, have), std::move(raw));
  switch (kind) {
    case Compression::gzip:
      return std::make_unique<GzipSource>(std::move(replay));
    case Compression::zstd:
      return std::make_unique<ZstdSource>(std::move(replay));
    case Compression::none:
      break;
  }
  return replay;
}

std::unique_ptr<ByteSource> open_input(const std::string& path) {
  if (path == "-") return wrap_decoder(FdSource::standard_input());
  return wrap_decoder(FdSource::open(path));
}

}  // namespace gdedup::io
