// The GPU tests' schedules on the CUDA stand-in (tests/cuda_standin).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "test_util.h"

#if defined(GDEDUP_CUDA_STANDIN)
#include "cuda_standin.h"
#endif

namespace gdedup {

// Runs `body` once per stand-in schedule (the seed of its streams' delays),
// `schedules` times in all; once on a real GPU. Even schedules run each
// launch's threads at once on 4 OS threads (the stand-in's concurrent
// mode), odd ones one at a time. Stops at a fatal failure.
// Under AddressSanitizer, schedule 1 alone: the sanitizer checks the
// memory each thread reads and writes, which every schedule touches, while
// the order of threads and streams is the other schedules' to vary (in the
// release build, which runs them all, and in scripts/tsan.sh's
// ThreadSanitizer build); the concurrent ones cost twice its CPU time there.
template <class Body>
inline void for_each_schedule(int schedules, Body&& body) {
#if defined(GDEDUP_CUDA_STANDIN)
  const cuda_standin::Settings saved = cuda_standin::current();
  const int last = test::kAddressSanitizer ? 1 : schedules;
  for (int seed = 1; seed <= last && !::testing::Test::HasFatalFailure(); ++seed) {
    cuda_standin::Settings settings = saved;
    settings.seed = static_cast<uint64_t>(seed);
    settings.launch_threads = seed % 2 == 0 ? 4 : saved.launch_threads;
    cuda_standin::set(settings);
    SCOPED_TRACE("stand-in schedule " + std::to_string(seed) +
                 (settings.launch_threads > 1 ? ", concurrent launches" : ""));
    body();
  }
  cuda_standin::set(saved);
#else
  (void)schedules;
  body();
#endif
}

}  // namespace gdedup
