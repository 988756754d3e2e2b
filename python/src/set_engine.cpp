#include "set_engine.h"

#include <algorithm>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/error.h"

namespace gdedup::python {
namespace {

// Records are hashed into chunks of this many keys for a set of one thread:
// 128 KiB, which stay in the cache from their hashing to their answers
// (Python objects too, since they are read a window at a time:
// hash_objects in key_input.cpp).
constexpr uint64_t kChunkKeysOneThread = uint64_t{1} << 13;
// And for more threads (8 MiB): enough keys to share among them.
constexpr uint64_t kChunkKeysThreads = uint64_t{1} << 19;

}  // namespace

SetEngine::SetEngine(uint64_t capacity, const KeySetOptions& options, const KeyRules& rules)
    : set_(KeySet::sized(capacity, options,
                         KeySetSizeNames{"capacity=" + std::to_string(capacity), "capacity",
                                         "max_memory=" + std::to_string(options.max_bytes),
                                         "max_memory"})),
      rules_(rules),
      chunk_keys_(options.threads == 1 ? kChunkKeysOneThread : kChunkKeysThreads) {}

SetEngine::SetEngine(SetFile file, const KeyRules& rules)
    : set_(std::move(file.set)),
      rules_(rules),
      chunk_keys_(set_.options().threads == 1 ? kChunkKeysOneThread : kChunkKeysThreads) {}

uint64_t SetEngine::run(const Key84* keys, uint64_t n, bool insert, uint8_t* answers,
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
                    "not allocate its next table; give max_memory to stop it with SetFullError "
                    "before memory runs out",
                ErrorKind::out_of_memory);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::set_full) throw;
    // The set names the key by its place in `keys`, a chunk of the call:
    // the refused key is the first of them the set does not hold, since
    // those before it were added.
    std::vector<uint8_t> held(n);
    set_.contains(keys, n, held.data());
    const uint64_t refused = static_cast<uint64_t>(
        std::find(held.begin(), held.end(), uint8_t{0}) - held.begin());
    throw SetFull("the set holds " + std::to_string(set_.size()) + " keys in " +
                      std::to_string(set_.bytes()) + " bytes, and key " +
                      std::to_string(first + refused) + " (counting from 0) of the call would "
                      "make it grow to " + std::to_string(e.needed()) + " bytes, past "
                      "max_memory=" + std::to_string(e.available()) + ": the keys before it "
                      "were added, it and the rest not; give a larger max_memory",
                  e, first + refused);
  }
}

uint64_t SetEngine::run(const KeyInput& input, const KeyHasher& hasher, bool insert,
                        uint8_t* answers) {
  uint64_t added = 0;
  // A call of many keys takes room for them, as a job on a file does (a
  // call within the sample takes none).
  RoomFromSample room;
  for_each_chunk(input, hasher, chunk_keys_, chunk_, scratch_,
                 [&](const Key84* keys, uint64_t n, uint64_t at) {
                   const uint64_t fresh = run(keys, n, insert, answers + at, at);
                   added += fresh;
                   if (insert) room.after(set_, n, fresh, input.size - (at + n));
                 });
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

void SetEngine::save(const std::string& path, SaveGuard& guard) const {
  guard.save(path, [&] { save_set_file(set_, rules_, path); });
}

}  // namespace gdedup::python
