#include "core/exact_set.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include <xxhash.h>

#include "core/table_memory.h"
#include "gdedup/error.h"

namespace gdedup {
namespace {

// The smallest table: 16 buckets of 64 bytes.
constexpr unsigned kMinBucketBits = 4;
// Keys of one home bucket lie in it and the next kMaxDisplacement: at most
// this many.
constexpr size_t kMaxKeysAHome = (ExactSet::kMaxDisplacement + 1) * 8;

Error too_many_buckets() {
  return Error("the exact set would need more than 2^" + std::to_string(ExactSet::kMaxBucketBits) +
                   " buckets of 64 bytes",
               ErrorKind::out_of_memory);
}

}  // namespace

Key84 key84(const void* key, size_t length, uint64_t seed) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(key, length, seed);
  return key84_of(h.high64, h.low64);
}

ExactSet::Table::Table(uint64_t size) : bytes(size) {
  words = static_cast<uint64_t*>(detail::table_memory(size));
  if (words == nullptr) {
    throw Error("the system refused " + std::to_string(size) +
                    " bytes of memory for a table of the exact set",
                ErrorKind::out_of_memory, size);
  }
}

ExactSet::Table::~Table() { detail::free_table_memory(words, bytes); }

ExactSet::Table::Table(Table&& other) noexcept : words(other.words), bytes(other.bytes) {
  other.words = nullptr;
  other.bytes = 0;
}

ExactSet::Table& ExactSet::Table::operator=(Table&& other) noexcept {
  std::swap(words, other.words);
  std::swap(bytes, other.bytes);
  return *this;
}

double ExactSet::max_load(unsigned per_bucket, unsigned stagger) {
  // Fewer slots a bucket, longer runs at one load. The load of the first
  // run past kMaxDisplacement, least of 5 to 20 tables of random keys: 0.944
  // with 8 slots at 2^20 buckets, 0.952 with 7 at 2^15 (the largest a
  // KeySet's shard has with 7); 5 and 6 slots come only in tables of at
  // most 2^7 buckets in a KeySet, where no run was too long below 0.99.
  // With 8 slots the range is narrow: at 1e9 keys a shard's 2^19 buckets
  // must hold its 3.9 million (load 0.931) with room for its spread.
  struct Range {
    double low, high;
  };
  const Range r = per_bucket == 8   ? Range{0.935, 0.941}
                  : per_bucket == 7 ? Range{0.80, 0.94}
                  : per_bucket == 6 ? Range{0.80, 0.92}
                                    : Range{0.80, 0.90};
  return r.high - (r.high - r.low) * static_cast<double>(stagger) / 256;
}

unsigned ExactSet::per_bucket_for(unsigned bucket_bits, unsigned key_bits) {
  // The slot holds the remainder and 4 bits of displacement.
  const unsigned bits = key_bits - bucket_bits + 4;
  if (bits <= 64) return 8;
  if (bits <= 72) return 7;
  if (bits <= 80) return 6;
  return 5;
}

uint64_t ExactSet::keys_at(unsigned bucket_bits, unsigned key_bits, unsigned stagger) {
  const unsigned per_bucket = per_bucket_for(bucket_bits, key_bits);
  const double slots = std::ldexp(static_cast<double>(per_bucket), static_cast<int>(bucket_bits));
  return static_cast<uint64_t>(std::floor(max_load(per_bucket, stagger) * slots));
}

unsigned ExactSet::bucket_bits_for(uint64_t keys, unsigned bucket_bits, unsigned key_bits,
                                   unsigned stagger) {
  while (keys > keys_at(bucket_bits, key_bits, stagger) && bucket_bits < kMaxBucketBits) {
    ++bucket_bits;
  }
  return bucket_bits;
}

uint64_t ExactSet::bytes_for(uint64_t keys, unsigned key_bits, unsigned stagger) {
  return bytes_at(bucket_bits_for(keys, kMinBucketBits, key_bits, stagger));
}

unsigned ExactSet::bucket_bits_sized_for(uint64_t expected_keys, unsigned key_bits,
                                         unsigned stagger) {
  // Room for a few standard deviations more than expected, so that a
  // KeySet's shards, each given its share, do not grow at their last keys.
  const double spread = 4 * std::sqrt(static_cast<double>(expected_keys)) + 16;
  const uint64_t room = expected_keys == 0 ? 0 : expected_keys + static_cast<uint64_t>(spread);
  return bucket_bits_for(room, kMinBucketBits, key_bits, stagger % 256);
}

