// One table of exact mode's set (gdedup/key_set.h holds 256 of them, one a
// shard): keys of `key_bits` bits, each kept whole, so that a key is taken
// for a seen one only when it is one.
//
// The table is 2^b buckets of one cache line (64 bytes); a key's home
// bucket is the top b of its bits, and it lies in its home or one of the
// next kMaxDisplacement buckets, or, where a run of keys is too long for
// that, in the overflow area (core/overflow_keys.h: keys whose hashes
// share their top bits; hashed keys essentially never), so that the table
// grows by its load alone (linear probing in Robin Hood order: a key
// moved on by one farther from its home, so that along the table keys lie
// in the order of their homes, and a lookup stops at a free slot or at a
// key nearer its home: for an absent key, one cache line in the common
// case). A slot keeps what the bucket does not say (quotienting): the
// key_bits - b bits below the home bucket's (the remainder) and 4 bits of
// displacement, as small as they fit:
//   - slots of 64 bits, 8 a line, when the remainder has at most 60 bits;
//   - 72 bits (64 + 8), 7 a line, up to 68;
//   - 80 bits (64 + 16), 6 a line, up to 76;
//   - 96 bits (64 + 32), 5 a line, beyond.
// A slot's low 64 bits lie in the line's first words, one a slot, and its
// high bits packed after them, so a lookup reads only the low words until
// one matches. The low 4 bits hold the displacement plus 1: 0 marks a free
// slot. Either way a stored key keeps all its bits at every size, and
// growth (the table doubled and every key placed anew) loses none.
//
// A full bucket says which keys of its home lie past it, as a filter does:
// a bit of its spill hints for each such key, chosen by the low bits of
// its remainder. The hints are 8 bits in the line's last byte, spare in
// slots of 72 to 96 bits; with 64-bit slots, the top bit of each slot (8
// hints), the top two (16) or three (24), spare when the remainder has at
// most 59, 58 or 57 bits: at a billion keys a set's shards have 57. A lookup of an absent
// key whose home bucket is full ends there unless the key's hint is set:
// one cache line, where it would otherwise read the next as well. A hint
// never goes unset while its key lies past its home (a stale one costs a
// line, never a key).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/overflow_keys.h"
#include "gdedup/key_set.h"

namespace gdedup {

class ExactSet {
 public:
  // The farthest past its home bucket a key may lie (4 bits hold it plus
  // 1); a key that would lie farther goes to the overflow area.
  static constexpr unsigned kMaxDisplacement = 14;
  // The widest key and the narrowest (the remainder of a 64-bit slot at
  // the smallest table).
  static constexpr unsigned kMinKeyBits = 64;

  // Sized for `expected_keys` (0: the smallest table) without growing.
  // `key_bits`: the width of the keys (their top bits above it must be 0):
  // kKeyBits less the bits that chose a KeySet's shard, or narrower in
  // tests, which reach narrow slots in small tables.
  // `stagger` (0 to 255): where between its lowest and highest load this
  // table doubles (max_load), so that a KeySet's shards, which fill
  // together, do not all double at once.
  explicit ExactSet(uint64_t expected_keys = 0, unsigned key_bits = kKeyBits,
                    unsigned stagger = 0);
  ~ExactSet();
  ExactSet(const ExactSet& other);  // a deep copy
  ExactSet& operator=(const ExactSet&) = delete;
  ExactSet(ExactSet&& other) noexcept;
  ExactSet& operator=(ExactSet&& other) noexcept;

  // For each key in order: answers[i] = 1 if it was in the set (added
  // before, or earlier in this call), else 0, and it is added. Returns the
  // keys added. Exactly sequential.
  uint64_t test_and_insert(const Key84* keys, size_t n, uint8_t* answers);
  // answers[i] = 1 if keys[i] is in the set; nothing is added.
  void contains(const Key84* keys, size_t n, uint8_t* answers) const;

