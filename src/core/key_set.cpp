// KeySet: 256 shards, each an ExactSet of the keys whose top 8 bits are its
// number, over the other 76 bits. The shard count is fixed, so what a set
// holds and the bytes it takes depend on its keys alone, never on threads;
// and a shard doubles alone, each at its own load (stagger_of), so that a
// pause of growth is a few shards' rehash (each 1/256 of the set), not the
// whole set's.
//
// With T threads, thread o owns the shards s with floor(s * T / 256) = o
// and answers their keys in input order (as the CPU backend's threads own
// blocks, cpu_backend.cpp): a batch is split by owner, keeping input order,
// then each owner runs its keys. A shard sees the same keys in the same
// order for every T, so every answer and every table is the same.
#include "gdedup/key_set.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "core/exact_set.h"
#include "core/thread_pool.h"
#include "fs/memory.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"

namespace gdedup {
namespace {

constexpr unsigned kShardBits = 8;
constexpr unsigned kShards = 1u << kShardBits;
constexpr unsigned kShardKeyBits = kKeyBits - kShardBits;
constexpr Key84 kShardKeyMask = (Key84{1} << kShardKeyBits) - 1;
// Keys a thread should have at least: below, handing a batch to threads
// costs more than it saves.
constexpr uint64_t kMinKeysAThread = 4096;
// Keys a parallel pass takes at once: positions are noted in 32 bits.
constexpr uint64_t kMaxPass = uint64_t{1} << 30;
constexpr size_t kPrefetchAhead = 16;

unsigned shard_of(Key84 key) { return static_cast<unsigned>(key >> kShardKeyBits); }

// A shard's share of `keys`, rounded up (without passing 2^64).
uint64_t shard_share(uint64_t keys) { return keys / kShards + (keys % kShards != 0 ? 1 : 0); }

// Whether `failure` is the system refusing memory: a table's mmap, or a
// vector's allocation.
bool out_of_memory(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::bad_alloc&) {
    return true;
  } catch (const Error& e) {
    return e.kind() == ErrorKind::out_of_memory;
  } catch (...) {
    return false;
  }
}

// Where between its lowest and highest load a shard doubles: its number's
// bits reversed, so that the shards, which fill together, double one after
// another over a range of sizes (the pause of growth a shard or a few, not
// all 256 at once), and neighbours, which one thread owns, far apart.
unsigned stagger_of(unsigned shard) {
  unsigned reversed = 0;
  for (unsigned b = 0; b < kShardBits; ++b) reversed |= ((shard >> b) & 1) << (kShardBits - 1 - b);
  return reversed;
}

// The bucket bits reserve(keys) gives shard `s`: what the load rule grows
// it to for its share of them, as bytes_for figures.
unsigned room_bits(unsigned s, uint64_t keys) {
  const unsigned smallest = ExactSet::bucket_bits_sized_for(0, kShardKeyBits, stagger_of(s));
  return ExactSet::bucket_bits_for(shard_share(keys), smallest, kShardKeyBits, stagger_of(s));
}

}  // namespace

struct KeySet::Impl {
  explicit Impl(const KeySetOptions& opts) : options(opts) {
    threads = opts.threads != 0 ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = std::min(threads, kShards);
  }

  // The keys of one slice of a pass bound for one owner, in input order.
  struct Bound {
    std::vector<Key84> keys;
    std::vector<uint32_t> positions;
  };
  // A shard's growth during a pass: at which key, and its size before.
  struct Growth {
    uint64_t position;
    unsigned bucket_bits;
    uint64_t growths;
  };

  uint64_t run_in_order(const Key84* keys, uint64_t from, uint64_t to, uint8_t* answers);
  // Gives back the room reserve() took that the keys do not fill: each
  // shard it made larger goes back to the size its keys alone would have
  // grown it to. True if a shard shrank.
  bool release_room();
  uint64_t run_parallel(const Key84* keys, uint64_t n, uint8_t* answers, unsigned parts);
  [[noreturn]] void refuse(uint64_t position, uint64_t needed) const;
  uint64_t size() const {
    uint64_t total = 0;
    for (const ExactSet& s : shards) total += s.size();
    return total;
  }
  void count_bytes() {
    bytes = 0;
    for (const ExactSet& s : shards) bytes += s.bytes();
  }

