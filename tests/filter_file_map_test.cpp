// Filter files of version 4 mapped in place (map_filter_file): the same
// filter as a load, every check of a load, bit arrays page-aligned with
// zero padding before them, no writes through the mapping, and older
// versions refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "file_util.h"
#include "test_util.h"
#include "filter_file_forge.h"
#include "format/filter_file_format.h"
#include "format/layers_codec.h"
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

class FilterFileMapTest : public test::TempDirTest {
 protected:
  FilterFileMapTest() : TempDirTest("gdedup_filter_file_map") {}
};

using test::key_fingerprints;

KeyRules url_rules() {
  KeyRules rules;
  rules.keys = KeyOptions::parse("field:2", "comma", "url");
  return rules;
}

// A growing filter of three layers, keys key-0 .. key-5999 offered.
void save_growing(const std::string& path) {
  GrowthRule rule;
  rule.first_capacity = 1024;
  rule.check_every = 1024;
  LayeredFilter filter(rule, kDefaultSeed, test::cpu_layers());
  const std::vector<uint64_t> fps = key_fingerprints(0, 6000);
  std::vector<uint8_t> present(fps.size());
  filter.test_and_set(fps.data(), fps.size(), present.data());
  filter.sync_to_host();
  ASSERT_EQ(filter.layer_count(), 3u);
  save_filter(filter, path, url_rules());
}

void save_fixed(const std::string& path) {
  save_filter(test::filter_with_keys(FilterParams{1000, {512, 16}, kDefaultSeed}, 3000, 1e-3), path,
              KeyRules{});
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The file offset of each layer's bit array, from the layer table.
std::vector<uint64_t> array_offsets(const Bytes& file) {
  const uint64_t table_at = ff::kHeaderBytes + ff::get_u64(file.data() + ff::kOffRulesBytes);
  const uint64_t layers = ff::get_u64(file.data() + table_at);
  std::vector<uint64_t> at;
  uint64_t end = table_at + format::table_bytes(layers);
  for (uint64_t i = 0; i < layers; ++i) {
    const ff::FilterFields fields = ff::get_fields(file.data() + table_at +
                                                   format::kLayerCountBytes +
                                                   i * format::kLayerEntryBytes);
    at.push_back(format::aligned_offset(end, 4096));
    end = at.back() + fields.payload_bytes;
  }
  EXPECT_EQ(end, file.size());
  return at;
}

void expect_same_filters(const FilterFile& mapped, const FilterFile& loaded) {
  EXPECT_EQ(mapped.version, loaded.version);
  EXPECT_EQ(mapped.rules.keys, loaded.rules.keys);
  EXPECT_EQ(mapped.rules.growth, loaded.rules.growth);
  EXPECT_EQ(mapped.rules.keys_offered, loaded.rules.keys_offered);
  ASSERT_EQ(mapped.layers.size(), loaded.layers.size());
  for (size_t i = 0; i < mapped.layers.size(); ++i) {
    const Filter& m = mapped.layers[i];
    const Filter& l = loaded.layers[i];
    EXPECT_TRUE(m.read_only());
    EXPECT_FALSE(l.read_only());
    EXPECT_EQ(m.params(), l.params());
    EXPECT_EQ(m.counters().insertions, l.counters().insertions);
    EXPECT_EQ(m.counters().planned_capacity, l.counters().planned_capacity);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.words()) % 4096, 0u) << "layer " << i;
    EXPECT_EQ(std::memcmp(m.words(), l.words(), m.params().bytes()), 0) << "layer " << i;
  }
}

TEST_F(FilterFileMapTest, BitArraysStartAtPageMultiplesAfterZeroPadding) {
  save_growing(path("g"));
  const Bytes file = read_bytes(path("g"));
  EXPECT_EQ(ff::get_u32(file.data() + ff::kOffVersion), 4u);
  const std::vector<uint64_t> at = array_offsets(file);
  ASSERT_EQ(at.size(), 3u);
  const uint64_t table_end = ff::kHeaderBytes + ff::get_u64(file.data() + ff::kOffRulesBytes) +
                             format::table_bytes(3);
  for (uint64_t p = table_end; p < at[0]; ++p) ASSERT_EQ(file[p], 0) << p;
  for (const uint64_t a : at) EXPECT_EQ(a % 4096, 0u);
}

TEST_F(FilterFileMapTest, MappedFilterIsTheLoadedOne) {
  save_fixed(path("f"));
  save_growing(path("g"));
  for (const char* name : {"f", "g"}) {
    const FilterFile loaded = load_filter_file(path(name));
    const FilterFile mapped = map_filter_file(path(name));
    expect_same_filters(mapped, loaded);
    // The same answers, through the backend, and the same file when saved.
    const std::vector<uint64_t> fps = key_fingerprints(0, 20000);
    for (size_t i = 0; i < mapped.layers.size(); ++i) {
      std::vector<uint8_t> a(fps.size()), b(fps.size());
      make_cpu_backend(const_cast<Filter&>(mapped.layers[i]))->contains(fps.data(), fps.size(),
                                                                         a.data());
      make_cpu_backend(const_cast<Filter&>(loaded.layers[i]))->contains(fps.data(), fps.size(),
                                                                         b.data());
      EXPECT_EQ(a, b) << name << " layer " << i;
    }
    save_filter_file(mapped, path("copy"));
    EXPECT_EQ(read_bytes(path("copy")), read_bytes(path(name))) << name;
  }
}

