// How many keys a batch holds, from the device's free memory. Plain C++ so
// that the tests run it without a device.
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/error.h"

namespace gdedup::cuda {

// Left free for the runtime, CUB and other users of the device.
constexpr uint64_t kDeviceReserveBytes = uint64_t{256} << 20;
// Larger batches gain nothing measurable and cost pinned host memory.
constexpr uint64_t kAutoBatchKeys = uint64_t{1} << 24;
// Below this, launch and copy latency dominate.
constexpr uint64_t kMinBatchKeys = uint64_t{1} << 16;
// The whole need, so that the numbers add up: the filter, the smallest
// batch buffers that would do and the reserve, against what is free.
// buffer_bytes is 0 for a filter that uses batch buffers already on the
// device.
inline Error not_enough_memory(uint64_t filter_bytes, uint64_t buffer_bytes,
                               uint64_t free_bytes) {
  const std::string buffers =
      buffer_bytes == 0 ? " bytes (its batch buffers are already on the device)"
                        : " bytes, its batch buffers at least " + std::to_string(buffer_bytes) +
                              " more";
  return Error("not enough device memory: the filter needs " + std::to_string(filter_bytes) +
                   buffers + " and " + std::to_string(kDeviceReserveBytes) +
                   " stay reserved, but " + std::to_string(free_bytes) + " are free",
               ErrorKind::device_memory, filter_bytes + buffer_bytes + kDeviceReserveBytes,
               free_bytes);
}

inline bool filter_fits(uint64_t filter_bytes, uint64_t free_bytes) {
  return filter_bytes < free_bytes && free_bytes - filter_bytes >= kDeviceReserveBytes;
}

// For a filter whose batch buffers are already on the device: throws
// not_enough_memory() unless the filter and the reserve fit.
inline void check_filter_fits(uint64_t filter_bytes, uint64_t free_bytes) {
  if (!filter_fits(filter_bytes, free_bytes)) throw not_enough_memory(filter_bytes, 0, free_bytes);
}

// Picks the batch: `requested` (0 = automatic) keys, halved until `slots`
// slots of slot_bytes(keys) each fit beside the filter and the reserve.
// Throws Error with not_enough_memory() when even kMinBatchKeys (or a
// smaller request) does not fit.
template <class SlotBytes>
uint64_t plan_batch_keys(uint64_t filter_bytes, uint64_t free_bytes, uint64_t requested,
                         uint64_t slots, uint64_t max_keys, SlotBytes slot_bytes) {
  if (requested > max_keys) {
    throw UsageError("a batch of " + std::to_string(requested) +
                     " keys is more than the CUDA backend takes (" + std::to_string(max_keys) +
                     "); choose a smaller batch size.");
  }
  const uint64_t floor = requested != 0 && requested < kMinBatchKeys ? requested : kMinBatchKeys;
  const auto refuse = [&] {
    return not_enough_memory(filter_bytes, slots * slot_bytes(floor), free_bytes);
  };
  if (!filter_fits(filter_bytes, free_bytes)) throw refuse();
  const uint64_t room = free_bytes - filter_bytes - kDeviceReserveBytes;
  uint64_t keys = requested != 0 ? requested : kAutoBatchKeys;
  while (slots * slot_bytes(keys) > room) {
    if (keys <= floor) throw refuse();
    keys = keys / 2 > floor ? keys / 2 : floor;
  }
  return keys;
}

}  // namespace gdedup::cuda