  std::vector<ExactSet> shards;
  KeySetOptions options;
  unsigned threads = 1;
  uint64_t bytes = 0;  // the shards' bytes together
  // Shard `s` back at the size it grew from, with the keys it holds now
  // (which fitted that size before: the keys a failed pass added were
  // erased). Where the system refuses the smaller table, the shard keeps
  // its larger one: the same keys, only more bytes.
  void shrink_back(unsigned s, unsigned bucket_bits, uint64_t growths) {
    try {
      shards[s].rebuild(bucket_bits, growths);
    } catch (...) {
      if (!out_of_memory(std::current_exception())) throw;
    }
  }

  // Shards reserve() made larger than their keys need, until the cap
  // needs the room back (release_room).
  std::vector<bool> roomy = std::vector<bool>(kShards, false);
  uint64_t pass_start = 0;  // the pass's first key in its batch, for messages
  // A parallel pass's buffers, reused: bound[slice][owner], growth[shard].
  std::vector<std::vector<Bound>> bound;
  std::vector<std::vector<Growth>> growth;
  detail::ThreadPool pool{"the exact set"};
};

bool KeySet::Impl::release_room() {
  bool shrank = false;
  for (unsigned s = 0; s < kShards; ++s) {
    if (!roomy[s]) continue;
    roomy[s] = false;
    ExactSet& shard = shards[s];
    const unsigned smallest = ExactSet::bucket_bits_sized_for(0, kShardKeyBits, stagger_of(s));
    const unsigned bits =
        ExactSet::bucket_bits_for(shard.size(), smallest, kShardKeyBits, stagger_of(s));
    if (bits < shard.bucket_bits() && shard.rebuild(bits, shard.growths())) shrank = true;
  }
  count_bytes();
  return shrank;
}

void KeySet::Impl::refuse(uint64_t position, uint64_t needed) const {
  throw Error("the exact set holds " + std::to_string(size()) + " keys in " +
                  std::to_string(bytes) + " bytes, and key " +
                  std::to_string(pass_start + position) +
                  " of the batch would make it grow to " + std::to_string(needed) +
                  " bytes, past its cap of " + std::to_string(options.max_bytes) + " bytes",
              ErrorKind::set_full, needed, options.max_bytes);
}

uint64_t KeySet::Impl::run_in_order(const Key84* keys, uint64_t from, uint64_t to,
                                    uint8_t* answers) {
  const uint64_t cap = options.max_bytes;
  uint64_t added = 0;
  for (uint64_t i = from; i < to; ++i) {
    if (i + kPrefetchAhead < to) {
      const Key84 ahead = keys[i + kPrefetchAhead];
      shards[shard_of(ahead)].prefetch(ahead & kShardKeyMask, true);
    }
    ExactSet& shard = shards[shard_of(keys[i])];
    for (;;) {
      const uint64_t before = shard.bytes();
      // The shard may take what the others leave of the cap (1 when they
      // leave nothing: no growth fits).
      const uint64_t others = bytes - before;
      const uint64_t limit = cap == 0 ? 0 : cap > others ? cap - others : 1;
      uint64_t needed = 0;
      ExactSet::Outcome outcome;
      try {
        outcome = shard.test_and_insert_one(keys[i] & kShardKeyMask, limit, &needed);
      } catch (...) {
        // The system refused memory (the shard as it was): room taken for
        // keys that never came goes back first, and the key is tried again.
        if (out_of_memory(std::current_exception()) && release_room()) continue;
        throw;
      }
      if (outcome == ExactSet::Outcome::present) {
        answers[i] = 1;
      } else if (outcome == ExactSet::Outcome::added) {
        answers[i] = 0;
        ++added;
        bytes += shard.bytes() - before;
      } else if (!release_room()) {
        // Room reserved for keys that never came went back first (and the
        // key is tried again): a set that took room never fails where one
        // grown key by key would not.
        refuse(i, others + needed);
      } else {
        continue;
      }
      break;
    }
  }
  return added;
}

