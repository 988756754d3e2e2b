// Checkpoint files: the filter file's header fields and bit array, followed
// by the resume state, the growth section and the later layers of a growing
// filter (docs/FORMAT.md, "Checkpoint file"). Reading and writing are those
// of every gdedup file (file_reader.h, file_writer.h) and the later layers
// those of every file that stores layers (layers_codec.h); this file adds
// the two sections after the first bit array and their header fields.
#include "format/checkpoint_file.h"

#include <cstdio>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/checkpoint_format.h"
#include "format/file_reader.h"
#include "format/file_writer.h"
#include "format/growth_codec.h"
#include "format/resume_state_codec.h"
#include "fs/file_ops.h"
#include "gdedup/error.h"

namespace gdedup {
namespace {

using namespace checkpoint_file;

format::FileKind checkpoint_kind_with(const std::string& suffix) {
  format::FileKind k;
  k.name = "checkpoint";
  k.magic = kMagic;
  k.version = kVersion;
  k.oldest_version = kOldestVersion;
  k.reserved_from = kOffReserved;
  k.other_name = "filter file";
  k.other_magic = filter_file::kMagic;
  k.version_advice = "finish the job with the gdedup release that wrote it, or start it again";
  k.prefix = "checkpoint ";
  k.suffix = suffix;
  return k;
}

const format::FileKind& checkpoint_kind() {
  static const format::FileKind kind = checkpoint_kind_with("; it cannot be used to resume");
  return kind;
}

// The layers section holds the layers after the first: its refusals say
// so, as they number the layers within the section.
const format::FileKind& later_layers_kind() {
  static const format::FileKind kind = checkpoint_kind_with(
      " (in its section of the layers after the first, where layer 1 is the filter's layer "
      "2); it cannot be used to resume");
  return kind;
}

// A checkpoint whose header, state and growth sections are located and the
// growth verified; the bit arrays and the state are read separately.
struct Opened {
  format::VerifiedFile file;
  uint64_t state_bytes = 0;
  uint64_t state_checksum = 0;
  format::SavedGrowth growth;
  // The layers section of a growing filter of more than one layer.
  uint64_t later_offset = 0;
  format::LayerTable later;
};

std::string read_section(const Opened& f, uint64_t offset, uint64_t length, uint64_t checksum,
                         const std::string& name) {
  const format::FileKind& kind = checkpoint_kind();
  std::string bytes(length, '\0');
  format::read_exactly(kind, f.file, bytes.data(), length, offset);
  if (XXH3_64bits(bytes.data(), bytes.size()) != checksum) {
    format::refuse(kind, f.file.file.name(),
                   "is damaged: its " + name + " does not match the " + name + " checksum");
  }
  return bytes;
}

// Version 4 has no growth section: its bytes from 96 are reserved.
void check_oldest_reserved(const Opened& f) {
  const size_t i = first_nonzero_byte(f.file.header, kOffGrowthBytes);
  if (i == kOffHeaderChecksum) return;
  format::refuse(checkpoint_kind(), f.file.file.name(),
                 "has a nonzero reserved header byte at offset " + std::to_string(i) +
                     "; it was written by a program that does not follow checkpoint format "
                     "version " + std::to_string(kOldestVersion));
}

void open_verified(const std::string& path, Opened& f) {
  const format::FileKind& kind = checkpoint_kind();
  format::open_verified(kind, path, f.file);
  const unsigned char* h = f.file.header;
  f.state_bytes = get_u64(h + kOffStateBytes);
  f.state_checksum = get_u64(h + kOffStateChecksum);
  if (f.file.version == kOldestVersion) {
    check_oldest_reserved(f);
    format::check_length(kind, f.file, f.state_bytes, "resume state");
    return;
  }
  const uint64_t growth_bytes = get_u64(h + kOffGrowthBytes);
  const std::string sections = "resume state and growth section";
  if (f.state_bytes > UINT64_MAX / 4 || growth_bytes > UINT64_MAX / 4) {
    format::check_length(kind, f.file, UINT64_MAX, sections);  // refuses the size
  }
  // The growth says whether a layers section follows: the file must hold
  // it before it is read.
  const uint64_t growth_end =
      kHeaderBytes + f.file.fields.payload_bytes + f.state_bytes + growth_bytes;
  if (f.file.size < growth_end) {
    format::check_length(kind, f.file, f.state_bytes + growth_bytes, sections);
  }
  const std::string growth = read_section(f, growth_end - growth_bytes, growth_bytes,
                                          get_u64(h + kOffGrowthChecksum), "growth section");
  f.growth = format::decode_growth(path, growth);
  uint64_t later_bytes = 0;
  if (f.growth.layers > 1) {
    f.later_offset = growth_end;
    f.later = format::read_layer_table(later_layers_kind(), f.file, growth_end);
    if (f.later.layers.size() + 1 != f.growth.layers ||
        f.later.layers[0].params.seed != f.file.fields.params.seed) {
      format::refuse(kind, path, "is inconsistent: its growth section counts " +
                                     std::to_string(f.growth.layers) + " layers and the seed of "
                                     "layer 1, but its layers section holds " +
                                     std::to_string(f.later.layers.size()) +
                                     " more layers, or of another seed");
    }
    later_bytes = f.later.bytes;
  }
  format::check_length(kind, f.file, f.state_bytes + growth_bytes + later_bytes,
                       later_bytes == 0 ? sections : sections + " and later layers");
}

ResumeState read_state(const Opened& f) {
  const std::string& path = f.file.file.name();
  const std::string bytes =
      read_section(f, kHeaderBytes + f.file.fields.payload_bytes, f.state_bytes,
                   f.state_checksum, "resume state");
  ResumeState s = format::decode_resume_state(path, bytes, f.file.version);
  s.params = f.file.fields.params;
  s.insertions = f.file.fields.counters.insertions;
  s.growth = f.growth.growth;
  for (const filter_file::FilterFields& layer : f.later.layers) {
    s.later_layers.push_back(SavedLayer{layer.params, layer.counters.insertions});
  }
  s.file_version = f.file.version;
  s.loaded_from = path;
  return s;
}

}  // namespace

namespace format {

void write_checkpoint_file(const std::vector<LayerView>& layers, const ResumeState& state,
                           const std::string& path) {
  std::string encoded = encode_resume_state(state);
  const uint64_t state_bytes = encoded.size();
  const uint64_t state_checksum = XXH3_64bits(encoded.data(), encoded.size());
  const std::string growth =
      encode_growth(SavedGrowth{state.growth, static_cast<uint32_t>(layers.size())});
  const uint64_t growth_checksum = XXH3_64bits(growth.data(), growth.size());
  encoded += growth;
  const std::vector<LayerView> later(layers.begin() + 1, layers.end());
  const LayerView& first = layers.front();
  FileContents contents{kMagic, kVersion, first.words, first.params, first.counters,
                        std::move(encoded), nullptr, [&](unsigned char* h) {
                          put_u64(h + kOffStateBytes, state_bytes);
                          put_u64(h + kOffStateChecksum, state_checksum);
                          put_u64(h + kOffGrowthBytes, growth.size());
                          put_u64(h + kOffGrowthChecksum, growth_checksum);
                        },
                        first.read};
  if (!later.empty()) {
    contents.write_more = [&](fs::Replacement& out, uint64_t offset) {
      write_layers(out, offset, later);
    };
  }
  format::write_file(path, "cannot write checkpoint " + path, contents);
}

FilterCounters read_checkpoint_slice(const std::string& path, size_t layer, uint64_t from,
                                     uint64_t length, unsigned char* into, bool verify_all) {
  Opened f;
  open_verified(path, f);
  const size_t layers = 1 + f.later.layers.size();
  if (layer >= layers) {
    throw UsageError("layer " + std::to_string(layer + 1) + " of checkpoint " + path +
                     " was asked for, but it holds " + std::to_string(layers));
  }
  if (layer == 0) {
    read_bit_array_slice(checkpoint_kind(), f.file, kHeaderBytes, f.file.fields.payload_bytes,
                         f.file.fields.payload_checksum, from, length, into, verify_all,
                         "bit array");
    return f.file.fields.counters;
  }
  const filter_file::FilterFields& fields = f.later.layers[layer - 1];
  read_bit_array_slice(later_layers_kind(), f.file, f.later.at[layer - 1], fields.payload_bytes,
                       fields.payload_checksum, from, length, into, verify_all,
                       "layer " + std::to_string(layer + 1) + "'s bit array");
  return fields.counters;
}

}  // namespace format

void save_checkpoint(const Filter& filter, const ResumeState& state, const std::string& path) {
  ResumeState fixed = state;
  fixed.growth.reset();
  format::write_checkpoint_file({format::view_of(filter)}, fixed, path);
}

void save_checkpoint(const LayeredFilter& filter, const ResumeState& state,
                     const std::string& path) {
  ResumeState growing = state;
  growing.growth = GrowthState{filter.rule(), filter.max_bytes(), filter.keys_offered()};
  std::vector<format::LayerView> layers;
  for (size_t i = 0; i < filter.layer_count(); ++i) layers.push_back(format::view_of(filter.layer(i)));
  format::write_checkpoint_file(layers, growing, path);
}

void save_checkpoint(const Checkpoint& checkpoint, const std::string& path) {
  std::vector<format::LayerView> layers{format::view_of(checkpoint.filter)};
  for (const Filter& layer : checkpoint.later_layers) layers.push_back(format::view_of(layer));
  format::write_checkpoint_file(layers, checkpoint.state, path);
}

bool is_checkpoint_file(const std::string& path) {
  fs::File file;
  fs::FileStatus status;
  if (fs::open_without_waiting(path, file, status) != 0 || !status.regular()) return false;
  char magic[sizeof kMagic];
  return fs::read_at(file.fd(), magic, sizeof magic, kOffMagic) ==
             static_cast<int64_t>(sizeof magic) &&
         std::memcmp(magic, kMagic, sizeof magic) == 0;
}

ResumeState read_checkpoint_state(const std::string& path) {
  Opened f;
  open_verified(path, f);
  return read_state(f);
}

Checkpoint load_checkpoint(const std::string& path) {
  Opened f;
  open_verified(path, f);
  ResumeState state = read_state(f);
  Filter filter = [&] {
    try {
      return Filter(f.file.fields.params);
    } catch (const Error& e) {  // out of memory: say which file needed it
      throw Error("cannot load checkpoint " + path + ": " + e.what(), e);
    }
  }();
  format::read_payload(checkpoint_kind(), f.file, filter.words());
  filter.counters() = f.file.fields.counters;
  Checkpoint checkpoint{std::move(filter), std::move(state), {}};
  if (!f.later.layers.empty()) {
    checkpoint.later_layers =
        format::read_layers(later_layers_kind(), f.file, f.later_offset, f.later);
  }
  return checkpoint;
}

std::unique_ptr<LayeredFilter> resume_growing_filter(Checkpoint& checkpoint,
                                                     BackendMaker make_backend) {
  if (!checkpoint.state.growth) {
    throw UsageError("checkpoint " + checkpoint.state.loaded_from + " holds a fixed filter, "
                     "not one that grows; resume it with its filter and a backend");
  }
  const GrowthState& growth = *checkpoint.state.growth;
  std::vector<Filter> layers;
  layers.push_back(std::move(checkpoint.filter));
  for (Filter& layer : checkpoint.later_layers) layers.push_back(std::move(layer));
  checkpoint.later_layers.clear();
  auto filter = std::make_unique<LayeredFilter>(growth.rule, std::move(layers),
                                                growth.keys_offered, std::move(make_backend));
  filter->set_max_bytes(growth.max_bytes);
  return filter;
}

void check_checkpoint_params(const FilterParams& saved, const FilterParams& requested) {
  auto differs = [](const std::string& what, const std::string& a, const std::string& b) {
    throw Error("the filter " + what + " differs from the checkpoint's: the checkpoint has " + a +
                    ", this run asks for " + b + "; resume with the options of the interrupted run",
                ErrorKind::resume_mismatch);
  };
  if (!(saved.layout == requested.layout)) {
    differs("layout", std::to_string(saved.layout.block_bits) + "-bit blocks with k = " +
                          std::to_string(saved.layout.k),
            std::to_string(requested.layout.block_bits) + "-bit blocks with k = " +
                std::to_string(requested.layout.k));
  }
  if (saved.seed != requested.seed) {
    differs("seed", std::to_string(saved.seed), std::to_string(requested.seed));
  }
  if (saved.num_blocks != requested.num_blocks) {
    differs("size", std::to_string(saved.num_blocks) + " blocks",
            std::to_string(requested.num_blocks) + " blocks");
  }
}

namespace {

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

void check_checkpoint_growth(const std::optional<GrowthState>& saved,
                             const std::optional<GrowthState>& requested) {
  auto differs = [](const std::string& what, const std::string& a, const std::string& b) {
    throw Error("the filter's " + what + " differs from the checkpoint's: the checkpoint has " +
                    a + ", this run asks for " + b +
                    "; resume with the options of the interrupted run",
                ErrorKind::resume_mismatch);
  };
  auto kind = [](const std::optional<GrowthState>& g) {
    return g ? std::string("a filter that grows") : std::string("a fixed filter");
  };
  if (saved.has_value() != requested.has_value()) {
    differs("growth", kind(saved), kind(requested));
  }
  if (!saved) return;
  const GrowthRule& a = saved->rule;
  const GrowthRule& b = requested->rule;
  auto keys = [](uint64_t n) { return std::to_string(n) + " keys"; };
  if (a.first_capacity != b.first_capacity) {
    differs("first layer", keys(a.first_capacity), keys(b.first_capacity));
  }
  if (a.target_fpr != b.target_fpr) {
    differs("target false-positive rate", number_text(a.target_fpr), number_text(b.target_fpr));
  }
  if (a.growth != b.growth) {
    differs("growth factor", std::to_string(a.growth), std::to_string(b.growth));
  }
  if (a.tightening != b.tightening) {
    differs("tightening ratio", number_text(a.tightening), number_text(b.tightening));
  }
  auto block_bits = [](uint32_t bits) {
    return bits == 0 ? std::string("block size chosen per layer")
                     : std::to_string(bits) + "-bit blocks";
  };
  if (a.block_bits != b.block_bits) {
    differs("block size", block_bits(a.block_bits), block_bits(b.block_bits));
  }
  if (a.check_every != b.check_every) {
    differs("growth check interval", keys(a.check_every), keys(b.check_every));
  }
  auto limit = [](uint64_t bytes) {
    return bytes == 0 ? std::string("no memory limit") : std::to_string(bytes) + " bytes";
  };
  if (saved->max_bytes != requested->max_bytes) {
    differs("memory limit", limit(saved->max_bytes), limit(requested->max_bytes));
  }
}

}  // namespace gdedup
