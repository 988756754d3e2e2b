// Checkpoint files: exact round trips of filter and resume state, fixed and
// growing, refusal of every damaged, truncated, extended, foreign or
// other-version file with a message that names it, version 4 files loaded
// as a fixed filter, version 5 ones without the filter file, and a failed
// write that leaves the old file intact.
#include "gdedup/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "failing_replacement.h"
#include "file_util.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/layout.h"
#include "format/checkpoint_file.h"
#include "format/checkpoint_format.h"

namespace gdedup {
namespace {

namespace fs = std::filesystem;
namespace cf = checkpoint_file;

using test::Bytes;
using test::read_bytes;
using test::write_bytes;

class CheckpointFileTest : public test::TempDirTest {
 protected:
  CheckpointFileTest() : TempDirTest("gdedup_checkpoint_file") {}
};

Filter make_filter(const FilterParams& params, int keys) {
  return test::filter_with_keys(params, keys, 1e-4);
}

Filter small_filter() { return make_filter(FilterParams{4, {256, 8}, kDefaultSeed}, 20); }

ResumeState sample_state() {
  ResumeState s;
  s.mode = Mode::kDuplicates;
  s.format = InputFormat::kText;
  s.record_separator = '\0';
  s.keys = KeyOptions::parse("field:3", "comma", "lowercase-host,drop-fragment");
  s.inputs = {InputIdentity{"/data/a.txt.gz", true, 123456789, 1700000000123456789, 0xabcdef},
              InputIdentity{"-", false, 0, 0, 0},
              InputIdentity{"b \xff\n.txt", true, 7, -5, 1}};
  s.output = "/out/unique.txt";
  s.position = StreamPoint{1000, 54321, 1, 17};
  s.output_offset = 4242;
  s.records = 1000;
  s.kept = 600;
  s.dropped = 400;
  s.input_bytes = 54321;
  return s;
}

std::string load_error(const std::string& path) {
  try {
    load_checkpoint(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_same_state(const ResumeState& a, const ResumeState& b) {
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.record_separator, b.record_separator);
  EXPECT_TRUE(a.keys == b.keys) << a.keys.key_text() << " " << a.keys.delimiter_text() << " "
                                << a.keys.normalize_text() << " vs " << b.keys.key_text() << " "
                                << b.keys.delimiter_text() << " " << b.keys.normalize_text();
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(a.inputs[i].path, b.inputs[i].path);
    EXPECT_EQ(a.inputs[i].regular, b.inputs[i].regular);
    EXPECT_EQ(a.inputs[i].size, b.inputs[i].size);
    EXPECT_EQ(a.inputs[i].mtime_ns, b.inputs[i].mtime_ns);
    EXPECT_EQ(a.inputs[i].sample_hash, b.inputs[i].sample_hash);
  }
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(a.position.records, b.position.records);
  EXPECT_EQ(a.position.offset, b.position.offset);
  EXPECT_EQ(a.position.input_index, b.position.input_index);
  EXPECT_EQ(a.position.input_offset, b.position.input_offset);
  EXPECT_EQ(a.output_offset, b.output_offset);
  EXPECT_EQ(a.output_footer, b.output_footer);
  EXPECT_EQ(a.records, b.records);
  EXPECT_EQ(a.kept, b.kept);
  EXPECT_EQ(a.dropped, b.dropped);
  EXPECT_EQ(a.input_bytes, b.input_bytes);
  EXPECT_EQ(a.missing_key, b.missing_key);
  EXPECT_EQ(a.strict_json, b.strict_json);
  EXPECT_EQ(a.missing_keys, b.missing_keys);
}

TEST_F(CheckpointFileTest, RoundTripIsExact) {
  for (const Layout layout : {Layout{256, 8}, Layout{512, 32}}) {
    const Filter filter = make_filter(FilterParams{37, layout, 99}, 300);
    const ResumeState state = sample_state();
    save_checkpoint(filter, state, path("ck"));
    const Checkpoint ck = load_checkpoint(path("ck"));
    EXPECT_EQ(ck.filter.params(), filter.params());
    EXPECT_EQ(ck.filter.counters().insertions, filter.counters().insertions);
    EXPECT_EQ(ck.filter.counters().planned_capacity, 1000u);
    EXPECT_EQ(ck.filter.counters().planned_fpr, 1e-4);
    EXPECT_EQ(std::memcmp(ck.filter.words(), filter.words(), filter.params().bytes()), 0);
    expect_same_state(ck.state, state);
    EXPECT_EQ(ck.state.params, filter.params());
    EXPECT_EQ(ck.state.insertions, filter.counters().insertions);
    EXPECT_EQ(ck.state.loaded_from, path("ck"));
    expect_same_state(read_checkpoint_state(path("ck")), state);
    EXPECT_FALSE(fs::exists(path("ck.tmp")));
  }
}

TEST_F(CheckpointFileTest, HeaderFieldsSitWhereTheFormatSays) {
  const Filter filter = small_filter();
  save_checkpoint(filter, sample_state(), path("ck"));
  const Bytes file = read_bytes(path("ck"));
  EXPECT_EQ(std::memcmp(file.data(), "GDEDUPCK", 8), 0);
  EXPECT_EQ(cf::get_u32(&file[cf::kOffVersion]), 8u);
  EXPECT_EQ(cf::get_u64(&file[cf::kOffNumBlocks]), 4u);
  EXPECT_EQ(cf::get_u64(&file[cf::kOffPayloadBytes]), 128u);
  const uint64_t state_bytes = cf::get_u64(&file[cf::kOffStateBytes]);
  // A fixed filter's growth section is one byte: 0, it does not grow.
  EXPECT_EQ(cf::get_u64(&file[cf::kOffGrowthBytes]), 1u);
  EXPECT_EQ(file.size(), 4096u + 128u + state_bytes + 1u);
  EXPECT_EQ(file.back(), 0);
  // The bit array lies page-aligned, as in a filter file.
  EXPECT_EQ(std::memcmp(&file[4096], filter.words(), 128), 0);
}

TEST_F(CheckpointFileTest, EveryChangedHeaderByteIsRefused) {
  save_checkpoint(small_filter(), sample_state(), path("good"));
  const Bytes good = read_bytes(path("good"));
  for (size_t pos = 0; pos < cf::kHeaderBytes; pos += (pos < 128 ? 1 : 61)) {
    Bytes file = good;
    file[pos] ^= static_cast<unsigned char>(pos % 255 + 1);
    write_bytes(path("bad"), file);
    const std::string message = load_error(path("bad"));
    ASSERT_NE(message.find("checkpoint " + path("bad")), std::string::npos)
        << "byte " << pos << ": " << message;
    ASSERT_NE(message.find("cannot be used to resume"), std::string::npos) << message;
  }
}

TEST_F(CheckpointFileTest, ChangedBitArrayOrStateBytesAreRefusedNamingThePart) {
  save_checkpoint(make_filter(FilterParams{64, {512, 16}, kDefaultSeed}, 100), sample_state(),
                  path("good"));
  const Bytes good = read_bytes(path("good"));
  const size_t state_at = 4096 + 64 * 64;
  const size_t table_at = good.size() - 1;
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    Bytes file = good;
    const size_t pos = trial == 0 ? table_at : 4096 + rng() % (good.size() - 4096);
    file[pos] ^= static_cast<unsigned char>(1 + rng() % 255);
    write_bytes(path("bad"), file);
    const std::string message = load_error(path("bad"));
    const char* part = pos < state_at ? "bit array" : pos < table_at ? "resume state" : "growth section";
    ASSERT_NE(message.find(std::string("is damaged: its ") + part), std::string::npos)
        << "byte " << pos << ": " << message;
  }
}

TEST_F(CheckpointFileTest, EveryTruncationAndAppendedByteIsRefused) {
  save_checkpoint(small_filter(), sample_state(), path("good"));
  const Bytes good = read_bytes(path("good"));
  for (size_t length = 0; length < good.size(); length += (length < 4200 ? 7 : 1)) {
    write_bytes(path("bad"), Bytes(good.begin(), good.begin() + static_cast<long>(length)));
    const std::string message = load_error(path("bad"));
    ASSERT_NE(message.find(path("bad")), std::string::npos) << length << ": " << message;
    if (length >= 12) {
      ASSERT_NE(message.find("truncated"), std::string::npos) << length << ": " << message;
    }
  }
  Bytes longer = good;
  longer.push_back(0);
  write_bytes(path("long"), longer);
  EXPECT_NE(load_error(path("long")).find("extra bytes"), std::string::npos);
}

TEST_F(CheckpointFileTest, OtherVersionIsRefusedNamingBothVersions) {
  save_checkpoint(small_filter(), sample_state(), path("good"));
  for (uint32_t version : {0u, 1u, 2u, 3u, 9u, 77u}) {
    Bytes file = read_bytes(path("good"));
    cf::put_u32(&file[cf::kOffVersion], version);
    cf::put_u64(&file[cf::kOffHeaderChecksum], cf::header_checksum(file.data()));
    write_bytes(path("other"), file);
    const std::string message = load_error(path("other"));
    EXPECT_NE(message.find("format version " + std::to_string(version)), std::string::npos)
        << message;
    EXPECT_NE(message.find("reads versions 4 to 8"), std::string::npos) << message;
  }
}

// The state section of a checkpoint without its last `bytes` bytes, its
// length and checksum sealed again.
void cut_state(Bytes& file, uint64_t bytes) {
  const uint64_t at = 4096 + cf::get_u64(&file[cf::kOffPayloadBytes]);
  const uint64_t state_bytes = cf::get_u64(&file[cf::kOffStateBytes]) - bytes;
  file.erase(file.begin() + static_cast<std::ptrdiff_t>(at + state_bytes),
             file.begin() + static_cast<std::ptrdiff_t>(at + state_bytes + bytes));
  cf::put_u64(&file[cf::kOffStateBytes], state_bytes);
  cf::put_u64(&file[cf::kOffStateChecksum], XXH3_64bits(&file[at], state_bytes));
  cf::put_u64(&file[cf::kOffHeaderChecksum], cf::header_checksum(file.data()));
}

// The file without the last `bytes` bytes of its state, which must be
// zeros, as version `version` wrote it.
Bytes without_zero_tail(Bytes file, uint64_t bytes, uint32_t version) {
  const size_t end = 4096 + cf::get_u64(&file[cf::kOffPayloadBytes]) +
                     cf::get_u64(&file[cf::kOffStateBytes]);
  for (size_t i = end - bytes; i < end; ++i) EXPECT_EQ(file[i], 0) << i;
  cut_state(file, bytes);
  cf::put_u32(&file[cf::kOffVersion], version);
  cf::put_u64(&file[cf::kOffHeaderChecksum], cf::header_checksum(file.data()));
  return file;
}

// A version 8 file whose state holds no Parquet footer (sample_state's: its
// last 8 bytes, a length of zero) as version 7 wrote it: without them.
Bytes as_version_7(Bytes file) { return without_zero_tail(std::move(file), 8, 7); }

// Such a file whose state holds the missing-key policy error and no
// records without their key (sample_state's: its last 9 bytes, zeros) as
// version 6 wrote it: without them.
Bytes as_version_6(Bytes file) { return without_zero_tail(as_version_7(std::move(file)), 9, 6); }

// Such a file whose state notes no filter file (sample_state's: then its
// last byte, 2) as version 5 wrote it: without that byte.
Bytes as_version_5(Bytes file) {
  file = as_version_6(std::move(file));
  EXPECT_EQ(file[4096 + cf::get_u64(&file[cf::kOffPayloadBytes]) +
                 cf::get_u64(&file[cf::kOffStateBytes]) - 1],
            2);
  cut_state(file, 1);
  cf::put_u32(&file[cf::kOffVersion], 5);
  cf::put_u64(&file[cf::kOffHeaderChecksum], cf::header_checksum(file.data()));
  return file;
}

// Such a file of a fixed filter as version 4 wrote it: no growth section,
// the header's bytes from 96 zero.
Bytes as_version_4(Bytes file) {
  file = as_version_5(std::move(file));
  const uint64_t growth = cf::get_u64(&file[cf::kOffGrowthBytes]);
  file.resize(file.size() - growth);
  cf::put_u32(&file[cf::kOffVersion], 4);
  cf::put_u64(&file[cf::kOffGrowthBytes], 0);
  cf::put_u64(&file[cf::kOffGrowthChecksum], 0);
  cf::put_u64(&file[cf::kOffHeaderChecksum], cf::header_checksum(file.data()));
  return file;
}

// The filter file a job saves to: none, a file and its identity, or not
// noted (a run resumed from a version 5 checkpoint carries that on); a
// version 5 file notes none and loads so.
TEST_F(CheckpointFileTest, TheFilterFileRoundTrips) {
  const Filter filter = small_filter();
  ResumeState state = sample_state();
  for (int kind = 0; kind < 3; ++kind) {
    state.filter_file = FilterFileMark{kind != 2, kind == 1, {}};
    if (kind == 1) state.filter_file.file = InputIdentity{"day.gdf", true, 4096, -7, 0x1234};
    save_checkpoint(filter, state, path("ck"));
    const FilterFileMark got = load_checkpoint(path("ck")).state.filter_file;
    EXPECT_EQ(got.recorded, kind != 2);
    EXPECT_EQ(got.existed, kind == 1);
    EXPECT_EQ(got.file.path, kind == 1 ? "day.gdf" : "");
    EXPECT_EQ(got.file.size, kind == 1 ? 4096u : 0u);
    EXPECT_EQ(got.file.mtime_ns, kind == 1 ? -7 : 0);
    EXPECT_EQ(got.file.sample_hash, kind == 1 ? 0x1234u : 0u);
  }
  write_bytes(path("v5"), as_version_5(read_bytes(path("ck"))));
  const Checkpoint v5 = load_checkpoint(path("v5"));
  EXPECT_EQ(v5.state.file_version, 5u);
  EXPECT_FALSE(v5.state.filter_file.recorded);
  expect_same_state(v5.state, sample_state());
  // Saved again, it is the version 8 file.
  save_checkpoint(v5, path("again"));
  EXPECT_EQ(read_bytes(path("again")), read_bytes(path("ck")));
  // A version 6 file loads with the policy error and no records without
  // their key, and saved again it is the version 8 file.
  write_bytes(path("v6"), as_version_6(read_bytes(path("ck"))));
  const Checkpoint v6 = load_checkpoint(path("v6"));
  EXPECT_EQ(v6.state.file_version, 6u);
  EXPECT_EQ(v6.state.missing_key, keys::MissingKey::kError);
  EXPECT_EQ(v6.state.missing_keys, 0u);
  save_checkpoint(v6, path("again6"));
  EXPECT_EQ(read_bytes(path("again6")), read_bytes(path("ck")));
  // A policy past the three is refused, with strict reading or without.
  for (const unsigned char byte : {3, 7, 8, 0x83}) {
    Bytes forged = read_bytes(path("ck"));
    forged[4096 + 128 + cf::get_u64(&forged[cf::kOffStateBytes]) - 17] = byte;
    cut_state(forged, 0);
    write_bytes(path("forged"), forged);
    EXPECT_NE(load_error(path("forged")).find("malformed resume state"), std::string::npos)
        << int{byte} << ": " << load_error(path("forged"));
  }
}

// A Parquet output's footer (any bytes) round trips at the state's end; a
// version 7 file, which had none, loads with none and saved again is the
// version 8 file; a footer longer than the state is refused.
TEST_F(CheckpointFileTest, TheParquetFooterRoundTripsAndVersion7LoadsWithout) {
  const Filter filter = small_filter();
  ResumeState state = sample_state();
  state.output_footer = std::string("\x15\0footer\xff", 9);
  save_checkpoint(filter, state, path("ck"));
  expect_same_state(load_checkpoint(path("ck")).state, state);
  Bytes forged = read_bytes(path("ck"));
  cf::put_u64(&forged[4096 + 128 + cf::get_u64(&forged[cf::kOffStateBytes]) - 17], 10);
  cut_state(forged, 0);
  write_bytes(path("forged"), forged);
  EXPECT_NE(load_error(path("forged")).find("malformed resume state"), std::string::npos)
      << load_error(path("forged"));

  save_checkpoint(filter, sample_state(), path("v8"));
  write_bytes(path("v7"), as_version_7(read_bytes(path("v8"))));
  const Checkpoint v7 = load_checkpoint(path("v7"));
  EXPECT_EQ(v7.state.file_version, 7u);
  EXPECT_EQ(v7.state.output_footer, "");
  expect_same_state(v7.state, sample_state());
  save_checkpoint(v7, path("again"));
  EXPECT_EQ(read_bytes(path("again")), read_bytes(path("v8")));
}

// Strict JSON reading shares the missing-key policy's byte (4 added to the
// policy): with each policy it loads as it was saved, and a state without
// it reads as the default reading.
TEST_F(CheckpointFileTest, StrictJsonRoundTripsInThePolicysByte) {
  const Filter filter = small_filter();
  for (const keys::MissingKey policy :
       {keys::MissingKey::kError, keys::MissingKey::kKeep, keys::MissingKey::kDrop}) {
    for (const bool strict : {false, true}) {
      ResumeState state = sample_state();
      state.missing_key = policy;
      state.strict_json = strict;
      state.missing_keys = 12;
      save_checkpoint(filter, state, path("ck"));
      const Bytes file = read_bytes(path("ck"));
      EXPECT_EQ(file[4096 + 128 + cf::get_u64(&file[cf::kOffStateBytes]) - 17],
                static_cast<unsigned char>(policy) + (strict ? 4 : 0));
      expect_same_state(load_checkpoint(path("ck")).state, state);
    }
  }
}

TEST_F(CheckpointFileTest, Version4LoadsAsAFixedFilter) {
  const Filter filter = small_filter();
  save_checkpoint(filter, sample_state(), path("v8"));
  write_bytes(path("v4"), as_version_4(read_bytes(path("v8"))));
  const Checkpoint ck = load_checkpoint(path("v4"));
  EXPECT_EQ(ck.state.file_version, 4u);
  EXPECT_FALSE(ck.state.growth.has_value());
  EXPECT_TRUE(ck.later_layers.empty());
  EXPECT_EQ(std::memcmp(ck.filter.words(), filter.words(), filter.params().bytes()), 0);
  expect_same_state(ck.state, sample_state());
  // Saved again, it is the version 8 file.
  save_checkpoint(ck, path("again"));
  EXPECT_EQ(read_bytes(path("again")), read_bytes(path("v8")));
  // Its reserved bytes are still checked.
  Bytes forged = read_bytes(path("v4"));
  forged[cf::kOffGrowthBytes] = 1;
  cf::put_u64(&forged[cf::kOffHeaderChecksum], cf::header_checksum(forged.data()));
  write_bytes(path("forged"), forged);
  EXPECT_NE(load_error(path("forged")).find("nonzero reserved header byte at offset 96"),
            std::string::npos)
      << load_error(path("forged"));
}

// A growing filter of three layers of other sizes and layouts.
Checkpoint growing_checkpoint() {
  Checkpoint ck{make_filter(FilterParams{4, {256, 8}, kDefaultSeed}, 30), sample_state(), {}};
  GrowthState growth;
  growth.rule.first_capacity = 2048;
  growth.rule.target_fpr = 1e-3;
  growth.rule.growth = 3;
  growth.rule.tightening = 0.7;
  growth.rule.check_every = 512;
  growth.max_bytes = 123456;
  growth.keys_offered = 98765;
  ck.state.growth = growth;
  ck.later_layers.push_back(make_filter(FilterParams{9, {512, 16}, kDefaultSeed}, 60));
  ck.later_layers.push_back(make_filter(FilterParams{20, {256, 8}, kDefaultSeed}, 90));
  for (const Filter& layer : ck.later_layers) {
    ck.state.later_layers.push_back({layer.params(), layer.counters().insertions});
  }
  return ck;
}

void expect_same_growth(const GrowthState& a, const GrowthState& b) {
  EXPECT_EQ(a.rule.first_capacity, b.rule.first_capacity);
  EXPECT_EQ(a.rule.target_fpr, b.rule.target_fpr);
  EXPECT_EQ(a.rule.growth, b.rule.growth);
  EXPECT_EQ(a.rule.tightening, b.rule.tightening);
  EXPECT_EQ(a.rule.block_bits, b.rule.block_bits);
  EXPECT_EQ(a.rule.check_every, b.rule.check_every);
  EXPECT_EQ(a.max_bytes, b.max_bytes);
  EXPECT_EQ(a.keys_offered, b.keys_offered);
}

TEST_F(CheckpointFileTest, GrowingFilterRoundTripIsExact) {
  const Checkpoint saved = growing_checkpoint();
  save_checkpoint(saved, path("ck"));
  const Checkpoint ck = load_checkpoint(path("ck"));
  ASSERT_TRUE(ck.state.growth.has_value());
  expect_same_growth(*ck.state.growth, *saved.state.growth);
  expect_same_state(ck.state, saved.state);
  EXPECT_EQ(std::memcmp(ck.filter.words(), saved.filter.words(), 128), 0);
  ASSERT_EQ(ck.later_layers.size(), 2u);
  ASSERT_EQ(ck.state.later_layers.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Filter& a = ck.later_layers[i];
    const Filter& b = saved.later_layers[i];
    EXPECT_EQ(a.params(), b.params());
    EXPECT_EQ(a.counters().insertions, b.counters().insertions);
    EXPECT_EQ(a.counters().planned_capacity, b.counters().planned_capacity);
    EXPECT_EQ(std::memcmp(a.words(), b.words(), b.params().bytes()), 0) << "layer " << i + 2;
    EXPECT_EQ(ck.state.later_layers[i].params, b.params());
    EXPECT_EQ(ck.state.later_layers[i].insertions, b.counters().insertions);
  }
  // Saved from a LayeredFilter, the same bytes.
  Checkpoint copy = load_checkpoint(path("ck"));
  const auto filter = resume_growing_filter(copy, [](Filter& layer) {
    return make_cpu_backend(layer);
  });
  EXPECT_EQ(filter->layer_count(), 3u);
  EXPECT_EQ(filter->keys_offered(), 98765u);
  EXPECT_EQ(filter->max_bytes(), 123456u);
  save_checkpoint(*filter, saved.state, path("again"));
  EXPECT_EQ(read_bytes(path("again")), read_bytes(path("ck")));
}

TEST_F(CheckpointFileTest, DamageToAGrowingFilterIsRefusedNamingThePart) {
  save_checkpoint(growing_checkpoint(), path("good"));
  const Bytes good = read_bytes(path("good"));
  const uint64_t state_bytes = cf::get_u64(&good[cf::kOffStateBytes]);
  const uint64_t growth_bytes = cf::get_u64(&good[cf::kOffGrowthBytes]);
  const size_t growth_at = 4096 + 128 + state_bytes;
  // The layers section of layers 2 and 3 (docs/FORMAT.md, "Layers").
  const size_t section_at = growth_at + growth_bytes;
  const size_t second_at = section_at + 8 + 2 * 64 + 8;
  const size_t third_at = second_at + 9 * 64;
  ASSERT_EQ(good.size(), third_at + 20 * 32);
  for (size_t pos = growth_at; pos < good.size(); pos += 3) {
    Bytes file = good;
    file[pos] ^= 0x10;
    write_bytes(path("bad"), file);
    const std::string message = load_error(path("bad"));
    ASSERT_NE(message.find(path("bad")), std::string::npos) << message;
    if (pos < section_at + 8) continue;  // the growth section, the layer count
    const std::string part = pos < second_at ? "its layer table"
                             : pos < third_at ? "its layer 1's bit array"
                                              : "its layer 2's bit array";
    ASSERT_NE(message.find("is damaged: " + part), std::string::npos)
        << "byte " << pos << ": " << message;
    if (pos >= second_at) {
      ASSERT_NE(message.find("where layer 1 is the filter's layer 2"), std::string::npos)
          << message;
    }
  }
  for (size_t pos = growth_at; pos < section_at; ++pos) {
    Bytes file = good;
    file[pos] ^= 0x10;
    write_bytes(path("bad"), file);
    ASSERT_NE(load_error(path("bad")).find("is damaged: its growth section"), std::string::npos)
        << "byte " << pos << ": " << load_error(path("bad"));
  }
  for (size_t length = growth_at; length < good.size(); length += 5) {
    write_bytes(path("bad"), Bytes(good.begin(), good.begin() + static_cast<long>(length)));
    const std::string message = load_error(path("bad"));
    ASSERT_NE(message.find("is truncated"), std::string::npos) << length << ": " << message;
  }
  Bytes longer = good;
  longer.push_back(0);
  write_bytes(path("long"), longer);
  EXPECT_NE(load_error(path("long")).find("extra bytes"), std::string::npos);
}

TEST_F(CheckpointFileTest, AFixedCheckpointIsNotResumedAsAGrowingFilter) {
  save_checkpoint(small_filter(), sample_state(), path("ck"));
  Checkpoint ck = load_checkpoint(path("ck"));
  try {
    resume_growing_filter(ck, [](Filter& layer) { return make_cpu_backend(layer); });
    FAIL() << "a fixed filter was resumed as a growing one";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("holds a fixed filter"), std::string::npos) << e.what();
  }
}

TEST_F(CheckpointFileTest, GrowthThatDiffersIsNamed) {
  const GrowthState saved = *growing_checkpoint().state.growth;
  EXPECT_NO_THROW(check_checkpoint_growth(saved, saved));
  EXPECT_NO_THROW(check_checkpoint_growth(std::nullopt, std::nullopt));
  auto message = [&](const std::optional<GrowthState>& s, const std::optional<GrowthState>& r) {
    try {
      check_checkpoint_growth(s, r);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(saved, std::nullopt)
                .find("the checkpoint has a filter that grows, this run asks for a fixed filter"),
            std::string::npos);
  EXPECT_NE(message(std::nullopt, saved)
                .find("the checkpoint has a fixed filter, this run asks for a filter that grows"),
            std::string::npos);
  auto changed = [&](auto change) {
    GrowthState other = saved;
    change(other);
    return message(saved, other);
  };
  EXPECT_NE(changed([](GrowthState& g) { g.rule.first_capacity = 4096; })
                .find("first layer differs from the checkpoint's: the checkpoint has 2048 keys, "
                      "this run asks for 4096 keys"),
            std::string::npos);
  EXPECT_NE(changed([](GrowthState& g) { g.rule.target_fpr = 1e-4; })
                .find("target false-positive rate differs"),
            std::string::npos);
  EXPECT_NE(changed([](GrowthState& g) { g.rule.growth = 2; }).find("growth factor differs"),
            std::string::npos);
  EXPECT_NE(changed([](GrowthState& g) { g.rule.tightening = 0.85; })
                .find("tightening ratio differs"),
            std::string::npos);
  EXPECT_NE(changed([](GrowthState& g) { g.rule.block_bits = 512; }).find("block size differs"),
            std::string::npos);
  EXPECT_NE(changed([](GrowthState& g) { g.rule.check_every = 1024; })
                .find("growth check interval differs"),
            std::string::npos);
  EXPECT_NE(changed([](GrowthState& g) { g.max_bytes = 0; })
                .find("memory limit differs from the checkpoint's: the checkpoint has 123456 "
                      "bytes, this run asks for no memory limit"),
            std::string::npos);
  // Keys offered are where the run is, not how it grows.
  EXPECT_EQ(changed([](GrowthState& g) { g.keys_offered = 1; }), "");
}

TEST_F(CheckpointFileTest, FilterFilesAndForeignFilesAreNotCheckpoints) {
  save_filter(small_filter(), path("f.gdf"));
  EXPECT_NE(load_error(path("f.gdf")).find("is a gdedup filter file, not a checkpoint"),
            std::string::npos);
  write_bytes(path("text"), Bytes{'h', 't', 't', 'p', '\n'});
  EXPECT_NE(load_error(path("text")).find("is not a gdedup checkpoint (bad magic)"), std::string::npos);
  write_bytes(path("empty"), {});
  EXPECT_NE(load_error(path("empty")).find("is empty"), std::string::npos);
  EXPECT_NE(load_error(path("missing")).find("cannot open checkpoint"), std::string::npos);
}

TEST_F(CheckpointFileTest, FailedWriteLeavesThePreviousCheckpointIntact) {
  const Filter old_filter = small_filter();
  ResumeState old_state = sample_state();
  save_checkpoint(old_filter, old_state, path("ck"));
  const Bytes before = read_bytes(path("ck"));

  const Filter new_filter = make_filter(FilterParams{4, {256, 8}, kDefaultSeed}, 40);
  ResumeState new_state = old_state;
  new_state.records = 2000;
  try {
    const test::FailingReplacement failing_disk(path("ck"), 1);
    save_checkpoint(new_filter, new_state, path("ck"));
    FAIL() << "the injected failure did not fail the write";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write checkpoint " + path("ck")),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_bytes(path("ck")), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1)
      << "the temporary file was left behind";
  EXPECT_EQ(load_checkpoint(path("ck")).state.records, 1000u);
}

TEST_F(CheckpointFileTest, ParamsThatDifferAreNamed) {
  const FilterParams saved{100, {512, 16}, 7};
  EXPECT_NO_THROW(check_checkpoint_params(saved, saved));
  auto message = [&](const FilterParams& requested) {
    try {
      check_checkpoint_params(saved, requested);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({100, {256, 8}, 7}).find("filter layout differs"), std::string::npos);
  EXPECT_NE(message({100, {512, 16}, 8}).find("filter seed differs"), std::string::npos);
  EXPECT_NE(message({101, {512, 16}, 7}).find("filter size differs"), std::string::npos);
}

}  // namespace
}  // namespace gdedup