  // One key of test_and_insert, for a caller that routes keys among tables
  // (KeySet): present, added, or not added because the table (or its
  // overflow area) would have to grow past `max_bytes` (0: no limit), in
  // which case the table is as it was and *needed says the bytes it would
  // have taken.
  enum class Outcome { present, added, full };
  // Inline for the common case, a key its home bucket settles: there, or
  // new with a free slot left in it, where it goes, moving none (at_home).
  // The rest, a full home bucket, a table at its load limit or one with
  // keys in its overflow area, goes the general way (find past the home
  // bucket, place, grow, overflow), out of line.
  Outcome test_and_insert_one(Key84 key, uint64_t max_bytes, uint64_t* needed) {
    const AtHome at = at_home(key);
    if (at.found) return Outcome::present;
    if (at.slot < per_bucket_ && size_ < fast_until_) {
      put_code(at.words, at.slot, at.code, 0);
      ++size_;
      return Outcome::added;
    }
    return insert_past_home(key, at, max_bytes, needed);
  }
  // Inline as test_and_insert_one: a free slot in the key's home bucket, or
  // a full one whose hint says no key like it lies past it, ends the
  // lookup there, unless the overflow area holds keys.
  bool contains_one(Key84 key) const {
    const AtHome at = at_home(key);
    if (at.found) return true;
    if (at.slot == per_bucket_ && may_spill(at.words, at.code.low) &&
        find(key, nullptr, nullptr, 1)) {
      return true;
    }
    return in_overflow(key);
  }
  // Fetches the key's home bucket ahead of a call for it: the misses of the
  // keys a little ahead overlap while a key is answered. For an insert
  // into a table at least half full, the next bucket too: near the load
  // limit the keys a new one moves on often run into it. Below, a home
  // bucket seldom overflows, and the second fetch costs more than it saves:
  // misses in flight are few (the core's fill buffers), and a fetch waits
  // for one (bench/RESULTS.md: 1.4x the inserts a second at 1e7 keys).
  // Always inlined: GCC 12 takes a function of prefetches alone, out of
  // line, for one with no effect and drops its calls (as it did with a
  // larger version of this one).
  [[gnu::always_inline]] void prefetch(Key84 key, bool for_insert) const {
    const uint64_t h = home(key);
    __builtin_prefetch(line(h));
    if (for_insert && size_ >= fetch_next_at_) {
      __builtin_prefetch(line((h + 1) & bucket_mask()));
    }
  }
  // The cache lines a lookup of `key` (contains_one) reads: bench/
  // RESULTS.md's figures and the tests of the spill hints.
  unsigned lines_read(Key84 key) const {
    unsigned lines = 0;
    find(key, nullptr, &lines);
    return lines;
  }
  // Removes `key` if it is there (KeySet's undo of keys a failed batch
  // added past its failing key): the keys after it in its run move back.
  void erase(Key84 key);
  // Rebuilds the table at 2^bucket_bits buckets, smaller or larger, with the
  // same keys, and sets growths() (KeySet's undo of a growth); false (and
  // the table as it was) when they do not fit so.
  bool rebuild(unsigned bucket_bits, uint64_t growths);

  uint64_t size() const { return size_; }  // keys held, the overflow area's too
  uint64_t bytes() const { return bytes_at(bucket_bits_) + overflow_.bytes(); }
  uint64_t overflow_keys() const { return overflow_.size(); }
  uint64_t overflow_bytes() const { return overflow_.bytes(); }
  unsigned bucket_bits() const { return bucket_bits_; }
  unsigned slots_per_bucket() const { return per_bucket_; }
  uint64_t slots() const { return (uint64_t{1} << bucket_bits_) * per_bucket_; }
  double load() const { return static_cast<double>(size_) / static_cast<double>(slots()); }
  uint64_t growths() const { return growths_; }

  // Calls f(key) with every key, in table order, then the overflow area's.
  template <class F>
  void for_each(F&& f) const;
  // Every key, ascending.
  std::vector<Key84> sorted_keys() const;

