// Saving and loading the sets of exact mode (format: docs/FORMAT.md, "Set
// file" and "Set checkpoint"). A set file holds the set's keys, in
// ascending order, and the key rules they were made with: its bytes are a
// function of the keys and the rules alone, not of the order the keys came
// in, the batches, threads or growth. A set checkpoint holds the same and
// the state a streaming run continues from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "gdedup/checkpoint.h"
#include "gdedup/key_rules.h"
#include "gdedup/key_set.h"

namespace gdedup {

inline constexpr uint32_t kSetFileVersion = 1;

struct SetFile {
  KeySet set;
  KeyRules rules;
  uint32_t version = kSetFileVersion;  // the version the file was written in
  uint64_t file_bytes = 0;             // the file's length, as verified
};

// Writes through a unique temporary file beside `path` (no link followed,
// never shared), fsync, rename over `path`, fsync of the folder, as
// save_filter does: a crash leaves the old file or the new one. Throws
// Error naming the file and the reason; the old file is then untouched.
void save_set_file(const KeySet& set, const KeyRules& rules, const std::string& path);

// Reads and verifies a set file: magic, version, checksums, the exact
// length, and that the keys decode to exactly the count, ascending, with
// no repeats; the keys are read a piece at a time, and no set is returned
// from a file that fails any check. `options` are the loaded set's
// (threads, cap); room for the file's keys is taken at once only within the
// cap (KeySet::reserve), so a set that fits the cap grown key by key loads
// within it. Throws Error naming the file and what is wrong: of kind
// damaged for a damaged file, is_checkpoint for a set checkpoint, and
// invalid_argument, saying what it is, for a Bloom filter's file or
// checkpoint (a Bloom filter cannot become a set); an Error of the set's
// own (set_full past the cap) names the file too.
SetFile load_set_file(const std::string& path, const KeySetOptions& options = {});

// The rules, key count and length of a set file (a set checkpoint where
// `checkpoint`), verified as load_set_file (load_set_checkpoint) verifies
// them, without reading its keys: for a tool that checks files before it
// loads any (gdedup merge, a job's cap).
struct SetFileInfo {
  KeyRules rules;
  uint64_t keys = 0;
  uint32_t version = kSetFileVersion;
  uint64_t file_bytes = 0;
};
SetFileInfo read_set_info(const std::string& path, bool checkpoint = false);

// Throws Error of kind set_full (with `bytes` and `cap`), "`what` takes
// ..., more than `cap_given` allows", when `bytes` pass `cap` (0: no cap):
// a set loaded past the cap of the job or object that loads it. cap_given
// names the cap as its user gave it ("--max-memory 1000", "max_memory=1000").
void check_set_cap(uint64_t bytes, uint64_t cap, const std::string& what,
                   const std::string& cap_given);
// check_set_cap of the set file at `path` (a set checkpoint where
// `checkpoint`) from its header, before its keys are read into memory they
// would take: a loaded set takes at least KeySet::bytes_for its keys.
// Returns the header (read_set_info), for the caller's other checks.
SetFileInfo check_set_file_cap(const std::string& path, bool checkpoint, uint64_t cap,
                               const std::string& cap_given);

// True when `path` starts with the set file's magic (false when it cannot
// be read): for tools that take any kind of file.
bool is_set_file(const std::string& path);

struct SetCheckpoint {
  KeySet set;
  KeyRules rules;
  // params, insertions and growth unused; file_version is the checkpoint
  // format version of the state's encoding, loaded_from the file.
  ResumeState state;
  uint64_t file_bytes = 0;  // the file's length, as verified
};

// As save_set_file, with `state` (its params, insertions, growth and
// later_layers, which describe a Bloom filter, are not stored).
void save_set_checkpoint(const KeySet& set, const KeyRules& rules, const ResumeState& state,
                         const std::string& path);
// As load_set_file, with the resume state; a set file given for one is
// refused (kind damaged), a Bloom filter's checkpoint with invalid_argument.
SetCheckpoint load_set_checkpoint(const std::string& path, const KeySetOptions& options = {});
bool is_set_checkpoint(const std::string& path);

// What a set file (a set checkpoint where `checkpoint`) holds, read and
// verified as load_set_file (load_set_checkpoint) reads it, without its
// set: its keys stream by a piece at a time, and the tables of the set
// they would load into are figured from them (KeySetSizing), so that the
// memory this takes does not grow with the set's (gdedup info).
struct SetFileSummary {
  SetFileInfo info;
  std::optional<ResumeState> state;  // a set checkpoint's
  uint64_t bytes = 0;                // the loaded set's tables (KeySet::bytes)
  double load = 0;                   // and its load (KeySet::load)
};
SetFileSummary summarize_set(const std::string& path, bool checkpoint);

// Hands `sink` every key, ascending with no repeats, in pieces.
using KeySink = std::function<void(const Key84* keys, size_t n)>;
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
