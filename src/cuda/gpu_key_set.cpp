// GpuKeySet's host side: the table in device memory (kernels/set_slots.h),
// batches in passes of at most kPassKeys keys on the legacy default stream
// (so that a caller's device buffers, filled by cudaMemcpy or launches on
// stream 0, are ready), one wait a pass for the counters: the keys added
// and whether a key found no slot, in which case the table grows and the
// pass runs again. A table left over half full grows before the next pass.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/device_memory.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"
#include "set_kernels.h"
#include "set_slots.h"

namespace gdedup {
namespace {

// Keys a pass takes: 16 bytes each in, 1 back, 272 MiB of device buffers.
constexpr uint64_t kPassKeys = uint64_t{1} << 24;
// Slots read back to the host at a time (to_host): 32 MiB of key words.
constexpr uint64_t kReadBackSlots = uint64_t{1} << 22;
constexpr uint64_t kSlotBytes = sizeof(uint64_t) + sizeof(uint32_t);

uint64_t table_bytes(uint32_t log2_slots) { return kSlotBytes << log2_slots; }

// Bytes as MiB with one decimal, for the cap's message (this library
// stands on nothing of the engine's, whose human_bytes says the same).
std::string mib_text(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// The smallest table that holds `keys` at most half full and in which
// hardly any key's probe run passes the longest displacement a word holds
// (2 slots at 2^22, 6 at 2^23: kernels/set_slots.h), which would make it
// grow at once. Linear probing at load a puts about (0.6 a)^d of the keys d
// or more slots past their home (measured up to a = 1/2: 0.35, 0.11, 0.030
// at d = 1, 2, 3 for a = 1/2); a table is taken when under 1/20 of a key is
// expected past its limit.
uint32_t log2_for(uint64_t keys) {
  uint32_t log2 = kernels::kMinSetLog2;
  for (; log2 < kernels::kMaxSetLog2; ++log2) {
    const double load = static_cast<double>(keys) / std::ldexp(1.0, static_cast<int>(log2));
    const double past = static_cast<double>(keys) *
                        std::pow(0.6 * load, kernels::max_displacement(log2) + 1);
    if (load <= 0.5 && past < 0.05) break;
  }
  return log2;
}

struct Table {
  cuda::DeviceArray<uint64_t> words;
  cuda::DeviceArray<uint32_t> positions;
  uint32_t log2_slots = 0;

  cuda::SetTable ref() const { return {words.get(), positions.get(), log2_slots}; }
};

// An empty table on `device`; Error of kind device_memory when it does not
// fit beside what the device holds already (during growth, the old table).
Table make_table(uint32_t log2_slots, int device) {
  try {
    Table t{cuda::DeviceArray<uint64_t>(uint64_t{1} << log2_slots),
            cuda::DeviceArray<uint32_t>(uint64_t{1} << log2_slots), log2_slots};
    cuda::launch_set_clear(t.ref(), nullptr);
    return t;
  } catch (const cuda::OutOfDeviceMemory&) {
    throw Error("the exact set needs a table of " + mib_text(table_bytes(log2_slots)) +
                    " on GPU " + std::to_string(device) + ", more than its free memory (" +
                    mib_text(cuda::free_device_bytes()) + ")",
                ErrorKind::device_memory, table_bytes(log2_slots), cuda::free_device_bytes());
  }
}

}  // namespace

struct GpuKeySet::Impl {
  int device;
  uint64_t max_bytes;
  cuda::LaunchShape shape;
  Table table;
  uint64_t size = 0;
  uint64_t growths = 0;
  // A pass's keys and answers when the caller's are host memory, and the
  // counters; grown to the largest pass seen.
  cuda::DeviceArray<Key84> keys;
  cuda::DeviceArray<uint8_t> answers;
  uint64_t capacity = 0;
  cuda::DeviceArray<cuda::SetCounters> counters{1};

  Impl(int device_number, uint64_t cap)
      : device(cuda::use_device(device_number)),
        max_bytes(cap),
        shape(cuda::launch_shape(device)) {}

  void check_cap(uint32_t log2_slots) const {
    if (max_bytes != 0 && table_bytes(log2_slots) > max_bytes) {
      throw Error("the exact set on GPU " + std::to_string(device) + " needs a table of " +
                      mib_text(table_bytes(log2_slots)) + " of device memory, more than " +
                      "the cap of " + mib_text(max_bytes) + " allows",
                  ErrorKind::set_full, table_bytes(log2_slots), max_bytes);
    }
  }

  void ensure_buffers(uint64_t n) {
    if (n <= capacity) return;
    keys = cuda::DeviceArray<Key84>();
    answers = cuda::DeviceArray<uint8_t>();
    keys = cuda::DeviceArray<Key84>(n);
    answers = cuda::DeviceArray<uint8_t>(n);
    capacity = n;
  }

  cuda::SetCounters read_counters() {
    cuda::SetCounters host{};
    GDEDUP_CUDA_CHECK(cudaMemcpyAsync(&host, counters.get(), sizeof host,
                                      cudaMemcpyDeviceToHost, nullptr));
    GDEDUP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    return host;
  }

  void zero_counters() {
    GDEDUP_CUDA_CHECK(
        cudaMemsetAsync(counters.get(), 0, sizeof(cuda::SetCounters), nullptr));
  }