  // The chance that any two of `keys` distinct keys share their 84 bits
  // (the birthday bound): the chance that exact mode drops one unique key.
  static double collision_chance(uint64_t keys);
  // The bytes a table grown from the smallest to `keys` keys takes (its
  // overflow area's aside: keys spread as a hash spreads them go there
  // essentially never).
  static uint64_t bytes_for(uint64_t keys, unsigned key_bits = kKeyBits, unsigned stagger = 0);
  // The bucket bits a table of `bucket_bits` grows to by the load rule alone
  // to hold `keys` keys.
  static unsigned bucket_bits_for(uint64_t keys, unsigned bucket_bits, unsigned key_bits,
                                  unsigned stagger);
  // The bucket bits of ExactSet(expected_keys, key_bits, stagger), and the
  // slots of a table of 2^bucket_bits buckets: its shape, without making it.
  static unsigned bucket_bits_sized_for(uint64_t expected_keys, unsigned key_bits,
                                        unsigned stagger);
  static uint64_t slots_at(unsigned bucket_bits, unsigned key_bits) {
    return (uint64_t{1} << bucket_bits) * per_bucket_for(bucket_bits, key_bits);
  }
  static uint64_t bytes_at(unsigned bucket_bits) { return uint64_t{64} << bucket_bits; }
  // The keys a table of 2^bucket_bits buckets holds at its load limit.
  static uint64_t keys_at(unsigned bucket_bits, unsigned key_bits, unsigned stagger);
  // The largest table: 2^40 buckets of 64 bytes is 64 TiB, far past any
  // machine.
  static constexpr unsigned kMaxBucketBits = 40;
  // The share of slots in use past which a table of `per_bucket` slots a
  // bucket doubles: below the load where runs longer than kMaxDisplacement
  // begin to appear for hashed keys (bench/RESULTS.md), so that growth is by
  // load, bytes_for() is what a table takes, and lookups stay short; lower
  // by `stagger` / 256 of the layout's range.
  static double max_load(unsigned per_bucket, unsigned stagger = 0);

 private:
  static constexpr unsigned kWordsPerBucket = 8;  // 64 bytes
  // Keys ahead of the one answered whose home bucket is fetched.
  static constexpr size_t kPrefetchAhead = 16;

  // The table's words: zeroed, on a cache line's boundary, in huge pages
  // where the system gives them (core/table_memory.h).
  struct Table {
    uint64_t* words = nullptr;
    uint64_t bytes = 0;
    Table() = default;
    explicit Table(uint64_t bytes);
    ~Table();
    Table(Table&& other) noexcept;
    Table& operator=(Table&& other) noexcept;
  };

  // What a key's slot holds at displacement 0, its remainder shifted past
  // the displacement's 4 bits: the low word (plus displacement + 1) and the
  // high bits.
  struct Code {
    uint64_t low;
    uint64_t high;
  };
  struct Spot {
    uint64_t bucket = 0;
    unsigned slot = 0;
    unsigned displacement = 0;
  };

  // An empty table of 2^bucket_bits buckets.
  struct Empty {};
  ExactSet(unsigned key_bits, unsigned bucket_bits, unsigned stagger, Empty);

  // The layout for `bucket_bits`: slots a bucket and high bytes a slot.
  static unsigned per_bucket_for(unsigned bucket_bits, unsigned key_bits);
  void set_shape(unsigned bucket_bits);