uint64_t KeySet::Impl::run_parallel(const Key84* keys, uint64_t n, uint8_t* answers,
                                    unsigned parts) {
  auto owner_of = [parts](unsigned shard) { return shard * parts / kShards; };
  auto slice = [n, parts](unsigned t) { return n * t / parts; };
  bound.resize(parts);
  std::vector<std::vector<uint32_t>> counts(parts, std::vector<uint32_t>(kShards, 0));
  // 1. Each thread splits its slice by owner, in input order.
  pool.run(parts, [&](unsigned t) {
    bound[t].resize(parts);
    for (Bound& b : bound[t]) {
      b.keys.clear();
      b.positions.clear();
    }
    for (uint64_t i = slice(t); i < slice(t + 1); ++i) {
      const unsigned shard = shard_of(keys[i]);
      Bound& b = bound[t][owner_of(shard)];
      b.keys.push_back(keys[i]);
      b.positions.push_back(static_cast<uint32_t>(i));
      ++counts[t][shard];
    }
  }, nullptr);

  // Under a cap, each shard may grow as far as the load alone takes it with
  // its keys of this pass, if all of that fits together; if not, the pass
  // runs in order on this thread, which stops at the exact key.
  std::vector<uint64_t> limit(kShards, 0);
  if (options.max_bytes != 0) {
    uint64_t total = 0;
    for (unsigned s = 0; s < kShards; ++s) {
      uint64_t keys_after = shards[s].size();
      for (unsigned t = 0; t < parts; ++t) keys_after += counts[t][s];
      const unsigned bits = ExactSet::bucket_bits_for(keys_after, shards[s].bucket_bits(),
                                                      kShardKeyBits, stagger_of(s));
      limit[s] = ExactSet::bytes_at(bits) + shards[s].overflow_bytes();
      total += limit[s];
    }
    if (total > options.max_bytes) return run_in_order(keys, 0, n, answers);
  }

  // 2. Each owner runs its keys: slice 0's, then slice 1's, ...: in input
  // order. Under a cap, an owner stops at a key its shard's limit refuses.
  growth.resize(kShards);
  for (auto& g : growth) g.clear();
  std::vector<uint64_t> added(parts, 0);
  std::vector<uint64_t> stopped(parts, n);
  pool.run(parts, [&](unsigned o) {
    for (unsigned t = 0; t < parts; ++t) {
      const Bound& b = bound[t][o];
      const size_t count = b.keys.size();
      for (size_t j = 0; j < count; ++j) {
        if (j + kPrefetchAhead < count) {
          const Key84 ahead = b.keys[j + kPrefetchAhead];
          shards[shard_of(ahead)].prefetch(ahead & kShardKeyMask, true);
        }
        const unsigned s = shard_of(b.keys[j]);
        ExactSet& shard = shards[s];
        const unsigned bits = shard.bucket_bits();
        const uint64_t growths = shard.growths();
        uint64_t needed = 0;
        const uint32_t at = b.positions[j];
        ExactSet::Outcome outcome;
        try {
          outcome = shard.test_and_insert_one(b.keys[j] & kShardKeyMask, limit[s], &needed);
        } catch (...) {
          // The system refused memory (the shard as it was): stopped there
          // as at the cap, so that the keys after it that other owners ran
          // are undone, and the pass goes on in order to the exact key.
          if (!out_of_memory(std::current_exception())) throw;
          outcome = ExactSet::Outcome::full;
        }
        if (outcome == ExactSet::Outcome::full) {
          stopped[o] = at;
          return;
        }
        if (shard.bucket_bits() != bits) growth[s].push_back(Growth{at, bits, growths});
        answers[at] = outcome == ExactSet::Outcome::present ? 1 : 0;
        added[o] += outcome == ExactSet::Outcome::added ? 1 : 0;
      }
    }
  }, nullptr);
  count_bytes();
  const uint64_t first_stop = *std::min_element(stopped.begin(), stopped.end());
  if (first_stop == n) {
    uint64_t total = 0;
    for (uint64_t a : added) total += a;
    return total;
  }

  // A shard's limit, or the system's memory, refused a key. The other
  // owners ran past that key: take back what they
  // added from it on, and the growths that came of it, so that the set is
  // what it was at that key; then go on from it in order.
  for (unsigned t = 0; t < parts; ++t) {
    for (unsigned o = 0; o < parts; ++o) {
      const Bound& b = bound[t][o];
      for (size_t j = 0; j < b.keys.size(); ++j) {
        const uint64_t at = b.positions[j];
        if (at > first_stop && at < stopped[o] && answers[at] == 0) {
          shards[shard_of(b.keys[j])].erase(b.keys[j] & kShardKeyMask);
        }
      }
    }
  }
  for (unsigned s = 0; s < kShards; ++s) {
    for (const Growth& g : growth[s]) {
      if (g.position <= first_stop) continue;
      shrink_back(s, g.bucket_bits, g.growths);
      break;
    }
  }
  count_bytes();
  uint64_t total = 0;
  for (uint64_t i = 0; i < first_stop; ++i) total += answers[i] == 0 ? 1 : 0;
  return total + run_in_order(keys, first_stop, n, answers);
}

