// An exact set kept alive by a program between its calls (Python's Set): a
// KeySet and the key rules its keys are made by, new (sized as a job's new
// set is) or from a set file (with a job's checks of its cap), answering
// keys a batch at a time, merged and saved through a SaveGuard. Messages
// name the options by the OptionNames it is opened with.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "gdedup/error.h"
#include "gdedup/guarded_save.h"
#include "gdedup/key_rules.h"
#include "gdedup/key_set.h"
#include "gdedup/option_names.h"
#include "gdedup/set_file.h"

namespace gdedup {

// A batch refused past max_bytes (Error of kind set_full), with the number
// of its keys answered and added before the one that did not fit: their
// answers are in the batch's buffer, so that a caller can act on them
// instead of losing them with the rest.
class SetFullAt : public Error {
 public:
  SetFullAt(const std::string& what, const Error& cause, uint64_t answered)
      : Error(what, cause), answered_(answered) {}
  uint64_t answered() const noexcept { return answered_; }

 private:
  uint64_t answered_;
};

// The cap in bytes of a program's set (KeySetOptions::max_bytes): 0, none,
// when `max_memory` is not given; one given is checked as a job's spec
// checks it (check_job_spec: UsageError for a cap of 0 bytes), named by
// `names`.
uint64_t live_set_cap(std::optional<uint64_t> max_memory, const OptionNames& names);

// A set's capacity and cap as `names` names them, given and bare.
KeySetSizeNames key_set_size_names(const OptionNames& names);

// A new set for `capacity` keys (0: the smallest set), as KeySet::sized,
// its capacity and cap named by `names` (a job's new set and a program's).
KeySet new_key_set(uint64_t capacity, const KeySetOptions& options, const OptionNames& names);

class LiveSet {
 public:
  // New, as new_key_set.
  LiveSet(uint64_t capacity, const KeySetOptions& options, const KeyRules& rules,
          const OptionNames& names);
  // The set file at `path`, with `options`, checked as a job checks the set
  // file it extends: past options.max_bytes it is refused from its header,
  // before its keys are read, and again once loaded (a file replaced
  // meanwhile; the smallest set may pass the cap). `key_rules` gives the
  // rules its keys are taken to be made by from those the file records
  // (Error where they do not match the program's); it is asked of the
  // header first, so that a mismatch is refused before the keys are read.
  LiveSet(const std::string& path, const KeySetOptions& options, const OptionNames& names,
          const std::function<KeyRules(const KeyRules& recorded)>& key_rules);

  // answers[i] for keys[i], keys[0] the `first` key of the caller's call:
  // whether it was in the set (with `insert`, earlier keys count, and every
  // key is added). Returns the keys added. Throws SetFullAt past
  // max_bytes, naming the refused key by its place in the call: the keys
  // before it were answered and added.
  uint64_t run(const Key84* keys, uint64_t n, bool insert, uint8_t* answers, uint64_t first = 0);
  // Adds every key of `other` (the union), which must have the same key
  // rules (UsageError otherwise, this set unchanged). Throws Error
  // (set_full) past max_bytes, this set as it was (KeySet::merge).
  void merge(const LiveSet& other);
  // The set file at `path` (save_set_file), through `guard`
  // (gdedup/guarded_save.h): under PATH.lock and never over a version of
  // the file this set did not read.
  void save(const std::string& path, SaveGuard& guard) const;

  // How many keys a caller hashes at a time for this set's threads.
  uint64_t chunk_keys() const;
  KeySet& keys() { return set_; }
  const KeySet& keys() const { return set_; }
  const KeyRules& rules() const { return rules_; }

 private:
  LiveSet(KeySet set, const KeyRules& rules, const OptionNames& names);

  KeySet set_;
  KeyRules rules_;
  std::string cap_given_, cap_;  // the cap, as the program names it
};

}  // namespace gdedup
