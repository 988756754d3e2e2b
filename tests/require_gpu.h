// The GPU tests' guard.
#pragma once

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "gdedup/gpu.h"

// Skips without a usable GPU; fails instead where GDEDUP_REQUIRE_GPU is set
// (bench/gpu_check.sh sets it), so a GPU run cannot pass by skipping.
#define GDEDUP_REQUIRE_GPU()                                               \
  do {                                                                     \
    std::string why_not;                                                   \
    if (!gdedup::gpu_available(&why_not)) {                                \
      if (std::getenv("GDEDUP_REQUIRE_GPU") != nullptr) FAIL() << why_not; \
      GTEST_SKIP() << why_not;                                             \
    }                                                                      \
  } while (0)
