// Checkpoint files: the filter file's header fields and bit array, followed
// by the resume state (docs/FORMAT.md, "Checkpoint file"). Reading and
// writing are those of every gdedup file (file_reader.h, file_writer.h);
// this file adds the resume state and its two header fields.
#include "format/checkpoint_file.h"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/checkpoint_format.h"
#include "format/file_reader.h"
#include "format/file_writer.h"
#include "format/resume_state_codec.h"
#include "fs/file_ops.h"
#include "gdedup/error.h"

namespace gdedup {
namespace {

using namespace checkpoint_file;

const format::FileKind& checkpoint_kind() {
  static const format::FileKind kind = [] {
    format::FileKind k;
    k.name = "checkpoint";
    k.magic = kMagic;
    k.version = kVersion;
    k.reserved_from = kOffReserved;
    k.other_name = "filter file";
    k.other_magic = filter_file::kMagic;
    k.version_advice = "finish the job with the gdedup release that wrote it, or start it again";
    k.prefix = "checkpoint ";
    k.suffix = "; it cannot be used to resume";
    return k;
  }();
  return kind;
}

struct Opened {
  format::VerifiedFile file;
  uint64_t state_bytes = 0;
  uint64_t state_checksum = 0;
};

void open_verified(const std::string& path, Opened& f) {
  const format::FileKind& kind = checkpoint_kind();
  format::open_verified(kind, path, f.file);
  f.state_bytes = get_u64(f.file.header + kOffStateBytes);
  f.state_checksum = get_u64(f.file.header + kOffStateChecksum);
  format::check_length(kind, f.file, f.state_bytes, "resume state");
}

ResumeState read_state(const Opened& f) {
  const format::FileKind& kind = checkpoint_kind();
  const std::string& path = f.file.file.name();
  std::string bytes(f.state_bytes, '\0');
  format::read_exactly(kind, f.file, bytes.data(), f.state_bytes,
                       kHeaderBytes + f.file.fields.payload_bytes);
  if (XXH3_64bits(bytes.data(), bytes.size()) != f.state_checksum) {
    format::refuse(kind, path, "is damaged: its resume state does not match the state checksum");
  }
  ResumeState s = format::decode_resume_state(path, bytes);
  s.params = f.file.fields.params;
  s.insertions = f.file.fields.counters.insertions;
  s.loaded_from = path;
  return s;
}

}  // namespace

namespace format {

void write_checkpoint_file(const uint32_t* words, const FilterParams& params,
                           const FilterCounters& counters, const ResumeState& state,
                           const std::string& path) {
  std::string encoded = encode_resume_state(state);
  const uint64_t state_bytes = encoded.size();
  const uint64_t state_checksum = XXH3_64bits(encoded.data(), encoded.size());
  format::write_file(path, "cannot write checkpoint " + path,
                     {kMagic, kVersion, words, params, counters, std::move(encoded),
                      [&](unsigned char* h) {
                        put_u64(h + kOffStateBytes, state_bytes);
                        put_u64(h + kOffStateChecksum, state_checksum);
                      }});
}

}  // namespace format

void save_checkpoint(const Filter& filter, const ResumeState& state, const std::string& path) {
  format::write_checkpoint_file(filter.words(), filter.params(), filter.counters(), state,
                                  path);
}

bool is_checkpoint_file(const std::string& path) {
  fs::File file;
  if (fs::open_for_reading(path, file) != 0) return false;
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
  return Checkpoint{std::move(filter), std::move(state)};
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

}  // namespace gdedup
