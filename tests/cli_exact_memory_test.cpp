// Exact mode's memory against inputs made to inflate it (docs/HARDENING.md),
// end to end through the command: records whose keys share their top bits
// (searched for: the hash and its seed are public), a set file of such keys
// with every checksum right, and a small compressed file whose estimate
// promises millions of keys that never come. Each takes a small factor of
// what its distinct keys plan, and the records are the exact dedup's.
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_util.h"
#include "codec_util.h"
#include "gdedup/fingerprint.h"
#include "gdedup/key_set.h"
#include "gdedup/set_file.h"

namespace {

using cli_test::Result;
using cli_test::TempDir;

// `n` URLs whose XXH3-128 with the default seed share their top `bits`
// bits: the first key's, found by trying URLs in turn (2^bits tries a URL).
std::vector<std::string> urls_sharing_top_bits(size_t n, unsigned bits) {
  std::vector<std::string> urls;
  uint64_t wanted = 0;
  char text[40] = "https://crafted.example/";
  const size_t prefix = std::strlen(text);
  for (uint64_t i = 0; urls.size() < n; ++i) {
    // The number's digits after the prefix, without printf (2^27 calls).
    size_t length = prefix;
    char digits[20];
    size_t count = 0;
    for (uint64_t v = i; count == 0 || v != 0; v /= 10) digits[count++] = '0' + v % 10;
    while (count > 0) text[length++] = digits[--count];
    const uint64_t top = XXH3_128bits_withSeed(text, length, gdedup::kDefaultSeed).high64 >> (64 - bits);
    if (urls.empty()) wanted = top;
    if (top == wanted) urls.emplace_back(text, length);
  }
  return urls;
}

// A number field of `--stats`' or `info --json`'s JSON.
uint64_t json_number(const std::string& json, const std::string& field) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + field + "\": *([0-9]+)"))) {
    ADD_FAILURE() << "no " << field << " in " << json;
    return 0;
  }
  return std::stoull(m[1]);
}

std::string lines(const std::vector<std::string>& records) {
  std::string text;
  for (const std::string& r : records) text += r + "\n";
  return text;
}

// The smallest set (256 shards of 1 KiB) holds a few hundred keys; twice it
// is the most a few hundred keys may take, however crafted.
constexpr uint64_t kSmallSet = uint64_t{256} << 10;

TEST(ExactMemory, KeysSharingTheirTopBitsTakeASmallSet) {
  REQUIRE_GDEDUP_BIN();
  TempDir dir;
  // 130 URLs sharing their top 18 bits made a set of about 1.2 MiB (each bit
  // more doubling it: 2.25 MiB at 20), where 130 others take 256 KiB.
  const std::vector<std::string> crafted = urls_sharing_top_bits(130, 18);
  std::vector<std::string> records = crafted;
  for (int i = 0; i < 100; ++i) records.push_back("https://plain.example/" + std::to_string(i));
  records.push_back(crafted[3]);  // repeats, dropped
  records.push_back(crafted[77]);
  const std::string in = (dir / "in.txt"), out = (dir / "out.txt");
  const std::string set = (dir / "seen.gds"), stats = (dir / "stats.json");
  cli_test::write_file(in, lines(records));
  Result r = cli_test::run({"dedup", "--exact", in, "-o", out, "-f", set, "--stats", stats,
                            "--max-memory", "1MiB"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(cli_test::read_file(out),
            lines(std::vector<std::string>(records.begin(), records.end() - 2)));
  const uint64_t bytes = json_number(cli_test::read_file(stats), "set_bytes");
  EXPECT_LE(bytes, 2 * kSmallSet) << "230 keys took " << bytes << " bytes";
  // The saved set loads as small, and knows every key.
  const std::string query_out = (dir / "seen.txt");
  r = cli_test::run({"query", "--exact", in, "-f", set, "-o", query_out, "--max-memory", "1MiB"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(cli_test::read_file(query_out), lines(records));
}

TEST(ExactMemory, ASetFileOfCraftedKeysLoadsInTheMemoryInfoStates) {
  REQUIRE_GDEDUP_BIN();
  TempDir dir;
  // 200 keys, ascending, sharing 76 of their 84 bits, every checksum right:
  // 2 KB of file that asked 32 GiB of whoever loaded it.
  std::vector<gdedup::Key84> keys;
  const gdedup::Key84 base = gdedup::Key84{0xa5c3f00d1234abcdULL} << 12;
  for (unsigned i = 0; i < 200; ++i) keys.push_back(base | i);
  gdedup::KeySet crafted;
  crafted.insert(keys.data(), keys.size());
  const std::string set = (dir / "crafted.gds");
  gdedup::save_set_file(crafted, gdedup::KeyRules{}, set);

  Result r = cli_test::run({"info", "--json", set});
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t stated = json_number(r.out, "bytes");
  EXPECT_LE(stated, 2 * kSmallSet);

  const std::string in = (dir / "in.txt");
  cli_test::write_file(in, "https://a.example/\nhttps://b.example/\n");
  const std::string other = (dir / "other.gds");
  ASSERT_EQ(cli_test::run({"build", "--exact", in, "-f", other}).status, 0);
  const std::vector<std::vector<std::string>> uses = {
      {"query", "--exact", in, "-f", set, "-o", (dir / "q.txt")},
      {"dedup", "--exact", in, "-f", (dir / "copy.gds"), "-o", (dir / "d.txt")},
      {"merge", set, other, "-o", (dir / "merged.gds")},
  };
  std::filesystem::copy_file(set, (dir / "copy.gds"));
  for (const auto& use : uses) {
    std::vector<std::string> args = use;
    args.insert(args.end(), {"--max-memory", "1MiB"});
    r = cli_test::run(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
  }
  r = cli_test::run({"info", "--json", (dir / "merged.gds")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_number(r.out, "keys"), 202u);
}

TEST(ExactMemory, ASmallFileThatPromisesManyKeysTakesRoomForTheKeysThatCome) {
  REQUIRE_GDEDUP_BIN();
  TempDir dir;
  // 70,000 distinct lines, then 20 MB of empty lines: 87 KB of gzip, from
  // which the input estimate plans 20 million records. The set took room
  // for them (240 MB, touched and resident) from its first 65,536 keys,
  // all new.
  std::string text;
  for (int i = 0; i < 70000; ++i) text += "https://d.example/" + std::to_string(i) + "\n";
  text.append(size_t{20} << 20, '\n');
  const std::string in = (dir / "in.txt.gz"), stats = (dir / "stats.json");
  cli_test::write_file(in, gdedup::test::gzip(text, 9));
  const Result r = cli_test::run({"dedup", "--exact", in, "-o", (dir / "out.txt"), "--stats",
                                  stats});
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t bytes = json_number(cli_test::read_file(stats), "set_bytes");
  const uint64_t needed = gdedup::KeySet::bytes_for(70001);
  EXPECT_LE(bytes, gdedup::RoomFromSample::kMaxStep * needed);
  // The process as a whole: the set, the buffers of the run, the program;
  // not under AddressSanitizer, whose shadow and quarantine add more than
  // the set does.
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LE(r.max_rss_kib * 1024, bytes + (uint64_t{160} << 20))
      << "peak RSS " << r.max_rss_kib << " KiB";
#endif
}

}  // namespace
