// The keys section of a set file (docs/FORMAT.md, "Set file"): the keys in
// ascending order as Golomb-Rice codes of their gaps. Key i's gap is
// key[i] - key[i-1] - 1 (key[0] itself for the first), so a section can
// hold only ascending keys with no repeats; with n keys each gap is written
// as q = gap >> b zero bits, a one bit, then the b low bits of the gap, b
// being rice_bits(n), bits filled from the least significant bit of each
// byte, the last byte padded with zero bits. Random 84-bit keys take about
// 84 - log2(n) + 1.6 bits each. Both directions work a piece at a time:
// neither holds the section whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gdedup/key_set.h"

namespace gdedup::format {

// The low bits of each gap for a section of `keys` keys: 84 minus the bit
// width of `keys`, so that 2^b lies between half and all of the mean gap.
unsigned rice_bits(uint64_t keys);

// The fewest bytes a section of `keys` keys can take (each gap at least
// b + 1 bits): a count that needs more than the section holds is refused
// before anything is allocated for it.
uint64_t min_keys_bytes(uint64_t keys);

class SetKeyEncoder {
 public:
  // `write(bytes, n)` receives the section in order, in pieces.
  using Sink = std::function<void(const unsigned char* bytes, size_t n)>;
  SetKeyEncoder(uint64_t count, Sink write);
  // Adds keys, which must continue the ascending order (std::logic_error
  // otherwise: a set hands over each key once, ascending).
  void add(const Key84* keys, size_t n);
  // Pads and hands over the last bytes; returns the section's length.
  // std::logic_error unless exactly `count` keys were added.
  uint64_t finish();

 private:
  // Appends the low `count` (1 to 64) bits of `bits`.
  void put(uint64_t bits, unsigned count);

  uint64_t count_;
  unsigned b_;
  Sink write_;
  uint64_t added_ = 0;
  Key84 previous_ = 0;
  uint64_t acc_ = 0;
  unsigned acc_bits_ = 0;
  uint64_t written_ = 0;
  std::vector<unsigned char> out_;  // kOutPiece bytes, a multiple of 8
  size_t out_used_ = 0;
};

// Decodes a section of `count` keys fed in pieces. A section that does not
// decode to exactly `count` keys below 2^84 throws Problem, whose text
// follows the file's name ("has a key past 84 bits ...").
class SetKeyDecoder {
 public:
  struct Problem {
    std::string text;
  };
  using Emit = std::function<void(const Key84* keys, size_t n)>;
  SetKeyDecoder(uint64_t count, Emit emit);
  void feed(const unsigned char* bytes, size_t n);
  // After the last piece: hands over the keys still held and checks that the
  // section ended with the last key, its padding zero.
  void finish();

 private:
  void emit_key(Key84 key);
  [[noreturn]] void fail(const std::string& text) const;

  uint64_t count_;
  unsigned b_;
  Emit emit_;
  std::vector<Key84> keys_;
  uint64_t decoded_ = 0;
  uint64_t fed_ = 0;       // bytes fed
  uint64_t consumed_ = 0;  // bits decoded
  Key84 next_ = 0;         // the least value the next key may take
  uint64_t acc_ = 0;
  unsigned acc_bits_ = 0;
  bool in_low_ = false;  // reading a gap's low bits (else its zero run)
  uint64_t q_ = 0;
  Key84 low_ = 0;
  unsigned low_have_ = 0;
};

}  // namespace gdedup::format
