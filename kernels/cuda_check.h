// The one way CUDA failures become exceptions in gdedup. Every runtime call
// and every kernel launch (via cudaGetLastError right after it) goes through
// GDEDUP_CUDA_CHECK.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "gdedup/error.h"

namespace gdedup::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t error, const char* call,
                                          const char* file, int line) {
  // Clear the error so that the next call does not report it again. Sticky
  // errors (a kernel fault) stay: the context is unusable after those.
  cudaGetLastError();
  throw Error(std::string("CUDA call ") + call + " failed at " + file + ":" +
              std::to_string(line) + ": " + cudaGetErrorString(error) + " (" +
              cudaGetErrorName(error) + ").");
}

}  // namespace gdedup::cuda

#define GDEDUP_CUDA_CHECK(call)                                                  \
  do {                                                                           \
    const cudaError_t gdedup_cuda_status_ = (call);                              \
    if (gdedup_cuda_status_ != cudaSuccess) {                                    \
      ::gdedup::cuda::throw_cuda_error(gdedup_cuda_status_, #call, __FILE__, __LINE__); \
    }                                                                            \
  } while (0)
