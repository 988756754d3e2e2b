// The set file and set checkpoint loaders (exact mode) on hostile files.
//
// Input: one mode byte, then the file (the 80-byte header, the rules, the
// resume state of a checkpoint, the keys section). The magic decides the
// loader. Mode 0 loads the bytes as they are. Mode 1 recomputes the header
// checksum; mode 2 also the rules, state and keys checksums over the ranges
// the header names; mode 3 first sets the keys section's length to whatever
// follows the rules and the state. So mutations reach the field checks, the
// rules and state decoders and the key decoder.
//
// Properties: the loader either returns or throws gdedup::Error naming the
// file (anything else, a crash or a huge allocation is a finding); a loaded
// set holds the count its header names; it saves to a file that loads to
// the same keys and saves back to the same bytes; a loaded set file saves
// to exactly the bytes it was loaded from (its rules and keys have one
// encoding each), and read_set_info agrees with it; summarize_set (gdedup
// info) reads a file where the loader does, with its count, and refuses it
// where the loader does, with the loader's message.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/filter_file_format.h"
#include "format/set_file_format.h"
#include "fuzz_util.h"
#include "gdedup/error.h"
#include "gdedup/set_file.h"

namespace {

namespace sf = gdedup::set_file;
using gdedup::filter_file::get_u64;
using gdedup::filter_file::put_u64;
using gdedup::fuzz::clipped;
using gdedup::fuzz::show;

gdedup::fuzz::FileScratch& scratch() {
  static gdedup::fuzz::FileScratch s("set", "saved.gds");
  return s;
}

// The sections' offsets as the header names them, clipped to the file.
uint64_t after(const std::string& file, uint64_t from, uint64_t length) {
  return length > file.size() - std::min<uint64_t>(from, file.size()) ? file.size()
                                                                      : from + length;
}

void reseal(std::string& file, int mode) {
  if (file.size() < sf::kHeaderBytes) return;
  auto* h = reinterpret_cast<unsigned char*>(file.data());
  const uint64_t state_at = after(file, sf::kHeaderBytes, get_u64(h + sf::kOffRulesBytes));
  const uint64_t keys_at = after(file, state_at, get_u64(h + sf::kOffStateBytes));
  if (mode == 3) put_u64(h + sf::kOffKeysBytes, file.size() - keys_at);
  if (mode >= 2) {
    auto seal = [&](uint64_t from, size_t bytes_at, size_t checksum_at) {
      const std::string_view part = clipped(file, from, get_u64(h + bytes_at));
      put_u64(h + checksum_at, XXH3_64bits(part.data(), part.size()));
    };
    seal(sf::kHeaderBytes, sf::kOffRulesBytes, sf::kOffRulesChecksum);
    if (get_u64(h + sf::kOffStateBytes) != 0) {
      seal(state_at, sf::kOffStateBytes, sf::kOffStateChecksum);
    }
    seal(keys_at, sf::kOffKeysBytes, sf::kOffKeysChecksum);
  }
  put_u64(h + sf::kOffHeaderChecksum, XXH3_64bits(h, sf::kOffHeaderChecksum));
}

std::vector<gdedup::Key84> keys_of(const gdedup::KeySet& set) {
  std::vector<gdedup::Key84> keys;
  set.for_each_sorted(
      [&](const gdedup::Key84* k, size_t n) { keys.insert(keys.end(), k, k + n); });
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const int mode = in.byte() % 4;
  std::string file(in.rest());
  if (mode >= 1) reseal(file, mode);
  scratch().write_input(file);
  const gdedup::fuzz::FileScratch& s = scratch();
  const bool checkpoint = gdedup::is_set_checkpoint(s.in_path);

  // What gdedup info says of the file: compared with the loader below.
  std::optional<gdedup::SetFileSummary> summary;
  std::string summary_error;
  try {
    summary = gdedup::summarize_set(s.in_path, checkpoint);
  } catch (const gdedup::Error& e) {
    summary_error = e.what();
  }

  bool loaded = false;
  try {
    gdedup::KeySet set;
    gdedup::KeyRules rules;
    std::string saved;
    if (checkpoint) {
      gdedup::SetCheckpoint ck = gdedup::load_set_checkpoint(s.in_path);
      loaded = true;
      gdedup::save_set_checkpoint(ck.set, ck.rules, ck.state, s.out_path);
      saved = gdedup::fuzz::read_file(s.out_path);
      const gdedup::SetCheckpoint again = gdedup::load_set_checkpoint(s.out_path);
      gdedup::save_set_checkpoint(again.set, again.rules, again.state, s.out_path);
      FUZZ_CHECK(gdedup::fuzz::read_file(s.out_path) == saved,
                 "a loaded set checkpoint saves to other bytes");
      set = std::move(ck.set);
      rules = ck.rules;
    } else {
      gdedup::SetFile f = gdedup::load_set_file(s.in_path);
      loaded = true;
      const gdedup::SetFileInfo info = gdedup::read_set_info(s.in_path);
      FUZZ_CHECK(info.keys == f.set.size() && info.rules == f.rules &&
                     info.file_bytes == f.file_bytes,
                 "read_set_info disagrees with load_set_file");
      gdedup::save_set_file(f.set, f.rules, s.out_path);
      saved = gdedup::fuzz::read_file(s.out_path);
      FUZZ_CHECK(saved == file, "a loaded set file saves to other bytes: " + show(file) +
                                    " saved as " + show(saved));
      set = std::move(f.set);
      rules = f.rules;
    }
    const auto* h = reinterpret_cast<const unsigned char*>(file.data());
    FUZZ_CHECK(set.size() == get_u64(h + sf::kOffKeyCount),
               "the set holds another count than its header names");
    FUZZ_CHECK(summary && summary->info.keys == set.size() &&
                   summary->state.has_value() == checkpoint,
               "summarize_set refused a file the loader loads: " + summary_error);
    const std::vector<gdedup::Key84> keys = keys_of(set);
    FUZZ_CHECK(keys.size() == set.size(), "for_each_sorted disagrees with size()");
    gdedup::save_set_file(set, rules, s.out_path);
    FUZZ_CHECK(keys_of(gdedup::load_set_file(s.out_path).set) == keys,
               "a saved set loads to other keys");
  } catch (const gdedup::Error& e) {
    FUZZ_CHECK(!loaded, std::string("saving a loaded set failed: ") + e.what());
    const std::string message = e.what();
    FUZZ_CHECK(!summary && summary_error == message,
               "summarize_set disagrees with the loader: " + show(summary_error) + " against " +
                   show(message));
    FUZZ_CHECK(message.find(s.in_path) != std::string::npos,
               "the error does not name the file: " + show(message));
  }
  return 0;
}
