// Helpers shared by the tests of files on disk: a fresh folder per test,
// whole files read and written as bytes, and filters with known keys set.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "fs/file_ops.h"
#include "gdedup/filter.h"
#include "gdedup/fingerprint.h"
#include "gdedup/layout.h"

namespace gdedup::test {

using Bytes = std::vector<unsigned char>;

// A fixture whose every test gets a fresh folder under gtest's TempDir(),
// named `prefix` and a unique suffix, and removed with all it holds after.
class TempDirTest : public ::testing::Test {
 protected:
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + prefix_ + "_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << gdedup::fs::error_text(errno);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const {
    return (std::filesystem::path(dir_) / name).string();
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

inline Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const Bytes& bytes) {
  // A new file each time: truncating a file in place can make ext4 flush it on
  // close (auto_da_alloc), which slowed the loops that use this a hundredfold.
  std::remove(path.c_str());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// A filter with the bits of "key-0".."key-(keys-1)" set by the scalar
// reference, counting the new ones, planned for 1000 keys at `planned_fpr`.
inline Filter filter_with_keys(const FilterParams& params, int keys, double planned_fpr) {
  Filter filter(params);
  const FilterRef ref = filter.ref();
  uint64_t fresh = 0;
  for (int i = 0; i < keys; ++i) {
    const std::string key = "key-" + std::to_string(i);
    if (!key_test_and_set(ref, fingerprint(key.data(), key.size(), params.seed))) {
      ++fresh;
    }
  }
  filter.counters().insertions = fresh;
  filter.counters().planned_capacity = 1000;
  filter.counters().planned_fpr = planned_fpr;
  return filter;
}

}  // namespace gdedup::test
