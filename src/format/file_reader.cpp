#include "format/file_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "format/set_file_format.h"
#include "gdedup/error.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::format {
namespace {

using namespace filter_file;

// Large enough to amortize system calls, small enough to stay in cache-sized
// pieces while hashing.
constexpr uint64_t kReadChunk = uint64_t{8} << 20;

[[noreturn]] void cannot(const FileKind& kind, const std::string& doing,
                         const std::string& path, int err) {
  throw Error("cannot " + doing + " " + kind.name + " " + fs::printable(path) + ": " +
                  fs::error_text(err),
              ErrorKind::io);
}

[[noreturn]] void refuse_short_header(const FileKind& kind, const std::string& path,
                                      uint64_t have) {
  refuse(kind, path, "is truncated: it is " + std::to_string(have) +
                         " bytes long, shorter than the " + std::to_string(kHeaderBytes) +
                         "-byte header of a gdedup " + kind.name);
}

// A set of exact mode (gdedup/set_file.h) given for a Bloom filter's file:
// said in words, since the wrong mode was chosen, not a damaged file; the
// front end says how to use it in its mode (ErrorKind::other_mode). The
// kind's suffix ("it cannot be used to resume") would say the opposite.
void refuse_exact_set(const FileKind& kind, const std::string& path, const unsigned char* h) {
  const bool set = std::memcmp(h + kOffMagic, set_file::kMagic, sizeof kMagic) == 0;
  const bool checkpoint =
      std::memcmp(h + kOffMagic, set_file::kCheckpointMagic, sizeof kMagic) == 0;
  if (!set && !checkpoint) return;
  const bool for_checkpoint = std::memcmp(kind.magic, kCheckpointMagic, sizeof kMagic) == 0;
  throw Error(kind.prefix + fs::printable(path) + " is an exact set" +
                  (checkpoint ? "'s checkpoint" : "") + ", not a Bloom " +
                  (for_checkpoint ? "filter's checkpoint" : "filter file"),
              ErrorKind::other_mode);
}

// Magic and version come before the checksum: a file of another kind or
// another version has a header this program cannot checksum, and saying so
// helps more than "checksum mismatch".
void check_identity(const FileKind& kind, const std::string& path, const unsigned char* h,
                    uint64_t have) {
  if (have == 0) refuse(kind, path, "is empty; it is not a gdedup " + kind.name);
  const size_t magic_have = static_cast<size_t>(std::min<uint64_t>(have, sizeof kMagic));
  if (std::memcmp(h + kOffMagic, kind.magic, magic_have) != 0) {
    if (have >= sizeof kMagic && std::memcmp(h + kOffMagic, kind.other_magic, sizeof kMagic) == 0) {
      refuse(kind, path, "is a gdedup " + kind.other_name + ", not a " + kind.name,
             kind.other_error);
    }
    if (have >= sizeof kMagic) refuse_exact_set(kind, path, h);
    refuse(kind, path, "is not a gdedup " + kind.name + " (bad magic)");
  }
  if (have < kOffVersion + 4) refuse_short_header(kind, path, have);
  const uint32_t version = get_u32(h + kOffVersion);
  const uint32_t oldest = kind.oldest_version == 0 ? kind.version : kind.oldest_version;
  if (version < oldest || version > kind.version) {
    const std::string read = oldest == kind.version
                                 ? "only version " + std::to_string(kind.version)
                                 : "versions " + std::to_string(oldest) + " to " +
                                       std::to_string(kind.version);
    refuse(kind, path, "was written in " + kind.name + " format version " +
                           std::to_string(version) + ", but this program reads " + read + "; " +
                           kind.version_advice);
  }
  if (have < kHeaderBytes) refuse_short_header(kind, path, have);
}

// The fields are trusted only after the checksum matched.
void check_integrity(const FileKind& kind, const std::string& path, const unsigned char* h) {
  if (get_u64(h + kOffHeaderChecksum) != header_checksum(h)) {
    refuse(kind, path, "is damaged: its header does not match the header checksum" +
                           kind.damage_advice);
  }
  const uint32_t header_bytes = get_u32(h + kOffHeaderBytes);
  if (header_bytes != kHeaderBytes) {
    refuse(kind, path, "declares a " + std::to_string(header_bytes) +
                           "-byte header, but format version " +
                           std::to_string(get_u32(h + kOffVersion)) + " has " +
                           std::to_string(kHeaderBytes) +
                           "-byte headers; the program that wrote it does not follow the format");
  }
}

}  // namespace