KeySet::KeySet(uint64_t expected_keys, const KeySetOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  check_capacity(expected_keys, std::to_string(expected_keys));
  // Each shard sized for its share.
  const uint64_t share = shard_share(expected_keys);
  impl_->shards.reserve(kShards);
  for (unsigned s = 0; s < kShards; ++s) {
    impl_->shards.emplace_back(share, kShardKeyBits, stagger_of(s));
  }
  impl_->count_bytes();
}
KeySet KeySet::sized(uint64_t capacity, const KeySetOptions& options,
                     const KeySetSizeNames& names) {
  const uint64_t cap = options.max_bytes;
  const auto size_text = [](uint64_t bytes) {
    return human_bytes(bytes) + " (" + group_digits(bytes) + " bytes)";
  };
  const std::string set_text =
      capacity == 0 ? "the smallest set" : "a set sized for " + names.capacity_given;
  const std::string smaller =
      capacity == 0 ? "" : "a smaller " + names.capacity + " (or none: the set grows as keys "
                                                             "come) or ";
  // Never a set full of keys: the options contradict each other.
  const auto check_cap = [&](uint64_t bytes) {
    if (cap == 0 || bytes <= cap) return;
    throw UsageError(set_text + " takes " + size_text(bytes) + ", more than " +
                         names.cap_given + " allows; give " + smaller + "a larger " + names.cap,
                     ErrorKind::invalid_argument, bytes, cap);
  };
  // Before any table is made; and after, as the shards take a little room
  // past their share for the spread of hashed keys.
  check_capacity(capacity, names.capacity_given);
  const uint64_t bytes = bytes_for(capacity);
  check_cap(bytes);
  try {
    KeySet set(capacity, options);
    check_cap(set.bytes());
    return set;
  } catch (const std::bad_alloc&) {
  } catch (const Error& e) {
    // A table's own refusal (mmap failed) names no option.
    if (e.kind() != ErrorKind::out_of_memory) throw;
  }
  throw Error(set_text + " needs about " + size_text(bytes) +
                  ", which this machine could not allocate" +
                  (capacity == 0 ? "" : "; give a smaller " + names.capacity +
                                            ", or none: the set grows as keys come"),
              ErrorKind::out_of_memory, bytes);
}

KeySet::~KeySet() = default;
KeySet::KeySet(KeySet&&) noexcept = default;
KeySet& KeySet::operator=(KeySet&&) noexcept = default;

