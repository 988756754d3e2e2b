// Filter files: a 4096-byte header, then the bit array (docs/FORMAT.md,
// "Filter file"). The reader checks everything it can before it allocates or
// trusts anything, and reports the first problem in terms a user can act on.
#include "gdedup/filter_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/filter_file_format.h"
#include "fs/file_ops.h"
#include "fs/replacement.h"
#include "gdedup/error.h"

namespace gdedup {

// The bit array is copied between memory and the file as it lies in memory;
// the format stores it little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "filter files store the bit array little-endian; a big-endian "
              "host would need to swap its words on save and load");
static_assert(sizeof(off_t) == 8, "filter files need 64-bit file offsets");

namespace {

using namespace filter_file;

// Large enough to amortize system calls, small enough to stay in cache-sized
// pieces while hashing.
constexpr uint64_t kReadChunk = uint64_t{8} << 20;
// Pieces hashed and written at a time when saving.
constexpr uint64_t kWriteChunk = uint64_t{64} << 20;

// ---------------------------------------------------------------- reading

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw Error(path + " " + problem);
}

// Returns the bytes read: fewer than `length` only at end of file.
uint64_t read_at(int fd, const std::string& path, unsigned char* buffer,
                 uint64_t length, uint64_t offset) {
  const int64_t got = fs::read_at(fd, buffer, length, offset);
  if (got < 0) throw Error("cannot read filter file " + path + ": " + fs::error_text(errno));
  return static_cast<uint64_t>(got);
}

std::string expected_size_text(uint64_t payload_bytes) {
  return "a " + std::to_string(kHeaderBytes) + "-byte header and a " +
         std::to_string(payload_bytes) + "-byte bit array make " +
         std::to_string(kHeaderBytes + payload_bytes) + " bytes";
}

[[noreturn]] void refuse_short_header(const std::string& path, uint64_t have) {
  refuse(path, "is truncated: it is " + std::to_string(have) + " bytes long, shorter than the " +
                   std::to_string(kHeaderBytes) + "-byte header of a gdedup filter file");
}

// Magic and version come before the checksum: a file of another kind or
// another version has a header this program cannot checksum, and saying so
// helps more than "checksum mismatch".
void check_identity(const std::string& path, const unsigned char* header,
                    uint64_t have) {
  if (have == 0) refuse(path, "is empty; it is not a gdedup filter file");
  const size_t magic_have = static_cast<size_t>(std::min<uint64_t>(have, sizeof kMagic));
  if (std::memcmp(header + kOffMagic, kMagic, magic_have) != 0) {
    if (have >= sizeof kMagic &&
        std::memcmp(header + kOffMagic, kCheckpointMagic, sizeof kMagic) == 0) {
      refuse(path, "is a gdedup checkpoint, not a filter file: 'gdedup info " + path +
                       "' describes it, and the job that wrote it continues with its command "
                       "plus --resume");
    }
    refuse(path, "is not a gdedup filter file (bad magic)");
  }
  if (have < kOffVersion + 4) refuse_short_header(path, have);
  const uint32_t version = get_u32(header + kOffVersion);
  if (version != kVersion) {
    refuse(path, "is a gdedup filter file of format version " + std::to_string(version) +
                     ", but this program reads only format version " +
                     std::to_string(kVersion) +
                     "; use the gdedup release that wrote it (or restore the file "
                     "if its header is damaged)");
  }
  if (have < kHeaderBytes) refuse_short_header(path, have);
}

// The fields are trusted only after the checksum matched.
void check_header_integrity(const std::string& path, const unsigned char* header) {
  if (get_u64(header + kOffHeaderChecksum) != header_checksum(header)) {
    refuse(path, "is damaged: its header does not match the header checksum; rebuild "
                 "the filter or restore the file from a copy");
  }
  const uint32_t header_bytes = get_u32(header + kOffHeaderBytes);
  if (header_bytes != kHeaderBytes) {
    refuse(path, "declares a " + std::to_string(header_bytes) +
                     "-byte header, but format version " + std::to_string(kVersion) +
                     " has " + std::to_string(kHeaderBytes) +
                     "-byte headers; the program that wrote it does not follow the format");
  }
  if (const size_t i = first_nonzero_byte(header, kOffReserved); i != kOffHeaderChecksum) {
    refuse(path, "has a nonzero reserved header byte at offset " + std::to_string(i) +
                     "; it was written by a program that does not follow format version " +
                     std::to_string(kVersion));
  }
}

struct Header {
  FilterFileInfo info;
  uint64_t payload_bytes;
  uint64_t payload_checksum;
};

