// Filter files (docs/FORMAT.md, "Filter file"). Version 4: a 4096-byte
// header, the rules section (format/filter_rules_codec.h), then the layers
// section (format/layers_codec.h) with each bit array at a multiple of 4096
// bytes, so that a mapping of the file holds them page-aligned. Still read:
// version 3, the same with the bit arrays back to back after the layer
// table; version 2, version 3 with rules that record no record separator;
// version 1, the header, then one bit array. Reading and writing are those
// of every gdedup file (file_reader.h, file_writer.h); this file says what a
// filter file is.
#include "gdedup/filter_file.h"

#include <sys/types.h>

#include <cerrno>
#include <algorithm>
#include <memory>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/file_reader.h"
#include "format/filter_file_format.h"
#include "format/filter_rules_codec.h"
#include "format/layers_codec.h"
#include "fs/file_ops.h"
#include "fs/memory.h"
#include "fs/replacement.h"
#include "gdedup/error.h"
#include "gdedup/frontend/path_text.h"

namespace gdedup {

// The bit array is copied between memory and the file as it lies in memory;
// the format stores it little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "filter files store the bit array little-endian; a big-endian "
              "host would need to swap its words on save and load");
static_assert(sizeof(off_t) == 8, "filter files need 64-bit file offsets");

namespace {

using namespace filter_file;

format::FileKind filter_kind() {
  format::FileKind k;
  k.name = "filter file";
  k.magic = kMagic;
  k.version = kVersion;
  k.oldest_version = kVersion1;
  k.reserved_from = kOffReserved;
  k.other_name = "checkpoint";
  k.other_magic = kCheckpointMagic;
  k.other_error = ErrorKind::is_checkpoint;
  k.version_advice = "use the gdedup release that wrote it (or restore the file if its header "
                     "is damaged)";
  k.damage_advice = "; rebuild the filter or restore the file from a copy";
  return k;
}

void write_current(const std::string& path, const std::vector<format::LayerView>& layers,
                   const FilterRules& rules) {
  const std::string rules_bytes = format::encode_filter_rules(rules);
  fs::Replacement file(path, "cannot save filter to " + fs::printable(path));
  unsigned char header[kHeaderBytes] = {};
  file.write(header, kHeaderBytes);
  file.write(rules_bytes.data(), rules_bytes.size());
  const uint64_t layers_at = kHeaderBytes + rules_bytes.size();
  format::write_layers(file, layers_at, layers, format::kBitArrayAlign);
  std::memcpy(header + kOffMagic, kMagic, sizeof kMagic);
  put_u32(header + kOffVersion, kVersion);
  put_u32(header + kOffHeaderBytes, static_cast<uint32_t>(kHeaderBytes));
  put_u64(header + kOffRulesBytes, rules_bytes.size());
  put_u64(header + kOffRulesChecksum, XXH3_64bits(rules_bytes.data(), rules_bytes.size()));
  put_u64(header + kOffLayersBytes,
          format::layers_bytes(layers, layers_at, format::kBitArrayAlign));
  seal_header(header);
  file.pwrite(header, kHeaderBytes, 0);
  file.commit();
}

// A verified file: its rules, and where its layers lie and what they hold.
struct Opened {
  format::VerifiedFile file;
  FilterRules rules;
  // Versions 2 to 4: the layers section. Version 1: the header's one filter.
  uint64_t layers_at = 0;
  format::LayerTable table;
};

// A growing filter's layers are the ones its rule plans, each in turn: a
// file whose layers are not cannot continue as it would have.
void check_layers_follow_rule(const format::FileKind& kind, const std::string& path,
                              const Opened& f) {
  if (!f.rules.growth) {
    if (f.table.layers.size() != 1) {
      format::refuse(kind, path, "is inconsistent: it holds " +
                                     std::to_string(f.table.layers.size()) +
                                     " layers but no growth rule, and a fixed filter has one");
    }
    return;
  }
  for (size_t i = 0; i < f.table.layers.size(); ++i) {
    const FilterFields& layer = f.table.layers[i];
    Plan plan;
    try {
      plan = plan_layer(*f.rules.growth, static_cast<uint32_t>(i));
    } catch (const Error& e) {
      format::refuse(kind, path, "is inconsistent: its growth rule cannot plan layer " +
                                     std::to_string(i + 1) + ": " + e.what());
    }
    if (plan.num_blocks != layer.params.num_blocks || !(plan.layout == layer.params.layout) ||
        plan.capacity != layer.counters.planned_capacity) {
      format::refuse(kind, path, "is inconsistent: its layer " + std::to_string(i + 1) +
                                     " has " + std::to_string(layer.params.num_blocks) +
                                     " blocks for " +
                                     std::to_string(layer.counters.planned_capacity) +
                                     " keys, but its growth rule plans " +
                                     std::to_string(plan.num_blocks) + " blocks for " +
                                     std::to_string(plan.capacity));
    }
  }
}

void open_sections(const format::FileKind& kind, const std::string& path, Opened& f) {
  format::check_reserved(kind, f.file, kOffReservedV2);
  const uint64_t rules_bytes = get_u64(f.file.header + kOffRulesBytes);
  const uint64_t layers_bytes = get_u64(f.file.header + kOffLayersBytes);
  if (rules_bytes > f.file.size || f.file.size - rules_bytes < kHeaderBytes) {
    format::refuse(kind, path, "is truncated: it is " + std::to_string(f.file.size) +
                                   " bytes long, but its header and rules take " +
                                   std::to_string(kHeaderBytes) + " + " +
                                   std::to_string(rules_bytes) + " bytes");
  }
  std::string rules(rules_bytes, '\0');
  format::read_exactly(kind, f.file, rules.data(), rules_bytes, kHeaderBytes);
  if (XXH3_64bits(rules.data(), rules.size()) != get_u64(f.file.header + kOffRulesChecksum)) {
    format::refuse(kind, path, "is damaged: its rules do not match the rules checksum" +
                                   kind.damage_advice);
  }
  f.rules = format::decode_filter_rules(path, rules, f.file.version);
  f.layers_at = kHeaderBytes + rules_bytes;
  f.table = format::read_layer_table(kind, f.file, f.layers_at,
                                     f.file.version >= kVersion4 ? format::kBitArrayAlign : 1);
  if (f.table.bytes != layers_bytes || f.file.size - f.layers_at != layers_bytes) {
    format::refuse(kind, path, "is inconsistent: its header declares " +
                                   std::to_string(layers_bytes) + " bytes of layers, its layer "
                                   "table " + std::to_string(f.table.bytes) + ", and " +
                                   std::to_string(f.file.size - f.layers_at) +
                                   " bytes follow the rules");
  }
  if (f.rules.keys && f.rules.keys->seed != f.table.layers[0].params.seed) {
    format::refuse(kind, path, "is inconsistent: its key rules name another hash seed than its "
                               "layers");
  }
  check_layers_follow_rule(kind, path, f);
}

// Opens `path` and verifies everything but the bit arrays, allocating
// nothing that the file's numbers decide.
void open_filter_file(const format::FileKind& kind, const std::string& path, Opened& f) {
  format::open_header(kind, path, f.file);
  if (f.file.version >= kVersion2) return open_sections(kind, path, f);
  format::check_reserved(kind, f.file, kOffReserved);
  f.file.fields = decode_fields(f.file.header);
  format::check_filter_fields(kind, path, f.file.fields, "");
  format::check_length(kind, f.file, 0, "");
  f.table.layers = {f.file.fields};
  f.table.at = {kHeaderBytes};
}

}  // namespace

