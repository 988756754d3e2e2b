#include "io/decoder_source.h"

#include "gdedup/error.h"

namespace gdedup::io {

namespace {
// Compressed reads of 1 MiB: a few hundred per second at full speed.
constexpr size_t kCompressedChunk = size_t{1} << 20;
}  // namespace

DecoderSource::DecoderSource(std::unique_ptr<ByteSource> raw)
    : in_(kCompressedChunk), raw_(std::move(raw)) {}

void DecoderSource::read_piece(uint64_t first_offset, std::function<bool(uint64_t)> ends_here) {
  first_offset_ = first_offset;
  ends_here_ = std::move(ends_here);
}

size_t DecoderSource::read(char* buf, size_t capacity) {
  // A failure is kept: every later read repeats it rather than look like a
  // clean end of the data.
  if (deferred_) std::rethrow_exception(deferred_);
  if (finished_) return 0;
  size_t produced = 0;
  try {
    decode(buf, capacity, produced);
  } catch (...) {
    deferred_ = std::current_exception();
    handed_out_ += produced;
    if (produced == 0) throw;
    return produced;
  }
  handed_out_ += produced;
  if (produced == 0) finished_ = true;
  return produced;
}

bool DecoderSource::refill() {
  if (raw_at_end_) return false;
  size_t n = raw_->read(in_.data(), in_.size());
  if (n == 0) {
    raw_at_end_ = true;
    return false;
  }
  in_pos_ = 0;
  in_end_ = n;
  fed_ += n;
  return true;
}

void DecoderSource::throw_damaged(const char* format, const std::string& why) const {
  throw DamagedData(name() + ": " + format + " stream is damaged at compressed byte offset " +
              std::to_string(offset()) + " (" + why + ").");
}

void DecoderSource::throw_truncated(const char* format) const {
  throw DamagedData(name() + ": " + format +
                    " stream ends early (truncated) at compressed byte offset " +
              std::to_string(offset()) + ".");
}

void DecoderSource::throw_too_much_memory(const char* format, uint64_t asked) const {
  throw DamagedData(name() + ": " + format + " stream at compressed byte offset " +
                    std::to_string(offset()) + " asks for " + std::to_string(asked) +
                    " bytes of memory to decode, more than the " +
                    std::to_string(kDecoderMemoryCeiling) + " (" +
                    std::to_string(kDecoderMemoryCeiling >> 30) + " GiB) a decoder may take; "
                    "no setting of xz or zstd writes such a header, so the file is damaged.");
}

void DecoderSource::throw_out_of_memory(const char* format) const {
  throw Error(name() + ": the " + format + " decoder ran out of memory at compressed byte offset " +
                  std::to_string(offset()) + ": this machine did not give it the memory the "
                  "stream's header asks for (up to " +
                  std::to_string(kDecoderMemoryCeiling >> 30) + " GiB).",
              ErrorKind::decoder_memory);
}

}  // namespace gdedup::io
