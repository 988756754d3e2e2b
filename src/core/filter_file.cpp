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
// Linux transfers at most about 2 GiB per write() call anyway.
constexpr uint64_t kWriteChunk = uint64_t{64} << 20;

std::string errno_text(int err) { return std::strerror(err); }

// Closes on scope exit, so every early throw releases the descriptor.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and returns close()'s errno (0 on success): a failed close
  // can be the first report of a failed write on some file systems.
  int close_now() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

// ---------------------------------------------------------------- reading

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw Error(path + " " + problem);
}

// Reads up to `length` bytes at `offset`, retrying interrupted and partial
// reads. Returns the bytes read: fewer only at end of file.
uint64_t read_at(int fd, const std::string& path, unsigned char* buffer,
                 uint64_t length, uint64_t offset) {
  uint64_t done = 0;
  while (done < length) {
    const size_t want = static_cast<size_t>(std::min(length - done, kReadChunk));
    const ssize_t got = ::pread(fd, buffer + done, want, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read filter file " + path + ": " + errno_text(errno));
    }
    if (got == 0) break;
    done += static_cast<uint64_t>(got);
  }
  return done;
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
  FileDescriptor fd;
  Header header;
};

// Opens `path` and verifies everything but the bit array, allocating nothing
// that the header's numbers decide.
OpenedFilterFile open_verified(const std::string& path) {
  OpenedFilterFile file{FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), {}};
  if (file.fd.get() < 0) {
    throw Error("cannot open filter file " + path + ": " + errno_text(errno));
  }
  struct stat st {};
  if (::fstat(file.fd.get(), &st) != 0) {
    throw Error("cannot read filter file " + path + ": " + errno_text(errno));
  }
  if (S_ISDIR(st.st_mode)) refuse(path, "is a directory, not a gdedup filter file");
  if (!S_ISREG(st.st_mode)) {
    refuse(path, "is not a regular file; a filter file is read from a regular file, "
                 "whose length can be checked");
  }
  unsigned char header[kHeaderBytes];
  const uint64_t have = read_at(file.fd.get(), path, header, kHeaderBytes, 0);
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

[[noreturn]] void save_failed(const std::string& path, const std::string& reason) {
  throw Error("cannot save filter to " + path + ": " + reason);
}

void write_all(int fd, const std::string& path, const std::string& tmp,
               const unsigned char* data, uint64_t length) {
  uint64_t done = 0;
  while (done < length) {
    const size_t want = static_cast<size_t>(std::min(length - done, kWriteChunk));
    const ssize_t put = ::write(fd, data + done, want);
    if (put < 0) {
      if (errno == EINTR) continue;
      save_failed(path, "writing " + tmp + " failed: " + errno_text(errno));
    }
    if (put == 0) save_failed(path, "writing " + tmp + " made no progress");
    done += static_cast<uint64_t>(put);
  }
}

void pwrite_all(int fd, const std::string& path, const std::string& tmp,
                const unsigned char* data, uint64_t length, uint64_t offset) {
  uint64_t done = 0;
  while (done < length) {
    const ssize_t put = ::pwrite(fd, data + done, static_cast<size_t>(length - done),
                                 static_cast<off_t>(offset + done));
    if (put < 0) {
      if (errno == EINTR) continue;
      save_failed(path, "writing " + tmp + " failed: " + errno_text(errno));
    }
    if (put == 0) save_failed(path, "writing " + tmp + " made no progress");
    done += static_cast<uint64_t>(put);
  }
}

// Writes the whole file through `fd`. The header goes last: until then the
// first page is zeros, so a file cut short by a crash never looks valid.
void write_contents(int fd, const std::string& path, const std::string& tmp,
                    const Filter& filter) {
  unsigned char header[kHeaderBytes] = {};
  write_all(fd, path, tmp, header, kHeaderBytes);
  const auto* bytes = reinterpret_cast<const unsigned char*>(filter.words());
  const uint64_t checksum = checksum_pieces(
      bytes, filter.params().bytes(), kWriteChunk,
      [&](uint64_t done, uint64_t n) { write_all(fd, path, tmp, bytes + done, n); });
  encode_header(header, kMagic, kVersion, filter.params(), filter.counters(), checksum);
  seal_header(header);
  pwrite_all(fd, path, tmp, header, kHeaderBytes, 0);
}

std::string containing_folder(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Makes the rename durable. Some file systems cannot sync a folder and say
// so with EINVAL; there is nothing more to do on those.
void sync_folder(const std::string& path) {
  const std::string folder = containing_folder(path);
  FileDescriptor dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) {
    save_failed(path, "the file was written, but its folder " + folder +
                          " cannot be opened to make the rename durable: " + errno_text(errno));
  }
  if (::fsync(dir.get()) != 0 && errno != EINVAL && errno != ENOTSUP) {
    save_failed(path, "the file was written, but syncing its folder " + folder +
                          " failed, so it may not survive a crash: " + errno_text(errno));
  }
}

}  // namespace

void save_filter(const Filter& filter, const std::string& path) {
  const std::string tmp = path + ".tmp";
  FileDescriptor fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) save_failed(path, "cannot create " + tmp + ": " + errno_text(errno));
  try {
    write_contents(fd.get(), path, tmp, filter);
    if (::fsync(fd.get()) != 0) {
      save_failed(path, "syncing " + tmp + " to disk failed: " + errno_text(errno));
    }
    if (const int err = fd.close_now(); err != 0) {
      save_failed(path, "closing " + tmp + " failed: " + errno_text(err));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      save_failed(path, "renaming " + tmp + " over it failed: " + errno_text(errno));
    }
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  sync_folder(path);
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
  read_payload(file.fd.get(), path, header, filter);
  filter.counters() = header.info.counters;
  return filter;
}

}  // namespace gdedup
