// Pins the on-disk and per-key format (docs/FORMAT.md, "Test vectors"). Any
// change of hashing, bit positions or file layout fails here; such a change
// needs a new format version, new constants here and in docs/FORMAT.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/file_writer.h"
#include "filter_file_forge.h"
#include "format/filter_file_format.h"
#include "gdedup/checkpoint.h"
#include "gdedup/backend.h"
#include "gdedup/layered_filter.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/fingerprint.h"
#include "gdedup/layout.h"
#include "gdedup/key_set.h"
#include "gdedup/set_file.h"

namespace gdedup {
namespace {

uint64_t fp(const std::string& key, uint64_t seed) {
  return fingerprint(key.data(), key.size(), seed);
}

// "abcd...zabcd..." of 200 bytes: exercises XXH3's long-input path.
std::string long_key() {
  std::string key(200, ' ');
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<char>('a' + i % 26);
  return key;
}

TEST(Format, Fingerprints) {
  struct Vector {
    std::string key;
    uint64_t with_default_seed;
    uint64_t with_seed_0;
  };
  const Vector vectors[] = {
      {"", 0x3507c49366fd1403ull, 0x2d06800538d394c2ull},
      {"https://example.com/", 0x4d52470a5d34512cull, 0x4ca4ca394042ccebull},
      {"a", 0xf4170eb98ab9ab9eull, 0xe6c632b61e964e1full},
      {"key-0", 0xae2a66de0b791fb8ull, 0x819f6b51706f0178ull},
      {"key-999", 0xcf8984b8587736d1ull, 0xe5604d941c0a0e62ull},
      {long_key(), 0x7d5ec0d8abea821aull, 0xe12dae8ffe57bbc9ull},
  };
  EXPECT_EQ(kDefaultSeed, 0x6764656475700001ull);
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.key);
    EXPECT_EQ(fp(v.key, kDefaultSeed), v.with_default_seed);
    EXPECT_EQ(fp(v.key, 0), v.with_seed_0);
  }
}

TEST(Format, BlockIndexUsesAll64Bits) {
  struct Vector {
    uint64_t fingerprint, num_blocks, block;
  };
  const Vector vectors[] = {
      {0x0123456789abcdefull, 4294967297ull, 19088743ull},
      {0x0123456789abcdefull, 4294979641ull, 19088798ull},
      {0x0123456789abcdefull, 6000000000ull, 26666666ull},
      {0x0123456789abcdefull, UINT64_MAX, 81985529216486894ull},
      {0xffffffffffffffffull, 4294967297ull, 4294967296ull},
      {0xffffffffffffffffull, 6000000000ull, 5999999999ull},
      {0x8000000000000000ull, 4294979641ull, 2147489820ull},
      {0x8000000000000000ull, 6000000000ull, 3000000000ull},
      {0x4d52470a5d34512cull, 4294967297ull, 1297237770ull},
      {0x4d52470a5d34512cull, 6000000000ull, 1812220230ull},
      {0x4d52470a5d34512cull, UINT64_MAX, 5571593798849679659ull},
  };
  for (const Vector& v : vectors) {
    EXPECT_EQ(block_index(v.fingerprint, v.num_blocks), v.block)
        << std::hex << v.fingerprint << " " << std::dec << v.num_blocks;
  }
  // The first word of the last block of a filter past 2^32 blocks.
  const FilterRef f = whole_filter(nullptr, 6000000000ull, {512, 32});
  EXPECT_EQ(f.block(f.block_of(0xffffffffffffffffull)) - f.words, 5999999999ll * 16);
}

