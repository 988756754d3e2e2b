// GpuKeySet's host side: the table in device memory (kernels/set_slots.h,
// sized by kernels/set_sizing.h), its salt drawn at random for each set, and
// batches in passes of at most pass_keys keys. The table's work (the
// passes' kernels, growth) runs in order on one stream; a pass's keys from
// host memory come in, and its answers go back, on the stream of one of two
// pass buffers, so that pass c + 1's keys are on their way in and pass
// c - 1's answers on their way back while pass c's kernels run. One wait a
// pass, for its counters: the keys added, whether a key found no slot (the
// table grows and the pass runs again) and whether one was lost (a fault).
// A table past what set_sizing.h plans for its keys grows before the next
// pass. A call that fails part way leaves keys in the table that no batch
// answered: the set refuses every later call.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/device_memory.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"
#include "set_kernels.h"
#include "set_sizing.h"
#include "set_slots.h"

namespace gdedup {
namespace {

using cuda::DeviceArray;
using cuda::Event;
using cuda::PinnedArray;
using cuda::Space;
using cuda::Stream;

// Keys a pass takes by default: 16 bytes each in, 1 back, 272 MiB of device
// buffers each of the two.
constexpr uint64_t kPassKeys = uint64_t{1} << 24;
// Slots read back to the host at a time (for_each_key): 32 MiB of key words.
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

// A salt nobody can guess: the system's random numbers.
kernels::SlotSalt random_salt() {
  std::random_device system;
  kernels::SlotSalt salt{};
  for (uint64_t& r : salt.round) r = (uint64_t{system()} << 32) | system();
  return salt;
}

struct Table {
  DeviceArray<uint64_t> words;
  DeviceArray<uint32_t> positions;
  uint32_t log2_slots = 0;
  kernels::SlotSalt salt{};

  cuda::SetTable ref() const { return {words.get(), positions.get(), log2_slots, salt}; }
};

// An empty table on `device`, cleared on `stream`; Error of kind
// device_memory when it does not fit beside what the device holds already
// (during growth, the old table).
Table make_table(uint32_t log2_slots, const kernels::SlotSalt& salt, int device,
                 cudaStream_t stream) {
  try {
    Table t{DeviceArray<uint64_t>(uint64_t{1} << log2_slots),
            DeviceArray<uint32_t>(uint64_t{1} << log2_slots), log2_slots, salt};
    cuda::launch_set_clear(t.ref(), stream);
    return t;
  } catch (const cuda::OutOfDeviceMemory&) {
    throw Error("the exact set needs a table of " + mib_text(table_bytes(log2_slots)) +
                    " on GPU " + std::to_string(device) + ", more than its free memory (" +
                    mib_text(cuda::free_device_bytes()) + ")",
                ErrorKind::device_memory, table_bytes(log2_slots), cuda::free_device_bytes());
  }
}

// One of the two buffers of passes from host memory: the pass's keys and
// answers on the device, pinned staging for a pageable caller, and the
// stream their copies take.
struct PassBuffer {
  explicit PassBuffer(uint64_t keys_capacity)
      : capacity(keys_capacity), keys(keys_capacity), answers(keys_capacity) {}

  uint64_t capacity;
  Stream stream;
  Event copied;  // the pass's keys are in
  Event done;    // and its answers back
  DeviceArray<Key84> keys;
  DeviceArray<uint8_t> answers;
  cuda::PinnedStaging<Key84> staging;
  // The pass in flight, if any.
  bool busy = false;
  uint8_t* copy_answers_to = nullptr;  // pageable destination of staging.answers()
  uint64_t count = 0;
};

// What a call does with each pass: enqueue its kernels on the table's
// stream, then (with the next pass's keys on their way in) wait for them.
struct PassWork {
  virtual void launch(const Key84* keys, uint64_t n, uint8_t* answers) = 0;
  virtual void settle(const Key84* keys, uint64_t n, uint8_t* answers) = 0;

 protected:
  ~PassWork() = default;
};

}  // namespace

struct GpuKeySet::Impl {
  int device;
  uint64_t max_bytes;
  uint64_t pass_keys;
  cuda::LaunchShape shape;
  Table table;
  uint64_t size = 0;
  uint64_t growths = 0;
  // Why the set refuses calls: a call failed part way.
  std::string failure;
  Stream work;  // the table's stream
  Event legacy_done;
  Event passed;  // a pass's kernels are done with its keys
  std::unique_ptr<PassBuffer> buffers[2];
  DeviceArray<cuda::SetCounters> counters{1};
  PinnedArray<cuda::SetCounters> counters_host{1};