void save_filter(const Filter& filter, const std::string& path,
                 const std::optional<KeyRules>& keys) {
  write_current(path, {format::view_of(filter)}, FilterRules{keys, std::nullopt, 0});
}

void save_filter(const LayeredFilter& filter, const std::string& path,
                 const std::optional<KeyRules>& keys) {
  std::vector<format::LayerView> layers;
  for (size_t i = 0; i < filter.layer_count(); ++i) layers.push_back(format::view_of(filter.layer(i)));
  write_current(path, layers, FilterRules{keys, filter.rule(), filter.keys_offered()});
}

void save_filter_file(const FilterFile& file, const std::string& path) {
  if (!file.rules.growth && file.layers.size() != 1) {
    throw UsageError("a fixed filter has one layer; this one has " +
                     std::to_string(file.layers.size()) + " and no growth rule");
  }
  std::vector<format::LayerView> layers;
  for (const Filter& layer : file.layers) layers.push_back(format::view_of(layer));
  write_current(path, layers, file.rules);
}

void save_filter_streamed(const std::vector<StreamedLayer>& layers, const FilterRules& rules,
                          const std::string& path) {
  if (!rules.growth && layers.size() != 1) {
    throw UsageError("a fixed filter has one layer; this one has " +
                     std::to_string(layers.size()) + " and no growth rule");
  }
  std::vector<format::LayerView> views;
  for (const StreamedLayer& layer : layers) {
    views.push_back(format::LayerView{nullptr, layer.params, layer.counters, layer.read});
  }
  write_current(path, views, rules);
}