void RoomFromSample::after(KeySet& set, uint64_t answered, uint64_t fresh, uint64_t rest) {
  answered_ += answered;
  fresh_ += fresh;
  const uint64_t held = set.size();
  if (answered_ < kSampleKeys || rest == 0 || held < room_ / 2) return;
  const double share = static_cast<double>(fresh_) / static_cast<double>(answered_);
  const uint64_t more = static_cast<uint64_t>(share * static_cast<double>(rest));  // <= rest
  const uint64_t predicted = more > UINT64_MAX - held ? UINT64_MAX : held + more;
  const uint64_t step = held > UINT64_MAX / kMaxStep ? UINT64_MAX : held * kMaxStep;
  const uint64_t room = std::min(predicted, step);
  if (room <= room_) return;
  room_ = room;
  set.reserve(room);
}

void KeySet::reserve(uint64_t keys) {
  Impl& impl = *impl_;
  // The bucket bits each shard takes for `n` keys in all (never fewer than
  // it has), and their bytes together.
  std::vector<unsigned> bits(kShards);
  const auto shape_for = [&](uint64_t n) {
    uint64_t total = 0;
    for (unsigned s = 0; s < kShards; ++s) {
      bits[s] = std::max(impl.shards[s].bucket_bits(), room_bits(s, n));
      total += ExactSet::bytes_at(bits[s]);
    }
    return total;
  };
  // Room is a guess: never past the cap, nor past half this machine's
  // memory, where a set grown key by key might have fitted.
  uint64_t cap = fs::physical_memory() / 2;
  if (impl.options.max_bytes != 0) cap = std::min(cap, impl.options.max_bytes);
  if (shape_for(keys) > cap) {
    // The most keys whose room fits under the cap (the bytes grow with the
    // keys): 0 fits, as the set does now.
    uint64_t fits = 0, over = keys;
    while (over - fits > 1) {
      const uint64_t mid = fits + (over - fits) / 2;
      if (shape_for(mid) <= cap) {
        fits = mid;
      } else {
        over = mid;
      }
    }
    keys = fits;
  }
  shape_for(keys);
  try {
    for (unsigned s = 0; s < kShards; ++s) {
      ExactSet& shard = impl.shards[s];
      // More buckets only spread its keys: a rebuild there fits them.
      if (bits[s] > shard.bucket_bits() && shard.rebuild(bits[s], shard.growths())) {
        impl.roomy[s] = true;
      }
    }
  } catch (const std::bad_alloc&) {
  } catch (const Error& e) {
    // The system refused a table: the shards so far keep their room, the
    // others grow as keys come (and say so if they cannot).
    if (e.kind() != ErrorKind::out_of_memory) throw;
  }
  impl.count_bytes();
}

KeySet KeySet::clone() const {
  KeySet copy(0, impl_->options);
  copy.impl_->shards = std::vector<ExactSet>(impl_->shards);
  copy.impl_->roomy = impl_->roomy;
  copy.impl_->count_bytes();
  return copy;
}

uint64_t KeySet::test_and_insert(const Key84* keys, uint64_t n, uint8_t* answers) {
  uint64_t added = 0;
  for (uint64_t at = 0; at < n; at += kMaxPass) {
    const uint64_t count = std::min(kMaxPass, n - at);
    const unsigned parts =
        static_cast<unsigned>(std::min<uint64_t>(impl_->threads, count / kMinKeysAThread));
    impl_->pass_start = at;
    added += parts <= 1 ? impl_->run_in_order(keys + at, 0, count, answers + at)
                        : impl_->run_parallel(keys + at, count, answers + at, parts);
  }
  return added;
}

void KeySet::contains(const Key84* keys, uint64_t n, uint8_t* answers) const {
  Impl& impl = *impl_;
  const unsigned parts =
      static_cast<unsigned>(std::min<uint64_t>(impl.threads, n / kMinKeysAThread));
  auto run = [&](uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; ++i) {
      if (i + kPrefetchAhead < to) {
        const Key84 ahead = keys[i + kPrefetchAhead];
        impl.shards[shard_of(ahead)].prefetch(ahead & kShardKeyMask, false);
      }
      answers[i] = impl.shards[shard_of(keys[i])].contains_one(keys[i] & kShardKeyMask) ? 1 : 0;
    }
  };
  if (parts <= 1) return run(0, n);
  impl.pool.run(parts, [&](unsigned t) { run(n * t / parts, n * (t + 1) / parts); }, nullptr);
}

