// The set behind a Python Set: a KeySet (gdedup/key_set.h) and the key rules
// its keys are made by, answering the keys of a KeyInput. No Python here:
// every call runs with the GIL released, one at a time (the caller holds the
// lock). The set file (gdedup/set_file.h) is saved and loaded here, as
// FilterEngine saves and loads a filter file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/guarded_save.h"
#include "gdedup/key_rules.h"
#include "gdedup/key_set.h"
#include "gdedup/set_file.h"
#include "key_input.h"

namespace gdedup::python {

// A call refused past max_bytes (Error of kind set_full), with the number of
// its keys answered and added before the one that did not fit: their answers
// are in the call's buffer, so that a caller can act on them (dedup() keeps
// those records) instead of losing them with the rest.
class SetFull : public Error {
 public:
  SetFull(const std::string& what, const Error& cause, uint64_t answered)
      : Error(what, cause), answered_(answered) {}
  uint64_t answered() const noexcept { return answered_; }

 private:
  uint64_t answered_;
};

class SetEngine {
 public:
  // Sized for `capacity` keys (0: the smallest set), as KeySet::sized:
  // UsageError when options.max_bytes cannot hold a set of that size,
  // checked before the set is made.
  SetEngine(uint64_t capacity, const KeySetOptions& options, const KeyRules& rules);
  // The keys of a loaded set file, made by `rules` (the file's).
  SetEngine(SetFile file, const KeyRules& rules);

  // answers[i] for the i-th key of `input`: whether it was in the set (with
  // `insert`, keys earlier in the input count, and every key is added).
  // Records are hashed a chunk at a time (for_each_chunk), into a buffer
  // kept from call to call. Returns the keys added. Throws SetFull as
  // KeySet::test_and_insert, naming the key by its place in the call: the
  // keys before the one that did not fit were answered and added.
  uint64_t run(const KeyInput& input, const KeyHasher& hasher, bool insert, uint8_t* answers);
  // The same for keys already made, keys[0] the `first` key of the call.
  uint64_t run(const Key84* keys, uint64_t n, bool insert, uint8_t* answers, uint64_t first = 0);

  // Adds every key of `other` (the union), which must have the same key
  // rules (UsageError otherwise, this set unchanged). Throws Error
  // (set_full) past max_bytes, this set as it was (KeySet::merge).
  void merge(const SetEngine& other);

  // The set file at `path` (save_set_file), as a Filter's is saved:
  // through `guard` (gdedup/guarded_save.h), under PATH.lock and never over
  // a version of the file this set did not read.
  void save(const std::string& path, SaveGuard& guard) const;

  const KeySet& keys() const { return set_; }
  const KeyRules& rules() const { return rules_; }

 private:
  KeySet set_;
  KeyRules rules_;
  uint64_t chunk_keys_;       // keys hashed at a time
  std::vector<Key84> chunk_;  // their keys, reused by every call
  std::string scratch_;       // the key rules' scratch
};

}  // namespace gdedup::python
