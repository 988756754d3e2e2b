// Host-callable launchers of the device set's kernels (kernels/set_slots.h
// says how a table is laid out; set_kernels.cu, what each costs). Plain
// C++: src/cuda includes this without nvcc. Every launcher is asynchronous
// on `stream` and throws gdedup::Error when the launch fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "filter_kernels.h"
#include "gdedup/key_set.h"
#include "set_slots.h"

namespace gdedup::cuda {

// A table in device memory: 2^log2_slots key words (0: empty) and as many
// position words (kPositionFree where empty, kPositionOld between batches),
// and the salt that places its keys (set_slots.h). A rehash keeps the salt.
struct SetTable {
  uint64_t* words;
  uint32_t* positions;
  uint32_t log2_slots;
  kernels::SlotSalt salt;
};

// What a batch or a rehash leaves on the device for the host to read back
// in one copy.
struct SetCounters {
  unsigned long long fresh;  // keys the batch added
  // Nonzero once a key found no slot within its probe run: the table must
  // grow and the batch (or the rehash) run again.
  uint32_t overflow;
  // Nonzero once the second pass did not find a key the first one put in:
  // a fault of the device or the kernels, which fails the batch.
  uint32_t lost;
};

// Empties a table: key words 0, position words kPositionFree.
void launch_set_clear(const SetTable& table, cudaStream_t stream);

// Exactly sequential over the batch: answers[i] = 1 if keys[i] was in the
// table before the batch or at a lower position of it, else 0, adding it;
// counters->fresh gets the keys added. Keys and answers in device memory;
// n at most kMaxBatchKeys. When counters->overflow is set on return, the
// batch is half done: grow the table (launch_set_rehash keeps what the
// batch claimed) and run the whole batch again; its answers are then
// those of one run. counters->lost set when the second pass did not find
// a key of the first (a fault): the batch cannot be answered. counters
// must be zeroed before.
void launch_set_test_and_insert(const SetTable& table, const Key84* keys, uint64_t n,
                                uint8_t* answers, SetCounters* counters, LaunchShape shape,
                                cudaStream_t stream);

// answers[i] = 1 if keys[i] is in the table; nothing is added.
void launch_set_contains(const SetTable& table, const Key84* keys, uint64_t n,
                         uint8_t* answers, LaunchShape shape, cudaStream_t stream);

// Enters every key of `from` in `to` (cleared, larger, of the same salt),
// with its position word; counters->overflow set when a key found no slot
// in `to`'s probe run (grow `to` further and run again).
void launch_set_rehash(const SetTable& from, const SetTable& to, SetCounters* counters,
                       LaunchShape shape, cudaStream_t stream);

// Fills keys[i] with 84 random bits from splitmix64(seed, i): benchmark keys
// made on the device.
void launch_random_keys84(Key84* keys, uint64_t n, uint64_t seed, LaunchShape shape,
                          cudaStream_t stream);

}  // namespace gdedup::cuda
