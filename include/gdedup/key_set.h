// The set of exact mode: every key seen, kept as 84 bits of its 128-bit
// hash, so that a key is taken for a seen one only when two distinct keys
// share those 84 bits (collision_chance), never at a planned rate as in a
// Bloom filter, and with no capacity to plan: the set grows as keys come.
//
//   KeySet seen;
//   std::vector<Key84> keys = ...;  // key84(record, length, kDefaultSeed)
//   std::vector<uint8_t> answers(keys.size());
//   seen.test_and_insert(keys.data(), keys.size(), answers.data());
//
// What the set holds is a function of its keys alone: for_each_sorted()
// gives the same keys in the same order whatever the insertion order,
// batches, threads and growth history, and so does a set file
// (gdedup/set_file.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gdedup {

// A key's 84 bits, right-aligned: the top 84 bits of its XXH3-128.
using Key84 = unsigned __int128;
inline constexpr unsigned kKeyBits = 84;

// The key's 84 bits from its XXH3-128 halves.
inline Key84 key84_of(uint64_t high64, uint64_t low64) {
  return (static_cast<Key84>(high64) << 20) | (low64 >> 44);
}
// XXH3-128 of the key with `seed`, to 84 bits.
Key84 key84(const void* key, size_t length, uint64_t seed);

struct KeySetOptions {
  // Threads that answer a batch, each for the keys of its own ranges of key
  // values: the answers are the same for every count. 0: one a hardware
  // thread.
  unsigned threads = 1;
  // The most bytes the set's tables may take; 0 for no limit. A key that
  // would make the set grow past it throws Error of kind set_full. (While a
  // shard doubles, its old table is held too: about 1/256 of the set,
  // for the moment of its rehash.)
  uint64_t max_bytes = 0;
};

// How a front end names a set's capacity and cap, for its messages: the
// option as the user gave it and its bare name ("--capacity 10M" and
// "--capacity" on the command line, "capacity=10000000" and "capacity" in
// Python).
struct KeySetSizeNames {
  std::string capacity_given, capacity;
  std::string cap_given, cap;
};

class KeySet {
 public:
  // Sized for `expected_keys` (0: the smallest set), so that that many keys
  // fit without growing; more than max_keys() throws UsageError (kind
  // invalid_argument).
  explicit KeySet(uint64_t expected_keys = 0, const KeySetOptions& options = {});
  // KeySet(capacity, options) for a front end, checked before any table is
  // made: a capacity past max_keys() (check_capacity), or whose set
  // (bytes_for) is past options.max_bytes, or a cap below the smallest set,
  // contradicts itself and throws UsageError (kind invalid_argument),
  // naming both by `names`; a set this machine cannot allocate throws Error
  // of kind out_of_memory.
  static KeySet sized(uint64_t capacity, const KeySetOptions& options,
                      const KeySetSizeNames& names);
  ~KeySet();
  KeySet(KeySet&&) noexcept;
  KeySet& operator=(KeySet&&) noexcept;

  // Exactly sequential: for i = 0, 1, ... answers[i] = 1 if keys[i] was in
  // the set (added before, or earlier in this call), else 0; then it is
  // added. Returns the keys added. Throws Error of kind set_full when the
  // set would grow past KeySetOptions::max_bytes: the keys before the one
  // that did not fit were answered and added, that one and the rest not;
  // and Error of kind out_of_memory, the same way, where the system
  // refuses the memory a key needs.
  uint64_t test_and_insert(const Key84* keys, uint64_t n, uint8_t* answers);
  // answers[i] = 1 if keys[i] is in the set; nothing is added.
  void contains(const Key84* keys, uint64_t n, uint8_t* answers) const;
  // Adds every key, in any order; returns the keys that were new. Throws as
  // test_and_insert.
  uint64_t insert(const Key84* keys, uint64_t n);

  // Takes room for `keys` keys in all, as a set grown to that many takes
  // (bytes_for), so that the set gets there without doubling its way; a
  // shard already that large stays as it is. A hint, never a promise: where that
  // room would pass KeySetOptions::max_bytes, or half the machine's
  // memory, it takes the most that fits (maybe none), and where the system
  // refuses memory it stops there, the set whole either way. The keys it
  // holds are unchanged. Room no key came for goes back before the cap
  // refuses a key: a set that took room fails only where one grown key by
  // key would.
  void reserve(uint64_t keys);

