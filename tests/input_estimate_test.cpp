// The record estimate behind default sizing, against exact counts, on input
// shapes that fooled an estimate taken from the start of the input: long
// lines first, one huge first line, blocks of long and short lines, blank
// lines, and compressed inputs whose record density changes after their
// first chunk. It must never fall short of the true count by more than noise,
// and not over-size by more than a small factor.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codec_util.h"
#include "file_util.h"
#include "pipeline/input_estimate.h"
#include "test_util.h"

namespace gdedup {
namespace {

class InputEstimate : public test::TempDirTest {
 protected:
  InputEstimate() : TempDirTest("input_estimate") {}
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

const auto& lines = test::letter_lines;

uint64_t exact(const std::string& text) { return test::reference_split(text).size(); }

uint64_t estimate(const std::string& path) {
  std::string why_not;
  const std::optional<RecordEstimate> e = estimate_records({path}, InputFormat::kText, '\n', &why_not);
  EXPECT_TRUE(e.has_value()) << why_not;
  return e ? e->records : 0;
}

// Within noise of the count or above it, and at most 2.5 times it.
void expect_safe(uint64_t estimated, uint64_t count, const std::string& what) {
  EXPECT_GE(static_cast<double>(estimated), 0.98 * static_cast<double>(count))
      << what << ": estimated " << estimated << " of " << count;
  EXPECT_LE(static_cast<double>(estimated), 2.5 * static_cast<double>(count))
      << what << ": estimated " << estimated << " of " << count;
}

struct Shape {
  const char* name;
  std::function<std::string(std::mt19937_64&)> make;
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = {
      {"uniform lengths", [](std::mt19937_64& rng) {
         std::string s;
         for (int i = 0; i < 150000; ++i) s += lines(rng, 1, 20 + rng() % 100);
         return s;
       }},
      {"long lines first", [](std::mt19937_64& rng) {
         return lines(rng, 6000, 200) + lines(rng, 500000, 15);
       }},
      {"long lines last", [](std::mt19937_64& rng) {
         return lines(rng, 500000, 15) + lines(rng, 40000, 200);
       }},
      {"one huge first line", [](std::mt19937_64& rng) {
         return lines(rng, 1, size_t{2} << 20) + lines(rng, 300000, 15);
       }},
      {"blocks of long and short lines", [](std::mt19937_64& rng) {
         std::string s;
         for (int i = 0; i < 6; ++i) s += lines(rng, 5000, 200) + lines(rng, 50000, 15);
         return s;
       }},
      {"blank lines and no final newline", [](std::mt19937_64& rng) {
         std::string s;
         for (int i = 0; i < 400000; ++i) s += rng() % 2 ? "\n" : lines(rng, 1, 30);
         return s + "last";
       }},
  };
  return all;
}

TEST_F(InputEstimate, PlainFilesOfEveryShape) {
  std::mt19937_64 rng(11);
  for (const Shape& shape : shapes()) {
    const std::string text = shape.make(rng);
    expect_safe(estimate(write("in.txt", text)), exact(text), shape.name);
  }
}

TEST_F(InputEstimate, SmallFilesAreCountedExactly) {
  std::mt19937_64 rng(12);
  const std::string text = lines(rng, 1000, 40) + "no newline";
  EXPECT_EQ(estimate(write("small.txt", text)), exact(text));
  EXPECT_EQ(estimate(write("small.gz", test::gzip(text))), exact(text));
  EXPECT_EQ(estimate(write("empty.txt", "")), 0u);
}

// Large enough that the estimate decodes only the start: past 8 compressed
// chunks of 1 MiB.
TEST_F(InputEstimate, CompressedInputsWhoseDensityChangesAfterTheStart) {
  std::mt19937_64 rng(13);
  const std::string long_first = lines(rng, 60000, 40) + lines(rng, 1500000, 8);
  const std::string text = long_first;
  ASSERT_GT(test::zstd(text).size(), size_t{9} << 20);
  expect_safe(estimate(write("in.zst", test::zstd(text))), exact(text), "zstd");
  expect_safe(estimate(write("in.gz", test::gzip(text, 1))), exact(text), "gzip");
}

}  // namespace
}  // namespace gdedup
