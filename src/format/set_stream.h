// Set files and set checkpoints written from keys handed over a piece at a
// time, and read the same way, for a set that no one process holds whole
// (the ranks of an MPI job, each with its range of keys): the same bytes as
// save_set_file and save_set_checkpoint of a set of the same keys, and the
// same checks as load_set_file and load_set_checkpoint.
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

// Hands `sink` every key, ascending with no repeats, in pieces.
using KeySink = std::function<void(const Key84* keys, size_t n)>;
using SortedKeys = std::function<void(const KeySink& sink)>;

// save_set_file's file of the `key_count` keys that `keys` hands over, with
// `rules`; throws as save_set_file does.
void save_set_streamed(uint64_t key_count, const SortedKeys& keys, const KeyRules& rules,
                       const std::string& path);
// save_set_checkpoint's file of them, with `state`.
void save_set_checkpoint_streamed(uint64_t key_count, const SortedKeys& keys,
                                  const KeyRules& rules, const ResumeState& state,
                                  const std::string& path);

// What a file holds before its keys: `state` is a set checkpoint's, null
// for a set file.
using SetStart = std::function<void(const SetFileInfo& info, const ResumeState* state)>;

// Reads the set file at `path` (a set checkpoint where `checkpoint`) with
// every check of load_set_file (load_set_checkpoint), holding no more of it
// than a piece: `start` gets what it holds before any key, then `sink` every
// key, ascending. An Error either throws comes back naming the file. The
// keys' checksum is compared after the last key: what was handed over
// counts only when this returns.
void read_set_streamed(const std::string& path, bool checkpoint, const SetStart& start,
                       const KeySink& sink);

}  // namespace gdedup
