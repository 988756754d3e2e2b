// Set files and set checkpoints written from keys handed over a piece at a
// time, for a set that no one process holds whole (the ranks of an MPI job,
// each with its range of keys): the same bytes as save_set_file and
// save_set_checkpoint of a set of the same keys. They are read the same
// way by read_set_streamed (gdedup/set_file.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "gdedup/checkpoint.h"
#include "gdedup/key_rules.h"
#include "gdedup/key_set.h"
#include "gdedup/set_file.h"

namespace gdedup {

using SortedKeys = std::function<void(const KeySink& sink)>;

// save_set_file's file of the `key_count` keys that `keys` hands over, with
// `rules`; throws as save_set_file does.
void save_set_streamed(uint64_t key_count, const SortedKeys& keys, const KeyRules& rules,
                       const std::string& path);
// save_set_checkpoint's file of them, with `state`.
void save_set_checkpoint_streamed(uint64_t key_count, const SortedKeys& keys,
                                  const KeyRules& rules, const ResumeState& state,
                                  const std::string& path);

}  // namespace gdedup
