// Reading set files and set checkpoints (docs/FORMAT.md, "Set file" and
// "Set checkpoint"). Everything the header's numbers decide is checked
// before it is allocated or trusted: the magic (a Bloom filter's file is
// named as one), the version, the header checksum, the section lengths
// against the file's, the key count against the keys section's length. The
// keys are then read a piece at a time, hashed and decoded into the set (or
// handed to a caller, format/set_stream.h); a set is returned only when
// their checksum matched and they decoded to exactly the count, ascending,
// below 2^84.
#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/checkpoint_format.h"
#include "format/file_reader.h"
#include "format/filter_file_format.h"
#include "format/filter_rules_codec.h"
#include "format/resume_state_codec.h"
#include "format/set_file_format.h"
#include "format/set_key_codec.h"
#include "format/set_stream.h"
#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/set_file.h"

namespace gdedup {
namespace {

using filter_file::get_u32;
using filter_file::get_u64;

// The checkpoint format version of set checkpoints' states before the
// Parquet output's footer (version 8).
constexpr uint32_t kStateVersionBeforeFooter = 7;
// Keys section bytes read and hashed at a time.
constexpr uint64_t kReadPiece = uint64_t{8} << 20;

const format::FileKind& kind_of(bool checkpoint) {
  static const format::FileKind kinds[2] = {
      [] {
        format::FileKind k;
        k.name = "set file";
        k.magic = set_file::kMagic;
        k.version = set_file::kVersion;
        k.damage_advice = "; build the set again or restore the file from a copy";
        return k;
      }(),
      [] {
        format::FileKind k;
        k.name = "set checkpoint";
        k.magic = set_file::kCheckpointMagic;
        k.version = set_file::kVersion;
        k.prefix = "set checkpoint ";
        k.suffix = "; it cannot be used to resume";
        return k;
      }()};
  return kinds[checkpoint ? 1 : 0];
}

bool has_magic(const unsigned char* h, const char* magic) {
  return std::memcmp(h + set_file::kOffMagic, magic, sizeof set_file::kMagic) == 0;
}

bool is_checkpoint_kind(const format::FileKind& kind) {
  return std::memcmp(kind.magic, set_file::kCheckpointMagic, sizeof set_file::kMagic) == 0;
}

// A Bloom filter's file or checkpoint given for a set's: named as what it
// is, since the wrong mode was chosen, not a damaged file; the front end
// says how to use it in its mode (ErrorKind::other_mode). Without the kind's
// words ("set checkpoint ck ...; it cannot be used to resume"), which would
// say the opposite.
[[noreturn]] void refuse_bloom_filter(bool checkpoint, const std::string& path,
                                      bool bloom_checkpoint) {
  throw Error(std::string(checkpoint ? "checkpoint " : "") + fs::printable(path) +
                  " is a Bloom filter" + (bloom_checkpoint ? "'s checkpoint" : " file") +
                  ", not an exact set" + (checkpoint ? "'s checkpoint" : "") +
                  (checkpoint ? "" : ": a Bloom filter cannot become a set"),
              ErrorKind::other_mode);
}

// A file of another kind is named as what it is: a Bloom filter's file
// cannot become a set, and a set's checkpoint is not the set it saves.
void check_kind(const format::FileKind& kind, const std::string& path, const unsigned char* h,
                uint64_t have) {
  if (have == 0) format::refuse(kind, path, "is empty; it is not a gdedup " + kind.name);
  const bool checkpoint = is_checkpoint_kind(kind);
  if (have >= sizeof set_file::kMagic) {
    if (has_magic(h, kind.magic)) return;
    if (has_magic(h, filter_file::kMagic) || has_magic(h, filter_file::kCheckpointMagic)) {
      refuse_bloom_filter(checkpoint, path, has_magic(h, filter_file::kCheckpointMagic));
    }
    if (has_magic(h, set_file::kCheckpointMagic)) {
      format::refuse(kind, path, "is a gdedup set checkpoint, not a set file",
                     ErrorKind::is_checkpoint);
    }
    if (has_magic(h, set_file::kMagic)) {
      format::refuse(kind, path, "is a gdedup set file, not a set checkpoint");
    }
  } else if (std::memcmp(h, kind.magic, static_cast<size_t>(have)) == 0) {
    format::refuse(kind, path, "is truncated: it is " + std::to_string(have) +
                                   " bytes long, shorter than the " +
                                   std::to_string(set_file::kHeaderBytes) + "-byte header");
  }
  format::refuse(kind, path, "is not a gdedup " + kind.name + " (bad magic)");
}

struct Opened {
  format::VerifiedFile file;
  unsigned char header[set_file::kHeaderBytes];
  uint64_t keys = 0;
  uint64_t rules_bytes = 0;
  uint64_t state_bytes = 0;
  uint64_t keys_bytes = 0;
};

void check_lengths(const format::FileKind& kind, const std::string& path, const Opened& f) {
  const bool checkpoint = is_checkpoint_kind(kind);
  if (!checkpoint && (f.state_bytes != 0 || get_u64(f.header + set_file::kOffStateChecksum))) {
    format::refuse(kind, path, "is inconsistent: its header declares a " +
                                   std::to_string(f.state_bytes) + "-byte resume state, which "
                                   "a set file does not hold");
  }
  const unsigned __int128 expected = static_cast<unsigned __int128>(set_file::kHeaderBytes) +
                                     f.rules_bytes + f.state_bytes + f.keys_bytes;
  if (expected != f.file.size) {
    std::string parts = "its " + std::to_string(set_file::kHeaderBytes) + "-byte header, " +
                        std::to_string(f.rules_bytes) + "-byte rules, " +
                        (checkpoint ? std::to_string(f.state_bytes) + "-byte resume state "
                                    : std::string()) +
                        "and " + std::to_string(f.keys_bytes) + "-byte keys";
    const std::string total = expected > UINT64_MAX
                                  ? std::string("more than 2^64")
                                  : std::to_string(static_cast<uint64_t>(expected));
    const std::string sizes =
        ": it is " + std::to_string(f.file.size) + " bytes, but " + parts + " make " + total +
        " bytes";
    if (expected > f.file.size) {
      format::refuse(kind, path, "is truncated" + sizes + "; it was cut short, e.g. by an "
                                 "interrupted copy or a full disk");
    }
    format::refuse(kind, path, "has extra bytes" + sizes + "; something was appended to it or "
                               "it is not a gdedup " + kind.name);
  }
  if (f.keys_bytes < format::min_keys_bytes(f.keys)) {
    format::refuse(kind, path, "is inconsistent: its header counts " + std::to_string(f.keys) +
                                   " keys, which take at least " +
                                   std::to_string(format::min_keys_bytes(f.keys)) +
                                   " bytes, but its keys section has " +
                                   std::to_string(f.keys_bytes));
  }
}

void open_set(const format::FileKind& kind, const std::string& path, Opened& f) {
  format::open_regular(kind, path, f.file);
  const int64_t have = format::read_head(kind, f.file, f.header, set_file::kHeaderBytes);
  check_kind(kind, path, f.header, static_cast<uint64_t>(have));
  if (static_cast<uint64_t>(have) < set_file::kHeaderBytes) {
    format::refuse(kind, path, "is truncated: it is " + std::to_string(have) +
                                   " bytes long, shorter than the " +
                                   std::to_string(set_file::kHeaderBytes) + "-byte header");
  }
  const uint32_t version = get_u32(f.header + set_file::kOffVersion);
  if (version != set_file::kVersion) {
    format::refuse(kind, path, "was written in " + kind.name + " format version " +
                                   std::to_string(version) + ", but this program reads only "
                                   "version " + std::to_string(set_file::kVersion) +
                                   "; use the gdedup release that wrote it");
  }
  if (get_u64(f.header + set_file::kOffHeaderChecksum) !=
      XXH3_64bits(f.header, set_file::kOffHeaderChecksum)) {
    format::refuse(kind, path, "is damaged: its header does not match the header checksum" +
                                   kind.damage_advice);
  }
  const uint32_t header_bytes = get_u32(f.header + set_file::kOffHeaderBytes);
  if (header_bytes != set_file::kHeaderBytes) {
    format::refuse(kind, path, "declares a " + std::to_string(header_bytes) +
                                   "-byte header, but format version " +
                                   std::to_string(version) + " has " +
                                   std::to_string(set_file::kHeaderBytes) + "-byte headers");
  }
  f.file.version = version;
  f.keys = get_u64(f.header + set_file::kOffKeyCount);
  f.rules_bytes = get_u64(f.header + set_file::kOffRulesBytes);
  f.state_bytes = get_u64(f.header + set_file::kOffStateBytes);
  f.keys_bytes = get_u64(f.header + set_file::kOffKeysBytes);
  check_lengths(kind, path, f);
}

// The section at `offset`, verified against the checksum at `checksum_at`.
std::string read_section(const format::FileKind& kind, const Opened& f, uint64_t offset,
                         uint64_t length, size_t checksum_at, const std::string& name) {
  std::string bytes(static_cast<size_t>(length), '\0');
  format::read_exactly(kind, f.file, bytes.data(), length, offset);
  if (XXH3_64bits(bytes.data(), bytes.size()) != get_u64(f.header + checksum_at)) {
    format::refuse(kind, f.file.file.name(), "is damaged: its " + name + " does not match the " +
                                                 name + " checksum" + kind.damage_advice);
  }
  return bytes;
}

KeyRules read_rules(const format::FileKind& kind, const Opened& f) {
  const std::string& path = f.file.file.name();
  const std::string bytes = read_section(kind, f, set_file::kHeaderBytes, f.rules_bytes,
                                         set_file::kOffRulesChecksum, "rules");
  const FilterRules rules = format::decode_filter_rules(path, bytes, filter_file::kVersion);
  if (!rules.keys || rules.growth) {
    format::refuse(kind, path, "has rules without key rules or with a growth rule (its "
                               "checksums match, so it was written by a program that does not "
                               "follow the set file format)");
  }
  return *rules.keys;
}

ResumeState read_state(const format::FileKind& kind, const Opened& f) {
  const std::string& path = f.file.file.name();
  const std::string bytes =
      read_section(kind, f, set_file::kHeaderBytes + f.rules_bytes, f.state_bytes,
                   set_file::kOffStateChecksum, "resume state");
  // The set checkpoint's header says no checkpoint version: its state is
  // one of version 8 or, written before a Parquet output's footer came
  // into it, of version 7. The footer's length is the difference, so at
  // most one of the two decodes.
  uint32_t version = checkpoint_file::kVersion;
  ResumeState state;
  try {
    state = format::decode_resume_state(path, bytes, version);
  } catch (const Error&) {
    // Its refusal says what the first one's would: the state is malformed.
    version = kStateVersionBeforeFooter;
    state = format::decode_resume_state(path, bytes, version);
  }
  state.file_version = version;
  state.loaded_from = path;
  return state;
}

SetFileInfo info_of(const format::FileKind& kind, const Opened& f) {
  return SetFileInfo{read_rules(kind, f), f.keys, f.file.version, f.file.size};
}

// The keys section, a piece at a time, to `sink`.
void read_keys(const format::FileKind& kind, const Opened& f, const KeySink& sink) {
  const std::string& path = f.file.file.name();
  format::SetKeyDecoder decoder(f.keys, sink);
  // Decoding stops at the first problem, hashing goes on: a damaged file is
  // reported as damaged, the decoder's problem only when the checksum
  // matches (a program that does not follow the format wrote it).
  std::optional<std::string> problem;
  auto decode = [&](auto&& step) {
    if (problem) return;
    try {
      step();
    } catch (const format::SetKeyDecoder::Problem& p) {
      problem = p.text;
    }
  };
  std::vector<unsigned char> piece(static_cast<size_t>(std::min(f.keys_bytes, kReadPiece)));
  const uint64_t offset = set_file::kHeaderBytes + f.rules_bytes + f.state_bytes;
  const uint64_t got =
      filter_file::checksum_stream(f.keys_bytes, piece.size(), [&](uint64_t done, uint64_t n) {
        format::read_exactly(kind, f.file, piece.data(), n, offset + done);
        decode([&] { decoder.feed(piece.data(), static_cast<size_t>(n)); });
        return static_cast<const unsigned char*>(piece.data());
      });
  decode([&] { decoder.finish(); });
  if (got != get_u64(f.header + set_file::kOffKeysChecksum)) {
    format::refuse(kind, path,
                   "is damaged: its keys do not match the keys checksum" + kind.damage_advice);
  }
  if (problem) {
    format::refuse(kind, path, *problem + "; its checksums match, so it was written by a "
                                          "program that does not follow the " + kind.name +
                                          " format");
  }
}

// The file's head to `start`, then its keys to `sink` (read_set_streamed).
void read_set(const format::FileKind& kind, const std::string& path, const SetStart& start,
              const KeySink& sink) {
  Opened f;
  open_set(kind, path, f);
  const SetFileInfo info = info_of(kind, f);
  std::optional<ResumeState> state;
  if (is_checkpoint_kind(kind)) state = read_state(kind, f);
  // A cap or memory too small for the keys: say which file needed it.
  auto named = [&](const std::function<void()>& step) {
    try {
      step();
    } catch (const Error& e) {
      throw Error("cannot load " + kind.name + " " + fs::printable(path) + " of " +
                      std::to_string(f.keys) + " keys: " + e.what(),
                  e);
    }
  };
  named([&] { start(info, state ? &*state : nullptr); });
  read_keys(kind, f, [&](const Key84* keys, size_t n) { named([&] { sink(keys, n); }); });
}

// The file at `path` with its keys inserted into `Keys(key count,
// args...)`: the whole set (a KeySet), or its sizing; its head, and a
// checkpoint's resume state.
template <class Keys>
struct Loaded {
  std::optional<Keys> keys;
  SetFileInfo info;
  std::optional<ResumeState> state;
};

// Room for a file's `keys` keys before they are inserted: a KeySet takes it
// within its cap (KeySet::reserve), so that a set which fitted the cap grown
// key by key loads within it too; a sizing figures the set so loaded.
void make_room(std::optional<KeySet>& set, uint64_t keys, const KeySetOptions& options) {
  set.emplace(0, options);
  set->reserve(keys);
}
void make_room(std::optional<KeySetSizing>& sizing, uint64_t keys) { sizing.emplace(keys); }

template <class Keys, class... Args>
Loaded<Keys> load_whole(bool checkpoint, const std::string& path, const Args&... args) {
  Loaded<Keys> out;
  read_set(kind_of(checkpoint), path,
           [&](const SetFileInfo& info, const ResumeState* state) {
             out.info = info;
             if (state != nullptr) out.state = *state;
             make_room(out.keys, info.keys, args...);
           },
           [&](const Key84* keys, size_t n) { out.keys->insert(keys, n); });
  return out;
}

bool starts_with(const std::string& path, const char* magic) {
  fs::File file;
  fs::FileStatus status;
  if (fs::open_without_waiting(path, file, status) != 0 || !status.regular()) return false;
  unsigned char h[sizeof set_file::kMagic];
  return fs::read_at(file.fd(), h, sizeof h, 0) == static_cast<int64_t>(sizeof h) &&
         has_magic(h, magic);
}

}  // namespace

SetFile load_set_file(const std::string& path, const KeySetOptions& options) {
  Loaded<KeySet> file = load_whole<KeySet>(false, path, options);
  return SetFile{std::move(*file.keys), file.info.rules, file.info.version, file.info.file_bytes};
}

SetFileInfo read_set_info(const std::string& path, bool checkpoint) {
  const format::FileKind& kind = kind_of(checkpoint);
  Opened f;
  open_set(kind, path, f);
  return info_of(kind, f);
}

void check_set_cap(uint64_t bytes, uint64_t cap, const std::string& what,
                   const std::string& cap_given) {
  if (cap != 0 && bytes > cap) {
    throw Error(what + " takes " + human_bytes(bytes) + ", more than " + cap_given + " allows",
                ErrorKind::set_full, bytes, cap);
  }
}

SetFileInfo check_set_file_cap(const std::string& path, bool checkpoint, uint64_t cap,
                               const std::string& cap_given) {
  SetFileInfo info = read_set_info(path, checkpoint);
  check_set_cap(KeySet::bytes_for(info.keys), cap,
                std::string("the set of ") + (checkpoint ? "checkpoint " : "") + path, cap_given);
  return info;
}

SetCheckpoint load_set_checkpoint(const std::string& path, const KeySetOptions& options) {
  Loaded<KeySet> file = load_whole<KeySet>(true, path, options);
  return SetCheckpoint{std::move(*file.keys), file.info.rules, std::move(*file.state),
                       file.info.file_bytes};
}

void read_set_streamed(const std::string& path, bool checkpoint, const SetStart& start,
                       const KeySink& sink) {
  read_set(kind_of(checkpoint), path, start, sink);
}

SetFileSummary summarize_set(const std::string& path, bool checkpoint) {
  Loaded<KeySetSizing> file = load_whole<KeySetSizing>(checkpoint, path);
  return SetFileSummary{file.info, std::move(file.state), file.keys->bytes(), file.keys->load()};
}

bool is_set_file(const std::string& path) { return starts_with(path, set_file::kMagic); }

bool is_set_checkpoint(const std::string& path) {
  return starts_with(path, set_file::kCheckpointMagic);
}

}  // namespace gdedup