TEST(Format, WordMasks) {
  struct Vector {
    uint64_t fingerprint;
    uint32_t word, block_words, bits_per_word, mask;
  };
  const Vector vectors[] = {
      {0x0123456789abcdefull, 0, 8, 1, 0x00040000u},
      {0x0123456789abcdefull, 0, 8, 2, 0x40040000u},
      {0x0123456789abcdefull, 7, 8, 1, 0x01000000u},
      {0x0123456789abcdefull, 7, 8, 2, 0x01008000u},
      {0x0123456789abcdefull, 0, 16, 1, 0x00040000u},
      {0x0123456789abcdefull, 0, 16, 2, 0x000c0000u},
      {0x0123456789abcdefull, 15, 16, 1, 0x00008000u},
      {0x0123456789abcdefull, 15, 16, 2, 0x00008100u},
      {0xffffffffffffffffull, 0, 8, 2, 0x00804000u},
      {0xffffffffffffffffull, 7, 8, 2, 0x00500000u},
      {0xffffffffffffffffull, 15, 16, 2, 0x00400100u},
      {0x8000000000000000ull, 15, 16, 2, 0x00000001u},  // low 32 bits zero: bit 0
  };
  for (const Vector& v : vectors) {
    EXPECT_EQ(word_mask(v.fingerprint, v.word, v.block_words, v.bits_per_word), v.mask)
        << std::hex << v.fingerprint << std::dec << " word " << v.word << " of "
        << v.block_words << ", c = " << v.bits_per_word;
  }
}

// The layouts of docs/FORMAT.md as words a block and bits a word, the one
// list of them, and the one dispatch every backend goes through.
static_assert(Layout{512, 32}.bits_per_word() == 2);
static_assert(is_supported_layout({256, 16}) && !is_supported_layout({256, 32}));

TEST(Format, GeometryAndDispatchOfEachLayout) {
  const struct {
    Layout layout;
    uint32_t words, bits;
  } cases[] = {{{256, 8}, 8, 1}, {{256, 16}, 8, 2}, {{512, 16}, 16, 1}, {{512, 32}, 16, 2}};
  ASSERT_EQ(kLayoutCount, std::size(cases));
  for (size_t i = 0; i < kLayoutCount; ++i) {
    const auto& c = cases[i];
    EXPECT_EQ(kLayouts[i], c.layout) << "the planner's order of preference";
    EXPECT_TRUE(is_supported_layout(c.layout));
    EXPECT_EQ(c.layout.block_words(), c.words);
    EXPECT_EQ(c.layout.bits_per_word(), c.bits);
    const uint32_t seen = dispatch_layout(
        c.layout,
        [](auto words, auto bits) { return decltype(words)::value * 10 + decltype(bits)::value; },
        [] { return 0u; });
    EXPECT_EQ(seen, c.words * 10 + c.bits);
  }
  for (const Layout unknown : {Layout{384, 12}, Layout{256, 32}, Layout{512, 8}}) {
    EXPECT_FALSE(is_supported_layout(unknown));
    EXPECT_EQ(dispatch_layout(unknown, [](auto, auto) { return 1; }, [] { return -1; }), -1);
  }
}

// The key "https://example.com/" in a 1000-block filter of each layout: the
// masks of every word by the formula (word_mask) and by the block-level
// preparation the kernels use (block_masks).
TEST(Format, WorkedExample) {
  const uint64_t f = fp("https://example.com/", kDefaultSeed);
  EXPECT_EQ(block_index(f, 1000), 302u);
  const uint32_t m256_8[] = {0x00040000, 0x00000008, 0x00000100, 0x00000040,
                             0x02000000, 0x40000000, 0x04000000, 0x08000000};
  const uint32_t m256_16[] = {0x00440000, 0x20000008, 0x00000102, 0x00000840,
                              0x02000002, 0x40000200, 0x84000000, 0x08000004};
  const uint32_t m512_16[] = {0x00040000, 0x00000008, 0x00000100, 0x00000040,
                              0x02000000, 0x40000000, 0x04000000, 0x08000000,
                              0x00400000, 0x20000000, 0x00000002, 0x00000800,
                              0x00000002, 0x00000200, 0x80000000, 0x00000004};
  const uint32_t m512_32[] = {0x00040020, 0x00040008, 0x00000500, 0x00000050,
                              0x02000400, 0x40000020, 0x0c000000, 0x0c000000,
                              0x00400008, 0x20000800, 0x00000003, 0x00000810,
                              0x00000012, 0x00001200, 0xa0000000, 0x0000000c};
  uint32_t b256_8[8], b256_16[8], b512_16[16], b512_32[16];
  block_masks<8, 1>(f, b256_8);
  block_masks<8, 2>(f, b256_16);
  block_masks<16, 1>(f, b512_16);
  block_masks<16, 2>(f, b512_32);
  for (uint32_t j = 0; j < 8; ++j) {
    EXPECT_EQ(word_mask(f, j, 8, 1), m256_8[j]) << j;
    EXPECT_EQ(word_mask(f, j, 8, 2), m256_16[j]) << j;
    EXPECT_EQ(b256_8[j], m256_8[j]) << j;
    EXPECT_EQ(b256_16[j], m256_16[j]) << j;
  }
  for (uint32_t j = 0; j < 16; ++j) {
    EXPECT_EQ(word_mask(f, j, 16, 1), m512_16[j]) << j;
    EXPECT_EQ(word_mask(f, j, 16, 2), m512_32[j]) << j;
    EXPECT_EQ(b512_16[j], m512_16[j]) << j;
    EXPECT_EQ(b512_32[j], m512_32[j]) << j;
  }
}

