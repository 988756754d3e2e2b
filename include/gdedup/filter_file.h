// Saving and loading filters (format: docs/FORMAT.md, "Filter file"). A
// filter file holds the filter's layers (one for a fixed filter), the rule
// by which it grows, and the key rules its keys were made with, so that a
// loaded filter continues as it would have and is used only with those
// rules.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/filter.h"
#include "gdedup/growth.h"
#include "gdedup/key_rules.h"
#include "gdedup/layered_filter.h"

namespace gdedup {

// The version save_filter writes; load_filter reads it and versions 1 to 3.
inline constexpr uint32_t kFilterFileVersion = 4;

// What a filter file records besides the layers.
struct FilterRules {
  // nullopt: not recorded (version 1 files, and filters saved without them).
  std::optional<KeyRules> keys;
  // nullopt: a fixed filter of one layer, which never grows.
  std::optional<GrowthRule> growth;
  // Keys offered to the growing filter over its life (LayeredFilter).
  uint64_t keys_offered = 0;
};

struct FilterFile {
  std::vector<Filter> layers;  // oldest first
  FilterRules rules;
  uint32_t version = kFilterFileVersion;  // the version the file was written in
};

// ORs the layers of `other` into `into`, layer by layer. Layer j of filters
// that grow by one rule (or the one layer of fixed filters) is planned
// alike, so the OR of the filters is the OR of their layers; `into` takes
// the layers only `other` has. Throws UsageError (Filter::merge's) for a
// layer whose parameters differ; the caller checks the rules.
void merge_layers(std::vector<Filter>& into, std::vector<Filter> other);

// Writes to a new `path`.tmp.XXXXXX (O_EXCL, follows no link, never shared
// with another writer), fsyncs, renames over `path`, fsyncs the folder: a
// crash leaves either the old file or the new one. Throws Error on I/O
// failure, naming the file and the reason; the old file is then untouched.
// A fixed filter:
void save_filter(const Filter& filter, const std::string& path,
                 const std::optional<KeyRules>& keys = std::nullopt);
// A growing one, with its rule and the keys offered so far:
void save_filter(const LayeredFilter& filter, const std::string& path,
                 const std::optional<KeyRules>& keys);

// Any filter: its layers (one unless rules.growth is set, then those the
// rule plans, in turn) and its rules. Throws UsageError for layers that do
// not fit the rules.
void save_filter_file(const FilterFile& file, const std::string& path);

// One layer of a filter whose bits no one process holds whole (the ranks of
// an MPI job, docs/SCALE-OUT.md): its parameters and counters, and
// `read(offset, length, into)`, which copies bytes of its bit array into
// `into`; called in order of offset, at most 64 MiB at a time.
struct StreamedLayer {
  FilterParams params;
  FilterCounters counters;
  std::function<void(uint64_t offset, uint64_t length, unsigned char* into)> read;
};
// save_filter_file of such layers: the file is byte for byte the one
// save_filter writes for the same bits and rules.
void save_filter_streamed(const std::vector<StreamedLayer>& layers, const FilterRules& rules,
                          const std::string& path);
// Reads and verifies a filter file of any version: magic, version, every
// parameter, every checksum and the exact length. Throws Error naming the
// file and what is wrong with it; never returns a filter from a damaged
// file. A version 1 file is one fixed layer with unknown key rules; a
// version 2 file's key rules have the newline separator (it records none).
// A set file or set checkpoint of exact mode (gdedup/set_file.h) is refused
// as one (kind invalid_argument), as is a set checkpoint by load_checkpoint.
FilterFile load_filter_file(const std::string& path);

// Maps `path` read-only and shared (PROT_READ, MAP_SHARED) and returns its
// layers as read-only filters over the mapping (Filter::read_only_view),
// which they keep alive: processes that map one file share one copy of its
// bits through the page cache. Verifies what load_filter_file does, every
// bit array checksum included (reading each page once). Throws Error as
// load_filter_file does, and UsageError for a file of version 1 to 3,
// whose bit arrays are not page-aligned: those are loaded unmapped, or
// saved again (as version 4). Keys cannot be added to the layers.
FilterFile map_filter_file(const std::string& path);

// A fixed filter's one layer; a growing filter of several layers is
// refused (Error), since one Filter cannot hold it.
Filter load_filter(const std::string& path);

// Everything but the bit arrays (headers and tables verified, arrays not
// read).
struct FilterFileInfo {
  std::vector<FilterParams> params;      // per layer, oldest first
  std::vector<FilterCounters> counters;  // per layer
  FilterRules rules;
  uint32_t version;
};
FilterFileInfo read_filter_info(const std::string& path);

// Bytes [from, from + length) of the bit array of layer `layer` (0: the
// oldest, or a fixed filter's one) of the filter file at `path`, into
// `into`: for a process that holds part of the filter (the ranks of an MPI
// job). The file is verified as read_filter_info verifies it; the bit
// array's checksum covers the whole array, so it is checked only with
// `verify_all`, which reads the layer's whole array once more, a piece at
// a time. Throws Error as load_filter_file does, and UsageError for a layer
// or range the file does not hold.
void read_filter_slice(const std::string& path, size_t layer, uint64_t from, uint64_t length,
                       unsigned char* into, bool verify_all);

}  // namespace gdedup