TEST_F(FilterFileMapTest, MappingOutlivesTheFileItWasMappedFrom) {
  save_fixed(path("f"));
  const FilterFile before = load_filter_file(path("f"));
  const FilterFile mapped = map_filter_file(path("f"));
  // Saves replace the file by rename: the mapping keeps the bytes it verified.
  save_filter(Filter(FilterParams{1000, {512, 16}, kDefaultSeed}), path("f"), KeyRules{});
  expect_same_filters(mapped, before);
}

TEST_F(FilterFileMapTest, WritesThroughAMappedFilterAreRefused) {
  save_fixed(path("f"));
  save_growing(path("g"));
  FilterFile mapped = map_filter_file(path("f"));
  Filter& layer = mapped.layers[0];
  const uint64_t insertions = layer.counters().insertions;
  std::unique_ptr<Backend> backend = make_cpu_backend(layer);
  const std::vector<uint64_t> fps = key_fingerprints(5000, 5100);
  std::vector<uint8_t> present(fps.size());
  for (const std::string& error :
       {error_of([&] { backend->test_and_set(fps.data(), fps.size(), present.data()); }),
        error_of([&] { backend->add(fps.data(), fps.size()); }),
        error_of([&] { layer.merge(load_filter(path("f"))); })}) {
    EXPECT_NE(error.find("read-only filter"), std::string::npos) << error;
  }
  EXPECT_EQ(layer.counters().insertions, insertions);
  // Merging a mapped filter into an owned one reads it only.
  Filter owned = load_filter(path("f"));
  owned.merge(layer);

  FilterFile growing = map_filter_file(path("g"));
  LayeredFilter filter(*growing.rules.growth, std::move(growing.layers),
                       growing.rules.keys_offered, test::cpu_layers());
  EXPECT_NE(error_of([&] { filter.test_and_set(fps.data(), fps.size(), present.data()); })
                .find("read-only filter"),
            std::string::npos);
  std::vector<uint8_t> found(fps.size());
  filter.contains(fps.data(), fps.size(), found.data());
}

TEST_F(FilterFileMapTest, NonzeroPaddingIsRefusedByEveryReader) {
  save_growing(path("g"));
  const Bytes good = read_bytes(path("g"));
  const std::vector<uint64_t> at = array_offsets(good);
  for (const uint64_t bad_at : {at[0] - 1, at[1] - 1, at[2] - 100}) {
    Bytes bad = good;
    bad[bad_at] = 1;
    write_bytes(path("bad"), bad);
    for (const std::string& error :
         {error_of([&] { load_filter_file(path("bad")); }),
          error_of([&] { map_filter_file(path("bad")); }),
          error_of([&] { read_filter_info(path("bad")); })}) {
      EXPECT_NE(error.find(path("bad")), std::string::npos) << error;
      EXPECT_NE(error.find("byte " + std::to_string(bad_at) + ", in the zero padding"),
                std::string::npos)
          << error;
    }
  }
}

TEST_F(FilterFileMapTest, DamagedOrCutMappedFilesAreRefused) {
  save_growing(path("g"));
  const Bytes good = read_bytes(path("g"));
  const std::vector<uint64_t> at = array_offsets(good);
  for (size_t layer = 0; layer < at.size(); ++layer) {
    Bytes bad = good;
    bad[at[layer] + 7] ^= 0x10;
    write_bytes(path("bad"), bad);
    const std::string error = error_of([&] { map_filter_file(path("bad")); });
    EXPECT_NE(error.find(path("bad")), std::string::npos) << error;
    EXPECT_NE(error.find("layer " + std::to_string(layer + 1) + "'s bit array does not match"),
              std::string::npos)
        << error;
  }
  for (const size_t length : {size_t{100}, size_t{5000}, size_t(at[0]), good.size() - 1}) {
    write_bytes(path("cut"), Bytes(good.begin(), good.begin() + static_cast<long>(length)));
    EXPECT_NE(error_of([&] { map_filter_file(path("cut")); }).find("truncated"), std::string::npos)
        << length;
  }
  Bytes longer = good;
  longer.push_back(0);
  write_bytes(path("long"), longer);
  EXPECT_NE(error_of([&] { map_filter_file(path("long")); }).find("bytes of layers"),
            std::string::npos);
}

TEST_F(FilterFileMapTest, OlderVersionsAreLoadedNotMapped) {
  save_fixed(path("f"));
  write_bytes(path("v3"), test::as_version3(read_bytes(path("f"))));
  const FilterFile loaded = load_filter_file(path("v3"));
  EXPECT_EQ(loaded.version, 3u);
  const std::string error = error_of([&] { map_filter_file(path("v3")); });
  EXPECT_NE(error.find("cannot map filter file " + path("v3") + ": it is version 3"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("save it again"), std::string::npos) << error;
  // Saved again, it is version 4 and maps.
  save_filter_file(loaded, path("v4"));
  EXPECT_EQ(read_bytes(path("v4")), read_bytes(path("f")));
  expect_same_filters(map_filter_file(path("v4")), load_filter_file(path("v4")));
}

}  // namespace
}  // namespace gdedup
