// The filter file loader on hostile files.
//
// Input: one mode byte, then the file. Mode 0 loads the bytes as they are.
// Mode 1 first recomputes the header checksum and mode 2 both checksums, so
// that the fuzzer gets past them to the field checks behind them.
//
// Properties: load_filter either returns a filter or throws gdedup::Error (any
// other exception, a crash or a huge allocation is a finding); a loaded file
// saves back to the same bytes; read_filter_info agrees with load_filter.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/filter_file_format.h"
#include "fuzz_util.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"

namespace {

namespace ff = gdedup::filter_file;
using gdedup::fuzz::show;

// The input file lives in a memfd (no disk I/O per run), opened by path.
struct Scratch {
  int fd = -1;
  std::string in_path;
  std::string out_dir;
  std::string out_path;

  Scratch() {
    fd = ::memfd_create("gdedup-fuzz-filter", MFD_CLOEXEC);
    if (fd < 0) gdedup::fuzz::fail(__FILE__, __LINE__, "memfd_create", "");
    in_path = "/proc/self/fd/" + std::to_string(fd);
    // Saving fsyncs: keep it on tmpfs where there is one.
    const char* base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    out_dir = std::string(base) + "/gdedup-fuzz-filter-" + std::to_string(::getpid());
    ::mkdir(out_dir.c_str(), 0700);
    out_path = out_dir + "/saved.gdf";
  }
  // Leaves nothing behind when the fuzzer exits.
  ~Scratch() {
    ::unlink(out_path.c_str());
    ::rmdir(out_dir.c_str());
  }
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

void write_input(const std::string& bytes) {
  Scratch& s = scratch();
  if (::ftruncate(s.fd, 0) != 0) gdedup::fuzz::fail(__FILE__, __LINE__, "ftruncate", "");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(s.fd, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(done));
    if (n <= 0) gdedup::fuzz::fail(__FILE__, __LINE__, "pwrite", "");
    done += static_cast<size_t>(n);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const int mode = in.byte() % 3;
  std::string file(in.rest());
  if (mode >= 1 && file.size() >= ff::kHeaderBytes) {
    auto* header = reinterpret_cast<unsigned char*>(file.data());
    if (mode == 2) {
      ff::put_u64(header + ff::kOffPayloadChecksum,
                  XXH3_64bits(file.data() + ff::kHeaderBytes, file.size() - ff::kHeaderBytes));
    }
    ff::put_u64(header + ff::kOffHeaderChecksum, ff::header_checksum(header));
  }
  write_input(file);
  const Scratch& s = scratch();

  bool loaded = false;
  try {
    gdedup::Filter filter = gdedup::load_filter(s.in_path);
    loaded = true;
    const gdedup::FilterFileInfo info = gdedup::read_filter_info(s.in_path);
    FUZZ_CHECK(info.params == filter.params(), "read_filter_info disagrees with load_filter");
    FUZZ_CHECK(info.counters.insertions == filter.counters().insertions &&
                   info.counters.planned_capacity == filter.counters().planned_capacity &&
                   same_bits(info.counters.planned_fpr, filter.counters().planned_fpr),
               "counters differ");
    FUZZ_CHECK(file.size() == ff::kHeaderBytes + filter.params().bytes(),
               "a file of " + std::to_string(file.size()) + " bytes loaded as a " +
                   std::to_string(filter.params().bytes()) + "-byte filter");
    gdedup::save_filter(filter, s.out_path);
    const std::string saved = read_file(s.out_path);
    FUZZ_CHECK(saved == file, "a loaded file saves to other bytes: loaded " +
                                  std::to_string(file.size()) + " bytes, saved " +
                                  std::to_string(saved.size()));
  } catch (const gdedup::Error& e) {
    FUZZ_CHECK(!loaded, std::string("saving a loaded filter failed: ") + e.what());
    const std::string message = e.what();
    FUZZ_CHECK(message.find(s.in_path) != std::string::npos,
               "the error does not name the file: " + show(message));
  }
  return 0;
}