void read_filter_slice(const std::string& path, size_t layer, uint64_t from, uint64_t length,
                       unsigned char* into, bool verify_all) {
  const format::FileKind kind = filter_kind();
  Opened f;
  open_filter_file(kind, path, f);
  if (layer >= f.table.layers.size()) {
    throw UsageError("layer " + std::to_string(layer + 1) + " of filter file " +
                     fs::printable(path) + " was asked for, but it holds " +
                     std::to_string(f.table.layers.size()));
  }
  const FilterFields& fields = f.table.layers[layer];
  format::read_bit_array_slice(kind, f.file, f.table.at[layer], fields.payload_bytes,
                               fields.payload_checksum, from, length, into, verify_all,
                               f.file.version >= kVersion2
                                   ? "layer " + std::to_string(layer + 1) + "'s bit array"
                                   : "bit array");
}

FilterFileInfo read_filter_info(const std::string& path) {
  Opened f;
  open_filter_file(filter_kind(), path, f);
  FilterFileInfo info;
  for (const FilterFields& layer : f.table.layers) {
    info.params.push_back(layer.params);
    info.counters.push_back(layer.counters);
  }
  info.rules = f.rules;
  info.version = f.file.version;
  return info;
}

FilterFile load_filter_file(const std::string& path) {
  const format::FileKind kind = filter_kind();
  Opened f;
  open_filter_file(kind, path, f);
  FilterFile out;
  out.rules = f.rules;
  out.version = f.file.version;
  if (f.file.version >= kVersion2) {
    out.layers = format::read_layers(kind, f.file, f.layers_at, f.table);
    return out;
  }
  try {
    out.layers.emplace_back(f.file.fields.params);
  } catch (const Error& e) {  // out of memory: say which file needed it
    throw Error("cannot load filter file " + fs::printable(path) + ": " + e.what(), e);
  }
  format::read_payload(kind, f.file, out.layers.back().words());
  out.layers.back().counters() = f.file.fields.counters;
  return out;
}

FilterFile map_filter_file(const std::string& path) {
  const format::FileKind kind = filter_kind();
  Opened f;
  open_filter_file(kind, path, f);
  if (f.file.version < kVersion4) {
    throw UsageError("cannot map filter file " + fs::printable(path) + ": it is version " +
                    std::to_string(f.file.version) + ", whose bit arrays are not aligned for use "
                    "in place (version " + std::to_string(kVersion4) + " aligns them to 4096 "
                    "bytes); load it without mapping, or save it again with this release to "
                    "write version " + std::to_string(kVersion4));
  }
  // Shared and read-only: every process that maps the file uses the page
  // cache's one copy. gdedup replaces files by rename, never rewrites them
  // in place, so the mapped bytes stay the verified ones for as long as the
  // mapping lives (a file truncated in place by another program would
  // fault its readers, as any mapped file does).
  const size_t size = static_cast<size_t>(f.file.size);
  const void* base = fs::map_file_read_only(f.file.file.fd(), size);
  if (base == nullptr) {
    const int err = errno;
    throw Error("cannot map filter file " + fs::printable(path) + " (" + std::to_string(size) +
                    " bytes): " + fs::error_text(err),
                err == ENOMEM ? ErrorKind::out_of_memory : ErrorKind::io);
  }
  const std::shared_ptr<const void> mapping(
      base, [size](const void* p) { fs::unmap(const_cast<void*>(p), size); });
  FilterFile out;
  out.rules = f.rules;
  out.version = f.file.version;
  for (size_t i = 0; i < f.table.layers.size(); ++i) {
    const FilterFields& fields = f.table.layers[i];
    const auto* bytes = static_cast<const unsigned char*>(base) + f.table.at[i];
    format::check_bit_array(kind, f.file, XXH3_64bits(bytes, fields.payload_bytes),
                            fields.payload_checksum,
                            "layer " + std::to_string(i + 1) + "'s bit array");
    out.layers.push_back(Filter::read_only_view(
        fields.params, reinterpret_cast<const uint32_t*>(bytes), mapping));
    out.layers.back().counters() = fields.counters;
  }
  return out;
}

Filter load_filter(const std::string& path) {
  FilterFile file = load_filter_file(path);
  if (file.layers.size() != 1) {
    throw Error("filter file " + fs::printable(path) + " holds a growing filter of " +
                std::to_string(file.layers.size()) +
                " layers, which one Filter cannot hold; load it with load_filter_file");
  }
  return std::move(file.layers.front());
}

}  // namespace gdedup