ExactSet::ExactSet(uint64_t expected_keys, unsigned key_bits, unsigned stagger)
    : key_bits_(key_bits), stagger_(stagger % 256) {
  if (key_bits_ > kKeyBits || key_bits_ < kMinKeyBits) {
    throw UsageError("an exact set's keys have " + std::to_string(kMinKeyBits) + " to " +
                     std::to_string(kKeyBits) + " bits, not " + std::to_string(key_bits));
  }
  set_shape(bucket_bits_sized_for(expected_keys, key_bits_, stagger_));
  table_ = Table(bytes());
}

ExactSet::~ExactSet() = default;
ExactSet::ExactSet(ExactSet&& other) noexcept = default;
ExactSet& ExactSet::operator=(ExactSet&& other) noexcept = default;

ExactSet::ExactSet(const ExactSet& other)
    : key_bits_(other.key_bits_),
      stagger_(other.stagger_),
      bucket_bits_(other.bucket_bits_),
      per_bucket_(other.per_bucket_),
      high_bytes_(other.high_bytes_),
      grow_at_(other.grow_at_),
      fast_until_(other.fast_until_),
      fetch_next_at_(other.fetch_next_at_),
      hint_bits_(other.hint_bits_),
      hint_per_slot_(other.hint_per_slot_),
      code_mask_(other.code_mask_),
      table_(other.table_.bytes),
      overflow_(other.overflow_),
      size_(other.size_),
      growths_(other.growths_) {
  std::memcpy(table_.words, other.table_.words, table_.bytes);
}

void ExactSet::set_shape(unsigned bucket_bits) {
  if (bucket_bits > kMaxBucketBits) {
    throw too_many_buckets();
  }
  bucket_bits_ = bucket_bits;
  per_bucket_ = per_bucket_for(bucket_bits, key_bits_);
  high_bytes_ = per_bucket_ == 8 ? 0 : per_bucket_ == 7 ? 1 : per_bucket_ == 6 ? 2 : 4;
  grow_at_ = keys_at(bucket_bits, key_bits_, stagger_);
  fast_until_ = overflow_.empty() ? grow_at_ : 0;
  fetch_next_at_ = slots() / 2;
  // With 64-bit slots, the bits a slot's code leaves, up to 3, hold hints;
  // other lines have a spare last byte.
  const unsigned code_bits = key_bits_ - bucket_bits_ + 4;
  hint_per_slot_ = per_bucket_ == 8 ? std::min(64 - code_bits, 3u) : 0;
  hint_bits_ = per_bucket_ == 8 ? 8 * hint_per_slot_ : 8;
  code_mask_ = hint_per_slot_ == 0 ? ~uint64_t{0} : (uint64_t{1} << (64 - hint_per_slot_)) - 1;
}

Key84 ExactSet::key_at(uint64_t bucket, unsigned slot) const {
  const uint64_t* words = line(bucket);
  const uint64_t low = words[slot] & code_mask_;
  const uint64_t displacement = (low & 15) - 1;
  return key_of((bucket - displacement) & bucket_mask(), low & ~uint64_t{15}, high(words, slot));
}

bool ExactSet::find(Key84 key, Spot* spot, unsigned* lines, unsigned from) const {
  const uint64_t start = home(key);
  const Code c = code(key);
  for (unsigned d = from; d <= kMaxDisplacement; ++d) {
    if (lines != nullptr) *lines = d + 1;
    const uint64_t bucket = (start + d) & bucket_mask();
    const uint64_t* words = line(bucket);
    const uint64_t want = c.low | (d + 1);
    for (unsigned s = 0; s < per_bucket_; ++s) {
      const uint64_t word = words[s] & code_mask_;
      if (word == want && high(words, s) == c.high) return true;
      // Along the table keys lie in the order of their homes: past the
      // first free slot or key from a later home (nearer its own), no key
      // of this home lies. That slot is where this key goes.
      if (word == 0 || (word & 15) - 1 < d) {
        if (spot != nullptr) *spot = Spot{bucket, s, d};
        return false;
      }
    }
    // The home bucket full: unless its hint says a key like this one lies
    // past it, the key is not here (an insert still needs the next bucket,
    // where it goes).
    if (d == 0 && spot == nullptr && !may_spill(words, c.low)) return false;
  }
  if (spot != nullptr) {
    *spot = Spot{(start + kMaxDisplacement + 1) & bucket_mask(), 0, kMaxDisplacement + 1};
  }
  return false;
}

