// The layers of a filter as stored in a file (docs/FORMAT.md, "Layers"): a
// table of the layers' parameters, counters and bit array checksums, sealed
// by its own checksum, then the bit arrays back to back. Filter files of
// version 2 hold one such section; any file that stores a growing filter
// stores its layers with these functions, so that every kind refuses the
// same damage in the same words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/file_reader.h"
#include "format/filter_file_format.h"
#include "fs/replacement.h"
#include "gdedup/filter.h"

namespace gdedup::format {

// One layer to write. The words need not be the filter's own: a writer in
// the background hands over a snapshot.
struct LayerView {
  const uint32_t* words;
  FilterParams params;
  FilterCounters counters;
};
LayerView view_of(const Filter& layer);

// Section offsets: a u64 layer count, then one entry of
// filter_file::kFieldsBytes per layer (the fields of a version 1 header, in
// its order), then the table checksum, then the bit arrays.
constexpr uint64_t kLayerCountBytes = 8;
constexpr uint64_t kLayerEntryBytes = filter_file::kFieldsBytes;
constexpr uint64_t kTableChecksumBytes = 8;
constexpr uint64_t table_bytes(uint64_t layers) {
  return kLayerCountBytes + layers * kLayerEntryBytes + kTableChecksumBytes;
}

// Bytes of the section that holds `layers`.
uint64_t layers_bytes(const std::vector<LayerView>& layers);

// Writes the section at `offset` of `out`, which holds exactly `offset`
// bytes so far: the table, then the bit arrays (hashed as they are
// written), then the table again at `offset` with their checksums.
// Throws Error as fs::Replacement does. The layers must be 1 to kMaxLayers
// and share one seed (UsageError otherwise).
void write_layers(fs::Replacement& out, uint64_t offset, const std::vector<LayerView>& layers);

// The table of a section, verified.
struct LayerTable {
  std::vector<filter_file::FilterFields> layers;
  uint64_t bytes = 0;  // the whole section, table and bit arrays
};

// Reads and verifies the table of the section at `offset` of `f`: a layer
// count of 1 to kMaxLayers, the table checksum, each layer's parameters
// usable and its bit array size consistent with them, one seed for all,
// and the whole section within the file. Refuses the file (refuse()) naming
// the first problem; allocates nothing that the table's numbers decide.
LayerTable read_layer_table(const FileKind& kind, const VerifiedFile& f, uint64_t offset);

// Allocates the layers of `table` and reads their bit arrays, checking each
// checksum; the counters come from the table.
std::vector<Filter> read_layers(const FileKind& kind, const VerifiedFile& f, uint64_t offset,
                                const LayerTable& table);

}  // namespace gdedup::format