uint64_t KeySet::insert(const Key84* keys, uint64_t n) {
  std::vector<uint8_t> answers(n);
  return test_and_insert(keys, n, answers.data());
}

void KeySet::merge(const KeySet& other) {
  if (&other == this) return;
  Impl& impl = *impl_;
  // Which of other's keys are new here, a bit each in for_each_sorted's
  // order, and how many of them each shard takes.
  std::vector<uint64_t> fresh((other.size() + 63) / 64, 0);
  std::vector<uint64_t> fresh_in(kShards, 0);
  auto is_fresh = [&fresh](uint64_t at) { return (fresh[at >> 6] >> (at & 63)) & 1; };
  uint64_t at = 0;
  std::vector<uint8_t> found;
  other.for_each_sorted([&](const Key84* keys, size_t n) {
    found.resize(n);
    contains(keys, n, found.data());
    for (size_t i = 0; i < n; ++i, ++at) {
      if (found[i] != 0) continue;
      fresh[at >> 6] |= uint64_t{1} << (at & 63);
      ++fresh_in[shard_of(keys[i])];
    }
  });
  uint64_t new_keys = 0;
  for (const uint64_t n : fresh_in) new_keys += n;
  const uint64_t cap = impl.options.max_bytes;
  const auto refuse = [&](uint64_t needed) {
    return Error("the exact set holds " + std::to_string(size()) + " keys in " +
                     std::to_string(impl.bytes) + " bytes, and the " +
                     std::to_string(new_keys) + " new keys of the set merged into it would " +
                     "make it grow to " + std::to_string(needed) + " bytes, past its cap of " +
                     std::to_string(cap) + " bytes; nothing was merged",
                 ErrorKind::set_full, needed, cap);
  };
  // What the shards grow to by the load rule: past the cap, refused before
  // anything changes.
  if (cap != 0) {
    uint64_t needed = 0;
    for (unsigned s = 0; s < kShards; ++s) {
      const ExactSet& shard = impl.shards[s];
      needed += ExactSet::bytes_at(ExactSet::bucket_bits_for(
                    shard.size() + fresh_in[s], shard.bucket_bits(), kShardKeyBits,
                    stagger_of(s))) +
                shard.overflow_bytes();
    }
    if (needed > cap) throw refuse(needed);
  }
  // Keys past their home buckets may still take a shard past the cap (or
  // memory run out): then the keys added go again and the shards that grew
  // are rebuilt at their size before, so that the set is as it was.
  std::vector<unsigned> bits_before(kShards);
  std::vector<uint64_t> growths_before(kShards);
  for (unsigned s = 0; s < kShards; ++s) {
    bits_before[s] = impl.shards[s].bucket_bits();
    growths_before[s] = impl.shards[s].growths();
  }
  // Calls f with the fresh keys of each piece of other's.
  const auto for_each_fresh = [&](const std::function<void(const Key84*, size_t)>& f) {
    uint64_t position = 0;
    std::vector<Key84> piece;
    other.for_each_sorted([&](const Key84* keys, size_t n) {
      piece.clear();
      for (size_t i = 0; i < n; ++i, ++position) {
        if (is_fresh(position)) piece.push_back(keys[i]);
      }
      f(piece.data(), piece.size());
    });
  };
  const auto undo = [&] {
    for_each_fresh([&impl](const Key84* keys, size_t n) {
      for (size_t i = 0; i < n; ++i) {
        impl.shards[shard_of(keys[i])].erase(keys[i] & kShardKeyMask);
      }
    });
    for (unsigned s = 0; s < kShards; ++s) {
      if (impl.shards[s].bucket_bits() != bits_before[s]) {
        impl.shrink_back(s, bits_before[s], growths_before[s]);
      }
    }
    impl.count_bytes();
  };
  try {
    for_each_fresh([this](const Key84* keys, size_t n) { insert(keys, n); });
  } catch (const Error& e) {
    undo();
    if (e.kind() == ErrorKind::set_full) throw refuse(e.needed());
    throw;
  } catch (...) {
    undo();
    throw;
  }
}