// key-0 .. key-999 into 1000 blocks: how many were new, the set bits, and the
// XXH3-64 (seed 0) of the bit array as stored in a file.
TEST(Format, BitArrays) {
  struct Vector {
    Layout layout;
    uint64_t new_keys, set_bits, array_hash;
  };
  const Vector vectors[] = {
      {{256, 8}, 1000, 7887, 0x6103733146d22668ull},
      {{512, 16}, 1000, 15753, 0x928e469f9ec0860aull},
      {{256, 16}, 1000, 15291, 0x7dd1ed4f3c2c2668ull},
      {{512, 32}, 1000, 30585, 0xfda06f452255ddc6ull},
  };
  for (const Vector& v : vectors) {
    SCOPED_TRACE(std::to_string(v.layout.block_bits) + "/" + std::to_string(v.layout.k));
    Filter filter(FilterParams{1000, v.layout, kDefaultSeed});
    const FilterRef ref = filter.ref();
    uint64_t new_keys = 0;
    for (int i = 0; i < 1000; ++i) {
      if (!key_test_and_set(ref, fp("key-" + std::to_string(i), kDefaultSeed))) {
        ++new_keys;
      }
    }
    EXPECT_EQ(new_keys, v.new_keys);
    EXPECT_EQ(filter.count_set_bits(), v.set_bits);
    EXPECT_EQ(XXH3_64bits(filter.words(), filter.params().bytes()), v.array_hash);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(key_contains(ref, fp("key-" + std::to_string(i), kDefaultSeed)));
    }
  }
}

// key-0 .. key-9 in 4 blocks of (256, 8), fixed counters.
Filter ten_key_filter() {
  Filter filter(FilterParams{4, {256, 8}, kDefaultSeed});
  for (int i = 0; i < 10; ++i) {
    key_test_and_set(filter.ref(), fp("key-" + std::to_string(i), kDefaultSeed));
  }
  filter.counters() = FilterCounters{10, 10, 1e-4};
  return filter;
}

// The bytes `save` writes to a scratch file.
template <class Save>
std::vector<char> saved_bytes(Save save) {
  const auto dir = std::filesystem::path(::testing::TempDir());
  const std::string path = (dir / ("gdedup_format_test_" + std::to_string(::getpid()))).string();
  save(path);
  std::ifstream in(path, std::ios::binary);
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  return file;
}

// Version 1, as the releases before version 2 wrote it.
TEST(Format, FilterFileVersion1Bytes) {
  const Filter filter = ten_key_filter();
  const std::vector<char> file = saved_bytes([&](const std::string& path) {
    format::write_file(path, "cannot save " + path,
                       {filter_file::kMagic, filter_file::kVersion1, filter.words(),
                        filter.params(), filter.counters(), "", {}, {}});
  });
  ASSERT_EQ(file.size(), 4096u + 128u);
  EXPECT_EQ(XXH3_64bits(file.data() + 4096, 128), 0x40ce02f05c7d0370ull);  // payload checksum
  EXPECT_EQ(XXH3_64bits(file.data(), 4096), 0x3c5cd53babc303c3ull);        // whole header
  EXPECT_EQ(XXH3_64bits(file.data(), file.size()), 0xdddc6d62e8245005ull);
}

// The filter above, fixed, with the default key rules, as save_filter
// writes it.
std::vector<char> fixed_filter_file(const KeyRules& keys = KeyRules{}) {
  const Filter filter = ten_key_filter();
  return saved_bytes([&](const std::string& path) { save_filter(filter, path, keys); });
}

