#include "io/compressed_pieces.h"

#include <algorithm>

#include "gdedup/error.h"
#include "io/decoder_source.h"
#include "io/piece_boundaries.h"

namespace gdedup::io {

// The raw bytes of a piece, read positionally from its start: up to the
// piece's end first, so that a decoder standing there has nothing past it
// buffered, then on to the end of the file for a member that runs past it.
class PieceBytes final : public ByteSource {
 public:
  PieceBytes(const RandomAccessInput& input, RawRange range)
      : input_(input), range_(range), pos_(range.begin) {}

  size_t read(char* buf, size_t capacity) override {
    const uint64_t size = input_.size();
    if (pos_ >= size) return 0;
    const uint64_t stop = pos_ < range_.end ? range_.end : size;
    const size_t n = input_.read_at(pos_, buf, std::min<uint64_t>(capacity, stop - pos_));
    if (n == 0) {
      // Shorter than when it was planned: the check names the change.
      input_.check_unchanged(pos_);
      throw Error("input " + name() + " ends at byte offset " + std::to_string(pos_) +
                      ", before the " + std::to_string(size) + " bytes it had when opened.",
                  ErrorKind::input_changed);
    }
    pos_ += n;
    return n;
  }
  const std::string& name() const override { return input_.name(); }
  uint64_t raw_bytes_read() const override { return pos_ - range_.begin; }
  std::optional<uint64_t> raw_size() const override { return range_.end - range_.begin; }
  // File offset of the next byte to read.
  uint64_t position() const { return pos_; }

 private:
  const RandomAccessInput& input_;
  RawRange range_;
  uint64_t pos_;
};

PiecePlan find_pieces(const RandomAccessInput& input, uint64_t target_bytes) {
  if (target_bytes == 0) {
    throw Error("the piece size for " + input.name() + " must be at least 1 byte, not 0.",
                ErrorKind::invalid_argument);
  }
  PiecePlan plan;
  PieceBytes whole(input, {0, input.size()});
  std::string prefix;
  plan.codec = sniff_compression(whole, prefix);
  std::vector<uint64_t> starts;
  if (plan.codec == Compression::gzip) {
    std::optional<std::vector<uint64_t>> bgzf = bgzf_member_starts(input, target_bytes);
    starts = bgzf ? std::move(*bgzf) : gzip_member_starts(input, target_bytes);
  } else if (plan.codec == Compression::zstd) {
    starts = zstd_frame_starts(input, target_bytes);
  }
  uint64_t begin = 0;
  for (const uint64_t start : starts) {
    plan.ranges.push_back({begin, start});
    begin = start;
  }
  plan.ranges.push_back({begin, input.size()});
  return plan;
}

namespace {

// The index of the piece after `index` that starts at `offset`, if any.
std::optional<size_t> piece_starting_at(const PiecePlan& plan, size_t index, uint64_t offset) {
  const auto first = plan.ranges.begin() + static_cast<ptrdiff_t>(index) + 1;
  const auto it = std::lower_bound(first, plan.ranges.end(), offset,
                                   [](const RawRange& r, uint64_t at) { return r.begin < at; });
  if (it == plan.ranges.end() || it->begin != offset) return std::nullopt;
  return static_cast<size_t>(it - plan.ranges.begin());
}

}  // namespace

CompressedPieceSource::CompressedPieceSource(const RandomAccessInput& input,
                                             std::shared_ptr<const PiecePlan> plan, size_t index)
    : input_(input), plan_(std::move(plan)), index_(index) {
  if (index_ >= plan_->ranges.size()) {
    throw Error("piece " + std::to_string(index_) + " of " + input.name() + " does not exist: " +
                    "its plan has " + std::to_string(plan_->ranges.size()) + ".",
                ErrorKind::invalid_argument);
  }
  const RawRange range = plan_->ranges[index_];
  auto raw = std::make_unique<PieceBytes>(input_, range);
  raw_ = raw.get();
  std::unique_ptr<ByteSource> raw_bytes = std::move(raw);
  std::unique_ptr<DecoderSource> decoder = make_decoder(plan_->codec, raw_bytes);
  if (!decoder) {
    stream_ = std::move(raw_bytes);
    return;
  }
  const PiecePlan* p = plan_.get();
  decoder->read_piece(range.begin, [p, index](uint64_t at) {
    return piece_starting_at(*p, index, at).has_value();
  });
  decoder_ = decoder.get();
  stream_ = std::move(decoder);
}

CompressedPieceSource::~CompressedPieceSource() = default;

size_t CompressedPieceSource::read(char* buf, size_t capacity) {
  size_t n = 0;
  try {
    n = stream_->read(buf, capacity);
  } catch (const DamagedData&) {
    // Damage in a file rewritten since it was planned is the rewrite's.
    input_.check_unchanged(raw_->position());
    throw;
  }
  if (n == 0 && !checked_) {
    input_.check_unchanged(raw_->position());
    checked_ = true;
  }
  return n;
}

const std::string& CompressedPieceSource::name() const { return input_.name(); }
uint64_t CompressedPieceSource::raw_bytes_read() const { return raw_->raw_bytes_read(); }
std::optional<uint64_t> CompressedPieceSource::raw_size() const { return raw_->raw_size(); }
bool CompressedPieceSource::compressed() const { return decoder_ != nullptr; }
uint64_t CompressedPieceSource::verified_bytes() const { return stream_->verified_bytes(); }

size_t CompressedPieceSource::next_piece() const {
  const uint64_t end = decoder_ ? decoder_->offset() : raw_->position();
  return piece_starting_at(*plan_, index_, end).value_or(plan_->ranges.size());
}

}  // namespace gdedup::io