  explicit Impl(const GpuKeySetOptions& options)
      : device(cuda::use_device(options.device)),
        max_bytes(options.max_bytes),
        pass_keys(options.pass_keys != 0 ? options.pass_keys : kPassKeys),
        shape(cuda::launch_shape(device)) {
    if (pass_keys > cuda::kMaxBatchKeys) {
      throw UsageError("a pass of the exact set on the GPU takes at most " +
                       std::to_string(cuda::kMaxBatchKeys) + " keys; " +
                       std::to_string(pass_keys) + " were asked for.");
    }
  }

  void check_cap(uint32_t log2_slots) const {
    if (max_bytes != 0 && table_bytes(log2_slots) > max_bytes) {
      throw Error("the exact set on GPU " + std::to_string(device) + " needs a table of " +
                      mib_text(table_bytes(log2_slots)) + " of device memory, more than " +
                      "the cap of " + mib_text(max_bytes) + " allows",
                  ErrorKind::set_full, table_bytes(log2_slots), max_bytes);
    }
  }

  void check_usable() const {
    if (!failure.empty()) {
      throw Error("the exact set on GPU " + std::to_string(device) +
                  " cannot be used any more: a call failed part way (" + failure +
                  "), leaving keys in it that no batch answered.");
    }
  }

  void ensure_buffers(uint64_t n) {
    if (buffers[0] != nullptr && buffers[0]->capacity >= n) return;
    for (auto& b : buffers) {
      b.reset();
      b = std::make_unique<PassBuffer>(n);
    }
  }

  cuda::SetCounters read_counters() {
    GDEDUP_CUDA_CHECK(cudaMemcpyAsync(counters_host.get(), counters.get(),
                                      sizeof(cuda::SetCounters), cudaMemcpyDeviceToHost,
                                      work.get()));
    GDEDUP_CUDA_CHECK(cudaStreamSynchronize(work.get()));
    return *counters_host.get();
  }

  void zero_counters() {
    GDEDUP_CUDA_CHECK(
        cudaMemsetAsync(counters.get(), 0, sizeof(cuda::SetCounters), work.get()));
  }

  // Moves the keys to a table of 2^log2 slots (or more, while a key finds
  // no slot in the new one's probe run), rehashing on the device; the
  // position words go along, so a batch half done continues.
  void grow(uint32_t log2) {
    for (;; ++log2) {
      if (log2 > kernels::kMaxSetLog2) {
        throw Error("the exact set on GPU " + std::to_string(device) + " cannot grow past 2^" +
                    std::to_string(kernels::kMaxSetLog2) + " slots");
      }
      check_cap(log2);
      Table bigger = make_table(log2, table.salt, device, work.get());
      zero_counters();
      cuda::launch_set_rehash(table.ref(), bigger.ref(), counters.get(), shape, work.get());
      if (read_counters().overflow != 0) continue;
      table = std::move(bigger);
      ++growths;
      return;
    }
  }

  // A pass's kernels, enqueued. A table past what its keys plan grows
  // first: here, so that a cap it passes fails the batch that needs the
  // room.
  void launch_pass(const Key84* keys, uint64_t n, uint8_t* answers) {
    const uint32_t planned = cuda::table_log2_for(size);
    if (planned > table.log2_slots) grow(planned);
    zero_counters();
    cuda::launch_set_test_and_insert(table.ref(), keys, n, answers, counters.get(), shape,
                                     work.get());
  }

  // Waits for a pass; grows the table and runs the pass again while a key
  // found no slot. Returns the keys it added.
  uint64_t settle_pass(const Key84* keys, uint64_t n, uint8_t* answers) {
    for (;;) {
      const cuda::SetCounters c = read_counters();
      if (c.lost != 0) {
        throw Error("the exact set on GPU " + std::to_string(device) + " lost a key of a pass " +
                    "of " + std::to_string(n) + " keys: its second pass did not find a key " +
                    "its first put in (a fault of the device or of the kernels).");
      }
      if (c.overflow == 0) {
        size += c.fresh;
        return c.fresh;
      }
      grow(table.log2_slots + 1);
      zero_counters();
      cuda::launch_set_test_and_insert(table.ref(), keys, n, answers, counters.get(), shape,
                                       work.get());
    }
  }

