// Filter files of an older version, forged from the bytes this release
// writes (version 4), as their writers wrote them: the tests that pin and
// read older versions start from today's bytes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "format/filter_file_format.h"
#include "format/layers_codec.h"

namespace gdedup::test {

// Version 3 as its writers wrote it: version 4's bytes with the zero padding
// before each bit array taken out, so that the arrays follow the layer table
// back to back, and a header of version 3 with that section's length. The
// layer table is the same bytes in both versions.
template <typename Byte>
std::vector<Byte> as_version3(const std::vector<Byte>& file) {
  namespace ff = filter_file;
  const auto* in = reinterpret_cast<const unsigned char*>(file.data());
  EXPECT_EQ(ff::get_u32(in + ff::kOffVersion), 4u);
  const uint64_t table_at = ff::kHeaderBytes + ff::get_u64(in + ff::kOffRulesBytes);
  const uint64_t layers = ff::get_u64(in + table_at);
  const uint64_t table_end = table_at + format::table_bytes(layers);
  std::vector<Byte> out(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(table_end));
  uint64_t end = table_end;
  for (uint64_t i = 0; i < layers; ++i) {
    const ff::FilterFields fields = ff::get_fields(
        in + table_at + format::kLayerCountBytes + i * format::kLayerEntryBytes);
    const uint64_t at = format::aligned_offset(end, format::kBitArrayAlign);
    for (uint64_t p = end; p < at; ++p) EXPECT_EQ(in[p], 0) << "padding byte " << p;
    out.insert(out.end(), file.begin() + static_cast<std::ptrdiff_t>(at),
               file.begin() + static_cast<std::ptrdiff_t>(at + fields.payload_bytes));
    end = at + fields.payload_bytes;
  }
  EXPECT_EQ(end, file.size());
  auto* header = reinterpret_cast<unsigned char*>(out.data());
  ff::put_u32(header + ff::kOffVersion, 3);
  ff::put_u64(header + ff::kOffLayersBytes, out.size() - table_at);
  ff::seal_header(header);
  return out;
}

}  // namespace gdedup::test