// A growing filter of three layers, keys "key-0" .. "key-5999" offered by
// test_and_set, with the key rules of --key field:2 --delimiter comma
// --normalize url, as save_filter writes it.
KeyRules growing_file_key_rules() {
  KeyRules keys;
  keys.keys = KeyOptions::parse("field:2", "comma", "url");
  return keys;
}
std::vector<char> growing_filter_file() {
  GrowthRule rule;
  rule.first_capacity = 1024;
  rule.check_every = 1024;
  LayeredFilter filter(rule, kDefaultSeed, [](Filter& layer) { return make_cpu_backend(layer); });
  std::vector<uint64_t> fps;
  for (int i = 0; i < 6000; ++i) fps.push_back(fp("key-" + std::to_string(i), kDefaultSeed));
  std::vector<uint8_t> present(fps.size());
  filter.test_and_set(fps.data(), fps.size(), present.data());
  filter.sync_to_host();
  EXPECT_EQ(filter.layer_count(), 3u);
  return saved_bytes([&](const std::string& path) {
    save_filter(filter, path, growing_file_key_rules());
  });
}

// The file offset of the record separator in a file of these text key
// rules: after the known flag, the input format and the three texts.
size_t separator_offset(const KeyRules& keys) {
  return 4096 + 1 + 4 + (8 + keys.keys.key_text().size()) +
         (8 + keys.keys.delimiter_text().size()) + (8 + keys.keys.normalize_text().size());
}

// Version 4: the filter above, fixed, with the default key rules.
TEST(Format, FilterFileBytes) {
  const std::vector<char> file = fixed_filter_file();
  // flags, format, texts, separator, seed
  const uint64_t rules = 2 + 4 + (8 + 5) + (8 + 3) + 8 + 1 + 8;
  ASSERT_EQ(4096u + rules + 80u, 4223u);  // the end of the layer table
  ASSERT_EQ(file.size(), 8192u + 128u);   // zero padding to 8192, then the bit array
  EXPECT_EQ(filter_file::get_u32(reinterpret_cast<const unsigned char*>(file.data()) + 8), 4u);
  EXPECT_EQ(std::string(file.data() + 4096 + 5 + 8, 5), "whole");
  ASSERT_EQ(separator_offset(KeyRules{}), 4133u);
  EXPECT_EQ(file[4133], '\n');
  EXPECT_EQ(std::vector<char>(file.begin() + 4223, file.begin() + 8192),
            std::vector<char>(8192 - 4223, '\0'));
  EXPECT_EQ(XXH3_64bits(file.data() + 8192, 128), 0x40ce02f05c7d0370ull);
  EXPECT_EQ(XXH3_64bits(file.data(), 4096), 0xca091c5446464864ull);
  EXPECT_EQ(XXH3_64bits(file.data(), file.size()), 0x03dfbe1b6fa12c93ull);

  // The same with NUL-separated records (-z): one byte differs.
  KeyRules nul;
  nul.record_separator = '\0';
  const std::vector<char> z = fixed_filter_file(nul);
  ASSERT_EQ(z.size(), file.size());
  EXPECT_EQ(z[4133], '\0');
  EXPECT_EQ(XXH3_64bits(z.data(), z.size()), 0x7e0636f4d495d147ull);
}

// Version 4: the growing filter above.
TEST(Format, GrowingFilterFileBytes) {
  const std::vector<char> file = growing_filter_file();
  EXPECT_EQ(file.size(), 35840u);
  EXPECT_EQ(XXH3_64bits(file.data(), 4096), 0x02640004a9651b87ull);
  EXPECT_EQ(XXH3_64bits(file.data(), file.size()), 0xd224df0f01eef40dull);
}