bool ExactSet::place(Key84 key, Spot spot) {
  // Robin Hood order is the order of homes: the key goes in at its spot
  // and the keys from there to the first free slot move on by one slot,
  // the last of each bucket into the next one's first, one bucket farther
  // from its home. First the walk to the free slot, which says whether any
  // of those would lie too far, before anything moves.
  if (spot.displacement > kMaxDisplacement) return false;
  uint64_t bucket = spot.bucket;
  unsigned slot = spot.slot;
  for (;;) {
    const uint64_t* words = line(bucket);
    while (slot < per_bucket_ && (words[slot] & code_mask_) != 0) ++slot;
    if (slot < per_bucket_) break;
    if ((words[per_bucket_ - 1] & 15) - 1 >= kMaxDisplacement) return false;
    bucket = (bucket + 1) & bucket_mask();
    slot = 0;
  }
  // A slot's hints are its bucket's: a key moves without them, and the
  // slot it goes to keeps its own.
  auto move = [this](uint64_t* to, unsigned to_slot, const uint64_t* from, unsigned from_slot,
                     uint64_t add) {
    to[to_slot] = ((from[from_slot] & code_mask_) + add) | (to[to_slot] & ~code_mask_);
    set_high(to, to_slot, high(from, from_slot));
  };
  // Each bucket a key leaves for the next stays full, and spills that key
  // when it is of its home (one farther from home already has its hint).
  while (bucket != spot.bucket) {
    uint64_t* words = line(bucket);
    for (; slot > 0; --slot) move(words, slot, words, slot - 1, 0);
    uint64_t* previous = line((bucket - 1) & bucket_mask());
    const uint64_t leaving = previous[per_bucket_ - 1] & code_mask_;
    if ((leaving & 15) == 1) mark_spill(previous, leaving);
    move(words, 0, previous, per_bucket_ - 1, 1);  // one bucket farther
    bucket = (bucket - 1) & bucket_mask();
    slot = per_bucket_ - 1;
  }
  uint64_t* words = line(bucket);
  for (; slot > spot.slot; --slot) move(words, slot, words, slot - 1, 0);
  const Code c = code(key);
  put_code(words, spot.slot, c, spot.displacement);
  // A key past its home bucket: that bucket is full, and spills it.
  if (spot.displacement > 0) {
    mark_spill(line((bucket - spot.displacement) & bucket_mask()), c.low);
  }
  ++size_;
  return true;
}

