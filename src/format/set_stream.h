// A set file written from keys handed over a piece at a time, for a set that
// no one process holds whole (the ranks of an MPI job, each with its range
// of keys): the same bytes as save_set_file of a set of the same keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "gdedup/key_rules.h"
#include "gdedup/key_set.h"

namespace gdedup {

// Hands `sink` every key, ascending with no repeats, in pieces.
using KeySink = std::function<void(const Key84* keys, size_t n)>;
using SortedKeys = std::function<void(const KeySink& sink)>;

// save_set_file's file of the `key_count` keys that `keys` hands over, with
// `rules`; throws as save_set_file does.
void save_set_streamed(uint64_t key_count, const SortedKeys& keys, const KeyRules& rules,
                       const std::string& path);

}  // namespace gdedup
