// The layers section (format/layers_codec.h): exact round trips at any
// offset, and refusal of every damaged, truncated or inconsistent table and
// bit array with a message that names the file and the layer.
#include "format/layers_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "file_util.h"
#include "gdedup/error.h"
#include "gdedup/growth.h"

namespace gdedup {
namespace {

namespace ff = filter_file;
using test::Bytes;
using test::read_bytes;
using test::write_bytes;

class LayersCodecTest : public test::TempDirTest {
 protected:
  LayersCodecTest() : TempDirTest("gdedup_layers_codec") {}
};

// Three layers of different layouts and sizes, as a growing filter has.
std::vector<Filter> three_layers(uint64_t seed = kDefaultSeed) {
  std::vector<Filter> layers;
  layers.push_back(test::filter_with_keys(FilterParams{3, {256, 8}, seed}, 15, 1e-3));
  layers.push_back(test::filter_with_keys(FilterParams{7, {512, 16}, seed}, 40, 5e-4));
  layers.push_back(test::filter_with_keys(FilterParams{13, {256, 16}, seed}, 90, 2.5e-4));
  return layers;
}

std::vector<format::LayerView> views(const std::vector<Filter>& layers) {
  std::vector<format::LayerView> out;
  for (const Filter& layer : layers) out.push_back(format::view_of(layer));
  return out;
}

const std::string kPrefix = "bytes before the section";

// `prefix`, then the section of `layers`, as a file at `path`.
void write_section(const std::string& path, const std::vector<Filter>& layers) {
  fs::Replacement out(path, "cannot write " + path);
  out.write(kPrefix.data(), kPrefix.size());
  format::write_layers(out, kPrefix.size(), views(layers));
  out.commit();
}

format::FileKind test_kind() {
  format::FileKind kind;
  kind.name = "test file";
  kind.damage_advice = "; restore it";
  return kind;
}

std::vector<Filter> read_section(const std::string& path) {
  format::VerifiedFile f;
  EXPECT_EQ(fs::open_for_reading(path, f.file), 0);
  f.size = read_bytes(path).size();
  const format::FileKind kind = test_kind();
  const format::LayerTable table = format::read_layer_table(kind, f, kPrefix.size());
  EXPECT_EQ(kPrefix.size() + table.bytes, f.size);
  return format::read_layers(kind, f, kPrefix.size(), table);
}

std::string read_error(const std::string& path) {
  try {
    read_section(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_same_layers(const std::vector<Filter>& a, const std::vector<Filter>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].params(), b[i].params()) << "layer " << i;
    EXPECT_EQ(a[i].counters().insertions, b[i].counters().insertions);
    EXPECT_EQ(a[i].counters().planned_capacity, b[i].counters().planned_capacity);
    EXPECT_EQ(a[i].counters().planned_fpr, b[i].counters().planned_fpr);
    ASSERT_EQ(a[i].params().bytes(), b[i].params().bytes());
    EXPECT_EQ(std::memcmp(a[i].words(), b[i].words(), a[i].params().bytes()), 0) << "layer " << i;
  }
}

// The table's bytes with its checksum recomputed, as a faulty writer would.
void reseal_table(Bytes& file) {
  unsigned char* table = file.data() + kPrefix.size();
  const uint64_t sealed = format::table_bytes(ff::get_u64(table)) - format::kTableChecksumBytes;
  ff::put_u64(table + sealed, XXH3_64bits(table, sealed));
}

TEST_F(LayersCodecTest, RoundTripIsExact) {
  const std::vector<Filter> layers = three_layers();
  write_section(path("a"), layers);
  const Bytes first = read_bytes(path("a"));
  EXPECT_EQ(first.size(), kPrefix.size() + format::layers_bytes(views(layers)));
  const std::vector<Filter> loaded = read_section(path("a"));
  expect_same_layers(layers, loaded);
  write_section(path("b"), loaded);
  EXPECT_EQ(read_bytes(path("b")), first);
}

TEST_F(LayersCodecTest, TableHoldsTheFieldsOfAVersion1HeaderPerLayer) {
  const std::vector<Filter> layers = three_layers();
  write_section(path("a"), layers);
  const Bytes file = read_bytes(path("a"));
  const unsigned char* table = file.data() + kPrefix.size();
  ASSERT_EQ(ff::get_u64(table), 3u);
  uint64_t array_at = kPrefix.size() + format::table_bytes(3);
  for (size_t i = 0; i < layers.size(); ++i) {
    const ff::FilterFields f = ff::get_fields(table + 8 + 64 * i);
    EXPECT_EQ(f.params, layers[i].params());
    EXPECT_EQ(f.payload_bytes, layers[i].params().bytes());
    EXPECT_EQ(f.payload_checksum, XXH3_64bits(file.data() + array_at, f.payload_bytes));
    array_at += f.payload_bytes;
  }
  EXPECT_EQ(ff::get_u64(table + 8 + 64 * 3), XXH3_64bits(table, 8 + 64 * 3));
}

TEST_F(LayersCodecTest, EveryChangedTableByteIsRefused) {
  write_section(path("good"), three_layers());
  const Bytes good = read_bytes(path("good"));
  for (size_t at = kPrefix.size(); at < kPrefix.size() + format::table_bytes(3); ++at) {
    Bytes bad = good;
    bad[at] ^= 0x10;
    write_bytes(path("bad"), bad);
    const std::string error = read_error(path("bad"));
    ASSERT_NE(error, "") << "a change at byte " << at << " was accepted";
    EXPECT_NE(error.find(path("bad")), std::string::npos) << error;
  }
}

TEST_F(LayersCodecTest, ChangedBitArrayNamesItsLayer) {
  const std::vector<Filter> layers = three_layers();
  write_section(path("good"), layers);
  const Bytes good = read_bytes(path("good"));
  uint64_t at = kPrefix.size() + format::table_bytes(3);
  for (size_t i = 0; i < layers.size(); ++i) {
    Bytes bad = good;
    bad[at + layers[i].params().bytes() - 1] ^= 1;
    write_bytes(path("bad"), bad);
    EXPECT_NE(read_error(path("bad")).find("layer " + std::to_string(i + 1) +
                                           "'s bit array does not match"),
              std::string::npos)
        << read_error(path("bad"));
    at += layers[i].params().bytes();
  }
}

TEST_F(LayersCodecTest, TruncationAnywhereIsRefused) {
  write_section(path("good"), three_layers());
  const Bytes good = read_bytes(path("good"));
  for (size_t length = 0; length < good.size(); length += (length < 300 ? 1 : 37)) {
    write_bytes(path("short"), Bytes(good.begin(), good.begin() + length));
    const std::string error = read_error(path("short"));
    EXPECT_NE(error.find("is truncated"), std::string::npos) << length << ": " << error;
  }
}

TEST_F(LayersCodecTest, ResealedBadTablesAreRefused) {
  write_section(path("good"), three_layers());
  const Bytes good = read_bytes(path("good"));
  struct Case {
    const char* name;
    size_t at;  // offset in the section
    uint64_t value;
    bool u32;
    const char* expect;
  };
  const Case cases[] = {
      {"no layers", 0, 0, false, "declares 0 layers"},
      {"too many layers", 0, kMaxLayers + 1, false, "declares 65 layers"},
      {"bad layout", 8 + 64 + 8, 128, true, "layer 2 that describes a filter"},
      {"zero blocks", 8 + 128, 0, false, "layer 3 that describes a filter"},
      {"array size", 8 + 64 + 24, 1, false, "layer 2 declares a 1-byte bit array"},
      {"other seed", 8 + 128 + 16, 7, false, "layer 3 has another hash seed"},
      {"huge layer", 8, uint64_t{1} << 40, false, "layer 1 declares a"},
  };
  for (const Case& c : cases) {
    Bytes bad = good;
    unsigned char* at = bad.data() + kPrefix.size() + c.at;
    if (c.u32) {
      ff::put_u32(at, static_cast<uint32_t>(c.value));
    } else {
      ff::put_u64(at, c.value);
    }
    // Layer counts of 1 .. 64 change where the checksum lies: reseal only
    // tables whose count is still the writer's.
    if (c.at != 0) reseal_table(bad);
    write_bytes(path("bad"), bad);
    const std::string error = read_error(path("bad"));
    EXPECT_NE(error.find(c.expect), std::string::npos) << c.name << ": " << error;
  }
}

TEST_F(LayersCodecTest, HugeLayerInASmallFileIsRefusedBeforeAllocating) {
  write_section(path("good"), three_layers());
  Bytes bad = read_bytes(path("good"));
  unsigned char* entry = bad.data() + kPrefix.size() + 8;
  const uint64_t blocks = uint64_t{1} << 38;  // 8 TiB of 256-bit blocks
  ff::put_u64(entry, blocks);
  ff::put_u64(entry + 24, blocks * 32);
  reseal_table(bad);
  write_bytes(path("bad"), bad);
  EXPECT_NE(read_error(path("bad")).find("is truncated"), std::string::npos)
      << read_error(path("bad"));
}

TEST_F(LayersCodecTest, WritingRefusesNoLayersAndMixedSeeds) {
  fs::Replacement out(path("x"), "cannot write x");
  EXPECT_THROW(format::write_layers(out, 0, {}), UsageError);
  std::vector<Filter> layers = three_layers();
  layers.push_back(test::filter_with_keys(FilterParams{3, {256, 8}, 99}, 5, 1e-3));
  EXPECT_THROW(format::write_layers(out, 0, views(layers)), UsageError);
}

}  // namespace
}  // namespace gdedup