  uint64_t* line(uint64_t bucket) const { return table_.words + bucket * kWordsPerBucket; }
  uint64_t bucket_mask() const { return (uint64_t{1} << bucket_bits_) - 1; }
  uint64_t home(Key84 key) const {
    return static_cast<uint64_t>(key >> (key_bits_ - bucket_bits_));
  }
  Code code(Key84 key) const {
    const Key84 rest = (key & ((Key84{1} << (key_bits_ - bucket_bits_)) - 1)) << 4;
    return Code{static_cast<uint64_t>(rest), static_cast<uint64_t>(rest >> 64)};
  }
  // A layout's slots: kHighBytes high bytes a slot (0, 1, 2 or 4), the
  // slots a line that leaves, and their high bits after the line's low
  // words.
  template <unsigned kHighBytes>
  struct Layout {
    static constexpr unsigned kSlots = kHighBytes == 0   ? 8
                                       : kHighBytes == 1 ? 7
                                       : kHighBytes == 2 ? 6
                                                         : 5;
    static const unsigned char* at(const uint64_t* words, unsigned slot) {
      return reinterpret_cast<const unsigned char*>(words + kSlots) + slot * kHighBytes;
    }
    static uint64_t high(const uint64_t* words, unsigned slot) {
      uint64_t v = 0;  // little-endian: the low bytes of v
      if constexpr (kHighBytes != 0) std::memcpy(&v, at(words, slot), kHighBytes);
      return v;
    }
    static void set_high(uint64_t* words, unsigned slot, uint64_t value) {
      if constexpr (kHighBytes != 0) {
        std::memcpy(const_cast<unsigned char*>(at(words, slot)), &value, kHighBytes);
      }
    }
  };
  uint64_t high(const uint64_t* words, unsigned slot) const {
    switch (high_bytes_) {
      case 0: return 0;
      case 1: return Layout<1>::high(words, slot);
      case 2: return Layout<2>::high(words, slot);
      default: return Layout<4>::high(words, slot);
    }
  }
  void set_high(uint64_t* words, unsigned slot, uint64_t value) {
    switch (high_bytes_) {
      case 0: return;
      case 1: return Layout<1>::set_high(words, slot, value);
      case 2: return Layout<2>::set_high(words, slot, value);
      default: return Layout<4>::set_high(words, slot, value);
    }
  }
  // The key in a used slot.
  Key84 key_at(uint64_t bucket, unsigned slot) const;
  // The key of home `home_bucket` whose code (displacement bits 0) is
  // `low` and `high`.
  Key84 key_of(uint64_t home_bucket, uint64_t low, uint64_t high) const {
    const Key84 rest = ((static_cast<Key84>(high) << 64) | low) >> 4;
    return (static_cast<Key84>(home_bucket) << (key_bits_ - bucket_bits_)) | rest;
  }
  bool in_overflow(Key84 key) const { return !overflow_.empty() && overflow_.contains(key); }
  // Puts `key` in the overflow area (which may throw, the set as it was).
  void add_to_overflow(Key84 key) {
    overflow_.insert(key);
    ++size_;
    fast_until_ = 0;
  }
  // Writes a key's code into `slot`, `displacement` buckets past its home,
  // over the code the slot held; the slot keeps its bucket's hints.
  void put_code(uint64_t* words, unsigned slot, Code c, uint64_t displacement) {
    words[slot] = c.low | (displacement + 1) | (words[slot] & ~code_mask_);
    set_high(words, slot, c.high);
  }
  // The spill hint of the key whose slot's low word is `low` in its full
  // home bucket: whether it may lie past it (true where the layout has no
  // hints); sets it; clears every hint of a bucket that spills no more.
  unsigned hint_of(uint64_t low) const {
    // 16 bits of the remainder scaled to the hints (8, 16 or 24).
    return static_cast<unsigned>((((low >> 4) & 0xffff) * hint_bits_) >> 16);
  }
  bool may_spill(const uint64_t* words, uint64_t low) const {
    if (hint_bits_ == 0) return true;
    const unsigned hint = hint_of(low);
    if (per_bucket_ < 8) return (reinterpret_cast<const unsigned char*>(words)[63] >> hint) & 1;
    return (words[hint / hint_per_slot_] >> (64 - hint_per_slot_ + hint % hint_per_slot_)) & 1;
  }
  void mark_spill(uint64_t* words, uint64_t low) const {
    if (hint_bits_ == 0) return;
    const unsigned hint = hint_of(low);
    if (per_bucket_ < 8) {
      reinterpret_cast<unsigned char*>(words)[63] |= static_cast<unsigned char>(1u << hint);
    } else {
      words[hint / hint_per_slot_] |= uint64_t{1} << (64 - hint_per_slot_ + hint % hint_per_slot_);
    }
  }
  void clear_hints(uint64_t* words) const {
    if (per_bucket_ < 8) {
      reinterpret_cast<unsigned char*>(words)[63] = 0;
    } else {
      for (unsigned s = 0; s < 8; ++s) words[s] &= code_mask_;
    }
  }

