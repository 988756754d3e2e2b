// The filter file loader on hostile files.
//
// Input: one mode byte, then the file. Mode 0 loads the bytes as they are.
// Mode 1 first recomputes the header checksum and mode 2 also the checksum
// behind it (version 1: the bit array's; version 2: the rules'), so that the
// fuzzer gets past them to the field checks behind them.
//
// Properties: load_filter_file either returns a filter or throws
// gdedup::Error (any other exception, a crash or a huge allocation is a
// finding); a loaded version 2 file saves back to the same bytes, a version 1
// file to a version 2 file that loads as the same filter; read_filter_info
// agrees with load_filter_file; map_filter_file maps a file of the current
// version to the filter load_filter_file returns, refuses an older one, and
// refuses every file load_filter_file refuses.

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
    const uint64_t rest = file.size() - ff::kHeaderBytes;
    if (mode == 2 && ff::get_u32(header + ff::kOffVersion) == ff::kVersion1) {
      ff::put_u64(header + ff::kOffPayloadChecksum,
                  XXH3_64bits(file.data() + ff::kHeaderBytes, rest));
    } else if (mode == 2 && ff::get_u64(header + ff::kOffRulesBytes) <= rest) {
      ff::put_u64(header + ff::kOffRulesChecksum,
                  XXH3_64bits(file.data() + ff::kHeaderBytes,
                              ff::get_u64(header + ff::kOffRulesBytes)));
    }
    ff::put_u64(header + ff::kOffHeaderChecksum, ff::header_checksum(header));
  }
  scratch().write_input(file);
  const gdedup::fuzz::FileScratch& s = scratch();

  bool loaded = false;
  try {
    const gdedup::FilterFile filter = gdedup::load_filter_file(s.in_path);
    loaded = true;
    const gdedup::FilterFileInfo info = gdedup::read_filter_info(s.in_path);
    FUZZ_CHECK(info.params.size() == filter.layers.size() && info.version == filter.version,
               "read_filter_info disagrees with load_filter_file");
    uint64_t bytes = 0;
    for (size_t i = 0; i < filter.layers.size(); ++i) {
      const gdedup::Filter& layer = filter.layers[i];
      FUZZ_CHECK(info.params[i] == layer.params(), "read_filter_info disagrees on the params");
      FUZZ_CHECK(info.counters[i].insertions == layer.counters().insertions &&
                     info.counters[i].planned_capacity == layer.counters().planned_capacity &&
                     same_bits(info.counters[i].planned_fpr, layer.counters().planned_fpr),
                 "counters differ");
      bytes += layer.params().bytes();
    }
    FUZZ_CHECK(file.size() >= ff::kHeaderBytes + bytes,
               "a file of " + std::to_string(file.size()) + " bytes loaded as " +
                   std::to_string(bytes) + " bytes of filter");
    gdedup::save_filter_file(filter, s.out_path);
    const std::string saved = gdedup::fuzz::read_file(s.out_path);
    if (filter.version == ff::kVersion) {
      FUZZ_CHECK(saved == file, "a loaded file saves to other bytes: loaded " +
                                    std::to_string(file.size()) + " bytes, saved " +
                                    std::to_string(saved.size()));
    } else {
      // An older version is saved in the current one: other bytes, the same layers.
      const gdedup::FilterFile again = gdedup::load_filter_file(s.out_path);
      FUZZ_CHECK(again.layers.size() == filter.layers.size(),
                 "a version " + std::to_string(filter.version) + " file saves to another filter");
      for (size_t i = 0; i < again.layers.size(); ++i) {
        FUZZ_CHECK(again.layers[i].params() == filter.layers[i].params() &&
                       std::memcmp(again.layers[i].words(), filter.layers[i].words(),
                                   filter.layers[i].params().bytes()) == 0,
                   "a version " + std::to_string(filter.version) + " file saves to another filter");
      }
    }
  } catch (const gdedup::Error& e) {
    FUZZ_CHECK(!loaded, std::string("saving a loaded filter failed: ") + e.what());
    const std::string message = e.what();
    FUZZ_CHECK(message.find(s.in_path) != std::string::npos,
               "the error does not name the file: " + show(message));
  }

  bool mapped = false;
  try {
    const gdedup::FilterFile map = gdedup::map_filter_file(s.in_path);
    mapped = true;
    FUZZ_CHECK(loaded, "map_filter_file took a file load_filter_file refuses");
    const gdedup::FilterFile filter = gdedup::load_filter_file(s.in_path);
    FUZZ_CHECK(filter.version == ff::kVersion && map.layers.size() == filter.layers.size(),
               "map_filter_file disagrees with load_filter_file");
    for (size_t i = 0; i < map.layers.size(); ++i) {
      FUZZ_CHECK(map.layers[i].read_only() && map.layers[i].params() == filter.layers[i].params() &&
                     std::memcmp(map.layers[i].words(), filter.layers[i].words(),
                                 filter.layers[i].params().bytes()) == 0,
                 "map_filter_file disagrees with load_filter_file on a bit array");
    }
  } catch (const gdedup::Error& e) {
    FUZZ_CHECK(!mapped, std::string("loading a mapped file failed: ") + e.what());
    const std::string message = e.what();
    FUZZ_CHECK(message.find(s.in_path) != std::string::npos,
               "the mapping error does not name the file: " + show(message));
  }
  return 0;
}
