// Checkpoint files: the filter file's header fields and bit array, followed
// by the resume state (docs/FORMAT.md, "Checkpoint file"). As with filter
// files, everything that can be checked is checked before anything is
// allocated or trusted, and the first problem is reported in words a user
// can act on.
#include "pipeline/checkpoint_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "fs/replacement.h"
#include "gdedup/error.h"
#include "pipeline/checkpoint_format.h"
#include "pipeline/resume_state_codec.h"

namespace gdedup {
namespace {

using namespace checkpoint_file;
namespace fo = fs;

constexpr uint64_t kChunk = uint64_t{8} << 20;

// ---------------------------------------------------------------- reading

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw Error("checkpoint " + path + " " + problem + "; it cannot be used to resume");
}

[[noreturn]] void read_failed(const std::string& path, int err) {
  throw Error("cannot read checkpoint " + path + ": " + fs::error_text(err));
}

struct Header : filter_file::FilterFields {
  uint64_t state_bytes = 0;
  uint64_t state_checksum = 0;
};

// Magic and version come before the checksum: a file of another kind or
// another version cannot be checksummed meaningfully, and saying what it is
// helps more than "checksum mismatch".
void check_identity(const std::string& path, const unsigned char* h, uint64_t have) {
  if (have == 0) refuse(path, "is empty");
  const size_t magic_have = static_cast<size_t>(std::min<uint64_t>(have, sizeof kMagic));
  if (std::memcmp(h + kOffMagic, kMagic, magic_have) != 0) {
    if (have >= sizeof kMagic &&
        std::memcmp(h + kOffMagic, filter_file::kMagic, sizeof kMagic) == 0) {
      refuse(path, "is a gdedup filter file, not a checkpoint");
    }
    refuse(path, "is not a gdedup checkpoint file (bad magic)");
  }
  if (have < kOffVersion + 4) refuse(path, "is truncated: it ends inside its header");
  const uint32_t version = get_u32(h + kOffVersion);
  if (version != kVersion) {
    refuse(path, "was written in checkpoint format version " + std::to_string(version) +
                     ", but this program reads only version " + std::to_string(kVersion) +
                     "; finish the job with the gdedup release that wrote it, or start it "
                     "again");
  }
  if (have < kHeaderBytes) {
    refuse(path, "is truncated: it is " + std::to_string(have) + " bytes, shorter than its " +
                     std::to_string(kHeaderBytes) + "-byte header");
  }
}

Header parse_header(const std::string& path, const unsigned char* h) {
  if (get_u64(h + kOffHeaderChecksum) != header_checksum(h)) {
    refuse(path, "is damaged: its header does not match the header checksum");
  }
  if (get_u32(h + kOffHeaderBytes) != kHeaderBytes) {
    refuse(path, "declares a header size other than " + std::to_string(kHeaderBytes) +
                     " bytes; it does not follow the checkpoint format");
  }
  if (const size_t i = first_nonzero_byte(h, kOffReserved); i != kOffHeaderChecksum) {
    refuse(path, "has a nonzero reserved header byte at offset " + std::to_string(i) +
                     "; it does not follow checkpoint format version " + std::to_string(kVersion));
  }
  const Header r{decode_fields(h), get_u64(h + kOffStateBytes), get_u64(h + kOffStateChecksum)};
  if (const auto problem = unusable_params(r.params)) refuse(path, *problem);
  if (r.payload_bytes != r.params.bytes()) {
    refuse(path, "is inconsistent: its header declares a " + std::to_string(r.payload_bytes) +
                     "-byte bit array, but its filter parameters take " +
                     std::to_string(r.params.bytes()) + " bytes");
  }
  // validate() keeps the bit array under 2^47 bytes, so only the state
  // length can overflow the sum.
  if (r.state_bytes > std::numeric_limits<uint64_t>::max() / 2) {
    refuse(path, "is inconsistent: its header declares an impossible resume state size");
  }
  return r;
}

struct Opened {
  fo::File fd;
  Header header;
};

Opened open_verified(const std::string& path) {
  Opened f{fo::File(::open(path.c_str(), O_RDONLY | O_CLOEXEC), path), {}};
  if (f.fd.fd() < 0) {
    throw Error("cannot open checkpoint " + path + ": " + fs::error_text(errno));
  }
  struct stat st {};
  if (::fstat(f.fd.fd(), &st) != 0) read_failed(path, errno);
  if (!S_ISREG(st.st_mode)) refuse(path, "is not a regular file");
  unsigned char h[kHeaderBytes];
  const int64_t have = fo::read_at(f.fd.fd(), h, kHeaderBytes, 0);
  if (have < 0) read_failed(path, errno);
  check_identity(path, h, static_cast<uint64_t>(have));
  f.header = parse_header(path, h);
  const uint64_t expected = kHeaderBytes + f.header.payload_bytes + f.header.state_bytes;
  const auto actual = static_cast<uint64_t>(st.st_size);
  if (actual != expected) {
    refuse(path, std::string(actual < expected ? "is truncated" : "has extra bytes") +
                     ": it is " + std::to_string(actual) + " bytes, but its header, bit array "
                     "and resume state make " + std::to_string(expected) + " bytes");
  }
  return f;
}

ResumeState read_state(const Opened& f, const std::string& path) {
  const Header& h = f.header;
  std::string bytes(h.state_bytes, '\0');
  const int64_t got = fo::read_at(f.fd.fd(), bytes.data(), h.state_bytes,
                                  kHeaderBytes + h.payload_bytes);
  if (got < 0) read_failed(path, errno);
  if (static_cast<uint64_t>(got) != h.state_bytes) {
    refuse(path, "became shorter while it was read");
  }
  if (XXH3_64bits(bytes.data(), bytes.size()) != h.state_checksum) {
    refuse(path, "is damaged: its resume state does not match the state checksum");
  }
  ResumeState s = pipeline::decode_resume_state(path, bytes);
  s.params = h.params;
  s.insertions = h.counters.insertions;
  s.loaded_from = path;
  return s;
}

void read_bits(const Opened& f, const std::string& path, Filter& filter) {
  const Header& h = f.header;
  auto* bytes = reinterpret_cast<unsigned char*>(filter.words());
  const uint64_t checksum = checksum_pieces(
      bytes, h.payload_bytes, kChunk, [&](uint64_t done, uint64_t want) {
        const int64_t got = fo::read_at(f.fd.fd(), bytes + done, want, kHeaderBytes + done);
        if (got < 0) read_failed(path, errno);
        if (static_cast<uint64_t>(got) != want) refuse(path, "became shorter while it was read");
      });
  if (checksum != h.payload_checksum) {
    refuse(path, "is damaged: its bit array does not match the bit array checksum");
  }
}

// ---------------------------------------------------------------- writing

// The filter file's fields, then the resume state's size and checksum.
void encode_header(const FilterParams& p, const FilterCounters& c, uint64_t payload_checksum,
                   uint64_t state_bytes, uint64_t state_checksum, unsigned char* h) {
  filter_file::encode_header(h, kMagic, kVersion, p, c, payload_checksum);
  put_u64(h + kOffStateBytes, state_bytes);
  put_u64(h + kOffStateChecksum, state_checksum);
  filter_file::seal_header(h);
}

// The header goes last: until then the first page is zeros, so a file cut
// short by a crash has no magic and is never taken for a checkpoint.
void write_contents(fs::Replacement& file, const uint32_t* words, const FilterParams& params,
                    const FilterCounters& counters, const ResumeState& state,
                    bool inject_failure) {
  unsigned char h[kHeaderBytes] = {};
  file.write(h, kHeaderBytes);
  const auto* bytes = reinterpret_cast<const unsigned char*>(words);
  const uint64_t payload_checksum =
      checksum_pieces(bytes, params.bytes(), kChunk,
                      [&](uint64_t done, uint64_t n) { file.write(bytes + done, n); });
  if (inject_failure) file.fail("writing " + file.temp_name() + " (injected test failure)", EIO);
  const std::string encoded = pipeline::encode_resume_state(state);
  file.write(encoded.data(), encoded.size());
  encode_header(params, counters, payload_checksum, encoded.size(),
                XXH3_64bits(encoded.data(), encoded.size()), h);
  file.pwrite(h, kHeaderBytes, 0);
}

}  // namespace