  // Waits for a buffer's pass to be done and hands its answers over.
  static void finish(PassBuffer& b) {
    if (!b.busy) return;
    b.busy = false;
    GDEDUP_CUDA_CHECK(cudaEventSynchronize(b.done.get()));
    if (b.copy_answers_to != nullptr) {
      std::memcpy(b.copy_answers_to, b.staging.answers(), b.count);
    }
  }

  // After a failure: every stream runs dry, so that no buffer is in use.
  void quiesce() noexcept {
    cudaStreamSynchronize(work.get());
    for (auto& b : buffers) {
      if (b == nullptr) continue;
      cudaStreamSynchronize(b->stream.get());
      b->busy = false;
    }
    cudaGetLastError();
  }

  // Where the kernels find the keys of a pass: the caller's device memory,
  // or a buffer the keys are copied into (through its staging from pageable
  // memory) on the buffer's stream.
  struct Pass {
    const Key84* keys;
    uint64_t begin;
    uint64_t n;
    PassBuffer* buffer;  // null when keys and answers are device memory
    bool copied;
  };

  Pass start_pass(const Key84* keys_in, Space in, uint64_t begin, uint64_t n, PassBuffer* b) {
    Pass p{keys_in + begin, begin, n, b, false};
    if (b == nullptr) return p;
    finish(*b);
    if (in == Space::kDevice) return p;
    const Key84* source = keys_in + begin;
    if (in == Space::kPageable && b->staging.ensure(b->capacity)) {
      std::memcpy(b->staging.keys(), source, n * sizeof(Key84));
      source = b->staging.keys();
    }
    GDEDUP_CUDA_CHECK(cudaMemcpyAsync(b->keys.get(), source, n * sizeof(Key84),
                                      cudaMemcpyHostToDevice, b->stream.get()));
    GDEDUP_CUDA_CHECK(cudaEventRecord(b->copied.get(), b->stream.get()));
    p.keys = b->keys.get();
    p.copied = true;
    return p;
  }

  // The pass's answers back to the caller's host memory, on the buffer's
  // stream once the table's stream is done with the pass; the buffer is
  // free again once `done` is reached.
  void end_pass(const Pass& p, uint8_t* answers_out, Space out, const uint8_t* answers) {
    if (p.buffer == nullptr) return;
    PassBuffer& b = *p.buffer;
    const cudaStream_t stream = b.stream.get();
    GDEDUP_CUDA_CHECK(cudaEventRecord(passed.get(), work.get()));
    GDEDUP_CUDA_CHECK(cudaStreamWaitEvent(stream, passed.get(), 0));
    b.copy_answers_to = nullptr;
    if (out != Space::kDevice) {
      uint8_t* destination = answers_out + p.begin;
      if (out == Space::kPageable && b.staging.ensure(b.capacity)) {
        b.copy_answers_to = destination;
        destination = b.staging.answers();
      }
      GDEDUP_CUDA_CHECK(
          cudaMemcpyAsync(destination, answers, p.n, cudaMemcpyDeviceToHost, stream));
    }
    b.count = p.n;
    GDEDUP_CUDA_CHECK(cudaEventRecord(b.done.get(), stream));
    b.busy = true;
  }

