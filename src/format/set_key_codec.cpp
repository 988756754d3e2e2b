#include "format/set_key_codec.h"

#include <stdexcept>

#include "format/filter_file_format.h"

namespace gdedup::format {
namespace {

constexpr Key84 kKeyLimit = Key84{1} << kKeyBits;  // keys lie below it
// Bytes handed to the sink at a time, and keys to `emit`.
constexpr size_t kOutPiece = size_t{1} << 20;
constexpr size_t kKeysPiece = size_t{1} << 16;

unsigned bit_width(uint64_t v) {
  return v == 0 ? 0 : 64 - static_cast<unsigned>(__builtin_clzll(v));
}

uint64_t low_mask(unsigned bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
// v >> bits, for bits up to 64 (a shift by 64 is undefined in C++).
uint64_t shifted(uint64_t v, unsigned bits) { return bits >= 64 ? 0 : v >> bits; }

}  // namespace

unsigned rice_bits(uint64_t keys) { return kKeyBits - bit_width(keys); }

uint64_t min_keys_bytes(uint64_t keys) {
  // Exact in 128 bits: keys < 2^64, b + 1 <= 85.
  const unsigned __int128 bits = static_cast<unsigned __int128>(keys) * (rice_bits(keys) + 1);
  const unsigned __int128 bytes = (bits + 7) / 8;
  return bytes > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

SetKeyEncoder::SetKeyEncoder(uint64_t count, Sink write)
    : count_(count), b_(rice_bits(count)), write_(std::move(write)), out_(kOutPiece) {}

void SetKeyEncoder::put(uint64_t bits, unsigned count) {
  // Whole 64-bit words go out as they fill; acc_bits_ < 64 between calls.
  bits &= low_mask(count);
  acc_ |= bits << acc_bits_;
  if (acc_bits_ + count < 64) {
    acc_bits_ += count;
    return;
  }
  filter_file::put_u64(out_.data() + out_used_, acc_);
  out_used_ += 8;
  acc_ = shifted(bits, 64 - acc_bits_);
  acc_bits_ = acc_bits_ + count - 64;
  if (out_used_ == out_.size()) {
    write_(out_.data(), out_used_);
    written_ += out_used_;
    out_used_ = 0;
  }
}

void SetKeyEncoder::add(const Key84* keys, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const Key84 key = keys[i];
    if (key >= kKeyLimit || (added_ > 0 && key <= previous_) || added_ == count_) {
      throw std::logic_error("set file keys must be " + std::to_string(count_) +
                             " distinct keys below 2^84, ascending");
    }
    const Key84 gap = added_ == 0 ? key : key - previous_ - 1;
    previous_ = key;
    ++added_;
    // q zero bits and a one bit, then the b low bits of the gap.
    Key84 q = gap >> b_;
    for (; q >= 64; q -= 64) put(0, 64);
    put(uint64_t{1} << static_cast<unsigned>(q), static_cast<unsigned>(q) + 1);
    put(static_cast<uint64_t>(gap), b_ < 64 ? b_ : 64);
    if (b_ > 64) put(static_cast<uint64_t>(gap >> 64), b_ - 64);
  }
}

uint64_t SetKeyEncoder::finish() {
  if (added_ != count_) {
    throw std::logic_error("a set file of " + std::to_string(count_) + " keys was given " +
                           std::to_string(added_));
  }
  // out_ has room: it is whole words, and one is never full here.
  for (unsigned i = 0; i < acc_bits_; i += 8) {
    out_[out_used_++] = static_cast<unsigned char>(acc_ >> i);
  }
  acc_bits_ = 0;
  if (out_used_ > 0) write_(out_.data(), out_used_);
  written_ += out_used_;
  out_used_ = 0;
  return written_;
}

SetKeyDecoder::SetKeyDecoder(uint64_t count, Emit emit)
    : count_(count), b_(rice_bits(count)), emit_(std::move(emit)) {
  keys_.reserve(static_cast<size_t>(count < kKeysPiece ? count : kKeysPiece));
}

void SetKeyDecoder::fail(const std::string& text) const { throw Problem{text}; }

void SetKeyDecoder::emit_key(Key84 key) {
  keys_.push_back(key);
  if (keys_.size() == kKeysPiece) {
    emit_(keys_.data(), keys_.size());
    keys_.clear();
  }
}

void SetKeyDecoder::feed(const unsigned char* bytes, size_t n) {
  fed_ += n;
  size_t at = 0;
  while (decoded_ < count_) {
    if (acc_bits_ <= 56 && n - at >= 8) {  // as many whole bytes as fit, in one read
      const unsigned take = (64 - acc_bits_) / 8;
      acc_ |= (filter_file::get_u64(bytes + at) & low_mask(8 * take)) << acc_bits_;
      at += take;
      acc_bits_ += 8 * take;
    }
    while (acc_bits_ <= 56 && at < n) {
      acc_ |= static_cast<uint64_t>(bytes[at++]) << acc_bits_;
      acc_bits_ += 8;
    }
    if (acc_bits_ == 0) return;  // wants the next piece
    if (!in_low_) {
      const unsigned zeros = acc_ == 0 ? acc_bits_ : static_cast<unsigned>(__builtin_ctzll(acc_));
      q_ += zeros;
      if ((static_cast<Key84>(q_) << b_) >= kKeyLimit - next_) {
        fail("has a key past 84 bits (key " + std::to_string(decoded_ + 1) + " of " +
             std::to_string(count_) + ")");
      }
      if (acc_ == 0) {
        consumed_ += acc_bits_;
        acc_bits_ = 0;
        continue;
      }
      acc_ = shifted(acc_, zeros + 1);
      acc_bits_ -= zeros + 1;
      consumed_ += zeros + 1;
      in_low_ = true;
      continue;
    }
    const unsigned take = b_ - low_have_ < acc_bits_ ? b_ - low_have_ : acc_bits_;
    low_ |= static_cast<Key84>(acc_ & low_mask(take)) << low_have_;
    acc_ = shifted(acc_, take);
    acc_bits_ -= take;
    consumed_ += take;
    low_have_ += take;
    if (low_have_ < b_) continue;
    const Key84 gap = (static_cast<Key84>(q_) << b_) | low_;
    if (gap >= kKeyLimit - next_) {
      fail("has a key past 84 bits (key " + std::to_string(decoded_ + 1) + " of " +
           std::to_string(count_) + ")");
    }
    const Key84 key = next_ + gap;
    emit_key(key);
    next_ = key + 1;
    ++decoded_;
    in_low_ = false;
    q_ = 0;
    low_ = 0;
    low_have_ = 0;
  }
  // The last key is decoded: whatever follows must be its byte's padding.
  if (at < n || fed_ * 8 - consumed_ >= 8 || acc_ != 0) {
    fail("has bits after its last key (" + std::to_string(fed_) + " bytes of keys where " +
         std::to_string(count_) + " keys take " + std::to_string((consumed_ + 7) / 8) +
         ", or padding that is not zero)");
  }
}

void SetKeyDecoder::finish() {
  if (decoded_ < count_) {
    fail("has keys that end after key " + std::to_string(decoded_) + " of " +
         std::to_string(count_));
  }
  if (!keys_.empty()) emit_(keys_.data(), keys_.size());
  keys_.clear();
}

}  // namespace gdedup::format