namespace pipeline {

void write_checkpoint_file(const uint32_t* words, const FilterParams& params,
                           const FilterCounters& counters, const ResumeState& state,
                           const std::string& path, bool inject_failure) {
  fs::Replacement file(path, "cannot write checkpoint " + path);
  write_contents(file, words, params, counters, state, inject_failure);
  file.commit();
}

}  // namespace pipeline

void save_checkpoint(const Filter& filter, const ResumeState& state, const std::string& path) {
  pipeline::write_checkpoint_file(filter.words(), filter.params(), filter.counters(), state,
                                  path);
}

bool is_checkpoint_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[sizeof kMagic];
  const ssize_t got = ::pread(fd, magic, sizeof magic, kOffMagic);
  ::close(fd);
  return got == static_cast<ssize_t>(sizeof magic) && std::memcmp(magic, kMagic, sizeof magic) == 0;
}

ResumeState read_checkpoint_state(const std::string& path) {
  const Opened f = open_verified(path);
  return read_state(f, path);
}

Checkpoint load_checkpoint(const std::string& path) {
  const Opened f = open_verified(path);
  ResumeState state = read_state(f, path);
  Filter filter = [&] {
    try {
      return Filter(f.header.params);
    } catch (const Error& e) {  // out of memory: say which file needed it
      throw Error("cannot load checkpoint " + path + ": " + e.what());
    }
  }();
  read_bits(f, path, filter);
  filter.counters() = f.header.counters;
  return Checkpoint{std::move(filter), std::move(state)};
}

void check_checkpoint_params(const FilterParams& saved, const FilterParams& requested) {
  auto differs = [](const std::string& what, const std::string& a, const std::string& b) {
    throw Error("the filter " + what + " differs from the checkpoint's: the checkpoint " +
                     "has " + a + ", this run asks for " + b +
                     "; resume with the options of the interrupted run");
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