bool ExactSet::fill(ExactSet& into, const Key84* extra, size_t n_extra) const {
  // Past its load it may have no free slot left for place() to find.
  if (size_ + n_extra > into.grow_at_) return false;
  // Keys for past the end, placed last, wrapping round; then the overflow
  // area's and the extra ones.
  std::vector<Key84> late;
  const auto place_the_rest = [&] {
    overflow_.for_each([&late](Key84 key) { late.push_back(key); });
    late.insert(late.end(), extra, extra + n_extra);
    place_late(into, late);
  };
  if (into.bucket_bits_ == bucket_bits_ + 1) {
    split(into, late);
    place_the_rest();
    return true;
  }
  const uint64_t end_bucket = uint64_t{1} << into.bucket_bits_;
  uint64_t tail_bucket = 0;  // the first slot not yet filled in `into`
  unsigned tail_slot = 0;
  // Keys in the order of their homes go each at the first free slot from
  // its home on: the order of homes holds with no key moved.
  auto put = [&](Key84 key) {
    const uint64_t h = into.home(key);
    if (h > tail_bucket) {
      tail_bucket = h;
      tail_slot = 0;
    }
    if (tail_bucket >= end_bucket) {
      late.push_back(key);
      return;
    }
    if (tail_bucket - h > kMaxDisplacement) {
      into.add_to_overflow(key);
      return;
    }
    const Code c = into.code(key);
    uint64_t* words = into.line(tail_bucket);
    into.put_code(words, tail_slot, c, tail_bucket - h);
    if (tail_bucket > h) into.mark_spill(into.line(h), c.low);  // full, written
    ++into.size_;
    if (++tail_slot == into.per_bucket_) {
      ++tail_bucket;
      tail_slot = 0;
    }
  };
  // Keys of one home here may have different homes there (the bits below
  // the bucket's choose): sorted, they come in the order of those.
  Key84 group[kMaxKeysAHome];
  size_t grouped = 0;
  uint64_t group_home = ~uint64_t{0};
  auto flush = [&]() {
    std::sort(group, group + grouped);
    for (size_t i = 0; i < grouped; ++i) put(group[i]);
    grouped = 0;
  };
  const uint64_t buckets = uint64_t{1} << bucket_bits_;
  for (uint64_t bucket = 0; bucket < buckets; ++bucket) {
    const uint64_t* words = line(bucket);
    if (bucket + 8 < buckets) __builtin_prefetch(line(bucket + 8));
    for (unsigned s = 0; s < per_bucket_; ++s) {
      const uint64_t word = words[s] & code_mask_;
      if (word == 0) continue;
      const uint64_t displacement = (word & 15) - 1;
      const Key84 key = key_at(bucket, s);
      // A key that wrapped round from a home at the end: its place there
      // comes after every other.
      if (displacement > bucket) {
        late.push_back(key);
        continue;
      }
      if (bucket - displacement != group_home) {
        flush();
        group_home = bucket - displacement;
      }
      group[grouped++] = key;
    }
  }
  flush();
  place_the_rest();
  return true;
}

void ExactSet::place_late(ExactSet& into, const std::vector<Key84>& late) {
  for (const Key84 key : late) {
    Spot spot;
    into.find(key, &spot);
    if (!into.place(key, spot)) into.add_to_overflow(key);
  }
}

void ExactSet::split(ExactSet& into, std::vector<Key84>& late) const {
  // The layouts a doubling goes between: the same, or one slot more a line
  // where the remainder, a bit shorter, fits a narrower slot.
  switch (high_bytes_ * 8 + into.high_bytes_) {
    case 0: return split_in<0, 0>(into, late);
    case 8: return split_in<1, 0>(into, late);
    case 9: return split_in<1, 1>(into, late);
    case 17: return split_in<2, 1>(into, late);
    case 18: return split_in<2, 2>(into, late);
    case 34: return split_in<4, 2>(into, late);
    default: return split_in<4, 4>(into, late);
  }
}