uint64_t KeySet::size() const { return impl_->size(); }
uint64_t KeySet::bytes() const { return impl_->bytes; }
double KeySet::load() const {
  uint64_t slots = 0;
  for (const ExactSet& s : impl_->shards) slots += s.slots();
  return static_cast<double>(size()) / static_cast<double>(slots);
}
uint64_t KeySet::growths() const {
  uint64_t total = 0;
  for (const ExactSet& s : impl_->shards) total += s.growths();
  return total;
}
const KeySetOptions& KeySet::options() const { return impl_->options; }
void KeySet::set_max_bytes(uint64_t max_bytes) { impl_->options.max_bytes = max_bytes; }

void KeySet::for_each_sorted(const std::function<void(const Key84*, size_t)>& f) const {
  constexpr size_t kPiece = size_t{1} << 16;
  for (unsigned s = 0; s < kShards; ++s) {
    std::vector<Key84> keys = impl_->shards[s].sorted_keys();
    for (Key84& k : keys) k |= static_cast<Key84>(s) << kShardKeyBits;
    for (size_t i = 0; i < keys.size(); i += kPiece) {
      f(keys.data() + i, std::min(kPiece, keys.size() - i));
    }
  }
}

double KeySet::collision_chance(uint64_t keys) { return ExactSet::collision_chance(keys); }

uint64_t KeySet::max_keys() {
  // Every shard at its largest table, at its load limit.
  static const uint64_t most = [] {
    uint64_t keys = 0;
    for (unsigned s = 0; s < kShards; ++s) {
      keys += ExactSet::keys_at(ExactSet::kMaxBucketBits, kShardKeyBits, stagger_of(s));
    }
    return keys;
  }();
  return most;
}

void KeySet::check_capacity(uint64_t capacity, const std::string& capacity_given) {
  if (capacity <= max_keys()) return;
  throw UsageError(capacity_given + " is more keys than an exact set holds: at most " +
                       group_digits(max_keys()) + ", in " + human_bytes(bytes_for(max_keys())),
                   ErrorKind::invalid_argument, capacity, max_keys());
}

uint64_t KeySet::bytes_for(uint64_t keys) {
  if (keys > max_keys()) return UINT64_MAX;
  // Hashed keys spread evenly over the shards, each growing as one table.
  const uint64_t share = shard_share(keys);
  uint64_t bytes = 0;
  for (unsigned s = 0; s < kShards; ++s) {
    bytes += ExactSet::bytes_for(share, kShardKeyBits, stagger_of(s));
  }
  return bytes;
}

KeySetSizing::KeySetSizing(uint64_t expected_keys)
    : expected_keys_(expected_keys), shard_keys_(kShards, 0) {}

void KeySetSizing::insert(const Key84* keys, size_t n) {
  for (size_t i = 0; i < n; ++i) ++shard_keys_[shard_of(keys[i])];
}

uint64_t KeySetSizing::size() const {
  uint64_t total = 0;
  for (const uint64_t n : shard_keys_) total += n;
  return total;
}

// Shard `s` as reserve(expected_keys) makes it, grown by the load rule to
// hold its keys, as test_and_insert grows it.
unsigned KeySetSizing::shard_bits(unsigned s) const {
  return ExactSet::bucket_bits_for(shard_keys_[s], room_bits(s, expected_keys_), kShardKeyBits,
                                   stagger_of(s));
}

uint64_t KeySetSizing::bytes() const {
  uint64_t bytes = 0;
  for (unsigned s = 0; s < kShards; ++s) bytes += ExactSet::bytes_at(shard_bits(s));
  return bytes;
}

double KeySetSizing::load() const {
  uint64_t slots = 0;
  for (unsigned s = 0; s < kShards; ++s) slots += ExactSet::slots_at(shard_bits(s), kShardKeyBits);
  return static_cast<double>(size()) / static_cast<double>(slots);
}

}  // namespace gdedup
