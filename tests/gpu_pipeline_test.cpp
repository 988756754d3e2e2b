// The pipeline on the GPU backend against the same on the CPU backend:
// dedup, build, query and a stopped-and-resumed dedup leave byte-identical
// output and filter bytes, on random, duplicate-heavy (most keys identical)
// and block-colliding (a filter of three blocks) input, for GPU batches of
// one key, an odd number, the input's size and more. Without a GPU this runs
// on the CUDA stand-in (tests/cuda_standin), two schedules each.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/filter.h"
#include "gdedup/gpu.h"
#include "gdedup/host_buffer.h"
#include "gdedup/pipeline.h"
#include "file_util.h"
#include "require_gpu.h"
#include "test_util.h"

#if defined(GDEDUP_CUDA_STANDIN)
#include "cuda_standin.h"
#endif

namespace gdedup {
namespace {

constexpr uint64_t kRecords = 601;
constexpr uint64_t kPipelineBatch = 250;

struct Input {
  const char* name;
  std::string text;
  KeyOptions keys;
  uint64_t blocks;
};

std::vector<Input> inputs() {
  test::Rng rng(7);
  Input random{"random", "", {}, 4099};
  Input heavy{"duplicate-heavy", "", KeyOptions::parse("field:3"), 4099};
  Input colliding{"block-colliding", "", {}, 3};
  for (uint64_t i = 0; i < kRecords; ++i) {
    const std::string url =
        "https://h" + std::to_string(rng.below(40)) + ".example/" + std::to_string(rng.below(450));
    random.text += url + "\n";
    colliding.text += url + "\n";
    // Nine records in ten lack field 3: they all have the empty key.
    heavy.text += url + "\tx" + (rng.below(10) == 0 ? "\t" + std::to_string(rng.below(50)) : "") +
                  "\n";
  }
  return {random, heavy, colliding};
}

struct Outcome {
  test::Bytes output;
  std::vector<uint32_t> words;
  uint64_t insertions = 0;
  uint64_t kept = 0;
};

class GpuPipelineTest : public test::TempDirTest {
 protected:
  GpuPipelineTest() : TempDirTest("gdedup_gpu_pipeline") {}

  PipelineOptions options(const Input& in, Mode mode, const std::string& out) {
    std::ofstream(path("in.txt"), std::ios::binary) << in.text;
    PipelineOptions o;
    o.inputs = {path("in.txt")};
    o.output = path(out);
    o.mode = mode;
    o.keys = in.keys;
    o.batch_records = kPipelineBatch;
    return o;
  }

  // Runs `o` on `filter` with the GPU backend (gpu_batch > 0) or the CPU's.
  static Outcome run(const PipelineOptions& o, Filter& filter, uint64_t gpu_batch) {
    std::unique_ptr<Backend> backend = gpu_batch > 0
                                           ? make_gpu_backend(filter, GpuOptions{0, gpu_batch})
                                           : make_cpu_backend(filter);
    Outcome r;
    r.kept = run_pipeline(o, filter, *backend).kept;
    backend->sync_to_host();
    if (o.mode != Mode::kBuild) r.output = test::read_bytes(o.output);
    r.words.assign(filter.words(), filter.words() + filter.params().words());
    r.insertions = filter.counters().insertions;
    return r;
  }