  // Doubles the table (or more, while a key finds no slot in the new one's
  // probe run), rehashing on the device; the position words go along, so a
  // batch half done continues.
  void grow() {
    for (uint32_t log2 = table.log2_slots + 1;; ++log2) {
      if (log2 > kernels::kMaxSetLog2) {
        throw Error("the exact set on GPU " + std::to_string(device) + " cannot grow past 2^" +
                    std::to_string(kernels::kMaxSetLog2) + " slots");
      }
      check_cap(log2);
      Table bigger = make_table(log2, device);
      zero_counters();
      cuda::launch_set_rehash(table.ref(), bigger.ref(), counters.get(), shape, nullptr);
      if (read_counters().overflow != 0) continue;
      table = std::move(bigger);
      ++growths;
      return;
    }
  }

  // One pass of device-resident keys and answers; returns the keys added.
  // A table left over half full by the last pass grows first: here, so
  // that a cap it passes fails the batch that needs the room.
  uint64_t pass(const Key84* keys_on_device, uint64_t n, uint8_t* answers_on_device) {
    if (size > (uint64_t{1} << (table.log2_slots - 1))) grow();
    for (;;) {
      zero_counters();
      cuda::launch_set_test_and_insert(table.ref(), keys_on_device, n, answers_on_device,
                                       counters.get(), shape, nullptr);
      const cuda::SetCounters c = read_counters();
      if (c.overflow == 0) {
        size += c.fresh;
        return c.fresh;
      }
      grow();
    }
  }

  template <class Run>
  void in_passes(const Key84* keys_in, uint64_t n, uint8_t* answers_out, const Run& run) {
    if (n == 0) return;
    GDEDUP_CUDA_CHECK(cudaSetDevice(device));
    const bool keys_device = cuda::space_of(keys_in, device) == cuda::Space::kDevice;
    const bool answers_device = cuda::space_of(answers_out, device) == cuda::Space::kDevice;
    const uint64_t most = std::min(n, kPassKeys);
    ensure_buffers(keys_device && answers_device ? 0 : most);
    for (uint64_t begin = 0; begin < n; begin += most) {
      const uint64_t m = std::min(most, n - begin);
      const Key84* k = keys_in + begin;
      if (!keys_device) {
        GDEDUP_CUDA_CHECK(cudaMemcpyAsync(keys.get(), k, m * sizeof(Key84),
                                          cudaMemcpyHostToDevice, nullptr));
        k = keys.get();
      }
      uint8_t* a = answers_device ? answers_out + begin : answers.get();
      run(k, m, a);
      if (!answers_device) {
        GDEDUP_CUDA_CHECK(
            cudaMemcpyAsync(answers_out + begin, a, m, cudaMemcpyDeviceToHost, nullptr));
        GDEDUP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      }
    }
  }
};

GpuKeySet::GpuKeySet(uint64_t expected_keys, const GpuKeySetOptions& options)
    : impl_(std::make_unique<Impl>(options.device, options.max_bytes)) {
  const uint32_t log2 = log2_for(expected_keys);
  impl_->check_cap(log2);
  impl_->table = make_table(log2, impl_->device);
}

GpuKeySet::~GpuKeySet() = default;
GpuKeySet::GpuKeySet(GpuKeySet&&) noexcept = default;
GpuKeySet& GpuKeySet::operator=(GpuKeySet&&) noexcept = default;

uint64_t GpuKeySet::test_and_insert(const Key84* keys, uint64_t n, uint8_t* answers) {
  uint64_t fresh = 0;
  impl_->in_passes(keys, n, answers, [&](const Key84* k, uint64_t m, uint8_t* a) {
    fresh += impl_->pass(k, m, a);
  });
  return fresh;
}

void GpuKeySet::contains(const Key84* keys, uint64_t n, uint8_t* answers) const {
  impl_->in_passes(keys, n, answers, [&](const Key84* k, uint64_t m, uint8_t* a) {
    cuda::launch_set_contains(impl_->table.ref(), k, m, a, impl_->shape, nullptr);
  });
  GDEDUP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

uint64_t GpuKeySet::size() const { return impl_->size; }
uint64_t GpuKeySet::bytes() const { return table_bytes(impl_->table.log2_slots); }
double GpuKeySet::load() const {
  return static_cast<double>(impl_->size) /
         static_cast<double>(uint64_t{1} << impl_->table.log2_slots);
}
uint64_t GpuKeySet::growths() const { return impl_->growths; }

void GpuKeySet::for_each_key(const std::function<void(const Key84*, size_t)>& f) const {
  GDEDUP_CUDA_CHECK(cudaSetDevice(impl_->device));
  const uint32_t log2 = impl_->table.log2_slots;
  const uint64_t slots = uint64_t{1} << log2;
  std::vector<uint64_t> words(std::min(slots, kReadBackSlots));
  std::vector<Key84> keys;
  for (uint64_t begin = 0; begin < slots; begin += words.size()) {
    GDEDUP_CUDA_CHECK(cudaMemcpy(words.data(), impl_->table.words.get() + begin,
                                 words.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    keys.clear();
    for (uint64_t s = 0; s < words.size(); ++s) {
      if (words[s] != 0) keys.push_back(kernels::slot_key(words[s], begin + s, log2));
    }
    if (!keys.empty()) f(keys.data(), keys.size());
  }
}

}  // namespace gdedup