  // Runs `work_of_pass` on the call's keys pass by pass; returns with every
  // pass done and its answers in answers_out.
  void in_passes(const Key84* keys_in, uint64_t n, uint8_t* answers_out,
                 PassWork& work_of_pass) {
    if (n == 0) return;
    check_usable();
    GDEDUP_CUDA_CHECK(cudaSetDevice(device));
    const Space in = cuda::space_of(keys_in, device);
    const Space out = cuda::space_of(answers_out, device);
    try {
      // A caller's device buffers, filled by cudaMemcpy or launches on the
      // legacy stream, which the table's non-blocking stream does not wait
      // for on its own.
      GDEDUP_CUDA_CHECK(cudaEventRecord(legacy_done.get(), nullptr));
      GDEDUP_CUDA_CHECK(cudaStreamWaitEvent(work.get(), legacy_done.get(), 0));
      const uint64_t most = std::min(n, pass_keys);
      const bool host = in != Space::kDevice || out != Space::kDevice;
      if (host) ensure_buffers(most);
      const auto buffer_of = [&](uint64_t c) { return host ? buffers[c % 2].get() : nullptr; };
      Pass next = start_pass(keys_in, in, 0, most, buffer_of(0));
      for (uint64_t c = 0, begin = 0; begin < n; ++c, begin += most) {
        const Pass p = next;
        if (p.copied) {
          GDEDUP_CUDA_CHECK(cudaStreamWaitEvent(work.get(), p.buffer->copied.get(), 0));
        }
        uint8_t* answers = out == Space::kDevice ? answers_out + begin : p.buffer->answers.get();
        work_of_pass.launch(p.keys, p.n, answers);
        if (begin + most < n) {
          next = start_pass(keys_in, in, begin + most, std::min(most, n - begin - most),
                            buffer_of(c + 1));
        }
        work_of_pass.settle(p.keys, p.n, answers);
        end_pass(p, answers_out, out, answers);
      }
      // The older pass first, so that pageable answers land in order.
      const uint64_t passes = (n + most - 1) / most;
      for (uint64_t c = passes; c < passes + 2 && host; ++c) finish(*buffers[c % 2]);
      GDEDUP_CUDA_CHECK(cudaStreamSynchronize(work.get()));
    } catch (...) {
      quiesce();
      throw;
    }
  }
};

GpuKeySet::GpuKeySet(uint64_t expected_keys, const GpuKeySetOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  const uint32_t log2 = cuda::table_log2_for(expected_keys);
  impl_->check_cap(log2);
  impl_->table = make_table(log2, random_salt(), impl_->device, impl_->work.get());
  GDEDUP_CUDA_CHECK(cudaStreamSynchronize(impl_->work.get()));
}

GpuKeySet::~GpuKeySet() = default;
GpuKeySet::GpuKeySet(GpuKeySet&&) noexcept = default;
GpuKeySet& GpuKeySet::operator=(GpuKeySet&&) noexcept = default;

uint64_t GpuKeySet::test_and_insert(const Key84* keys, uint64_t n, uint8_t* answers) {
  struct Insert final : PassWork {
    Impl& set;
    uint64_t fresh = 0;
    bool began = false;  // a pass reached the table
    explicit Insert(Impl& s) : set(s) {}
    void launch(const Key84* k, uint64_t m, uint8_t* a) override {
      began = true;
      set.launch_pass(k, m, a);
    }
    void settle(const Key84* k, uint64_t m, uint8_t* a) override {
      fresh += set.settle_pass(k, m, a);
    }
  } insert(*impl_);
  try {
    impl_->in_passes(keys, n, answers, insert);
  } catch (const std::exception& e) {
    if (insert.began) impl_->failure = e.what();
    throw;
  }
  return insert.fresh;
}

void GpuKeySet::contains(const Key84* keys, uint64_t n, uint8_t* answers) const {
  struct Contains final : PassWork {
    Impl& set;
    explicit Contains(Impl& s) : set(s) {}
    void launch(const Key84* k, uint64_t m, uint8_t* a) override {
      cuda::launch_set_contains(set.table.ref(), k, m, a, set.shape, set.work.get());
    }
    void settle(const Key84*, uint64_t, uint8_t*) override {}
  } contains(*impl_);
  impl_->in_passes(keys, n, answers, contains);
}

uint64_t GpuKeySet::size() const { return impl_->size; }
uint64_t GpuKeySet::bytes() const { return table_bytes(impl_->table.log2_slots); }
double GpuKeySet::load() const {
  return static_cast<double>(impl_->size) /
         static_cast<double>(uint64_t{1} << impl_->table.log2_slots);
}
uint64_t GpuKeySet::growths() const { return impl_->growths; }

void GpuKeySet::for_each_key(const std::function<void(const Key84*, size_t)>& f) const {
  impl_->check_usable();
  GDEDUP_CUDA_CHECK(cudaSetDevice(impl_->device));
  const Table& table = impl_->table;
  const uint32_t log2 = table.log2_slots;
  const uint64_t slots = uint64_t{1} << log2;
  std::vector<uint64_t> words(std::min(slots, kReadBackSlots));
  std::vector<Key84> keys;
  for (uint64_t begin = 0; begin < slots; begin += words.size()) {
    GDEDUP_CUDA_CHECK(cudaMemcpy(words.data(), table.words.get() + begin,
                                 words.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    keys.clear();
    for (uint64_t s = 0; s < words.size(); ++s) {
      if (words[s] == 0) continue;
      const Key84 value = kernels::slot_value(words[s], begin + s, log2);
      keys.push_back(kernels::unsalted(value, table.salt));
    }
    if (!keys.empty()) f(keys.data(), keys.size());
  }
}

}  // namespace gdedup
