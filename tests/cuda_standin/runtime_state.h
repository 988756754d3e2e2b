// The stand-in runtime's shared state: streams as FIFO queues of operations,
// each drained by its own thread, and the registry of allocations. One mutex
// guards all of it; operations run outside it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda_standin.h"

namespace cuda_standin::detail {

struct Stream;

// Satisfied once stream->completed >= sequence.
struct Dependency {
  std::shared_ptr<Stream> stream;
  uint64_t sequence;
};

struct Operation {
  std::vector<Dependency> after;
  std::function<void()> work;
};

struct Stream {
  bool legacy = false;    // the NULL stream
  bool blocking = false;  // created without cudaStreamNonBlocking
  std::deque<Operation> queue;
  uint64_t enqueued = 0;
  uint64_t completed = 0;
  bool closing = false;
  std::mt19937_64 rng;
  std::thread worker;
};

enum class Space { kPageable, kPinned, kDevice };

struct Allocation {
  size_t bytes;
  Space space;
  uint64_t copies = 0;  // cudaMemcpy* calls that read or wrote it (pinned only)
};

struct Runtime {
  std::mutex mutex;
  std::condition_variable changed;
  Settings settings;
  uint64_t streams_made = 0;
  std::shared_ptr<Stream> legacy;
  std::vector<std::shared_ptr<Stream>> streams;  // every live non-legacy stream
  std::map<uintptr_t, Allocation> allocations;   // by base address
  uint64_t device_in_use = 0;
  uint64_t pinned_in_use = 0;
  uint64_t pageable_async_copies = 0;  // cudaMemcpyAsync calls to or from pageable memory
};

// The one runtime, made at first use and never destroyed (the legacy
// stream's thread waits on it until the process ends).
Runtime& runtime();

// Records `error` as the calling thread's last error (unless cudaSuccess)
// and returns it, as runtime calls do.
cudaError_t report(cudaError_t error);
// The calling thread's last error; `reset` clears it.
cudaError_t take_last_error(bool reset);

using Lock = std::unique_lock<std::mutex>;

// Starts a stream's thread; the caller holds rt.mutex (or is making rt).
std::shared_ptr<Stream> make_stream(Runtime& rt, bool blocking, bool legacy);
// The stream behind a handle; the legacy stream for NULL.
std::shared_ptr<Stream> stream_of(cudaStream_t handle);
// Appends `work` to `stream` behind the implicit dependencies of the legacy
// stream and of blocking streams; returns its sequence number.
uint64_t enqueue(Lock& lock, const std::shared_ptr<Stream>& stream, std::function<void()> work,
                 std::vector<Dependency> after = {});
// Blocks until the dependency is satisfied.
void wait_for(Lock& lock, const Dependency& dependency);

// Where [p, p + bytes) lives; cudaErrorInvalidValue when it starts inside an
// allocation and runs past its end.
cudaError_t space_of(Lock& lock, const void* p, size_t bytes, Space* space);
// The allocation that holds `p`, or null.
Allocation* allocation_of(Lock& lock, const void* p);

}  // namespace cuda_standin::detail
