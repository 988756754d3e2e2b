// The set file loader on files whose every checksum is right and whose keys
// are crafted: ascending, distinct and within 84 bits, as a valid file's,
// but bunched where a hash never puts them. The hash and its seed are
// public, so such keys can be searched for; a 2 KB file of 200 keys sharing
// 76 of their 84 bits asked 32 GiB of whoever loaded it.
//
// Input: a byte `shared` (0 to 84: the top bits every key shares, those of
// the first 11 bytes after it, a base), then 6 bytes a key, which vary the
// bits below (each key the base with those bits, so keys crowd one home
// bucket, one shard, or the top or the bottom of the range).
//
// Properties: the file loads with no cap; the loaded set holds exactly the
// keys, knows each of them and none of a few others; its bytes are the
// tables gdedup info states (summarize_set) and at most 64 bytes a key past
// them (the overflow area of keys whose run is too long); loaded again
// under a cap of that many bytes, it loads.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "format/set_stream.h"
#include "fuzz_util.h"
#include "gdedup/error.h"
#include "gdedup/key_set.h"
#include "gdedup/set_file.h"

namespace {

using gdedup::Key84;

gdedup::fuzz::FileScratch& scratch() {
  static gdedup::fuzz::FileScratch s("set-keys", "crafted.gds");
  return s;
}

constexpr size_t kMaxKeys = 4096;
constexpr Key84 kKeyMask = (Key84{1} << gdedup::kKeyBits) - 1;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const unsigned shared = in.byte() % (gdedup::kKeyBits + 1);
  Key84 base = 0;
  for (int i = 0; i < 11; ++i) base = (base << 8) | in.byte();
  const Key84 low = shared == gdedup::kKeyBits ? 0 : kKeyMask >> shared;
  base &= kKeyMask & ~low;
  std::vector<Key84> keys;
  const std::string_view rest = in.rest();
  // A key's 48 bits: its top 24 just below the shared ones, its low 24 at
  // the bottom.
  const unsigned free_bits = gdedup::kKeyBits - shared;
  const unsigned high_at = free_bits > 24 ? free_bits - 24 : 0;
  for (size_t at = 0; at + 6 <= rest.size() && keys.size() < kMaxKeys; at += 6) {
    uint64_t v = 0;
    for (size_t i = 0; i < 6; ++i) v = (v << 8) | static_cast<uint8_t>(rest[at + i]);
    const Key84 spread = (static_cast<Key84>(v >> 24) << high_at) | (v & 0xffffff);
    keys.push_back(base | (spread & low));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());

  const gdedup::fuzz::FileScratch& s = scratch();
  gdedup::save_set_streamed(
      keys.size(), [&](const gdedup::KeySink& sink) { sink(keys.data(), keys.size()); },
      gdedup::KeyRules{}, s.out_path);
  const gdedup::SetFileSummary summary = gdedup::summarize_set(s.out_path, false);
  FUZZ_CHECK(summary.info.keys == keys.size(), "summarize_set counts other keys");

  gdedup::SetFile file = gdedup::load_set_file(s.out_path);
  const gdedup::KeySet& set = file.set;
  FUZZ_CHECK(set.size() == keys.size(), "the loaded set holds another count");
  std::vector<Key84> loaded;
  set.for_each_sorted([&](const Key84* k, size_t n) { loaded.insert(loaded.end(), k, k + n); });
  FUZZ_CHECK(loaded == keys, "the loaded set holds other keys");
  std::vector<uint8_t> present(keys.size());
  set.contains(keys.data(), keys.size(), present.data());
  FUZZ_CHECK(std::count(present.begin(), present.end(), 1) == static_cast<long>(keys.size()),
             "a key of the file is not found");
  // Neighbours of the keys, not in the file: found only where they are.
  std::vector<Key84> others;
  for (const Key84 k : keys) others.push_back((k ^ 1) & kKeyMask);
  std::vector<uint8_t> found(others.size());
  set.contains(others.data(), others.size(), found.data());
  for (size_t i = 0; i < others.size(); ++i) {
    FUZZ_CHECK(found[i] == (std::binary_search(keys.begin(), keys.end(), others[i]) ? 1 : 0),
               "a key not in the file is found, or one in it not");
  }
  const uint64_t most = summary.bytes + 64 * keys.size() + (uint64_t{64} << 10);
  FUZZ_CHECK(set.bytes() <= most, "crafted keys take " + std::to_string(set.bytes()) +
                                      " bytes where info states " +
                                      std::to_string(summary.bytes));
  try {
    FUZZ_CHECK(gdedup::load_set_file(s.out_path, gdedup::KeySetOptions{1, most}).set.size() ==
                   keys.size(),
               "the set loaded under a cap holds another count");
  } catch (const gdedup::Error& e) {
    FUZZ_CHECK(false, std::string("a set within the cap was refused: ") + e.what());
  }
  return 0;
}
