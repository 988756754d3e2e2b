// The filter file loader on hostile files.
//
// Input: one mode byte, then the file. Mode 0 loads the bytes as they are.
// Mode 1 first recomputes the header checksum and mode 2 both checksums, so
// that the fuzzer gets past them to the field checks behind them.
//
// Properties: load_filter either returns a filter or throws gdedup::Error (any
// other exception, a crash or a huge allocation is a finding); a loaded file
// saves back to the same bytes; read_filter_info agrees with load_filter.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/filter_file_format.h"
#include "fuzz_util.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"

namespace {

namespace ff = gdedup::filter_file;
using gdedup::fuzz::show;

gdedup::fuzz::FileScratch& scratch() {
  static gdedup::fuzz::FileScratch s("filter", "saved.gdf");
  return s;
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
  scratch().write_input(file);
  const gdedup::fuzz::FileScratch& s = scratch();

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
    const std::string saved = gdedup::fuzz::read_file(s.out_path);
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