  // A deep copy (a checkpoint written while the set goes on), with the same
  // options.
  KeySet clone() const;
  // Adds every key of `other` (the union), or none: where the union would
  // grow past KeySetOptions::max_bytes, throws Error of kind set_full with
  // the set as it was.
  void merge(const KeySet& other);

  uint64_t size() const;   // distinct keys held
  uint64_t bytes() const;  // the tables' bytes
  double load() const;     // keys held over slots
  uint64_t growths() const;
  const KeySetOptions& options() const;
  void set_max_bytes(uint64_t max_bytes);

  // Calls `f` with every key, ascending, in pieces (at most 2^16 keys each).
  void for_each_sorted(const std::function<void(const Key84* keys, size_t n)>& f) const;

  // The chance that any two of `keys` distinct keys share their 84 bits
  // (the birthday bound): the chance that exact mode drops a unique key.
  static double collision_chance(uint64_t keys);
  // The bytes a set holding `keys` keys takes, built by growing from small
  // (the keys spread over its shards as hashed keys do: a real set differs
  // only near a size at which some shard doubles); UINT64_MAX past
  // max_keys().
  static uint64_t bytes_for(uint64_t keys);
  // The most keys a set holds: each shard at its largest table (2^40
  // buckets of 64 bytes), about 2.1e15, in 16 PiB.
  static uint64_t max_keys();
  // Throws UsageError (kind invalid_argument) for a capacity past
  // max_keys(), naming it as the user gave it (`capacity_given`).
  static void check_capacity(uint64_t capacity, const std::string& capacity_given);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Room for a stream of keys whose length is known (a job's input estimate,
// a large call from Python), taken as the keys come: once kSampleKeys keys
// are answered, and again each time the set holds half the keys of the last
// room, the set reserves room for as many new keys a key among the rest as
// among the keys answered so far, but never for more than kMaxStep times
// the keys it holds. A set grown by doubling runs 1.3 to 2 times slower
// than one sized for its keys (bench/RESULTS.md); a set given room at once
// for an estimate that its keys never reach (a small compressed file of
// 70,000 distinct lines and then 200 MB of empty ones: room for 200 million
// keys, 956 MB, touched and resident) takes memory its keys do not need.
class RoomFromSample {
 public:
  // Enough keys that their share of new ones is within about 1% of the
  // stream's where repeats are spread through it.
  static constexpr uint64_t kSampleKeys = uint64_t{1} << 16;
  // The most room taken at once, in keys, over the keys the set holds: a
  // set holds at least 1/kMaxStep of the keys its room is for.
  static constexpr uint64_t kMaxStep = 8;

  // After `set` answered `answered` more keys of the stream, `fresh` of them
  // new, with `rest` keys to come: takes the next room when it is due
  // (nothing when none are to come).
  void after(KeySet& set, uint64_t answered, uint64_t fresh, uint64_t rest);

 private:
  uint64_t answered_ = 0;
  uint64_t fresh_ = 0;
  uint64_t room_ = 0;  // the keys the last room is for
};

// The tables of a set given room for expected_keys (KeySet(0), then
// reserve(expected_keys), with no cap) once the keys handed to insert() are
// inserted, figured from how many fall in each shard without making the
// set, in memory of its own (a count a shard): what `gdedup info` says a
// set file takes when loaded (load_set_file takes room so). bytes() and
// load() are the loaded set's tables; keys that lie past their home buckets
// where a run is too long (keys whose hashes share their top bits, crafted
// or by chance) take 32 to 64 bytes each more, in an overflow area, which
// only placing them tells (docs/CLI.md, "info").
class KeySetSizing {
 public:
  explicit KeySetSizing(uint64_t expected_keys);
  // Keys, each once (as a set file holds them), in any order.
  void insert(const Key84* keys, size_t n);
  uint64_t size() const;
  uint64_t bytes() const;
  double load() const;

 private:
  // The bucket bits shard `s` ends at.
  unsigned shard_bits(unsigned s) const;

  uint64_t expected_keys_;
  std::vector<uint64_t> shard_keys_;
};

}  // namespace gdedup
