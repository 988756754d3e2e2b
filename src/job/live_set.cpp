#include "gdedup/live_set.h"

#include <algorithm>
#include <new>
#include <utility>
#include <vector>

#include "gdedup/job.h"

namespace gdedup {
namespace {

// Keys hashed at a time for a set of one thread: 128 KiB, which stay in the
// cache from their hashing to their answers.
constexpr uint64_t kChunkKeysOneThread = uint64_t{1} << 13;
// And for more threads (8 MiB): enough keys to share among them.
constexpr uint64_t kChunkKeysThreads = uint64_t{1} << 19;

}  // namespace

uint64_t live_set_cap(std::optional<uint64_t> max_memory, const OptionNames& names) {
  JobSpec spec;
  spec.exact = true;
  if (max_memory) {
    spec.max_memory = *max_memory;
    spec.given.insert(JobOption::kMaxMemory);
  }
  check_job_spec(spec, names);
  return spec.max_memory;
}

KeySetSizeNames key_set_size_names(const OptionNames& names) {
  return KeySetSizeNames{names.given(JobOption::kCapacity), names.name(JobOption::kCapacity),
                         names.given(JobOption::kMaxMemory), names.name(JobOption::kMaxMemory)};
}

KeySet new_key_set(uint64_t capacity, const KeySetOptions& options, const OptionNames& names) {
  return KeySet::sized(capacity, options, key_set_size_names(names));
}

LiveSet::LiveSet(KeySet set, const KeyRules& rules, const OptionNames& names)
    : set_(std::move(set)),
      rules_(rules),
      cap_given_(names.given(JobOption::kMaxMemory)),
      cap_(names.name(JobOption::kMaxMemory)) {}

LiveSet::LiveSet(uint64_t capacity, const KeySetOptions& options, const KeyRules& rules,
                 const OptionNames& names)
    : LiveSet(new_key_set(capacity, options, names), rules, names) {}

LiveSet::LiveSet(const std::string& path, const KeySetOptions& options, const OptionNames& names,
                 const std::function<KeyRules(const KeyRules& recorded)>& key_rules)
    : cap_given_(names.given(JobOption::kMaxMemory)), cap_(names.name(JobOption::kMaxMemory)) {
  key_rules(check_set_file_cap(path, false, options.max_bytes, cap_given_).rules);
  SetFile file = load_set_file(path, options);
  rules_ = key_rules(file.rules);
  check_set_cap(file.set.bytes(), options.max_bytes, "the set of " + path, cap_given_);
  set_ = std::move(file.set);
}

uint64_t LiveSet::chunk_keys() const {
  return set_.options().threads == 1 ? kChunkKeysOneThread : kChunkKeysThreads;
}

uint64_t LiveSet::run(const Key84* keys, uint64_t n, bool insert, uint8_t* answers,
                      uint64_t first) {
  if (!insert) {
    set_.contains(keys, n, answers);
    return 0;
  }
  try {
    return set_.test_and_insert(keys, n, answers);
  } catch (const std::bad_alloc&) {
    throw Error("the set of " + std::to_string(set_.size()) + " keys (" +
                    std::to_string(set_.bytes()) + " bytes) could not grow: this machine could "
                    "not allocate its next table; give " + cap_ + " to have it refused as full "
                    "before memory runs out",
                ErrorKind::out_of_memory);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::set_full) throw;
    // The set names the key by its place in `keys`: the refused key is the
    // first of them the set does not hold, since those before it were added.
    std::vector<uint8_t> held(n);
    set_.contains(keys, n, held.data());
    const uint64_t refused = static_cast<uint64_t>(
        std::find(held.begin(), held.end(), uint8_t{0}) - held.begin());
    throw SetFullAt("the set holds " + std::to_string(set_.size()) + " keys in " +
                        std::to_string(set_.bytes()) + " bytes, and key " +
                        std::to_string(first + refused) + " (counting from 0) of the call would "
                        "make it grow to " + std::to_string(e.needed()) + " bytes, past " +
                        cap_given_ + ": the keys before it were added, it and the rest not; "
                        "give a larger " + cap_,
                    e, first + refused);
  }
}

void LiveSet::merge(const LiveSet& other) {
  if (other.rules_ != rules_) {
    throw UsageError("cannot merge sets whose keys were made by different rules (\"" +
                     rules_.to_string() + "\" and \"" + other.rules_.to_string() +
                     "\"); their keys would not match");
  }
  if (&other == this) return;
  set_.merge(other.set_);
}

void LiveSet::save(const std::string& path, SaveGuard& guard) const {
  guard.save(path, [&] { save_set_file(set_, rules_, path); });
}

}  // namespace gdedup
