// Deduplicates a few keys through the installed library, by a filter and
// its backend and by a whole job (run_job), and checks each answer against
// exact dedup; exits non-zero on any difference.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/fingerprint.h"
#include "gdedup/gpu.h"
#include "gdedup/job.h"
#include "gdedup/planner.h"

namespace {

const std::vector<std::string> keys = {"a", "b", "a", "c", "b", "d"};

// The job's output for `keys` as lines in a file, against the first
// occurrences in order; the job's filter file must exist after.
bool job_keeps_first_occurrences() {
  char folder[] = "/tmp/gdedup-consumer-XXXXXX";
  if (!mkdtemp(folder)) return false;
  const std::string dir = folder;
  std::string lines, expected;
  std::set<std::string> seen;
  for (const std::string& key : keys) {
    lines += key + "\n";
    if (seen.insert(key).second) expected += key + "\n";
  }
  std::ofstream(dir + "/in.txt") << lines;
  gdedup::JobSpec spec;
  spec.inputs.paths = {dir + "/in.txt"};
  spec.output = dir + "/out.txt";
  spec.filter_path = dir + "/seen.gdf";
  gdedup::JobEvents quiet;
  const gdedup::JobResult result = gdedup::run_job(spec, quiet);
  std::ifstream out(spec.output);
  const std::string written((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  const bool ok = result.status == gdedup::JobStatus::kComplete && result.filter_saved &&
                  written == expected && std::ifstream(spec.filter_path).good();
  if (!ok) std::fprintf(stderr, "consumer: run_job wrote \"%s\", exact dedup says \"%s\"\n",
                        written.c_str(), expected.c_str());
  std::filesystem::remove_all(dir);
  return ok;
}

}  // namespace

int main() {
  gdedup::Filter filter = gdedup::Filter::from_plan(gdedup::plan_for_capacity(1000, 1e-6));
  auto backend = gdedup::make_cpu_backend(filter);

  std::vector<uint64_t> fingerprints;
  for (const std::string& key : keys)
    fingerprints.push_back(gdedup::fingerprint(key.data(), key.size(), gdedup::kDefaultSeed));
  std::vector<uint8_t> was_present(keys.size());
  backend->test_and_set(fingerprints.data(), fingerprints.size(), was_present.data());

  std::set<std::string> seen;
  for (size_t i = 0; i < keys.size(); ++i) {
    const bool expected = !seen.insert(keys[i]).second;
    if (was_present[i] != expected) {
      std::fprintf(stderr, "consumer: key %zu (\"%s\") was_present=%d, exact dedup says %d\n",
                   i, keys[i].c_str(), was_present[i], expected);
      return 1;
    }
  }
  if (!job_keeps_first_occurrences()) return 1;
  // Links the GPU part of the package whichever it is (CUDA or the stand-in
  // that says it was not built).
  std::string why_not;
  const bool gpu = gdedup::gpu_available(&why_not);
  std::printf("consumer: %zu keys as exact dedup, by a filter and a job; GPU backend %s\n", keys.size(),
              gpu ? "available" : why_not.c_str());
  return 0;
}