Header parse_fields(const std::string& path, const unsigned char* header) {
  const FilterFields fields = decode_fields(header);
  Header h{{fields.params, fields.counters, get_u32(header + kOffVersion)},
           fields.payload_bytes,
           fields.payload_checksum};
  if (const auto problem = unusable_params(h.info.params)) refuse(path, *problem);
  // validate() bounds the size, so bytes() cannot overflow here.
  if (h.payload_bytes != h.info.params.bytes()) {
    refuse(path, "is inconsistent: its header declares a " +
                     std::to_string(h.payload_bytes) + "-byte bit array, but " +
                     std::to_string(h.info.params.num_blocks) + " blocks of " +
                     std::to_string(h.info.params.layout.block_bits) + " bits take " +
                     std::to_string(h.info.params.bytes()) + " bytes");
  }
  return h;
}

void check_file_size(const std::string& path, uint64_t actual, uint64_t payload_bytes) {
  const uint64_t expected = kHeaderBytes + payload_bytes;
  if (actual < expected) {
    refuse(path, "is truncated: it is " + std::to_string(actual) + " bytes, but " +
                     expected_size_text(payload_bytes) +
                     "; it was cut short, e.g. by an interrupted copy or a full disk");
  }
  if (actual > expected) {
    refuse(path, "has extra bytes: it is " + std::to_string(actual) + " bytes, but " +
                     expected_size_text(payload_bytes) +
                     "; something was appended to it or it is not a filter file");
  }
}

struct OpenedFilterFile {
  fs::File fd;
  Header header;
};

// Opens `path` and verifies everything but the bit array, allocating nothing
// that the header's numbers decide.
OpenedFilterFile open_verified(const std::string& path) {
  OpenedFilterFile file{fs::File(::open(path.c_str(), O_RDONLY | O_CLOEXEC), path), {}};
  if (file.fd.fd() < 0) {
    throw Error("cannot open filter file " + path + ": " + fs::error_text(errno));
  }
  struct stat st {};
  if (::fstat(file.fd.fd(), &st) != 0) {
    throw Error("cannot read filter file " + path + ": " + fs::error_text(errno));
  }
  if (S_ISDIR(st.st_mode)) refuse(path, "is a directory, not a gdedup filter file");
  if (!S_ISREG(st.st_mode)) {
    refuse(path, "is not a regular file; a filter file is read from a regular file, "
                 "whose length can be checked");
  }
  unsigned char header[kHeaderBytes];
  const uint64_t have = read_at(file.fd.fd(), path, header, kHeaderBytes, 0);
  check_identity(path, header, have);
  check_header_integrity(path, header);
  file.header = parse_fields(path, header);
  check_file_size(path, static_cast<uint64_t>(st.st_size), file.header.payload_bytes);
  return file;
}

// Reads the bit array straight into the filter, hashing as it goes.
void read_payload(int fd, const std::string& path, const Header& header, Filter& filter) {
  auto* bytes = reinterpret_cast<unsigned char*>(filter.words());
  const uint64_t checksum = checksum_pieces(
      bytes, header.payload_bytes, kReadChunk, [&](uint64_t done, uint64_t want) {
        const uint64_t got = read_at(fd, path, bytes + done, want, kHeaderBytes + done);
        if (got < want) {
          refuse(path, "became shorter while it was read (it ended at byte " +
                           std::to_string(kHeaderBytes + done + got) +
                           "); load it again when no other program is writing it");
        }
      });
  if (checksum != header.payload_checksum) {
    refuse(path, "is damaged: its bit array does not match the bit array checksum; "
                 "rebuild the filter or restore the file from a copy");
  }
}

// ---------------------------------------------------------------- writing

// Writes the whole file. The header goes last: until then the first page is
// zeros, so a file cut short by a crash never looks valid.
void write_contents(fs::Replacement& file, const Filter& filter) {
  unsigned char header[kHeaderBytes] = {};
  file.write(header, kHeaderBytes);
  const auto* bytes = reinterpret_cast<const unsigned char*>(filter.words());
  const uint64_t checksum = checksum_pieces(
      bytes, filter.params().bytes(), kWriteChunk,
      [&](uint64_t done, uint64_t n) { file.write(bytes + done, n); });
  encode_header(header, kMagic, kVersion, filter.params(), filter.counters(), checksum);
  seal_header(header);
  file.pwrite(header, kHeaderBytes, 0);
}

}  // namespace

void save_filter(const Filter& filter, const std::string& path) {
  fs::Replacement file(path, "cannot save filter to " + path);
  write_contents(file, filter);
  file.commit();
}

FilterFileInfo read_filter_info(const std::string& path) {
  return open_verified(path).header.info;
}

Filter load_filter(const std::string& path) {
  OpenedFilterFile file = open_verified(path);
  const Header& header = file.header;
  Filter filter = [&] {
    try {
      return Filter(header.info.params);
    } catch (const Error& e) {  // out of memory: say which file needed it
      throw Error("cannot load filter file " + path + ": " + e.what());
    }
  }();
  read_payload(file.fd.fd(), path, header, filter);
  filter.counters() = header.info.counters;
  return filter;
}

}  // namespace gdedup
