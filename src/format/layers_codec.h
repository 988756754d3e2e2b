// The layers of a filter as stored in a file (docs/FORMAT.md, "Layers"): a
// table of the layers' parameters, counters and bit array checksums, sealed
// by its own checksum, then the bit arrays. Filter files of versions 2 to 4
// hold one such section; any file that stores a growing filter
// stores its layers with these functions, so that every kind refuses the
// same damage in the same words. Filter files of version 4 align each bit
// array to a page (kBitArrayAlign); checkpoints do not.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "format/file_reader.h"
#include "format/file_writer.h"
#include "format/filter_file_format.h"
#include "fs/replacement.h"
#include "gdedup/filter.h"

namespace gdedup::format {

// One layer to write. The words need not be the filter's own: a writer in
// the background hands over a snapshot.
struct LayerView {
  const uint32_t* words;  // null: the bits come from `read`
  FilterParams params;
  FilterCounters counters;
  BitReader read = nullptr;  // used when `words` is null
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

// Where each bit array lies. With `align` 1 (checkpoints, filter files of
// versions 2 and 3) the arrays follow the table back to back; with a larger
// `align` (filter files of version 4: kBitArrayAlign) each starts at the
// first file offset past the end of the one before (or of the table) that
// is a multiple of `align`, the bytes between zero.
constexpr uint64_t kBitArrayAlign = 4096;
constexpr uint64_t aligned_offset(uint64_t at, uint64_t align) {
  return (at + align - 1) / align * align;
}

// Bytes of the section that holds `layers`, when it starts at file offset
// `offset`.
uint64_t layers_bytes(const std::vector<LayerView>& layers, uint64_t offset = 0,
                      uint64_t align = 1);

// Writes the section at `offset` of `out`, which holds exactly `offset`
// bytes so far: the table, then the bit arrays (hashed as they are
// written), then the table again at `offset` with their checksums.
// Throws Error as fs::Replacement does. The layers must be 1 to kMaxLayers
// and share one seed (UsageError otherwise). `align` as for layers_bytes.
void write_layers(fs::Replacement& out, uint64_t offset, const std::vector<LayerView>& layers,
                  uint64_t align = 1);

// The table of a section, verified.
struct LayerTable {
  std::vector<filter_file::FilterFields> layers;
  std::vector<uint64_t> at;  // the file offset of each layer's bit array
  uint64_t bytes = 0;  // the whole section: table, padding and bit arrays
};

// Reads and verifies the table of the section at `offset` of `f`: a layer
// count of 1 to kMaxLayers, the table checksum, each layer's parameters
// usable and its bit array size consistent with them, one seed for all,
// the whole section within the file, and the padding before each bit array
// (`align` as for layers_bytes) zero. Refuses the file (refuse()) naming
// the first problem; allocates nothing that the table's numbers decide.
LayerTable read_layer_table(const FileKind& kind, const VerifiedFile& f, uint64_t offset,
                            uint64_t align = 1);

// Allocates the layers of `table` (read_layer_table's of the section at
// `offset`) and reads their bit arrays where table.at says, checking each
// checksum; the counters come from the table.
std::vector<Filter> read_layers(const FileKind& kind, const VerifiedFile& f, uint64_t offset,
                                const LayerTable& table);

}  // namespace gdedup::format