// Writes `file` to a temporary path and loads it.
FilterFile load_bytes(const std::vector<char>& file) {
  const std::string path = ::testing::TempDir() + "gdedup_format_old_" + std::to_string(getpid());
  {
    std::ofstream out(path, std::ios::binary);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  FilterFile loaded = load_filter_file(path);
  std::filesystem::remove(path);
  return loaded;
}

// Version 3 as its writers wrote it: version 4's bytes without the padding
// before the bit arrays (test::as_version3). The hashes are version 3's
// test vectors, pinned before version 4 existed, so the forgery is exact;
// such files still load, to the same bits.
TEST(Format, FilterFileVersion3BytesStillLoad) {
  const std::vector<char> fixed = test::as_version3(fixed_filter_file());
  ASSERT_EQ(fixed.size(), 4351u);
  EXPECT_EQ(XXH3_64bits(fixed.data() + fixed.size() - 128, 128), 0x40ce02f05c7d0370ull);
  EXPECT_EQ(XXH3_64bits(fixed.data(), 4096), 0x8fc144998798f2acull);
  EXPECT_EQ(XXH3_64bits(fixed.data(), fixed.size()), 0x14daee5c25896e5bull);
  KeyRules nul;
  nul.record_separator = '\0';
  const std::vector<char> z = test::as_version3(fixed_filter_file(nul));
  EXPECT_EQ(XXH3_64bits(z.data(), z.size()), 0x2201ed8718dcc7a0ull);
  const std::vector<char> growing = test::as_version3(growing_filter_file());
  EXPECT_EQ(growing.size(), 31160u);
  EXPECT_EQ(XXH3_64bits(growing.data(), 4096), 0xb7428a1c0ebaf800ull);
  EXPECT_EQ(XXH3_64bits(growing.data(), growing.size()), 0xe46dd39660d910b7ull);

  const FilterFile loaded = load_bytes(fixed);
  EXPECT_EQ(loaded.version, 3u);
  ASSERT_EQ(loaded.layers.size(), 1u);
  EXPECT_EQ(XXH3_64bits(loaded.layers[0].words(), 128), 0x40ce02f05c7d0370ull);
  const FilterFile loaded_growing = load_bytes(growing);
  EXPECT_EQ(loaded_growing.version, 3u);
  EXPECT_EQ(loaded_growing.layers.size(), 3u);
  ASSERT_TRUE(loaded_growing.rules.keys.has_value());
  EXPECT_EQ(*loaded_growing.rules.keys, growing_file_key_rules());
}

// Version 2 as its writers wrote it: version 3's bytes (test::as_version3)
// without the record separator in the rules section, and a header of
// version 2 with that section's size and checksum. The hashes below are version 2's test
// vectors, pinned before version 3 existed, so the forgery is exact.
std::vector<char> as_version2(std::vector<char> file, size_t separator_at) {
  file.erase(file.begin() + static_cast<std::ptrdiff_t>(separator_at));
  auto* header = reinterpret_cast<unsigned char*>(file.data());
  const uint64_t rules_bytes = filter_file::get_u64(header + filter_file::kOffRulesBytes) - 1;
  filter_file::put_u32(header + filter_file::kOffVersion, 2);
  filter_file::put_u64(header + filter_file::kOffRulesBytes, rules_bytes);
  filter_file::put_u64(header + filter_file::kOffRulesChecksum,
                       XXH3_64bits(file.data() + 4096, rules_bytes));
  filter_file::seal_header(header);
  return file;
}

// A version 2 file loads with the newline separator it was used with, and
// everything else as it was saved.
void expect_version2_loads(const std::vector<char>& file, const KeyRules& saved_with) {
  const std::string path = ::testing::TempDir() + "gdedup_format_v2_" + std::to_string(getpid());
  {
    std::ofstream out(path, std::ios::binary);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  const FilterFile loaded = load_filter_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(loaded.version, 2u);
  ASSERT_TRUE(loaded.rules.keys.has_value());
  EXPECT_EQ(loaded.rules.keys->record_separator, '\n');
  EXPECT_EQ(*loaded.rules.keys, saved_with) << loaded.rules.keys->to_string();
}

TEST(Format, FilterFileVersion2BytesStillLoad) {
  const std::vector<char> fixed =
      as_version2(test::as_version3(fixed_filter_file()), separator_offset(KeyRules{}));
  ASSERT_EQ(fixed.size(), 4350u);
  EXPECT_EQ(XXH3_64bits(fixed.data(), 4096), 0xf6cb14ac9cfe51adull);
  EXPECT_EQ(XXH3_64bits(fixed.data(), fixed.size()), 0x2ece9f14b26dcc4cull);
  expect_version2_loads(fixed, KeyRules{});

  const std::vector<char> growing =
      as_version2(test::as_version3(growing_filter_file()),
                  separator_offset(growing_file_key_rules()));
  ASSERT_EQ(growing.size(), 31159u);
  EXPECT_EQ(XXH3_64bits(growing.data(), 4096), 0x9150365f19567c03ull);
  EXPECT_EQ(XXH3_64bits(growing.data(), growing.size()), 0xcbe5d809679df4e4ull);
  expect_version2_loads(growing, growing_file_key_rules());
}

// The filter above with a fixed resume state: one input, ten records kept,
// the filter file seen.gdf, records without their key dropped (3 of them).
ResumeState ten_record_state() {
  ResumeState state;
  state.inputs = {InputIdentity{"in.txt", true, 70, 1700000000123456789, 0x0123456789abcdef}};
  state.output = "out.txt";
  state.output_temporary = "out.txt.tmp.x7k2qa";
  state.position = StreamPoint{10, 70, 0, 70};
  state.output_offset = 70;
  state.output_checksum = 0xfedcba9876543210;
  state.records = 10;
  state.kept = 10;
  state.input_bytes = 70;
  state.filter_file = FilterFileMark{
      true, true, InputIdentity{"seen.gdf", true, 4224, 1700000000987654321, 0x1122334455667788}};
  state.missing_key = keys::MissingKey::kDrop;
  state.missing_keys = 3;
  state.output_footer = "footer";
  return state;
}

TEST(Format, CheckpointFileBytes) {
  const Filter filter = ten_key_filter();
  const std::vector<char> file = saved_bytes([&](const std::string& path) {
    save_checkpoint(filter, ten_record_state(), path);
  });
  ASSERT_EQ(file.size(), 4096u + 128u + 274u + 1u);
  EXPECT_EQ(XXH3_64bits(file.data() + 4096, 128), 0x40ce02f05c7d0370ull);  // payload checksum
  EXPECT_EQ(XXH3_64bits(file.data() + 4096 + 128, 274), 0xd8ba53c0efaaac20ull);  // state
  EXPECT_EQ(file.back(), 0);  // the growth section: a fixed filter
  EXPECT_EQ(XXH3_64bits(file.data(), 4096), 0xdcb4aa50e6af0d56ull);  // whole header
  EXPECT_EQ(XXH3_64bits(file.data(), file.size()), 0x1b95913573d7df14ull);
}

// The same as the first layer of a growing filter whose second layer holds
// the same ten keys.
TEST(Format, GrowingCheckpointFileBytes) {
  Checkpoint ck{ten_key_filter(), ten_record_state(), {}};
  GrowthState growth;
  growth.rule.first_capacity = 16;
  growth.rule.check_every = 8;
  growth.keys_offered = 10;
  ck.state.growth = growth;
  ck.later_layers.push_back(ten_key_filter());
  const std::vector<char> file = saved_bytes([&](const std::string& path) {
    save_checkpoint(ck, path);
  });
  // The growth section, then the layers section of the second layer.
  ASSERT_EQ(file.size(), 4096u + 128u + 274u + 61u + (8u + 64u + 8u + 128u));
  EXPECT_EQ(XXH3_64bits(file.data() + 4096 + 128, 274), 0xd8ba53c0efaaac20ull);  // state
  EXPECT_EQ(XXH3_64bits(file.data() + 4096 + 128 + 274, 61), 0x177b1de3aa00f552ull);  // growth
  EXPECT_EQ(XXH3_64bits(file.data() + 4096 + 128 + 274 + 61 + 80, 128), 0x40ce02f05c7d0370ull);
  EXPECT_EQ(XXH3_64bits(file.data(), 4096), 0x564f56977672ce12ull);  // whole header
  EXPECT_EQ(XXH3_64bits(file.data(), file.size()), 0x51e681f6606c3872ull);
}

// Set files (exact mode): the keys' Golomb-Rice section by hand for one
// key, then a fixed set of keys at the ends of the 84-bit range and between,
// given in two orders.
Key84 key_at(uint64_t high64, uint64_t low20) { return key84_of(high64, low20 << 44); }

std::vector<char> set_file_bytes(const std::vector<Key84>& keys, const KeyRules& rules) {
  KeySet set;
  set.insert(keys.data(), keys.size());
  return saved_bytes([&](const std::string& path) { save_set_file(set, rules, path); });
}

// The rules section as in a filter file with the default key rules and no
// growth: flags, format, texts, separator, seed.
constexpr uint64_t kSetRulesBytes = 2 + 4 + (8 + 5) + (8 + 3) + 8 + 1 + 8;

TEST(Format, SetFileOfOneKeyBytes) {
  // One key: b = 83, so the key 5 is a one bit, then 5 in 83 bits: 11 bytes.
  const std::vector<char> file = set_file_bytes({5}, KeyRules{});
  ASSERT_EQ(file.size(), 80u + kSetRulesBytes + 11u);
  EXPECT_EQ(std::string(file.data(), 8), "GDEDUPES");
  const auto* h = reinterpret_cast<const unsigned char*>(file.data());
  EXPECT_EQ(filter_file::get_u32(h + 8), 1u);    // version
  EXPECT_EQ(filter_file::get_u32(h + 12), 80u);  // header bytes
  EXPECT_EQ(filter_file::get_u64(h + 16), 1u);   // keys
  EXPECT_EQ(filter_file::get_u64(h + 24), kSetRulesBytes);
  EXPECT_EQ(filter_file::get_u64(h + 40), 0u);   // no resume state
  EXPECT_EQ(filter_file::get_u64(h + 56), 11u);  // keys section
  const std::vector<char> keys(file.end() - 11, file.end());
  std::vector<char> expected(11, 0);
  expected[0] = 0x0b;  // 1, then 5 from the next bit
  EXPECT_EQ(keys, expected);
}

std::vector<Key84> fixed_set_keys() {
  return {0,
          1,
          2,
          key_at(0x0123456789abcdefull, 0x12345),
          key_at(0x0123456789abcdefull, 0x12346),
          key_at(0x8000000000000000ull, 0),
          key_at(0xfedcba9876543210ull, 0xfffff),
          key_at(~0ull, 0xffffe),
          key_at(~0ull, 0xfffff)};
}

TEST(Format, SetFileBytes) {
  std::vector<Key84> keys = fixed_set_keys();
  const std::vector<char> file = set_file_bytes(keys, KeyRules{});
  std::reverse(keys.begin(), keys.end());
  EXPECT_EQ(set_file_bytes(keys, KeyRules{}), file);
  ASSERT_EQ(file.size(), 80u + kSetRulesBytes + 93u);
  EXPECT_EQ(XXH3_64bits(file.data() + 80 + kSetRulesBytes, file.size() - 80 - kSetRulesBytes),
            0xad19ba83c98cea26ull);  // keys section
  EXPECT_EQ(XXH3_64bits(file.data(), 80), 0xfe01be1f2e07e495ull);  // header
  EXPECT_EQ(XXH3_64bits(file.data(), file.size()), 0x9ccc4b5dc10778e5ull);
  // They load back, the ends of the range included.
  const std::string path = ::testing::TempDir() + "gdedup_format_set_" + std::to_string(getpid());
  {
    std::ofstream out(path, std::ios::binary);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  std::vector<Key84> loaded;
  load_set_file(path).set.for_each_sorted(
      [&](const Key84* k, size_t n) { loaded.insert(loaded.end(), k, k + n); });
  std::filesystem::remove(path);
  EXPECT_EQ(loaded, fixed_set_keys());
}

TEST(Format, SetCheckpointBytes) {
  KeySet set;
  const std::vector<Key84> keys = fixed_set_keys();
  set.insert(keys.data(), keys.size());
  const std::vector<char> file = saved_bytes([&](const std::string& path) {
    save_set_checkpoint(set, KeyRules{}, ten_record_state(), path);
  });
  EXPECT_EQ(std::string(file.data(), 8), "GDEDUPEC");
  ASSERT_EQ(file.size(), 80u + kSetRulesBytes + 274u + 93u);
  EXPECT_EQ(XXH3_64bits(file.data() + 80 + kSetRulesBytes, 274), 0xd8ba53c0efaaac20ull);  // state
  EXPECT_EQ(XXH3_64bits(file.data(), 80), 0xc18a08b657063f80ull);  // header
  EXPECT_EQ(XXH3_64bits(file.data(), file.size()), 0x1b817d1c0e56246bull);
}

}  // namespace
}  // namespace gdedup
