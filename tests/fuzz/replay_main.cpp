// Runs a fuzz target once on every file named on the command line, or in a
// folder named there: the corpus as a regression test, in builds without
// libFuzzer. Exits nonzero when a folder is empty or missing; a violated
// property aborts inside the target.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  size_t runs = 0;
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      if (files.empty()) {
        std::fprintf(stderr, "%s holds no corpus files\n", argv[i]);
        ++failures;
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) failures += run_file(f), ++runs;
    } else {
      failures += run_file(arg);
      ++runs;
    }
  }
  std::printf("%zu inputs run\n", runs);
  return failures == 0 ? 0 : 1;
}
