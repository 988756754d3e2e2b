// What the fuzz targets share: reading parameters from the front of an input,
// failing loudly when a property does not hold, an in-memory byte source
// that hands out its bytes in pieces of varying size, and scratch files for
// the file-format targets.
#pragma once

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "io/byte_source.h"

namespace gdedup::fuzz {

// A property did not hold: print what and where, then abort, which libFuzzer
// reports as a crash and saves the input.
[[noreturn]] inline void fail(const char* file, int line, const char* what,
                              const std::string& detail) {
  std::fprintf(stderr, "%s:%d: property violated: %s\n%s\n", file, line, what,
               detail.c_str());
  std::abort();
}

#define FUZZ_CHECK(cond, detail)                                           \
  do {                                                                     \
    if (!(cond)) ::gdedup::fuzz::fail(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)

// The part of `file` from `from`, at most `length` bytes (a file-format
// target's section as a forged header names it, clipped to the file).
inline std::string_view clipped(const std::string& file, uint64_t from, uint64_t length) {
  if (from >= file.size()) return {};
  return std::string_view(file).substr(from, std::min<uint64_t>(length, file.size() - from));
}

// Printable form of bytes for failure messages (escapes, truncated).
inline std::string show(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < 512; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > 512) out += "...";
  return out + "\" (" + std::to_string(s.size()) + " bytes)";
}

// Takes parameters from the front of the input; once it runs out, every
// parameter reads as zero, so short inputs are still valid.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(byte() | (byte() << 8)); }
  // The bytes not taken yet.
  std::string_view rest() const {
    return {reinterpret_cast<const char*>(data_) + pos_, size_ - pos_};
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Serves `data` in pieces of 1..max_piece bytes, sizes drawn from `seed`:
// a stand-in for pipes and short reads.
class PieceSource final : public io::ByteSource {
 public:
  PieceSource(std::string data, size_t max_piece, uint32_t seed)
      : data_(std::move(data)), max_piece_(std::max<size_t>(max_piece, 1)), state_(seed | 1) {}
  size_t read(char* buf, size_t capacity) override {
    if (pos_ == data_.size()) return 0;
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    const size_t piece = 1 + state_ % max_piece_;
    const size_t n = std::min({capacity, data_.size() - pos_, piece});
    std::memcpy(buf, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  const std::string& name() const override { return name_; }
  uint64_t raw_bytes_read() const override { return pos_; }
  std::optional<uint64_t> raw_size() const override { return data_.size(); }

 private:
  std::string data_;
  size_t max_piece_;
  uint32_t state_;
  size_t pos_ = 0;
  std::string name_ = "fuzz input";
};

// The input file of a file-format target lives in a memfd (no disk I/O per
// run) opened by path; what the target saves goes to a folder of its own,
// on tmpfs where there is one because saving fsyncs.
class FileScratch {
 public:
  FileScratch(const std::string& tag, const std::string& saved_name) {
    fd_ = ::memfd_create(("gdedup-fuzz-" + tag).c_str(), MFD_CLOEXEC);
    if (fd_ < 0) fail(__FILE__, __LINE__, "memfd_create", "");
    in_path = "/proc/self/fd/" + std::to_string(fd_);
    const char* base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    dir_ = std::string(base) + "/gdedup-fuzz-" + tag + "-" + std::to_string(::getpid());
    ::mkdir(dir_.c_str(), 0700);
    out_path = dir_ + "/" + saved_name;
  }
  // Leaves nothing behind when the fuzzer exits.
  ~FileScratch() {
    ::unlink(out_path.c_str());
    ::rmdir(dir_.c_str());
  }

  void write_input(const std::string& bytes) {
    if (::ftruncate(fd_, 0) != 0) fail(__FILE__, __LINE__, "ftruncate", "");
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                                 static_cast<off_t>(done));
      if (n <= 0) fail(__FILE__, __LINE__, "pwrite", "");
      done += static_cast<size_t>(n);
    }
  }

  std::string in_path;
  std::string out_path;

 private:
  int fd_ = -1;
  std::string dir_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace gdedup::fuzz