template <unsigned kFromHigh, unsigned kToHigh>
void ExactSet::split_in(ExactSet& into, std::vector<Key84>& late) const {
  // The table doubled: a key's new home is its old one twice, plus the top
  // bit of its remainder, which leaves its slot. So a slot moves as it is,
  // less that bit and with its new displacement: no key is rebuilt (where
  // the new slot is narrower, its code fits it: the layout is the
  // narrowest that holds the remainder). Keys of one old home come in any
  // order; split by that bit (without a branch: it is a coin toss), those
  // for home 2h go first, then those for 2h + 1, and the order of homes
  // holds.
  using From = Layout<kFromHigh>;
  using To = Layout<kToHigh>;
  constexpr unsigned kSlots = To::kSlots;
  const unsigned top = key_bits_ - bucket_bits_ + 3;  // the bit in a slot's code
  const uint64_t low_bit = top < 64 ? uint64_t{1} << top : 0;
  const uint64_t high_bit = top < 64 ? 0 : uint64_t{1} << (top - 64);
  const uint64_t code_mask = code_mask_;
  const uint64_t end_bucket = uint64_t{1} << into.bucket_bits_;
  const uint64_t end_slot = end_bucket * kSlots;
  uint64_t* const out = into.table_.words;
  uint64_t tail = 0;  // the first slot not yet filled in `into`: bucket * kSlots + slot
  uint64_t placed = 0;
  // Codes (displacement bits 0) of home h, each at the first free slot
  // from its home on. A doubling halves every run of hashed keys: none goes
  // past the new table's end or too far from its home. Keys whose hashes
  // share their top bits do: those past the end wrap round, placed last,
  // and those too far go to the overflow area.
  auto put = [&](uint64_t h, const uint64_t* lows, const uint64_t* highs, size_t n) {
    const uint64_t first = std::max(tail, h * kSlots);
    const uint64_t reach = std::min((h + kMaxDisplacement + 1) * kSlots, end_slot);
    const size_t fit = first >= reach ? 0 : static_cast<size_t>(std::min<uint64_t>(n, reach - first));
    uint64_t t = first;
    for (size_t i = 0; i < fit; ++i, ++t) {
      const uint64_t bucket = t / kSlots;
      uint64_t* words = out + bucket * kWordsPerBucket;
      words[t - bucket * kSlots] = lows[i] | (bucket - h + 1);
      To::set_high(words, t - bucket * kSlots, highs[i]);
    }
    // The home full, its keys past it: it spills them.
    for (uint64_t past = std::max(first, (h + 1) * kSlots); past < t; ++past) {
      into.mark_spill(out + h * kWordsPerBucket, lows[past - first]);
    }
    placed += fit;
    if (fit > 0) tail = t;
    for (size_t i = fit; i < n; ++i) {
      const Key84 key = into.key_of(h, lows[i], highs[i]);
      if (reach == end_slot) {
        late.push_back(key);
      } else {
        into.add_to_overflow(key);
      }
    }
  };
  uint64_t even_low[kMaxKeysAHome], even_high[kMaxKeysAHome];
  uint64_t odd_low[kMaxKeysAHome], odd_high[kMaxKeysAHome];
  size_t n_even = 0, n_odd = 0;
  uint64_t old_home = ~uint64_t{0};
  auto flush = [&]() {
    put(2 * old_home, even_low, even_high, n_even);
    put(2 * old_home + 1, odd_low, odd_high, n_odd);
    n_even = n_odd = 0;
  };
  const uint64_t buckets = uint64_t{1} << bucket_bits_;
  for (uint64_t bucket = 0; bucket < buckets; ++bucket) {
    const uint64_t* words = line(bucket);
    if (bucket + 8 < buckets) __builtin_prefetch(line(bucket + 8));
    for (unsigned s = 0; s < From::kSlots; ++s) {
      const uint64_t word = words[s] & code_mask;
      if (word == 0) continue;
      const uint64_t displacement = (word & 15) - 1;
      // A key that wrapped round from a home at the end: its place there
      // comes after every other.
      if (displacement > bucket) {
        late.push_back(key_at(bucket, s));
        continue;
      }
      if (bucket - displacement != old_home) {
        if (old_home != ~uint64_t{0}) flush();
        old_home = bucket - displacement;
      }
      const uint64_t high = From::high(words, s);
      const uint64_t low = word & ~uint64_t{15};
      const size_t odd = ((low & low_bit) | (high & high_bit)) != 0 ? 1 : 0;
      even_low[n_even] = low;
      even_high[n_even] = high;
      odd_low[n_odd] = low & ~low_bit;
      odd_high[n_odd] = high & ~high_bit;
      n_even += 1 - odd;
      n_odd += odd;
    }
  }
  if (old_home != ~uint64_t{0}) flush();
  into.size_ += placed;
}

bool ExactSet::grow(unsigned bucket_bits, const Key84* extra, size_t n_extra,
                    uint64_t max_bytes, uint64_t* needed) {
  const unsigned bits = bucket_bits_for(size_ + n_extra, bucket_bits, key_bits_, stagger_);
  if (max_bytes != 0 && bytes_at(bits) > max_bytes) {
    *needed = bytes_at(bits);
    return false;
  }
  ExactSet into(key_bits_, bits, stagger_, Empty{});
  if (!fill(into, extra, n_extra)) {
    throw too_many_buckets();
  }
  // Keys of the overflow area may stay there, and more may come to it.
  if (max_bytes != 0 && into.bytes() > max_bytes) {
    *needed = into.bytes();
    return false;
  }
  into.growths_ = growths_ + 1;
  *this = std::move(into);
  return true;
}

bool ExactSet::rebuild(unsigned bucket_bits, uint64_t growths) {
  ExactSet into(key_bits_, bucket_bits, stagger_, Empty{});
  if (!fill(into, nullptr, 0)) return false;
  into.growths_ = growths;
  *this = std::move(into);
  return true;
}

