#include "set_engine.h"

#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "gdedup/error.h"

namespace gdedup::python {
namespace {

// Records are hashed into chunks of this many keys (8 MiB) for the set:
// bounded memory beside the records, and enough keys for its threads.
constexpr uint64_t kChunkKeys = uint64_t{1} << 19;

}  // namespace

SetEngine::SetEngine(uint64_t capacity, const KeySetOptions& options, const KeyRules& rules)
    : set_(KeySet::sized(capacity, options,
                         KeySetSizeNames{"capacity=" + std::to_string(capacity), "capacity",
                                         "max_memory=" + std::to_string(options.max_bytes),
                                         "max_memory"})),
      rules_(rules) {}

uint64_t SetEngine::run(const Key84* keys, uint64_t n, bool insert, uint8_t* answers) {
  if (!insert) {
    set_.contains(keys, n, answers);
    return 0;
  }
  try {
    return set_.test_and_insert(keys, n, answers);
  } catch (const std::bad_alloc&) {
    throw Error("the set of " + std::to_string(set_.size()) + " keys (" +
                    std::to_string(set_.bytes()) + " bytes) could not grow: this machine could "
                    "not allocate its next table; give max_memory to stop it with SetFullError "
                    "before memory runs out",
                ErrorKind::out_of_memory);
  }
}

uint64_t SetEngine::run(const KeyInput& input, const KeyHasher& hasher, bool insert,
                        uint8_t* answers) {
  uint64_t added = 0, at = 0;
  std::vector<Key84> chunk;
  std::string scratch;
  for (const auto& part : input.parts) {
    if (const Key84* hashed = part->keys84()) {
      added += run(hashed, part->size(), insert, answers + at);
    } else {
      chunk.resize(std::min(part->size(), kChunkKeys));
      for (uint64_t begin = 0; begin < part->size(); begin += kChunkKeys) {
        const uint64_t count = std::min(kChunkKeys, part->size() - begin);
        part->hash(begin, count, hasher, scratch, chunk.data());
        added += run(chunk.data(), count, insert, answers + at + begin);
      }
    }
    at += part->size();
  }
  return added;
}

void SetEngine::merge(const SetEngine& other) {
  if (other.rules_ != rules_) {
    throw UsageError("cannot merge sets whose keys were made by different rules (\"" +
                     rules_.to_string() + "\" and \"" + other.rules_.to_string() +
                     "\"); their keys would not match");
  }
  if (&other == this) return;
  set_.merge(other.set_);
}

}  // namespace gdedup::python