  // A dedup stopped after its first batch with a checkpoint, then resumed;
  // both halves on the GPU.
  Outcome stopped_and_resumed(PipelineOptions o, const FilterParams& params, uint64_t gpu_batch) {
    o.checkpoint = path("ck");
    o.checkpoint_every_seconds = 0;
    std::atomic<bool> stop{false};
    o.stop = &stop;
    o.on_progress = [&](const Progress&) { stop = true; };
    {
      Filter filter(params);
      auto backend = make_gpu_backend(filter, GpuOptions{0, gpu_batch});
      EXPECT_TRUE(run_pipeline(o, filter, *backend).interrupted);
    }
    o.stop = nullptr;
    o.on_progress = nullptr;
    Checkpoint ck = load_checkpoint(o.checkpoint);
    o.resume = &ck.state;
    return run(o, ck.filter, gpu_batch);
  }
};

// Runs `body` under two stand-in schedules; once on a real GPU.
template <class Body>
void for_each_schedule(Body&& body) {
#if defined(GDEDUP_CUDA_STANDIN)
  const cuda_standin::Settings saved = cuda_standin::current();
  for (uint64_t seed : {11, 12}) {
    cuda_standin::Settings settings = saved;
    settings.seed = seed;
    cuda_standin::set(settings);
    SCOPED_TRACE("stand-in schedule " + std::to_string(seed));
    body();
  }
  cuda_standin::set(saved);
#else
  body();
#endif
}

const uint64_t kGpuBatches[] = {1, 777, kRecords, 4 * kRecords};

TEST_F(GpuPipelineTest, EveryModeMatchesTheCpu) {
  GDEDUP_REQUIRE_GPU();
  for (const Input& in : inputs()) {
    const FilterParams params{in.blocks, {512, 16}, kDefaultSeed};
    // The query runs against a filter built from the first third.
    Filter seen(params);
    {
      Input first = in;
      first.text = in.text.substr(0, in.text.size() / 3);
      run(options(first, Mode::kBuild, "unused"), seen, 0);
    }
    struct Case {
      Mode mode;
      const char* name;
    };
    for (const Case c : {Case{Mode::kDedup, "dedup"}, Case{Mode::kBuild, "build"},
                         Case{Mode::kQueryPresent, "query"}}) {
      const PipelineOptions o = options(in, c.mode, "out.txt");
      Filter cpu_filter(params);
      if (c.mode == Mode::kQueryPresent) cpu_filter.merge(seen);
      const Outcome expected = run(o, cpu_filter, 0);
      for (uint64_t batch : kGpuBatches) {
        SCOPED_TRACE(std::string(in.name) + " input, " + c.name + ", GPU batch " +
                     std::to_string(batch));
        for_each_schedule([&] {
          Filter filter(params);
          if (c.mode == Mode::kQueryPresent) filter.merge(seen);
          const Outcome got = run(o, filter, batch);
          EXPECT_EQ(got.kept, expected.kept);
          EXPECT_EQ(got.output, expected.output);
          EXPECT_EQ(got.words, expected.words);
          EXPECT_EQ(got.insertions, expected.insertions);
        });
      }
    }
  }
}

TEST_F(GpuPipelineTest, StoppedAndResumedDedupMatchesAnUninterruptedCpuRun) {
  GDEDUP_REQUIRE_GPU();
  for (const Input& in : inputs()) {
    const FilterParams params{in.blocks, {512, 16}, kDefaultSeed};
    const PipelineOptions o = options(in, Mode::kDedup, "out.txt");
    Filter cpu_filter(params);
    const Outcome expected = run(o, cpu_filter, 0);
    for (uint64_t batch : kGpuBatches) {
      SCOPED_TRACE(std::string(in.name) + " input, GPU batch " + std::to_string(batch));
      for_each_schedule([&] {
        const Outcome got = stopped_and_resumed(o, params, batch);
        EXPECT_EQ(got.output, expected.output);
        EXPECT_EQ(got.words, expected.words);
        EXPECT_EQ(got.insertions, expected.insertions);
      });
    }
  }
}

#if defined(GDEDUP_CUDA_STANDIN)
// Passes every call to the GPU backend, noting whether its copies read the
// pipeline's fingerprints and wrote its answers in place: the stand-in
// counts the copies that touch a pinned allocation, and a staging copy
// leaves the caller's buffers untouched by any.
class WatchedBackend final : public Backend {
 public:
  explicit WatchedBackend(Backend& gpu) : gpu_(gpu) {}
  std::string name() const override { return gpu_.name(); }
  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) override {
    watch(fingerprints, present, [&] { gpu_.contains(fingerprints, count, present); });
  }
  void sync_to_host() override { gpu_.sync_to_host(); }
  HostBuffer host_buffer(uint64_t bytes) const override { return gpu_.host_buffer(bytes); }

  uint64_t calls = 0;
  uint64_t in_place = 0;  // calls whose keys and answers were both copied in place

 protected:
  void add_keys(const uint64_t* fingerprints, uint64_t count) override {
    gpu_.add(fingerprints, count);
  }
  uint64_t test_and_set_keys(const uint64_t* fingerprints, uint64_t count,
                             uint8_t* was_present) override {
    uint64_t fresh = 0;
    watch(fingerprints, was_present,
          [&] { fresh = gpu_.test_and_set(fingerprints, count, was_present); });
    return fresh;
  }

 private:
  template <class Call>
  void watch(const uint64_t* keys, const uint8_t* answers, Call&& call) {
    const uint64_t keys_before = cuda_standin::copies_touching(keys);
    const uint64_t answers_before = cuda_standin::copies_touching(answers);
    call();
    ++calls;
    in_place += cuda_standin::copies_touching(keys) > keys_before &&
                cuda_standin::copies_touching(answers) > answers_before;
  }

  Backend& gpu_;
};

// The pipeline's batches live in the backend's pinned memory, which the GPU
// backend copies from and to in place, in every mode that answers, from
// either front end (the parallel one with pieces of 4 KiB, whose records
// joined across pieces come in batches of their own).
TEST_F(GpuPipelineTest, BatchesAreCopiedInPlaceWithoutStaging) {
  GDEDUP_REQUIRE_GPU();
  const Input in = inputs().front();
  const FilterParams params{in.blocks, {512, 16}, kDefaultSeed};
  for (const Mode mode : {Mode::kDedup, Mode::kQueryAbsent}) {
    for (const unsigned workers : {1u, 3u}) {
      SCOPED_TRACE(std::to_string(workers) + " front-end workers");
      PipelineOptions o = options(in, mode, "out.txt");
      o.read_threads = workers;
      o.piece_bytes = 4096;
      Filter cpu_filter(params);
      const Outcome expected = run(o, cpu_filter, 0);
      Filter filter(params);
      auto gpu = make_gpu_backend(filter, GpuOptions{0, 100});
      WatchedBackend watched(*gpu);
      EXPECT_EQ(run_pipeline(o, filter, watched).kept, expected.kept);
      EXPECT_EQ(test::read_bytes(o.output), expected.output);
      if (workers == 1) {
        EXPECT_EQ(watched.calls, (kRecords + kPipelineBatch - 1) / kPipelineBatch);
      }
      EXPECT_GT(watched.calls, 0u);
      EXPECT_EQ(watched.in_place, watched.calls);
    }
  }
}
#endif

}  // namespace
}  // namespace gdedup
