#include "format/layers_codec.h"

#include <algorithm>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gdedup/error.h"
#include "gdedup/growth.h"

namespace gdedup::format {
namespace {

using namespace filter_file;

void check_writable(const std::vector<LayerView>& layers) {
  if (layers.empty() || layers.size() > kMaxLayers) {
    throw UsageError("a filter file holds 1 to " + std::to_string(kMaxLayers) +
                     " layers; this filter has " + std::to_string(layers.size()));
  }
  for (size_t i = 1; i < layers.size(); ++i) {
    if (layers[i].params.seed != layers[0].params.seed) {
      throw UsageError("layer " + std::to_string(i + 1) + " of the filter has another hash seed "
                       "than layer 1; all layers of a filter share one seed");
    }
  }
}

// The table of `layers`, their bit array checksums given.
std::string encode_table(const std::vector<LayerView>& layers,
                         const std::vector<uint64_t>& checksums) {
  std::string table(table_bytes(layers.size()), '\0');
  auto* at = reinterpret_cast<unsigned char*>(table.data());
  put_u64(at, layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    put_fields(at + kLayerCountBytes + i * kLayerEntryBytes, layers[i].params, layers[i].counters,
               checksums[i]);
  }
  const uint64_t sealed = table.size() - kTableChecksumBytes;
  put_u64(at + sealed, XXH3_64bits(at, sealed));
  return table;
}

std::string layer_name(size_t i) { return "layer " + std::to_string(i + 1); }

}  // namespace

LayerView view_of(const Filter& layer) {
  if (!layer.whole()) {
    throw UsageError("a part of a filter (" + std::to_string(layer.held_blocks()) + " of its " +
                     std::to_string(layer.params().num_blocks) + " blocks) cannot be saved "
                     "alone; save the whole filter");
  }
  return {layer.words(), layer.params(), layer.counters()};
}

uint64_t layers_bytes(const std::vector<LayerView>& layers, uint64_t offset, uint64_t align) {
  uint64_t end = offset + table_bytes(layers.size());
  for (const LayerView& layer : layers) end = aligned_offset(end, align) + layer.params.bytes();
  return end - offset;
}

void write_layers(fs::Replacement& out, uint64_t offset, const std::vector<LayerView>& layers,
                  uint64_t align) {
  check_writable(layers);
  static const unsigned char kZeros[kBitArrayAlign] = {};
  uint64_t end = offset + table_bytes(layers.size());
  std::vector<uint64_t> checksums(layers.size(), 0);
  // Zero checksums until the arrays are hashed: a file cut short here is
  // refused by its table checksum.
  const std::string unsealed = encode_table(layers, checksums);
  out.write(unsealed.data(), unsealed.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    for (const uint64_t to = aligned_offset(end, align); end < to;) {
      const uint64_t n = std::min<uint64_t>(to - end, sizeof kZeros);
      out.write(kZeros, n);
      end += n;
    }
    end += layers[i].params.bytes();
    checksums[i] = write_bit_array(out, reinterpret_cast<const unsigned char*>(layers[i].words),
                                   layers[i].params.bytes(), layers[i].read);
  }
  const std::string table = encode_table(layers, checksums);
  out.pwrite(table.data(), table.size(), offset);
}

LayerTable read_layer_table(const FileKind& kind, const VerifiedFile& f, uint64_t offset,
                            uint64_t align) {
  const std::string& path = f.file.name();
  auto truncated = [&](uint64_t needed, const std::string& what) {
    refuse(kind, path, "is truncated: it is " + std::to_string(f.size) + " bytes long, but " +
                           what + " end at byte " + std::to_string(needed) +
                           "; it was cut short, e.g. by an interrupted copy or a full disk");
  };
  if (offset > f.size || f.size - offset < kLayerCountBytes) {
    truncated(offset + kLayerCountBytes, "its layer count would");
  }
  unsigned char count_bytes[kLayerCountBytes];
  read_exactly(kind, f, count_bytes, kLayerCountBytes, offset);
  const uint64_t count = get_u64(count_bytes);
  if (count == 0 || count > kMaxLayers) {
    refuse(kind, path, "is damaged: it declares " + std::to_string(count) +
                           " layers, but a filter has 1 to " + std::to_string(kMaxLayers) +
                           kind.damage_advice);
  }
  const uint64_t table_size = table_bytes(count);
  if (f.size - offset < table_size) truncated(offset + table_size, "its layer table would");
  std::string table(table_size, '\0');
  auto* at = reinterpret_cast<unsigned char*>(table.data());
  read_exactly(kind, f, at, table_size, offset);
  const uint64_t sealed = table_size - kTableChecksumBytes;
  if (get_u64(at + sealed) != XXH3_64bits(at, sealed)) {
    refuse(kind, path, "is damaged: its layer table does not match the layer table checksum" +
                           kind.damage_advice);
  }
  LayerTable out;
  uint64_t end = offset + table_size;  // of the table or the last bit array
  for (uint64_t i = 0; i < count; ++i) {
    const FilterFields layer = get_fields(at + kLayerCountBytes + i * kLayerEntryBytes);
    // validate() keeps a layer under 2^47 bytes, so 64 of them cannot
    // overflow the sum.
    check_filter_fields(kind, path, layer, layer_name(i));
    if (layer.params.seed != get_fields(at + kLayerCountBytes).params.seed) {
      refuse(kind, path, "is inconsistent: its " + layer_name(i) + " has another hash seed than "
                             "layer 1, but all layers of a filter share one seed");
    }
    out.at.push_back(aligned_offset(end, align));
    end = out.at.back() + layer.payload_bytes;
    out.layers.push_back(layer);
  }
  out.bytes = end - offset;
  if (f.size - offset < out.bytes) truncated(end, "its layers' bit arrays would");
  // The padding before each array: zero, as written (under `align` bytes).
  uint64_t from = offset + table_size;
  for (size_t i = 0; i < out.layers.size(); ++i) {
    unsigned char padding[kBitArrayAlign];
    for (uint64_t p = from; p < out.at[i];) {
      const uint64_t n = std::min<uint64_t>(out.at[i] - p, sizeof padding);
      read_exactly(kind, f, padding, n, p);
      for (uint64_t j = 0; j < n; ++j) {
        if (padding[j] != 0) {
          refuse(kind, path, "is damaged: byte " + std::to_string(p + j) + ", in the zero "
                                 "padding before its " + layer_name(i) + "'s bit array (bytes " +
                                 std::to_string(from) + " .. " + std::to_string(out.at[i] - 1) +
                                 "), is not zero" + kind.damage_advice);
        }
      }
      p += n;
    }
    from = out.at[i] + out.layers[i].payload_bytes;
  }
  return out;
}

std::vector<Filter> read_layers(const FileKind& kind, const VerifiedFile& f, uint64_t /*offset*/,
                                const LayerTable& table) {
  std::vector<Filter> layers;
  for (size_t i = 0; i < table.layers.size(); ++i) {
    const FilterFields& fields = table.layers[i];
    try {
      layers.emplace_back(fields.params);
    } catch (const Error& e) {  // out of memory: say which file needed it
      throw Error("cannot load " + kind.name + " " + f.file.name() + ": " + e.what(), e);
    }
    read_bit_array(kind, f, table.at[i], fields.payload_bytes, fields.payload_checksum,
                   layers.back().words(), layer_name(i) + "'s bit array");
    layers.back().counters() = fields.counters;
  }
  return layers;
}

}  // namespace gdedup::format