void check_filter_fields(const FileKind& kind, const std::string& path, const FilterFields& f,
                         const std::string& subject) {
  if (const auto problem = unusable_params(f.params)) {
    refuse(kind, path, subject.empty() ? *problem : "has a " + subject + " that " + *problem);
  }
  // validate() bounds the size, so bytes() cannot overflow here.
  if (f.payload_bytes != f.params.bytes()) {
    refuse(kind, path, "is inconsistent: its " + (subject.empty() ? "header" : subject) +
                           " declares a " + std::to_string(f.payload_bytes) +
                           "-byte bit array, but " + std::to_string(f.params.num_blocks) +
                           " blocks of " + std::to_string(f.params.layout.block_bits) +
                           " bits take " + std::to_string(f.params.bytes()) + " bytes");
  }
}

void refuse(const FileKind& kind, const std::string& path, const std::string& problem,
            ErrorKind error) {
  throw Error(kind.prefix + fs::printable(path) + " " + problem + kind.suffix, error);
}

void open_regular(const FileKind& kind, const std::string& path, VerifiedFile& out) {
  // A named pipe is refused, not waited on: nothing may write one.
  fs::FileStatus status;
  if (const int err = fs::open_without_waiting(path, out.file, status)) {
    cannot(kind, "open", path, err);
  }
  if (status.type == fs::FileStatus::Type::kDirectory) {
    refuse(kind, path, "is a directory, not a gdedup " + kind.name, ErrorKind::io);
  }
  if (status.type != fs::FileStatus::Type::kRegular) {
    refuse(kind, path,
           "is not a regular file; a gdedup " + kind.name +
               " is read from a regular file, whose length can be checked",
           ErrorKind::io);
  }
  out.size = status.size;
}

int64_t read_head(const FileKind& kind, const VerifiedFile& f, void* into, uint64_t length) {
  const int64_t have = fs::read_at(f.file.fd(), into, length, 0);
  if (have < 0) cannot(kind, "read", f.file.name(), errno);
  return have;
}

void open_header(const FileKind& kind, const std::string& path, VerifiedFile& out) {
  open_regular(kind, path, out);
  const int64_t have = read_head(kind, out, out.header, kHeaderBytes);
  check_identity(kind, path, out.header, static_cast<uint64_t>(have));
  check_integrity(kind, path, out.header);
  out.version = get_u32(out.header + kOffVersion);
}

void check_reserved(const FileKind& kind, const VerifiedFile& f, size_t from) {
  if (const size_t i = first_nonzero_byte(f.header, from); i != kOffHeaderChecksum) {
    refuse(kind, f.file.name(), "has a nonzero reserved header byte at offset " +
                                    std::to_string(i) + "; it was written by a program that "
                                    "does not follow " + kind.name + " format version " +
                                    std::to_string(f.version));
  }
}

void open_verified(const FileKind& kind, const std::string& path, VerifiedFile& out) {
  open_header(kind, path, out);
  check_reserved(kind, out, kind.reserved_from);
  out.fields = decode_fields(out.header);
  check_filter_fields(kind, path, out.fields, "");
}