  // The key's home bucket read up to its first free slot. A bucket's keys
  // fill it from its first slot, those from earlier homes first, and every
  // key of its own home lies before its first free slot: so `slot` is the
  // key's (found), or that free slot, where a new key goes with
  // displacement 0, or per_bucket_ when the bucket is full and does not
  // hold the key.
  struct AtHome {
    uint64_t* words;
    Code code;
    unsigned slot;
    bool found;
  };
  AtHome at_home(Key84 key) const {
    uint64_t* words = line(home(key));
    const Code c = code(key);
    const uint64_t want = c.low | 1;  // displacement 0
    unsigned s = 0;
    for (; s < per_bucket_; ++s) {
      const uint64_t word = words[s] & code_mask_;
      if (word == want && high(words, s) == c.high) return AtHome{words, c, s, true};
      if (word == 0) break;
    }
    return AtHome{words, c, s, false};
  }
  // test_and_insert_one's general way, for a key at_home did not find
  // (`at`).
  Outcome insert_past_home(Key84 key, const AtHome& at, uint64_t max_bytes, uint64_t* needed);
  // Adds `key`, new, to the overflow area, unless that would take the set
  // past `max_bytes` (0: no limit).
  Outcome overflow(Key84 key, uint64_t max_bytes, uint64_t* needed);
  // Whether `key` is in the set; where it is not, *spot (if given) says
  // where it goes: the first slot on its way that is free or holds a key
  // nearer its home. *lines (if given): the buckets it read. From the
  // bucket `from` past the key's home (1 where its home bucket is known
  // full without it).
  bool find(Key84 key, Spot* spot, unsigned* lines = nullptr, unsigned from = 0) const;
  // Places `key`, not in the set, at `spot` (find's), the keys after it
  // moving on. False, with nothing moved, when some key (this one or one it
  // moves) would lie past kMaxDisplacement.
  bool place(Key84 key, Spot spot);
  // Puts the table at `bucket_bits` (or more, where the load needs it) with
  // every key and `extra` (not in it), unless that would take more than
  // `max_bytes` (0: no limit): then the table is as it was, *needed says
  // the bytes and it returns false.
  bool grow(unsigned bucket_bits, const Key84* extra, size_t n_extra, uint64_t max_bytes,
            uint64_t* needed);
  // Builds `into` (empty, same key bits) from this table's keys, its
  // overflow area's and `extra`: this table is walked in bucket order, so
  // keys come in the order of their homes and go to the new table in that
  // order, each after the last (streaming, no vector of keys); a key whose
  // run is too long there goes to its overflow area. False, with `into`
  // unfinished, when the keys are past its load limit.
  bool fill(ExactSet& into, const Key84* extra, size_t n_extra) const;
  // fill's streaming part where `into` is this table doubled; keys that
  // wrapped round past this table's end go to `late`.
  void split(ExactSet& into, std::vector<Key84>& late) const;
  template <unsigned kFromHigh, unsigned kToHigh>
  void split_in(ExactSet& into, std::vector<Key84>& late) const;
  // fill's last part: `late`, each found and placed in `into` (or put in
  // its overflow area).
  static void place_late(ExactSet& into, const std::vector<Key84>& late);

  unsigned key_bits_;
  unsigned stagger_;
  unsigned bucket_bits_ = 0;
  unsigned per_bucket_ = 8;
  unsigned high_bytes_ = 0;  // bytes a slot past its low word
  uint64_t grow_at_ = 0;     // keys past which the table doubles (max_load)
  // grow_at_ while the overflow area is empty, else 0: the one bound of
  // test_and_insert_one's inline way.
  uint64_t fast_until_ = 0;
  uint64_t fetch_next_at_ = 0;  // keys from which prefetch() fetches the next bucket too
  // The spill hints a full bucket has (0, 8, 16 or 24), with 64-bit slots
  // the top bits of each slot that hold them (0 to 3), and what a slot's
  // low word holds without them.
  unsigned hint_bits_ = 0;
  unsigned hint_per_slot_ = 0;
  uint64_t code_mask_ = ~uint64_t{0};
  Table table_;
  detail::OverflowKeys overflow_;
  uint64_t size_ = 0;
  uint64_t growths_ = 0;
};

template <class F>
void ExactSet::for_each(F&& f) const {
  const uint64_t buckets = uint64_t{1} << bucket_bits_;
  for (uint64_t bucket = 0; bucket < buckets; ++bucket) {
    const uint64_t* words = line(bucket);
    for (unsigned s = 0; s < per_bucket_; ++s) {
      if ((words[s] & code_mask_) != 0) f(key_at(bucket, s));
    }
  }
  overflow_.for_each(f);
}

}  // namespace gdedup
