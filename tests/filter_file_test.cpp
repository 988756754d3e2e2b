// Version 1 filter files, which are still read: exact round trips, and
// refusal of every damaged, truncated, extended or foreign file with a
// message that names it. Version 2 files: filter_file_v2_test.cpp. The same
// for the set files and set checkpoints of exact mode (gdedup/set_file.h),
// and the refusal to take a set for a Bloom filter or one for the other.
#include "gdedup/filter_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/file_writer.h"
#include "format/filter_file_format.h"
#include "format/set_file_format.h"
#include "fs/file_ops.h"
#include "file_util.h"
#include "gdedup/error.h"
#include "gdedup/checkpoint.h"
#include "gdedup/key_set.h"
#include "gdedup/layout.h"
#include "gdedup/set_file.h"
#include "test_util.h"

namespace gdedup {
namespace {

namespace fs = std::filesystem;
namespace ff = filter_file;

using test::Bytes;
using test::read_bytes;
using test::write_bytes;

const Layout kAllLayouts[] = {{256, 8}, {256, 16}, {512, 16}, {512, 32}};

class FilterFileTest : public test::TempDirTest {
 protected:
  FilterFileTest() : TempDirTest("gdedup_filter_file") {}
};

// Sets the bits of "key-0".."key-(n-1)" with the scalar reference.
Filter make_filter(const FilterParams& params, int keys) {
  return test::filter_with_keys(params, keys, 1.2345678901234567e-4);
}

// The file a release that wrote version 1 saved.
void save_v1(const Filter& filter, const std::string& path) {
  format::write_file(path, "cannot save filter to " + path,
                     {ff::kMagic, ff::kVersion1, filter.words(), filter.params(),
                      filter.counters(), "", {}, {}});
}

Filter small_filter() { return make_filter(FilterParams{4, {256, 8}, kDefaultSeed}, 20); }

// The message of the Error that `load_filter(path)` throws, or "" if none.
std::string load_error(const std::string& path) {
  try {
    load_filter(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string info_error(const std::string& path) {
  try {
    read_filter_info(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Writes `file` with its header checksum recomputed, as a writer of another
// version or a faulty writer would.
void write_resealed(const std::string& path, Bytes file) {
  ff::put_u64(file.data() + ff::kOffHeaderChecksum, ff::header_checksum(file.data()));
  write_bytes(path, file);
}

void expect_same_filter(const Filter& a, const Filter& b) {
  EXPECT_EQ(a.params(), b.params());
  EXPECT_EQ(a.counters().insertions, b.counters().insertions);
  EXPECT_EQ(a.counters().planned_capacity, b.counters().planned_capacity);
  EXPECT_EQ(std::memcmp(&a.counters().planned_fpr, &b.counters().planned_fpr, sizeof(double)), 0);
  ASSERT_EQ(a.params().words(), b.params().words());
  EXPECT_EQ(std::memcmp(a.words(), b.words(), a.params().bytes()), 0);
}

TEST_F(FilterFileTest, RoundTripIsExactForEveryLayout) {
  for (const Layout& layout : kAllLayouts) {
    SCOPED_TRACE(std::to_string(layout.block_bits) + "/" + std::to_string(layout.k));
    const Filter original = make_filter(FilterParams{37, layout, 0x1234abcdull}, 300);
    const std::string first = path("first.gdf"), second = path("second.gdf");
    save_v1(original, first);
    EXPECT_EQ(fs::file_size(first), 4096 + original.params().bytes());

    const Filter loaded = load_filter(first);
    expect_same_filter(original, loaded);

    const FilterFileInfo info = read_filter_info(first);
    EXPECT_EQ(info.version, 1u);
    EXPECT_EQ(info.params[0], original.params());
    EXPECT_EQ(info.counters[0].insertions, original.counters().insertions);

    save_v1(loaded, second);
    EXPECT_EQ(read_bytes(first), read_bytes(second));
  }
}

TEST_F(FilterFileTest, HeaderFieldsSitWhereTheFormatSays) {
  const Filter filter = make_filter(FilterParams{5, {512, 32}, 77}, 10);
  save_v1(filter, path("f"));
  const Bytes file = read_bytes(path("f"));
  ASSERT_EQ(file.size(), 4096u + 5 * 64);
  EXPECT_EQ(std::string(file.begin(), file.begin() + 8), "GDEDUPBF");
  EXPECT_EQ(ff::get_u32(&file[8]), 1u);
  EXPECT_EQ(ff::get_u32(&file[12]), 4096u);
  EXPECT_EQ(ff::get_u64(&file[16]), 5u);
  EXPECT_EQ(ff::get_u32(&file[24]), 512u);
  EXPECT_EQ(ff::get_u32(&file[28]), 32u);
  EXPECT_EQ(ff::get_u64(&file[32]), 77u);
  EXPECT_EQ(ff::get_u64(&file[40]), 5u * 64);
  EXPECT_EQ(ff::get_u64(&file[48]), filter.counters().insertions);
  EXPECT_EQ(ff::get_u64(&file[56]), 1000u);
  EXPECT_EQ(ff::get_f64(&file[64]), 1.2345678901234567e-4);
  EXPECT_EQ(ff::get_u64(&file[72]), XXH3_64bits(&file[4096], 5 * 64));
  for (size_t i = 80; i < 4088; ++i) ASSERT_EQ(file[i], 0) << "reserved byte " << i;
  EXPECT_EQ(ff::get_u64(&file[4088]), XXH3_64bits(file.data(), 4088));
  // The bit array is the words, little-endian.
  EXPECT_EQ(std::memcmp(&file[4096], filter.words(), 5 * 64), 0);
}

TEST_F(FilterFileTest, BitArrayLargerThanOneReadChunkRoundTrips) {
  // 9.6 MB: more than one 8 MiB read.
  const Filter original = make_filter(FilterParams{300001, {256, 8}, kDefaultSeed}, 20000);
  save_v1(original, path("big"));
  expect_same_filter(original, load_filter(path("big")));
}

TEST_F(FilterFileTest, EveryChangedHeaderByteIsRefused) {
  save_v1(small_filter(), path("good"));
  const Bytes good = read_bytes(path("good"));
  const std::string bad = path("bad");
  for (size_t pos = 0; pos < ff::kHeaderBytes; ++pos) {
    Bytes file = good;
    file[pos] ^= static_cast<unsigned char>(pos % 255 + 1);
    write_bytes(bad, file);
    const std::string message = load_error(bad);
    ASSERT_NE(message, "") << "a change at header byte " << pos << " was accepted";
    ASSERT_NE(message.find(bad), std::string::npos) << message;
    ASSERT_NE(info_error(bad), "") << "read_filter_info accepted a change at byte " << pos;
  }
}

TEST_F(FilterFileTest, ChangedBitArrayBytesAreRefused) {
  save_v1(make_filter(FilterParams{64, {512, 16}, kDefaultSeed}, 100), path("good"));
  const Bytes good = read_bytes(path("good"));
  const std::string bad = path("bad");
  std::mt19937_64 rng(20240601);
  std::uniform_int_distribution<size_t> position(ff::kHeaderBytes, good.size() - 1);
  std::uniform_int_distribution<int> change(1, 255);
  for (int trial = 0; trial < 200; ++trial) {
    Bytes file = good;
    const size_t pos = position(rng);
    file[pos] ^= static_cast<unsigned char>(change(rng));
    write_bytes(bad, file);
    const std::string message = load_error(bad);
    ASSERT_NE(message.find(bad), std::string::npos) << "byte " << pos << ": " << message;
    ASSERT_NE(message.find("bit array"), std::string::npos) << message;
    ASSERT_NE(message.find("checksum"), std::string::npos) << message;
  }
  // The header alone is intact, so the quick look still works.
  EXPECT_EQ(read_filter_info(bad).params[0].num_blocks, 64u);
}

TEST_F(FilterFileTest, EveryTruncationIsRefused) {
  save_v1(small_filter(), path("good"));
  const Bytes good = read_bytes(path("good"));
  ASSERT_EQ(good.size(), 4096u + 4 * 32);
  const std::string bad = path("bad");
  for (size_t length = 0; length < good.size(); ++length) {
    write_bytes(bad, Bytes(good.begin(), good.begin() + static_cast<long>(length)));
    const std::string message = load_error(bad);
    ASSERT_NE(message.find(bad), std::string::npos) << "length " << length << ": " << message;
    ASSERT_NE(info_error(bad), "") << "length " << length;
    if (length >= 12) {
      ASSERT_NE(message.find("truncated"), std::string::npos) << message;
    }
  }
  // Past the header, the message gives both sizes.
  write_bytes(bad, Bytes(good.begin(), good.end() - 1));
  const std::string message = load_error(bad);
  EXPECT_NE(message.find("4224 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("4223 bytes"), std::string::npos) << message;
}

TEST_F(FilterFileTest, AppendedByteIsRefused) {
  save_v1(small_filter(), path("good"));
  Bytes file = read_bytes(path("good"));
  file.push_back(0);
  write_bytes(path("long"), file);
  const std::string message = load_error(path("long"));
  EXPECT_NE(message.find(path("long")), std::string::npos) << message;
  EXPECT_NE(message.find("extra bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("4225 bytes"), std::string::npos) << message;
  EXPECT_NE(info_error(path("long")), "");
}

TEST_F(FilterFileTest, OtherVersionIsRefusedNamingBothVersions) {
  save_v1(small_filter(), path("good"));
  for (uint32_t version : {0u, ff::kVersion + 1, 300u}) {
    Bytes file = read_bytes(path("good"));
    ff::put_u32(&file[ff::kOffVersion], version);
    write_resealed(path("other"), file);
    const std::string message = load_error(path("other"));
    EXPECT_NE(message.find(path("other")), std::string::npos) << message;
    EXPECT_NE(message.find("version " + std::to_string(version)), std::string::npos) << message;
    EXPECT_NE(message.find("versions 1 to " + std::to_string(ff::kVersion)), std::string::npos)
        << message;
    EXPECT_EQ(info_error(path("other")), message);
  }
}

TEST_F(FilterFileTest, ForeignFilesAreNotFilterFiles) {
  const std::string text = path("urls.txt");
  std::string content = "https://example.com/\n";
  while (content.size() < 8000) content += content;
  write_bytes(text, Bytes(content.begin(), content.end()));
  std::string message = load_error(text);
  EXPECT_NE(message.find(text + " is not a gdedup filter file"), std::string::npos) << message;

  write_bytes(path("empty"), {});
  message = load_error(path("empty"));
  EXPECT_NE(message.find(path("empty") + " is empty"), std::string::npos) << message;
}

TEST_F(FilterFileTest, UnsupportedLayoutIsRefusedNamingIt) {
  save_v1(small_filter(), path("good"));
  Bytes file = read_bytes(path("good"));
  ff::put_u32(&file[ff::kOffK], 32);  // 256-bit blocks hold at most k = 16
  write_resealed(path("odd"), file);
  const std::string message = load_error(path("odd"));
  EXPECT_NE(message.find(path("odd")), std::string::npos) << message;
  EXPECT_NE(message.find("256-bit blocks and k = 32"), std::string::npos) << message;
}

TEST_F(FilterFileTest, InconsistentHeaderWithValidChecksumIsRefused) {
  save_v1(small_filter(), path("good"));
  const Bytes good = read_bytes(path("good"));
  struct Case {
    const char* what;
    size_t offset;
    uint64_t value;
    int width;
    const char* expect;
  };
  const Case cases[] = {
      {"header size", ff::kOffHeaderBytes, 8192, 4, "8192-byte header"},
      {"reserved byte", 1000, 1, 1, "reserved header byte at offset 1000"},
      {"payload size", ff::kOffPayloadBytes, 129, 8, "129-byte bit array"},
      {"no blocks", ff::kOffNumBlocks, 0, 8, "0 blocks"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Bytes file = good;
    if (c.width == 1) file[c.offset] = static_cast<unsigned char>(c.value);
    if (c.width == 4) ff::put_u32(&file[c.offset], static_cast<uint32_t>(c.value));
    if (c.width == 8) ff::put_u64(&file[c.offset], c.value);
    write_resealed(path("bad"), file);
    const std::string message = load_error(path("bad"));
    EXPECT_NE(message.find(path("bad")), std::string::npos) << message;
    EXPECT_NE(message.find(c.expect), std::string::npos) << message;
  }
}

// Runs load_filter on `path` in a child whose address space is capped at
// 1 GiB, and returns what it threw ("" if nothing). A loader that allocated
// the bit array before checking its size would die or fail differently.
// AddressSanitizer reserves terabytes of address space for its shadow memory
// and cannot run under such a cap: there the cap is left out (the ordinary
// build keeps the check).
std::string load_error_with_little_memory(const std::string& path) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    if (!test::kAddressSanitizer) {
      rlimit limit{uint64_t{1} << 30, uint64_t{1} << 30};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    const std::string message = load_error(path);
    (void)!::write(pipe_fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[512];
  ssize_t got;
  while ((got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) message.append(buffer, got);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "child crashed";
  return message;
}

TEST_F(FilterFileTest, HugeBlockCountIsRefusedBeforeAllocating) {
  save_v1(small_filter(), path("good"));
  const Bytes good = read_bytes(path("good"));

  // Beyond the size limit of the format.
  Bytes file = good;
  ff::put_u64(&file[ff::kOffNumBlocks], uint64_t{1} << 60);
  ff::put_u64(&file[ff::kOffPayloadBytes], uint64_t{1} << 62);  // wraps; never used
  write_resealed(path("huge"), file);
  const auto start = std::chrono::steady_clock::now();
  std::string message = load_error_with_little_memory(path("huge"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(message.find(path("huge")), std::string::npos) << message;
  EXPECT_NE(message.find("1152921504606846976 blocks"), std::string::npos) << message;
  EXPECT_NE(message.find("128 TiB"), std::string::npos) << message;

  // Within the limit (32 TiB) and consistent, but the file is 4 KiB long.
  file = good;
  ff::put_u64(&file[ff::kOffNumBlocks], uint64_t{1} << 40);
  ff::put_u64(&file[ff::kOffPayloadBytes], uint64_t{1} << 45);
  write_resealed(path("big"), file);
  message = load_error_with_little_memory(path("big"));
  EXPECT_NE(message.find(path("big") + " is truncated"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string((uint64_t{1} << 45) + 4096) + " bytes"), std::string::npos)
      << message;
}

TEST_F(FilterFileTest, MissingFileAndDirectoryGiveClearErrors) {
  std::string message = load_error(path("missing"));
  EXPECT_NE(message.find(path("missing")), std::string::npos) << message;
  EXPECT_NE(message.find(gdedup::fs::error_text(ENOENT)), std::string::npos) << message;
  EXPECT_NE(info_error(path("missing")), "");

  message = load_error(dir_.string());
  EXPECT_NE(message.find(dir_.string() + " is a directory"), std::string::npos) << message;
  EXPECT_NE(info_error(dir_.string()), "");
}

TEST_F(FilterFileTest, SaveIntoMissingDirectoryFailsNamingThePath) {
  const std::string target = path("no/such/dir/f.gdf");
  try {
    save_v1(small_filter(), target);
    FAIL() << "saved into a missing directory";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot save filter to " + target), std::string::npos) << message;
    EXPECT_NE(message.find(gdedup::fs::error_text(ENOENT)), std::string::npos) << message;
  }
}

TEST_F(FilterFileTest, FailedSaveLeavesTheOldFileUntouched) {
  const std::string target = path("f.gdf");
  const Filter old_filter = small_filter();
  save_v1(old_filter, target);
  const Bytes before = read_bytes(target);

  // The rename fails, as it does on a folder another program just made
  // read-only.
  struct FailRename : gdedup::fs::Observer {
    int before(gdedup::fs::Op op, const std::string&, size_t&) override {
      return op == gdedup::fs::Op::kRename ? EROFS : 0;
    }
  } fail_rename;
  gdedup::fs::set_observer(&fail_rename);
  const Filter new_filter = make_filter(FilterParams{8, {512, 32}, 1}, 5);
  EXPECT_THROW(save_v1(new_filter, target), Error);
  gdedup::fs::set_observer(nullptr);

  EXPECT_EQ(read_bytes(target), before);
  expect_same_filter(old_filter, load_filter(target));
}

TEST_F(FilterFileTest, SuccessfulSaveReplacesTheFileAndLeavesNoTemporary) {
  const std::string target = path("f.gdf");
  save_v1(small_filter(), target);
  const Filter replacement = make_filter(FilterParams{8, {512, 32}, 1}, 5);
  save_v1(replacement, target);
  expect_same_filter(replacement, load_filter(target));
  EXPECT_FALSE(fs::exists(target + ".tmp"));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"f.gdf"});
}

TEST_F(FilterFileTest, SaveWithoutFolderInThePathUsesTheWorkingDirectory) {
  const fs::path previous = fs::current_path();
  fs::current_path(dir_);
  const Filter filter = small_filter();
  save_v1(filter, "plain.gdf");
  fs::current_path(previous);
  expect_same_filter(filter, load_filter(path("plain.gdf")));
}

class SetFileTest : public test::TempDirTest {
 protected:
  SetFileTest() : TempDirTest("gdedup_set_file") {}
};

namespace sf = set_file;

// `n` distinct keys from one seed: the top 84 bits of random 128-bit values.
std::vector<Key84> random_keys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key84> keys(n);
  for (Key84& key : keys) key = key84_of(rng(), rng());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

KeySet set_of(const std::vector<Key84>& keys) {
  KeySet set;
  set.insert(keys.data(), keys.size());
  return set;
}

std::vector<Key84> keys_of(const KeySet& set) {
  std::vector<Key84> keys;
  set.for_each_sorted([&](const Key84* k, size_t n) { keys.insert(keys.end(), k, k + n); });
  return keys;
}

// The Error that loading `path` as a set file throws ("" and failure if none).
Error set_error(const std::string& path) {
  try {
    load_set_file(path);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << path << " loaded as a set file";
  return Error("");
}

// The message summarize_set (gdedup info) refuses `path` with ("" and
// failure if it does not).
std::string summary_error(const std::string& path, bool checkpoint) {
  try {
    summarize_set(path, checkpoint);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " was summarized";
  return "";
}

KeyRules nul_rules() {
  KeyRules rules;
  rules.keys = KeyOptions::parse("field:2", ",", "url");
  rules.record_separator = '\0';
  rules.seed = 7;
  return rules;
}

TEST_F(SetFileTest, RoundTripIsExactAndIndependentOfInsertionOrder) {
  for (const size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}, size_t{100000}}) {
    SCOPED_TRACE(n);
    std::vector<Key84> keys = random_keys(n, 1000 + n);
    save_set_file(set_of(keys), nul_rules(), path("sorted"));
    std::shuffle(keys.begin(), keys.end(), std::mt19937_64(n));
    KeySet shuffled = set_of(keys);
    shuffled.insert(keys.data(), keys.size() / 2);  // repeats change nothing
    save_set_file(shuffled, nul_rules(), path("shuffled"));
    const Bytes file = read_bytes(path("sorted"));
    ASSERT_EQ(file, read_bytes(path("shuffled")));
    const SetFile loaded = load_set_file(path("shuffled"));
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys_of(loaded.set), keys);
    EXPECT_EQ(loaded.set.size(), keys.size());
    EXPECT_EQ(loaded.rules, nul_rules());
    EXPECT_EQ(loaded.version, kSetFileVersion);
    EXPECT_TRUE(is_set_file(path("sorted")));
    EXPECT_FALSE(is_set_checkpoint(path("sorted")));
    if (n == 100000) {  // random keys: 84 - log2(n) + about 1.6 bits each
      const double bits = 8.0 * static_cast<double>(ff::get_u64(&file[sf::kOffKeysBytes])) / n;
      EXPECT_LT(bits, 84 - std::log2(n) + 2.5);
    }
  }
}

TEST_F(SetFileTest, CheckpointKeepsItsStateAndKeys) {
  const std::vector<Key84> keys = random_keys(5000, 3);
  ResumeState state;
  state.output = "out.txt";
  state.records = 12345;
  state.kept = 5000;
  state.position.records = 12345;
  state.inputs.push_back(InputIdentity{"in.txt", true, 999, 17, 0x55});
  save_set_checkpoint(set_of(keys), KeyRules{}, state, path("ck"));
  EXPECT_TRUE(is_set_checkpoint(path("ck")));
  EXPECT_FALSE(is_set_file(path("ck")));
  const SetCheckpoint loaded = load_set_checkpoint(path("ck"));
  EXPECT_EQ(keys_of(loaded.set), keys);
  EXPECT_EQ(loaded.rules, KeyRules{});
  EXPECT_EQ(loaded.state.output, "out.txt");
  EXPECT_EQ(loaded.state.records, 12345u);
  EXPECT_EQ(loaded.state.kept, 5000u);
  ASSERT_EQ(loaded.state.inputs.size(), 1u);
  EXPECT_EQ(loaded.state.inputs[0].path, "in.txt");
  EXPECT_EQ(loaded.state.loaded_from, path("ck"));
}

// A set checkpoint's header has no checkpoint version: a state with a
// Parquet output's footer (version 8) round trips, and one written before
// the footer (version 7: without its 8-byte length at the end) loads with
// none.
TEST_F(SetFileTest, CheckpointStatesOfVersions7And8Load) {
  ResumeState state;
  state.output = "out.parquet";
  state.output_footer = std::string("\x15\0\x15", 3);
  save_set_checkpoint(set_of(random_keys(50, 9)), KeyRules{}, state, path("ck"));
  SetCheckpoint loaded = load_set_checkpoint(path("ck"));
  EXPECT_EQ(loaded.state.output_footer, state.output_footer);
  EXPECT_EQ(loaded.state.file_version, 8u);

  save_set_checkpoint(set_of(random_keys(50, 9)), KeyRules{}, ResumeState{}, path("v8"));
  std::vector<unsigned char> file = read_bytes(path("v8"));
  const uint64_t at = sf::kHeaderBytes + ff::get_u64(&file[sf::kOffRulesBytes]);
  const uint64_t state_bytes = ff::get_u64(&file[sf::kOffStateBytes]) - 8;
  for (uint64_t i = at + state_bytes; i < at + state_bytes + 8; ++i) EXPECT_EQ(file[i], 0);
  file.erase(file.begin() + static_cast<std::ptrdiff_t>(at + state_bytes),
             file.begin() + static_cast<std::ptrdiff_t>(at + state_bytes + 8));
  ff::put_u64(&file[sf::kOffStateBytes], state_bytes);
  ff::put_u64(&file[sf::kOffStateChecksum], XXH3_64bits(&file[at], state_bytes));
  ff::put_u64(&file[sf::kOffHeaderChecksum], XXH3_64bits(file.data(), sf::kOffHeaderChecksum));
  write_bytes(path("v7"), file);
  loaded = load_set_checkpoint(path("v7"));
  EXPECT_EQ(loaded.state.file_version, 7u);
  EXPECT_EQ(loaded.state.output_footer, "");
  EXPECT_EQ(keys_of(loaded.set), keys_of(load_set_checkpoint(path("v8")).set));
}

TEST_F(SetFileTest, EveryChangedOrMissingByteAndAnExtraOneAreRefused) {
  save_set_checkpoint(set_of(random_keys(20, 5)), KeyRules{}, ResumeState{}, path("ck"));
  save_set_file(set_of(random_keys(20, 5)), KeyRules{}, path("good"));
  for (const std::string& good_path : {path("good"), path("ck")}) {
    const bool checkpoint = good_path == path("ck");
    const Bytes good = read_bytes(good_path);
    const std::string bad = path("bad");
    auto expect_refused = [&](const Bytes& file, const std::string& what, const char* says) {
      write_bytes(bad, file);
      try {
        checkpoint ? (void)load_set_checkpoint(bad) : (void)load_set_file(bad);
        ADD_FAILURE() << what << " was accepted";
      } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_EQ(e.kind(), ErrorKind::damaged) << what << ": " << message;
        EXPECT_NE(message.find(bad), std::string::npos) << what << ": " << message;
        EXPECT_NE(message.find(says), std::string::npos) << what << ": " << message;
        EXPECT_EQ(summary_error(bad, checkpoint), message) << what;
      }
    };
    for (size_t pos = 0; pos < good.size(); ++pos) {
      Bytes file = good;
      file[pos] ^= static_cast<unsigned char>(pos % 255 + 1);
      expect_refused(file, "a change at byte " + std::to_string(pos),
                     pos < 8 ? "bad magic" : pos < 12 ? "version" : pos < 80 ? " " : "checksum");
    }
    for (size_t length = 0; length < good.size(); ++length) {
      expect_refused(Bytes(good.begin(), good.begin() + static_cast<long>(length)),
                     "a cut at " + std::to_string(length), length == 0 ? "empty" : "truncated");
    }
    Bytes longer = good;
    longer.push_back(0);
    expect_refused(longer, "an appended byte", "extra bytes");
  }
}

// A keys section replaced by `keys`, `count` keys in the header, the
// checksums made to match: what a writer that does not follow the format
// could leave.
Bytes forged(Bytes file, const Bytes& keys, uint64_t count) {
  const uint64_t at = file.size() - ff::get_u64(&file[sf::kOffKeysBytes]);
  file.resize(at);
  file.insert(file.end(), keys.begin(), keys.end());
  ff::put_u64(&file[sf::kOffKeyCount], count);
  ff::put_u64(&file[sf::kOffKeysBytes], keys.size());
  ff::put_u64(&file[sf::kOffKeysChecksum], XXH3_64bits(keys.data(), keys.size()));
  ff::put_u64(&file[sf::kOffHeaderChecksum], XXH3_64bits(file.data(), sf::kOffHeaderChecksum));
  return file;
}

// The gap coding holds only ascending keys with no repeats: keys out of
// order cannot be written. What a forged section can still do is refused.
TEST_F(SetFileTest, ForgedKeysThatDoNotDecodeToTheCountAreRefused) {
  save_set_file(set_of({5}), KeyRules{}, path("one"));
  const Bytes one = read_bytes(path("one"));
  const Bytes keys(one.end() - 11, one.end());
  ASSERT_EQ(keys[0], 0x0b);
  struct Case {
    const char* what;
    Bytes file;
    const char* says;
  };
  Bytes past = keys;  // two zero bits first: q = 2, so the key is past 2^84
  past[0] = static_cast<unsigned char>(keys[0] << 2);
  Bytes padding = keys;  // one of the 4 padding bits set
  padding[10] |= 0x80;
  Bytes extra = keys;
  extra.push_back(0);
  Bytes short_keys = forged(read_bytes(path("one")), {}, 0);
  save_set_file(set_of(random_keys(1000, 9)), KeyRules{}, path("many"));
  const Bytes many = read_bytes(path("many"));
  const Bytes many_keys(many.end() - ff::get_u64(&many[sf::kOffKeysBytes]), many.end() - 2);
  const std::vector<Case> cases = {
      {"a key past 2^84", forged(one, past, 1), "past 84 bits"},
      {"padding that is not zero", forged(one, padding, 1), "after its last key"},
      {"a byte after the last key", forged(one, extra, 1), "after its last key"},
      {"no keys for one", forged(one, {}, 1), "at least 11 bytes"},
      {"a section that ends early", forged(many, many_keys, 1000), "end after key"},
      {"a count far past the section", forged(one, keys, uint64_t{1} << 40), "at least"},
  };
  for (const Case& c : cases) {
    write_bytes(path("bad"), c.file);
    const Error e = set_error(path("bad"));
    const std::string message = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::damaged) << c.what;
    EXPECT_NE(message.find(path("bad")), std::string::npos) << c.what << ": " << message;
    EXPECT_NE(message.find(c.says), std::string::npos) << c.what << ": " << message;
    EXPECT_EQ(summary_error(path("bad"), false), message) << c.what;
  }
}

// gdedup info reads a set without loading it: its figures must be those of
// the set loaded from the file, a set file's and a checkpoint's, at sizes
// across the shards' doublings and with every key in one shard, which then
// grows past its share as it is loaded.
TEST_F(SetFileTest, SummaryHasTheLoadedSetsFigures) {
  std::vector<std::vector<Key84>> sets;
  for (const size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{30000}, size_t{200000}}) {
    sets.push_back(random_keys(n, 77 + n));
  }
  std::vector<Key84> one_shard = random_keys(20000, 5);
  for (Key84& key : one_shard) key >>= 8;  // shard 0 of 256
  sets.push_back(one_shard);
  for (const std::vector<Key84>& keys : sets) {
    SCOPED_TRACE(keys.size());
    ResumeState state;
    state.records = keys.size() + 3;
    save_set_file(set_of(keys), nul_rules(), path("set"));
    save_set_checkpoint(set_of(keys), nul_rules(), state, path("ck"));
    for (const bool checkpoint : {false, true}) {
      const std::string at = checkpoint ? path("ck") : path("set");
      const SetFileSummary summary = summarize_set(at, checkpoint);
      const KeySet loaded = checkpoint ? load_set_checkpoint(at).set : load_set_file(at).set;
      EXPECT_EQ(summary.info.keys, loaded.size());
      EXPECT_EQ(summary.info.rules, nul_rules());
      EXPECT_EQ(summary.info.file_bytes, std::filesystem::file_size(at));
      EXPECT_EQ(summary.bytes, loaded.bytes());
      EXPECT_EQ(summary.load, loaded.load());
      ASSERT_EQ(summary.state.has_value(), checkpoint);
      if (checkpoint) {
        EXPECT_EQ(summary.state->records, keys.size() + 3);
      }
    }
  }
  // The one shard grew: a set sized for the count alone is smaller.
  EXPECT_GT(summarize_set(path("set"), false).bytes, KeySet(one_shard.size()).bytes());
}

// Random changes to the keys section, the checksums made to match: the
// loader returns a set of exactly the count, ascending, or refuses the file
// as damaged, naming it; it never crashes or returns anything else.
TEST_F(SetFileTest, ForgedRandomKeySectionsLoadWhollyOrAreRefused) {
  save_set_file(set_of(random_keys(300, 11)), KeyRules{}, path("good"));
  const Bytes good = read_bytes(path("good"));
  const uint64_t keys_bytes = ff::get_u64(&good[sf::kOffKeysBytes]);
  const Bytes keys(good.end() - static_cast<long>(keys_bytes), good.end());
  std::mt19937_64 rng(20261203);
  int loaded = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Bytes changed = keys;
    const int changes = 1 + static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      changed[rng() % changed.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
    }
    if (trial % 5 == 0) changed.resize(changed.size() - rng() % 8);
    const uint64_t count = trial % 7 == 0 ? 300 + rng() % 3 - 1 : 300;
    write_bytes(path("bad"), forged(good, changed, count));
    try {
      const SetFile file = load_set_file(path("bad"));
      const std::vector<Key84> got = keys_of(file.set);
      ASSERT_EQ(got.size(), count);
      ASSERT_TRUE(std::is_sorted(got.begin(), got.end()));
      ASSERT_LT(got.back(), Key84{1} << kKeyBits);
      ++loaded;
    } catch (const Error& e) {
      ASSERT_EQ(e.kind(), ErrorKind::damaged) << e.what();
      ASSERT_NE(std::string(e.what()).find(path("bad")), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(loaded, 0);  // a changed low bit is another valid set
}

TEST_F(SetFileTest, SetsAndBloomFiltersAreNeverTakenForEachOther) {
  save_filter(small_filter(), path("bloom"));
  save_checkpoint(small_filter(), ResumeState{}, path("bloom_ck"));
  save_set_file(set_of({1, 2}), KeyRules{}, path("set"));
  save_set_checkpoint(set_of({1, 2}), KeyRules{}, ResumeState{}, path("set_ck"));
  auto expect = [](const std::function<void()>& load, ErrorKind kind,
                   const std::string& says) {
    try {
      load();
      ADD_FAILURE() << "loaded: " << says;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  // A file of the other mode: the whole message names the file and what it
  // is, in the library's words (no flag, and not "it cannot be used to
  // resume"); how to use it is the front end's to say (ErrorKind::other_mode).
  auto expect_other_mode = [](const std::function<void()>& load, const std::string& says) {
    try {
      load();
      ADD_FAILURE() << "loaded: " << says;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::other_mode) << e.what();
      EXPECT_EQ(e.what(), says);
    }
  };
  expect_other_mode([&] { load_set_file(path("bloom")); },
                    path("bloom") + " is a Bloom filter file, not an exact set: a Bloom filter "
                                    "cannot become a set");
  expect_other_mode([&] { load_set_file(path("bloom_ck")); },
                    path("bloom_ck") + " is a Bloom filter's checkpoint, not an exact set: a "
                                       "Bloom filter cannot become a set");
  expect_other_mode([&] { load_set_checkpoint(path("bloom_ck")); },
                    "checkpoint " + path("bloom_ck") +
                        " is a Bloom filter's checkpoint, not an exact set's checkpoint");
  expect_other_mode([&] { load_set_checkpoint(path("bloom")); },
                    "checkpoint " + path("bloom") +
                        " is a Bloom filter file, not an exact set's checkpoint");
  expect_other_mode([&] { load_filter_file(path("set")); },
                    path("set") + " is an exact set, not a Bloom filter file");
  expect_other_mode([&] { read_filter_info(path("set_ck")); },
                    path("set_ck") + " is an exact set's checkpoint, not a Bloom filter file");
  expect_other_mode([&] { load_checkpoint(path("set_ck")); },
                    "checkpoint " + path("set_ck") +
                        " is an exact set's checkpoint, not a Bloom filter's checkpoint");
  expect_other_mode([&] { load_checkpoint(path("set")); },
                    "checkpoint " + path("set") + " is an exact set, not a Bloom filter's "
                                                  "checkpoint");
  expect([&] { load_set_file(path("set_ck")); }, ErrorKind::is_checkpoint,
         path("set_ck") + " is a gdedup set checkpoint, not a set file");
  expect([&] { load_set_checkpoint(path("set")); }, ErrorKind::damaged,
         "set checkpoint " + path("set") + " is a gdedup set file, not a set checkpoint");
  EXPECT_FALSE(is_set_file(path("bloom")));
  EXPECT_FALSE(is_checkpoint_file(path("set_ck")));
}

TEST_F(SetFileTest, SaveIntoAMissingFolderFailsNamingThePath) {
  const std::string target = path("missing/set.gds");
  try {
    save_set_file(set_of({1}), KeyRules{}, target);
    ADD_FAILURE() << "saved into a missing folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot save set to " + target), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gdedup
