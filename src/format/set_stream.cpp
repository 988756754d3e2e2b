// save_set_streamed on save_set_file: the keys are gathered into a set, and
// the set saved. The set file's writer codes keys as they come, ascending
// (docs/FORMAT.md, "Set file"), so this can hand them to it directly once it
// takes a key count and a source of sorted keys; until then the process
// that saves holds every key.
#include "format/set_stream.h"

#include "gdedup/set_file.h"

namespace gdedup {

void save_set_streamed(uint64_t key_count, const SortedKeys& keys, const KeyRules& rules,
                       const std::string& path) {
  KeySet all(key_count);
  keys([&](const Key84* piece, size_t n) { all.insert(piece, n); });
  save_set_file(all, rules, path);
}

}  // namespace gdedup
