// Filter files of versions 2 and 3: exact round trips of fixed and growing filters
// with their rules, version 1 files read as one layer with unknown key
// rules, a loaded growing filter that continues exactly as it would have,
// and refusal of damaged, truncated and inconsistent files naming them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "file_util.h"
#include "test_util.h"
#include "format/file_writer.h"
#include "format/filter_file_format.h"
#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/layered_filter.h"

namespace gdedup {
namespace {

namespace ff = filter_file;
using test::Bytes;
using test::read_bytes;
using test::write_bytes;

class FilterFileV2Test : public test::TempDirTest {
 protected:
  FilterFileV2Test() : TempDirTest("gdedup_filter_file_v2") {}
};

GrowthRule small_rule() {
  GrowthRule rule;
  rule.first_capacity = 1024;
  rule.check_every = 1024;
  return rule;
}

using test::key_fingerprints;

void offer(LayeredFilter& filter, const std::vector<uint64_t>& fps) {
  std::vector<uint8_t> present(fps.size());
  filter.test_and_set(fps.data(), fps.size(), present.data());
  filter.sync_to_host();
}

KeyRules url_rules() {
  KeyRules rules;
  rules.keys = KeyOptions::parse("field:2", "comma", "url");
  return rules;
}

// A growing filter of three layers saved with url_rules() at `path`.
void save_growing(const std::string& path) {
  LayeredFilter filter(small_rule(), kDefaultSeed, test::cpu_layers());
  offer(filter, key_fingerprints(0, 6000));
  ASSERT_EQ(filter.layer_count(), 3u);
  save_filter(filter, path, url_rules());
}

std::string load_error(const std::string& path) {
  try {
    load_filter_file(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The file's header checksum recomputed over `file`, as a forger would.
void reseal(Bytes& file) {
  ff::put_u64(file.data() + ff::kOffHeaderChecksum, ff::header_checksum(file.data()));
}

// Replaces the rules section of `file` by `rules`, fixing the lengths and
// checksums around it.
Bytes with_rules(const Bytes& file, const std::string& rules) {
  const uint64_t old_size = ff::get_u64(file.data() + ff::kOffRulesBytes);
  // Sized once and copied into: growing a vector by insert here made GCC 12
  // warn of a copy out of bounds (-Warray-bounds) that cannot happen.
  const uint64_t tail = file.size() - ff::kHeaderBytes - old_size;
  Bytes out(ff::kHeaderBytes + rules.size() + tail);
  std::copy(file.begin(), file.begin() + ff::kHeaderBytes, out.begin());
  std::copy(rules.begin(), rules.end(), out.begin() + ff::kHeaderBytes);
  std::copy(file.end() - static_cast<std::ptrdiff_t>(tail), file.end(),
            out.begin() + static_cast<std::ptrdiff_t>(ff::kHeaderBytes + rules.size()));
  ff::put_u64(out.data() + ff::kOffRulesBytes, rules.size());
  ff::put_u64(out.data() + ff::kOffRulesChecksum, XXH3_64bits(rules.data(), rules.size()));
  reseal(out);
  return out;
}

std::string rules_of(const Bytes& file) {
  const uint64_t size = ff::get_u64(file.data() + ff::kOffRulesBytes);
  return std::string(file.begin() + ff::kHeaderBytes, file.begin() + ff::kHeaderBytes + size);
}

TEST_F(FilterFileV2Test, GrowingFilterRoundTripIsBytesIdentical) {
  save_growing(path("a"));
  const FilterFile loaded = load_filter_file(path("a"));
  EXPECT_EQ(loaded.version, kFilterFileVersion);
  ASSERT_EQ(loaded.layers.size(), 3u);
  ASSERT_TRUE(loaded.rules.keys.has_value());
  EXPECT_EQ(*loaded.rules.keys, url_rules());
  ASSERT_TRUE(loaded.rules.growth.has_value());
  EXPECT_EQ(*loaded.rules.growth, small_rule());
  EXPECT_EQ(loaded.rules.keys_offered, 6000u);
  save_filter_file(loaded, path("b"));
  EXPECT_EQ(read_bytes(path("b")), read_bytes(path("a")));

  const FilterFileInfo info = read_filter_info(path("a"));
  ASSERT_EQ(info.params.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(info.params[i], loaded.layers[i].params());
}

TEST_F(FilterFileV2Test, FixedFilterWithoutKeyRulesRoundTrips) {
  const Filter filter = test::filter_with_keys(FilterParams{9, {512, 32}, 77}, 50, 1e-3);
  save_filter(filter, path("a"));
  const FilterFile loaded = load_filter_file(path("a"));
  EXPECT_FALSE(loaded.rules.keys.has_value());
  EXPECT_FALSE(loaded.rules.growth.has_value());
  ASSERT_EQ(loaded.layers.size(), 1u);
  EXPECT_EQ(std::memcmp(loaded.layers[0].words(), filter.words(), filter.params().bytes()), 0);
  save_filter_file(loaded, path("b"));
  EXPECT_EQ(read_bytes(path("b")), read_bytes(path("a")));
  EXPECT_EQ(load_filter(path("a")).params(), filter.params());
}

TEST_F(FilterFileV2Test, Version1LoadsAsOneLayerWithUnknownKeyRules) {
  const Filter filter = test::filter_with_keys(FilterParams{5, {256, 16}, kDefaultSeed}, 30, 1e-3);
  format::write_file(path("v1"), "cannot save " + path("v1"),
                     {ff::kMagic, ff::kVersion1, filter.words(), filter.params(),
                      filter.counters(), "", {}, {}});
  const FilterFile loaded = load_filter_file(path("v1"));
  EXPECT_EQ(loaded.version, 1u);
  EXPECT_FALSE(loaded.rules.keys.has_value());
  EXPECT_FALSE(loaded.rules.growth.has_value());
  ASSERT_EQ(loaded.layers.size(), 1u);
  EXPECT_EQ(loaded.layers[0].params(), filter.params());
  EXPECT_EQ(loaded.layers[0].counters().insertions, filter.counters().insertions);
  EXPECT_EQ(std::memcmp(loaded.layers[0].words(), filter.words(), filter.params().bytes()), 0);
  EXPECT_EQ(read_filter_info(path("v1")).version, 1u);
}

// Saving halfway and continuing from the file gives the bytes of one run:
// growth is decided by the keys offered over the filter's life.
TEST_F(FilterFileV2Test, LoadedGrowingFilterContinuesAsItWouldHave) {
  const std::vector<uint64_t> all = key_fingerprints(0, 9000);
  LayeredFilter whole(small_rule(), kDefaultSeed, test::cpu_layers());
  offer(whole, all);
  save_filter(whole, path("whole"), url_rules());
  for (const size_t cut : {size_t{1}, size_t{1023}, size_t{1024}, size_t{3000}, size_t{8999}}) {
    LayeredFilter first(small_rule(), kDefaultSeed, test::cpu_layers());
    offer(first, std::vector<uint64_t>(all.begin(), all.begin() + cut));
    save_filter(first, path("half"), url_rules());
    FilterFile loaded = load_filter_file(path("half"));
    LayeredFilter second(*loaded.rules.growth, std::move(loaded.layers),
                         loaded.rules.keys_offered, test::cpu_layers());
    offer(second, std::vector<uint64_t>(all.begin() + cut, all.end()));
    save_filter(second, path("continued"), url_rules());
    EXPECT_EQ(read_bytes(path("continued")), read_bytes(path("whole"))) << "cut at " << cut;
  }
}

TEST_F(FilterFileV2Test, EveryChangedHeaderOrRulesByteIsRefused) {
  save_growing(path("good"));
  const Bytes good = read_bytes(path("good"));
  const uint64_t rules = ff::get_u64(good.data() + ff::kOffRulesBytes);
  for (size_t at = 0; at < ff::kHeaderBytes + rules; at += (at < 64 || at >= 4000 ? 1 : 61)) {
    Bytes bad = good;
    bad[at] ^= 0x04;
    write_bytes(path("bad"), bad);
    const std::string error = load_error(path("bad"));
    ASSERT_NE(error, "") << "a change at byte " << at << " was accepted";
    EXPECT_NE(error.find(path("bad")), std::string::npos) << error;
  }
}

TEST_F(FilterFileV2Test, TruncatedOrExtendedFilesAreRefused) {
  save_growing(path("good"));
  const Bytes good = read_bytes(path("good"));
  for (const size_t length : {size_t{0}, size_t{100}, size_t{4096}, size_t{4100},
                              size_t{4096 + 90}, size_t{4096 + 200}, good.size() - 1}) {
    write_bytes(path("short"), Bytes(good.begin(), good.begin() + length));
    EXPECT_NE(load_error(path("short")), "") << length;
  }
  Bytes longer = good;
  longer.push_back(0);
  write_bytes(path("long"), longer);
  EXPECT_NE(load_error(path("long")).find("bytes of layers"), std::string::npos)
      << load_error(path("long"));
}

TEST_F(FilterFileV2Test, ForgedRulesAreRefused) {
  save_growing(path("good"));
  const Bytes good = read_bytes(path("good"));
  const std::string rules = rules_of(good);
  struct Case {
    const char* name;
    std::string from, to;
    const char* expect;
  };
  const Case cases[] = {
      // "comma" spelled "," parses to the same rules but is not canonical.
      {"spelling", std::string("\x05\0\0\0\0\0\0\0comma", 13), std::string("\x01\0\0\0\0\0\0\0,", 9),
       "malformed rules"},
      {"flag", std::string("\x01\x00\x00\x00\x00", 5), std::string("\x02\x00\x00\x00\x00", 5),
       "malformed rules"},
  };
  for (const Case& c : cases) {
    std::string forged = rules;
    const size_t at = forged.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.name;
    forged.replace(at, c.from.size(), c.to);
    write_bytes(path("bad"), with_rules(good, forged));
    EXPECT_NE(load_error(path("bad")).find(c.expect), std::string::npos)
        << c.name << ": " << load_error(path("bad"));
  }
  // A record separator other than newline and NUL.
  std::string separator = rules;
  const KeyOptions keys = url_rules().keys;
  const size_t separator_at = 1 + 4 + (8 + keys.key_text().size()) +
                              (8 + keys.delimiter_text().size()) +
                              (8 + keys.normalize_text().size());
  ASSERT_EQ(separator[separator_at], '\n');
  separator[separator_at] = '\t';
  write_bytes(path("bad"), with_rules(good, separator));
  EXPECT_NE(load_error(path("bad")).find("malformed rules"), std::string::npos)
      << load_error(path("bad"));
  // Another first capacity: the layers are not the ones the rule plans.
  std::string other = rules;
  const size_t growth_at = rules.size() - 8 * 5 - 4 * 2 - 1;  // after the growth flag
  ff::put_u64(reinterpret_cast<unsigned char*>(other.data()) + growth_at + 1, 2048);
  write_bytes(path("bad"), with_rules(good, other));
  EXPECT_NE(load_error(path("bad")).find("growth rule plans"), std::string::npos)
      << load_error(path("bad"));
}

TEST_F(FilterFileV2Test, KeyRulesSeedMustBeTheLayersSeed) {
  const Filter filter = test::filter_with_keys(FilterParams{9, {256, 8}, 77}, 50, 1e-3);
  save_filter(filter, path("bad"), KeyRules{});  // the default seed, not 77
  EXPECT_NE(load_error(path("bad")).find("another hash seed than its layers"), std::string::npos)
      << load_error(path("bad"));
}

TEST_F(FilterFileV2Test, OneFilterCannotHoldAGrowingFile) {
  save_growing(path("g"));
  try {
    load_filter(path("g"));
    FAIL() << "load_filter returned one layer of three";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("3 layers"), std::string::npos) << e.what();
  }
}

TEST_F(FilterFileV2Test, KeyRulesCanonicalText) {
  EXPECT_EQ(KeyRules{}.to_string(),
            "input text, key whole, delimiter tab, normalize none, separator newline, seed "
            "0x6764656475700001");
  KeyRules u64;
  u64.format = InputFormat::kU64;
  EXPECT_EQ(u64.to_string(), "input u64, seed 0x6764656475700001");
  // Records that end at NUL hold other keys; u64 fingerprints have no records.
  KeyRules nul;
  nul.record_separator = '\0';
  EXPECT_EQ(nul.to_string(),
            "input text, key whole, delimiter tab, normalize none, separator nul, seed "
            "0x6764656475700001");
  EXPECT_NE(nul, KeyRules{});
  KeyRules u64_nul = u64;
  u64_nul.record_separator = '\0';
  EXPECT_EQ(u64_nul, u64);
  KeyRules tab_escape;
  tab_escape.keys = KeyOptions::parse("field:2", "\\t");
  KeyRules tab_name;
  tab_name.keys = KeyOptions::parse("field:2", "tab");
  EXPECT_EQ(tab_escape, tab_name);
  EXPECT_NE(tab_name, KeyRules{});
}

TEST_F(FilterFileV2Test, RecordSeparatorRoundTripsAndOnlyNewlineOrNulIsSaved) {
  const Filter filter = test::filter_with_keys(FilterParams{5, {256, 8}, kDefaultSeed}, 30, 1e-3);
  KeyRules nul = url_rules();
  nul.record_separator = '\0';
  save_filter(filter, path("nul"), nul);
  const FilterFile loaded = load_filter_file(path("nul"));
  EXPECT_EQ(loaded.version, kFilterFileVersion);
  ASSERT_TRUE(loaded.rules.keys.has_value());
  EXPECT_EQ(loaded.rules.keys->record_separator, '\0');
  EXPECT_EQ(*loaded.rules.keys, nul);
  EXPECT_EQ(read_filter_info(path("nul")).rules.keys->record_separator, '\0');

  KeyRules tab = url_rules();
  tab.record_separator = '\t';
  try {
    save_filter(filter, path("tab"), tab);
    FAIL() << "a tab separator was saved";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("record_separator"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path("tab")));
}

}  // namespace
}  // namespace gdedup