ExactSet::ExactSet(unsigned key_bits, unsigned bucket_bits, unsigned stagger, Empty)
    : key_bits_(key_bits), stagger_(stagger) {
  set_shape(bucket_bits);
  table_ = Table(bytes());
}

ExactSet::Outcome ExactSet::insert_past_home(Key84 key, const AtHome& at, uint64_t max_bytes,
                                             uint64_t* needed) {
  if (in_overflow(key)) return Outcome::present;
  Spot spot{home(key), at.slot, 0};  // a free slot at home, where there is one
  if (at.slot == per_bucket_ && find(key, &spot, nullptr, 1)) return Outcome::present;
  // Past the load the table grows, and where that would pass the limit,
  // stays as it was.
  if (size_ >= grow_at_) {
    return grow(bucket_bits_ + 1, &key, 1, max_bytes, needed) ? Outcome::added : Outcome::full;
  }
  if (place(key, spot)) return Outcome::added;
  // A run too long (place moved nothing): the key goes past the table.
  const uint64_t after =
      bytes_at(bucket_bits_) + detail::OverflowKeys::bytes_for(overflow_.size() + 1);
  if (max_bytes != 0 && after > max_bytes) {
    *needed = after;
    return Outcome::full;
  }
  add_to_overflow(key);
  return Outcome::added;
}

uint64_t ExactSet::test_and_insert(const Key84* keys, size_t n, uint8_t* answers) {
  uint64_t added = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) prefetch(keys[i + kPrefetchAhead], true);
    const bool fresh = test_and_insert_one(keys[i], 0, nullptr) == Outcome::added;
    answers[i] = fresh ? 0 : 1;
    added += fresh ? 1 : 0;
  }
  return added;
}

void ExactSet::contains(const Key84* keys, size_t n, uint8_t* answers) const {
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) prefetch(keys[i + kPrefetchAhead], false);
    answers[i] = find(keys[i], nullptr) || in_overflow(keys[i]) ? 1 : 0;
  }
}

void ExactSet::erase(Key84 key) {
  const uint64_t start = home(key);
  const Code c = code(key);
  for (unsigned d = 0; d <= kMaxDisplacement; ++d) {
    uint64_t bucket = (start + d) & bucket_mask();
    for (unsigned s = 0; s < per_bucket_; ++s) {
      uint64_t* words = line(bucket);
      if ((words[s] & code_mask_) != (c.low | (d + 1)) || high(words, s) != c.high) continue;
      // Backward shift: each key after it in its run moves back one slot
      // (one bucket nearer its home when it crosses into the previous
      // bucket), until a free slot or a key in its home bucket's first
      // place: the order of homes holds and no run has a hole.
      for (;;) {
        const uint64_t next_bucket = s + 1 < per_bucket_ ? bucket : (bucket + 1) & bucket_mask();
        const unsigned next_slot = s + 1 < per_bucket_ ? s + 1 : 0;
        uint64_t* next = line(next_bucket);
        const uint64_t word = next[next_slot] & code_mask_;
        const bool crosses = next_bucket != bucket;
        if (word == 0 || (crosses && (word & 15) == 1)) {
          // A bucket with a free slot spills nothing: its hints go too.
          words[s] = 0;
          set_high(words, s, 0);
          clear_hints(words);
          --size_;
          return;
        }
        // The slot keeps its bucket's hints (one may be stale now: a
        // lookup then reads one bucket more, never misses a key).
        words[s] = (crosses ? word - 1 : word) | (words[s] & ~code_mask_);
        set_high(words, s, high(next, next_slot));
        bucket = next_bucket;
        s = next_slot;
        words = next;
      }
    }
  }
  if (overflow_.erase(key)) {
    --size_;
    if (overflow_.empty()) fast_until_ = grow_at_;
  }
}

std::vector<Key84> ExactSet::sorted_keys() const {
  std::vector<Key84> keys;
  keys.reserve(size_);
  for_each([&](Key84 key) { keys.push_back(key); });
  std::sort(keys.begin(), keys.end());
  return keys;
}

double ExactSet::collision_chance(uint64_t keys) {
  // 1 - exp(-n(n-1) / 2^(bits+1)), without losing small values to rounding.
  const double n = static_cast<double>(keys);
  return -std::expm1(-n * (n - 1) / std::ldexp(1.0, kKeyBits + 1));
}

}  // namespace gdedup
