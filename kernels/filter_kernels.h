// Host-callable launchers of the filter kernels. Plain C++: the host side
// (src/cuda) includes this without nvcc. Every launcher is asynchronous on
// `stream` and throws gdedup::Error when the launch fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gdedup/layout.h"

namespace gdedup::cuda {

// The kernels take the filter as a gdedup::FilterRef (layout.h) whose
// `words` are device memory; it may be a shard of a larger filter.
using gdedup::FilterRef;

// What sizes a grid: kernels get as many blocks as fit on the device at once
// (by each kernel's own occupancy) and loop over the rest.
struct LaunchShape {
  int multiprocessors;
};

LaunchShape launch_shape(int device);

// Largest batch test_and_set takes: positions are 32-bit and the sort counts
// items in an int.
constexpr uint64_t kMaxBatchKeys = uint64_t{1} << 30;

// test_and_set works through a batch in chunks of at most kChunkKeys keys,
// each with a table of the fingerprints it holds at most half full: 2^22
// entries of 8 bytes, 32 MiB.
constexpr uint64_t kChunkKeys = uint64_t{1} << 21;
// Smaller chunks than this cost more in launches and waits than the keys
// that share a block cost in the sort.
constexpr uint64_t kMinChunkKeys = uint64_t{1} << 16;
// The most fingerprints of one block in a chunk that one thread answers in
// turn; a block with more goes to the sort.
constexpr uint32_t kGroupKeys = 8;

// Keys a workspace holds for batches of `batch_keys`: what one chunk uses,
// so a batch larger than a chunk needs no more.
inline uint64_t test_and_set_workspace_keys(uint64_t batch_keys) {
  return batch_keys < kChunkKeys ? batch_keys : kChunkKeys;
}

// log2 of the table entries for a workspace of `capacity` keys: room for
// two entries a key of the largest chunk.
inline uint32_t test_and_set_table_log2(uint64_t capacity) {
  const uint64_t chunk = test_and_set_workspace_keys(capacity);
  uint32_t log2 = 1;
  while ((uint64_t{1} << log2) < 2 * chunk) ++log2;
  return log2;
}

// Device buffers of test_and_set, each for `capacity` keys, the most one
// chunk of a batch takes (test_and_set_workspace_keys): sort keys (block
// indices) and values (positions) twice over, the scan's masks
// (kernels::BlockMask, 64 bytes a key at most), and the scratch space of the
// sort, the scan and the compaction; for a chunk, the table of
// fingerprints; for the batch, its two flags (a key was left to the sort; a
// key's entry was lost) and the count of the keys left to the sort of a
// window, with two words of pinned host memory to read them back into (a
// copy to pageable memory would wait for the whole device, not only the
// stream).
struct TestAndSetWorkspace {
  uint64_t* blocks[2];
  uint32_t* positions[2];
  void* before;
  void* scratch;
  size_t scratch_bytes;
  uint64_t capacity;
  uint64_t* table;  // 2^table_log2 entries
  uint32_t table_log2;
  uint32_t* flags;       // two words, each set once: a key of the batch is left
                         // to the sort; a probe of the table lost its key
  uint32_t* sort_count;  // keys of a window of the batch to sort
  uint32_t* host_words;  // two words of pinned host memory, where flags and
                         // counts are read back
};

// Bytes of `before` for each key (16 words), and of the whole workspace for
// each key, beside the scratch space and the table (test_and_set_table_log2).
constexpr uint64_t kMaskBytesPerKey = 16 * 4;
constexpr uint64_t kWorkspaceBytesPerKey = 2 * 8 + 2 * 4 + kMaskBytesPerKey;

// cudaSuccess when the kernels can run on the current device; otherwise the
// error that a launch would give (no kernel image for the device, say).
cudaError_t probe_kernels();

// Scratch bytes test_and_set needs for a workspace of `keys` keys (no device
// work).
size_t test_and_set_scratch_bytes(uint64_t keys);

// Device bytes of the whole workspace for batches of `batch_keys`: at most
// 2^21 keys of 88 bytes, the table (8 bytes an entry, two entries a key),
// the scratch and the flags and count: about 208 MiB and CUB's scratch from
// 2^21 keys on.
inline uint64_t test_and_set_workspace_bytes(uint64_t batch_keys) {
  const uint64_t keys = test_and_set_workspace_keys(batch_keys);
  return keys * kWorkspaceBytesPerKey + (uint64_t{8} << test_and_set_table_log2(keys)) +
         test_and_set_scratch_bytes(keys) + 3 * sizeof(uint32_t);
}

void launch_add(const FilterRef& filter, const uint64_t* fingerprints, uint64_t count,
                LaunchShape shape, cudaStream_t stream);

void launch_contains(const FilterRef& filter, const uint64_t* fingerprints, uint64_t count,
                     uint8_t* present, LaunchShape shape, cudaStream_t stream);

// Sequential semantics within the batch (kernels/block_ops.h says how;
// kernels/filter_kernels.cu, its cost). Throws Error when a key's entry in
// its chunk's table was lost (a fault of the device or the kernels; the
// filter on the device then holds part of the batch).
// Adds the number of new keys to *fresh (device memory). Batches on several
// streams are chained through `chain`: the first kernel that touches the
// filter waits for it and the last records it, so one batch sees the bits of
// the previous one while grouping its keys meanwhile. Not fully
// asynchronous: the caller's thread waits on `stream` once, at the end, for
// the flag of keys left to the sort (and so for the batch and the previous
// one to finish); only when it is set, once more for each chunk, as the
// sort takes its length from the host. `count` may exceed the workspace's
// capacity (it goes chunk by chunk).
void launch_test_and_set(const FilterRef& filter, const uint64_t* fingerprints,
                         uint64_t count, uint8_t* was_present,
                         unsigned long long* fresh, const TestAndSetWorkspace& workspace,
                         LaunchShape shape, cudaStream_t stream, cudaEvent_t chain);

// Adds the number of set bits of the whole filter to *total (device memory).
void launch_count_set_bits(const FilterRef& filter, unsigned long long* total,
                           LaunchShape shape, cudaStream_t stream);

#if defined(GDEDUP_CPU_DEVICE)
// The most keys one device thread worked through in any launch since the
// last call; resets it. The CPU device's measure of a kernel's critical path
// (kernels/block_ops.h, cpu_device_steps).
uint64_t take_longest_thread_keys();
// The keys test_and_set sorted (first occurrences of the fingerprints of
// blocks with more than kGroupKeys of them in a chunk, and every first
// occurrence in a batch after one such) since the last call; resets it.
uint64_t take_sorted_keys();
#endif

// Fills keys[i] with splitmix64(seed + i): fresh random fingerprints on the
// device for benchmarks, without a host round trip.
void launch_random_keys(uint64_t* keys, uint64_t count, uint64_t seed, LaunchShape shape,
                        cudaStream_t stream);

// Reads `count` random 64-byte pieces of the `pieces` (a power of two) that
// `words` holds, 16-byte loads through the read-only cache, and adds a bit
// of each to *total (device memory): the random gather that bounds the
// filter's kernels, for benchmarks.
void launch_gather64(const uint32_t* words, uint64_t pieces, uint64_t count, uint64_t seed,
                     unsigned long long* total, LaunchShape shape, cudaStream_t stream);

}  // namespace gdedup::cuda