void check_length(const FileKind& kind, const VerifiedFile& f, uint64_t trailer_bytes,
                  const std::string& trailer_name) {
  const uint64_t payload = f.fields.payload_bytes;
  // validate() keeps the bit array under 2^47 bytes, so only a trailer
  // length can overflow the sum.
  if (trailer_bytes > UINT64_MAX / 2) {
    refuse(kind, f.file.name(), "is inconsistent: its header declares an impossible " +
                                    trailer_name + " size");
  }
  const uint64_t expected = kHeaderBytes + payload + trailer_bytes;
  if (f.size == expected) return;
  std::string parts = "a " + std::to_string(kHeaderBytes) + "-byte header" +
                      (trailer_name.empty() ? " and a " : ", a ") + std::to_string(payload) +
                      "-byte bit array";
  if (!trailer_name.empty()) {
    parts += " and a " + std::to_string(trailer_bytes) + "-byte " + trailer_name;
  }
  const std::string sizes = ": it is " + std::to_string(f.size) + " bytes, but " + parts +
                            " make " + std::to_string(expected) + " bytes";
  if (f.size < expected) {
    refuse(kind, f.file.name(), "is truncated" + sizes +
                                    "; it was cut short, e.g. by an interrupted copy or a full "
                                    "disk");
  }
  refuse(kind, f.file.name(), "has extra bytes" + sizes + "; something was appended to it or "
                              "it is not a gdedup " + kind.name);
}

void read_exactly(const FileKind& kind, const VerifiedFile& f, void* buffer, uint64_t length,
                  uint64_t offset) {
  const int64_t got = fs::read_at(f.file.fd(), buffer, length, offset);
  if (got < 0) cannot(kind, "read", f.file.name(), errno);
  if (static_cast<uint64_t>(got) < length) {
    refuse(kind, f.file.name(), "became shorter while it was read (it ended at byte " +
                                    std::to_string(offset + static_cast<uint64_t>(got)) +
                                    "); load it again when no other program is writing it");
  }
}

void read_bit_array(const FileKind& kind, const VerifiedFile& f, uint64_t offset, uint64_t bytes,
                    uint64_t checksum, uint32_t* words, const std::string& what) {
  auto* to = reinterpret_cast<unsigned char*>(words);
  const uint64_t got = checksum_pieces(to, bytes, kReadChunk, [&](uint64_t done, uint64_t want) {
    read_exactly(kind, f, to + done, want, offset + done);
  });
  check_bit_array(kind, f, got, checksum, what);
}

void read_bit_array_slice(const FileKind& kind, const VerifiedFile& f, uint64_t offset,
                          uint64_t bytes, uint64_t checksum, uint64_t from, uint64_t length,
                          unsigned char* into, bool verify_all, const std::string& what) {
  if (from > bytes || length > bytes - from) {
    throw UsageError("bytes " + std::to_string(from) + " .. " + std::to_string(from + length) +
                     " lie outside the " + std::to_string(bytes) + "-byte " + what + " of " +
                     kind.name + " " + f.file.name());
  }
  read_exactly(kind, f, into, length, offset + from);
  if (!verify_all) return;
  std::vector<unsigned char> piece(static_cast<size_t>(std::min<uint64_t>(bytes, kReadChunk)));
  const uint64_t got = checksum_stream(bytes, piece.size(), [&](uint64_t done, uint64_t n) {
    read_exactly(kind, f, piece.data(), n, offset + done);
    return static_cast<const unsigned char*>(piece.data());
  });
  check_bit_array(kind, f, got, checksum, what);
}

void check_bit_array(const FileKind& kind, const VerifiedFile& f, uint64_t got,
                     uint64_t checksum, const std::string& what) {
  if (got != checksum) {
    refuse(kind, f.file.name(), "is damaged: its " + what + " does not match the " + what +
                                    " checksum" + kind.damage_advice);
  }
}

void read_payload(const FileKind& kind, const VerifiedFile& f, uint32_t* words) {
  read_bit_array(kind, f, kHeaderBytes, f.fields.payload_bytes, f.fields.payload_checksum, words,
                 "bit array");
}

}  // namespace gdedup::format
