// The CUDA backend's host side. The filter lives in one cudaMalloc
// allocation for the backend's lifetime. A call is cut into batches that go
// round kSlots slots, each with its own stream, device buffers and pinned
// staging, so that copy-in of batch c+1, the kernel of batch c and copy-back
// of batch c-1 overlap. test_and_set batches are chained across streams by
// one event: the kernels of batch c+1 that touch the filter wait for those of
// batch c, whose bits they must see, while its grouping may overlap them;
// add and contains kernels may overlap, being order-free or read-only.
// The slots (about 1.1 GB at 2^24 keys: gpu.h) are shared by the backends on a
// device that ask for the same batch size, such as the layers of a growing
// filter, which took a set each before; their calls take turns.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/batch_plan.h"
#include "cuda/device_memory.h"
#include "cuda_check.h"
#include "filter_kernels.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"
#include "gdedup/layout.h"

namespace gdedup {
namespace {

using cuda::DeviceArray;
using cuda::Event;
using cuda::LaunchShape;
using cuda::OutOfDeviceMemory;
using cuda::PinnedArray;
using cuda::Space;
using cuda::Stream;
using cuda::free_device_bytes;
using cuda::free_pinned;
using cuda::space_of;
using cuda::try_pinned;
using cuda::use_device;

// Three slots: one copying in, one computing, one copying back.
constexpr size_t kSlots = 3;
// A slot's count of new keys, and a byte for each empty buffer.
constexpr uint64_t kSmallChangeBytes = 64;

// Device bytes one slot takes for a batch of `keys`: fingerprints 8 and
// answers 1 a key, test_and_set's workspace (one chunk's), and small change.
uint64_t slot_device_bytes(uint64_t keys) {
  return std::max<uint64_t>(keys, 1) * (8 + 1) + cuda::test_and_set_workspace_bytes(keys) +
         kSmallChangeBytes;
}

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

struct Slot {
  explicit Slot(uint64_t capacity)
      : keys_capacity(capacity),
        keys(capacity),
        answers(capacity),
        fresh(1),
        fresh_host(1) {
    // test_and_set works chunk by chunk: its buffers hold one chunk.
    const uint64_t chunk = cuda::test_and_set_workspace_keys(capacity);
    for (int i = 0; i < 2; ++i) {
      blocks[i] = DeviceArray<uint64_t>(chunk);
      positions[i] = DeviceArray<uint32_t>(chunk);
    }
    before = DeviceArray<unsigned char>(chunk * cuda::kMaskBytesPerKey);
    scratch_bytes = cuda::test_and_set_scratch_bytes(chunk);
    scratch = DeviceArray<unsigned char>(scratch_bytes);
    table_log2 = cuda::test_and_set_table_log2(chunk);
    table = DeviceArray<uint64_t>(uint64_t{1} << table_log2);
    flags = DeviceArray<uint32_t>(2);
    sort_count = DeviceArray<uint32_t>(1);
    host_words = PinnedArray<uint32_t>(2);
  }

  cuda::TestAndSetWorkspace workspace() const {
    return cuda::TestAndSetWorkspace{{blocks[0].get(), blocks[1].get()},
                                     {positions[0].get(), positions[1].get()},
                                     before.get(),
                                     scratch.get(),
                                     scratch_bytes,
                                     cuda::test_and_set_workspace_keys(keys_capacity),
                                     table.get(),
                                     table_log2,
                                     flags.get(),
                                     sort_count.get(),
                                     host_words.get()};
  }

  uint64_t keys_capacity;
  Stream stream;
  Event done;
  DeviceArray<uint64_t> keys;
  DeviceArray<uint8_t> answers;
  DeviceArray<uint64_t> blocks[2];
  DeviceArray<uint32_t> positions[2];
  DeviceArray<unsigned char> before;
  DeviceArray<unsigned char> scratch;
  uint32_t table_log2 = 0;
  DeviceArray<uint64_t> table;
  DeviceArray<uint32_t> flags;
  DeviceArray<uint32_t> sort_count;
  PinnedArray<uint32_t> host_words;
  size_t scratch_bytes = 0;
  DeviceArray<unsigned long long> fresh;
  PinnedArray<unsigned long long> fresh_host;
  cuda::PinnedStaging<uint64_t> staging;

  // The batch in flight, if any.
  bool busy = false;
  uint64_t count = 0;
  uint8_t* copy_answers_to = nullptr;  // pageable destination of staging.answers()
  bool counts_fresh = false;
};

// The slots of the backends on one device that share a batch size. `mutex`
// is held for the whole of a call that uses them.
struct BatchBuffers {
  BatchBuffers(int device_number, uint64_t batch_keys)
      : device(device_number), keys(batch_keys) {
    for (size_t i = 0; i < kSlots; ++i) slots.push_back(std::make_unique<Slot>(keys));
  }
  const int device;
  const uint64_t keys;
  std::mutex mutex;
  std::vector<std::unique_ptr<Slot>> slots;
};

// The live sets, by device and requested batch keys (0: automatic); a set
// is freed with the last backend that uses it.
class SharedBuffers {
 public:
  static SharedBuffers& get() {
    static SharedBuffers shared;
    return shared;
  }
  std::mutex& mutex() { return mutex_; }
  // The live set for (device, requested), or null. Call with mutex() held.
  std::shared_ptr<BatchBuffers> find(int device, uint64_t requested) {
    const auto found = sets_.find({device, requested});
    if (found == sets_.end()) return nullptr;
    std::shared_ptr<BatchBuffers> set = found->second.lock();
    if (set == nullptr) sets_.erase(found);
    return set;
  }
  // Call with mutex() held.
  void add(uint64_t requested, const std::shared_ptr<BatchBuffers>& set) {
    sets_[{set->device, requested}] = set;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<int, uint64_t>, std::weak_ptr<BatchBuffers>> sets_;
};

class CudaBackend final : public GpuBackend {
 public:
  CudaBackend(Filter& filter, const GpuOptions& options)
      // use_device runs first, before any member touches the runtime.
      : GpuBackend(filter), filter_(filter), device_(use_device(options.device)) {
    // A part of a filter (an MPI rank's blocks) is held as it is: only its
    // blocks go to the device, and the kernels address them by FilterRef.
    const uint64_t filter_bytes = filter.held_bytes();
    cudaDeviceProp props{};
    GDEDUP_CUDA_CHECK(cudaGetDeviceProperties(&props, device_));
    device_name_ = props.name;
    shape_ = cuda::launch_shape(device_);

    SharedBuffers& shared = SharedBuffers::get();
    const std::lock_guard<std::mutex> lock(shared.mutex());
    buffers_ = shared.find(device_, options.batch_keys);
    const uint64_t free_bytes = free_device_bytes();
    uint64_t batch = 0;
    if (buffers_ != nullptr) {
      cuda::check_filter_fits(filter_bytes, free_bytes);
    } else {
      batch = cuda::plan_batch_keys(filter_bytes, free_bytes, options.batch_keys, kSlots,
                                    cuda::kMaxBatchKeys, slot_device_bytes);
    }
    try {
      words_ = DeviceArray<uint32_t>(filter_bytes / sizeof(uint32_t));
      if (buffers_ == nullptr) {
        buffers_ = std::make_shared<BatchBuffers>(device_, batch);
        shared.add(options.batch_keys, buffers_);
      }
    } catch (const OutOfDeviceMemory&) {
      throw cuda::not_enough_memory(filter_bytes, batch == 0 ? 0 : kSlots * slot_device_bytes(batch),
                                    free_bytes);
    }
    // From pageable memory (the filter is mmap'd) cudaMemcpy may return
    // before the copy reaches the device, and the slots' non-blocking streams
    // do not wait for the legacy stream it runs on: wait for it here.
    GDEDUP_CUDA_CHECK(cudaMemcpy(words_.get(), filter.words(), filter_bytes,
                                 cudaMemcpyHostToDevice));
    GDEDUP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    ref_ = filter.ref();
    ref_.words = words_.get();
  }

  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  ~CudaBackend() override {
    cudaSetDevice(device_);
    const std::lock_guard<std::mutex> lock(buffers_->mutex);
    quiesce();
  }

  std::string name() const override {
    return "cuda (" + device_name_ + ", device " + std::to_string(device_) + ")";
  }

  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) override {
    run(Op::kContains, fingerprints, count, present);
  }

  void sync_to_host() override {
    // A read-only filter's bits (a mapped file) are never changed here
    // (Backend::add and test_and_set refuse it), so the device holds them as
    // they are.
    if (filter_.read_only()) return;
    GDEDUP_CUDA_CHECK(cudaSetDevice(device_));
    GDEDUP_CUDA_CHECK(cudaMemcpy(filter_.words(), words_.get(), filter_.held_bytes(),
                                 cudaMemcpyDeviceToHost));
  }

  uint64_t device_set_bits() override {
    GDEDUP_CUDA_CHECK(cudaSetDevice(device_));
    const std::lock_guard<std::mutex> lock(buffers_->mutex);
    Slot& s = *buffers_->slots.front();
    const cudaStream_t stream = s.stream.get();
    GDEDUP_CUDA_CHECK(cudaMemsetAsync(s.fresh.get(), 0, sizeof(unsigned long long), stream));
    cuda::launch_count_set_bits(ref_, s.fresh.get(), shape_, stream);
    GDEDUP_CUDA_CHECK(cudaMemcpyAsync(s.fresh_host.get(), s.fresh.get(),
                                      sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                      stream));
    GDEDUP_CUDA_CHECK(cudaStreamSynchronize(stream));
    return *s.fresh_host.get();
  }

  // Pinned memory, which the copies in run() use in place (Space::kPinned);
  // plain memory when none can be had.
  HostBuffer host_buffer(uint64_t bytes) const override {
    if (cudaSetDevice(device_) == cudaSuccess) {
      if (void* pinned = try_pinned(bytes)) return HostBuffer(pinned, bytes, true, free_pinned);
    }
    cudaGetLastError();
    return HostBuffer::plain(bytes);
  }

  uint64_t batch_keys() const override { return buffers_->keys; }

  uint32_t* device_words() override { return words_.get(); }

 protected:
  void add_keys(const uint64_t* fingerprints, uint64_t count) override {
    run(Op::kAdd, fingerprints, count, nullptr);
  }

  uint64_t test_and_set_keys(const uint64_t* fingerprints, uint64_t count,
                             uint8_t* was_present) override {
    return run(Op::kTestAndSet, fingerprints, count, was_present);
  }

 private:
  enum class Op { kAdd, kContains, kTestAndSet };

  // Waits for the slot's batch and hands its answers over; returns its new keys.
  uint64_t finish(Slot& s) {
    if (!s.busy) return 0;
    s.busy = false;
    GDEDUP_CUDA_CHECK(cudaEventSynchronize(s.done.get()));
    if (s.copy_answers_to != nullptr) {
      std::memcpy(s.copy_answers_to, s.staging.answers(), s.count);
    }
    return s.counts_fresh ? *s.fresh_host.get() : 0;
  }

  // Device buffers that the caller filled, or will read, with work on the
  // legacy stream, which the slots' non-blocking streams do not wait for:
  // every slot is ordered after that work. (Work on the caller's own
  // non-blocking streams must be finished before the call: gpu.h.)
  void order_after_legacy_stream() {
    GDEDUP_CUDA_CHECK(cudaEventRecord(legacy_done_.get(), nullptr));
    for (auto& s : buffers_->slots) {
      GDEDUP_CUDA_CHECK(cudaStreamWaitEvent(s->stream.get(), legacy_done_.get(), 0));
    }
  }

  // After a failure: lets every stream run dry so no buffer is still in use.
  void quiesce() noexcept {
    for (auto& s : buffers_->slots) {
      cudaStreamSynchronize(s->stream.get());
      s->busy = false;
    }
    cudaGetLastError();
  }

  // What a call is doing: the caller's buffers and where they live.
  struct Call {
    Op op;
    const uint64_t* fingerprints;
    uint64_t count;
    uint8_t* answers;
    Space in;
    Space out;
  };

  // Step 1 of batch `offset` in slot s: waits for the slot's previous batch
  // (adding its new keys to *fresh) and enqueues the copy of the keys in.
  // Returns where the kernels find them.
  const uint64_t* copy_in(const Call& call, Slot& s, uint64_t offset, uint64_t* fresh) {
    *fresh += finish(s);
    const uint64_t n = std::min(buffers_->keys, call.count - offset);
    const uint64_t* source = call.fingerprints + offset;
    if (call.in == Space::kDevice) return source;
    if (call.in == Space::kPageable && s.staging.ensure(s.keys_capacity)) {
      std::memcpy(s.staging.keys(), source, n * sizeof(uint64_t));
      source = s.staging.keys();
    }
    GDEDUP_CUDA_CHECK(cudaMemcpyAsync(s.keys.get(), source, n * sizeof(uint64_t),
                                      cudaMemcpyHostToDevice, s.stream.get()));
    return s.keys.get();
  }

  // Step 2: the kernels of the batch and the copy of its answers back.
  void compute(const Call& call, Slot& s, uint64_t offset, const uint64_t* device_keys) {
    const uint64_t n = std::min(buffers_->keys, call.count - offset);
    const cudaStream_t stream = s.stream.get();
    uint8_t* device_answers = call.answers != nullptr && call.out == Space::kDevice
                                  ? call.answers + offset
                                  : s.answers.get();
    switch (call.op) {
      case Op::kAdd:
        cuda::launch_add(ref_, device_keys, n, shape_, stream);
        break;
      case Op::kContains:
        cuda::launch_contains(ref_, device_keys, n, device_answers, shape_, stream);
        break;
      case Op::kTestAndSet:
        GDEDUP_CUDA_CHECK(cudaMemsetAsync(s.fresh.get(), 0, sizeof(unsigned long long), stream));
        cuda::launch_test_and_set(ref_, device_keys, n, device_answers, s.fresh.get(),
                                  s.workspace(), shape_, stream, chain_.get());
        GDEDUP_CUDA_CHECK(cudaMemcpyAsync(s.fresh_host.get(), s.fresh.get(),
                                          sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                          stream));
        break;
    }
    s.copy_answers_to = nullptr;
    if (call.op != Op::kAdd && call.answers != nullptr && call.out != Space::kDevice) {
      uint8_t* destination = call.answers + offset;
      if (call.out == Space::kPageable && s.staging.ensure(s.keys_capacity)) {
        s.copy_answers_to = destination;
        destination = s.staging.answers();
      }
      GDEDUP_CUDA_CHECK(
          cudaMemcpyAsync(destination, device_answers, n, cudaMemcpyDeviceToHost, stream));
    }
    s.count = n;
    s.counts_fresh = call.op == Op::kTestAndSet;
    GDEDUP_CUDA_CHECK(cudaEventRecord(s.done.get(), stream));
    s.busy = true;
  }

  // Batch c + 1's keys are on their way in before batch c's kernels are
  // enqueued: test_and_set's launcher waits on the host for the batch's end
  // (kernels/filter_kernels.h), and a copy enqueued after it would overlap
  // nothing.
  uint64_t run(Op op, const uint64_t* fingerprints, uint64_t count, uint8_t* answers) {
    if (count == 0) return 0;
    GDEDUP_CUDA_CHECK(cudaSetDevice(device_));
    const std::lock_guard<std::mutex> lock(buffers_->mutex);
    const std::vector<std::unique_ptr<Slot>>& slots = buffers_->slots;
    const uint64_t batch = buffers_->keys;
    const Call call{op,
                    fingerprints,
                    count,
                    answers,
                    space_of(fingerprints, device_),
                    answers != nullptr ? space_of(answers, device_) : Space::kDevice};
    uint64_t fresh = 0;
    size_t next = 0;
    try {
      if (call.in == Space::kDevice || call.out == Space::kDevice) order_after_legacy_stream();
      const uint64_t* keys_in = copy_in(call, *slots[0], 0, &fresh);
      for (uint64_t offset = 0; offset < count; offset += batch) {
        Slot& s = *slots[next];
        next = (next + 1) % slots.size();
        const uint64_t* keys = keys_in;
        if (offset + batch < count) keys_in = copy_in(call, *slots[next], offset + batch, &fresh);
        compute(call, s, offset, keys);
      }
      // Oldest first, so pageable answers land in order of the batches.
      for (size_t i = 0; i < slots.size(); ++i) fresh += finish(*slots[(next + i) % slots.size()]);
    } catch (...) {
      quiesce();
      throw;
    }
    return fresh;
  }

  Filter& filter_;
  int device_;
  std::string device_name_;
  LaunchShape shape_{};
  DeviceArray<uint32_t> words_;
  FilterRef ref_{};
  std::shared_ptr<BatchBuffers> buffers_;
  Event chain_;
  Event legacy_done_;
};

}  // namespace

bool gpu_available(std::string* why_not, int device) {
  auto refuse = [&](const std::string& why) {
    cudaGetLastError();
    if (why_not != nullptr) *why_not = why;
    return false;
  };
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (driver == 0) {
    return refuse("no NVIDIA driver was found (libcuda.so.1 could not be loaded), so the CUDA "
                  "backend cannot run");
  }
  const std::string older_driver =
      "the NVIDIA driver supports CUDA " + version_text(driver) +
      " but gdedup was built with the CUDA " + version_text(runtime) +
      " runtime; update the driver";
  if (driver / 1000 < runtime / 1000) return refuse(older_driver);
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    return refuse("no CUDA device is present");
  }
  if (status == cudaErrorInsufficientDriver) return refuse(older_driver);
  if (status != cudaSuccess) {
    return refuse(std::string("the CUDA runtime could not start: ") + cudaGetErrorString(status));
  }
  if (device < 0 || device >= count) {
    return refuse("there is no CUDA device " + std::to_string(device) + "; this machine has " +
                  std::to_string(count) + " (0 to " + std::to_string(count - 1) + ")");
  }
  const cudaError_t selected = cudaSetDevice(device);
  if (selected != cudaSuccess) {
    return refuse("CUDA device " + std::to_string(device) + " cannot be used: " +
                  cudaGetErrorString(selected));
  }
  const cudaError_t probe = cuda::probe_kernels();
  if (probe != cudaSuccess) {
    cudaDeviceProp props{};
    cudaGetDeviceProperties(&props, device);
    return refuse("gdedup's kernels cannot run on CUDA device " + std::to_string(device) + " (" +
                  props.name + ", compute capability " + std::to_string(props.major) + "." +
                  std::to_string(props.minor) + "): " + cudaGetErrorString(probe) +
                  "; rebuild with CMAKE_CUDA_ARCHITECTURES including " +
                  std::to_string(props.major) + std::to_string(props.minor));
  }
  return true;
}

GpuDeviceInfo gpu_device_info(int device) {
  use_device(device);
  cudaDeviceProp props{};
  GDEDUP_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  size_t free_bytes = 0, total_bytes = 0;
  GDEDUP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  GpuDeviceInfo info;
  info.name = props.name;
  info.compute_major = props.major;
  info.compute_minor = props.minor;
  info.multiprocessors = props.multiProcessorCount;
  info.total_bytes = total_bytes;
  info.free_bytes = free_bytes;
  return info;
}

void check_gpu_fits(uint64_t filter_bytes, const GpuOptions& options) {
  use_device(options.device);
  SharedBuffers& shared = SharedBuffers::get();
  const std::lock_guard<std::mutex> lock(shared.mutex());
  if (shared.find(options.device, options.batch_keys) != nullptr) {
    cuda::check_filter_fits(filter_bytes, free_device_bytes());
  } else {
    cuda::plan_batch_keys(filter_bytes, free_device_bytes(), options.batch_keys, kSlots,
                          cuda::kMaxBatchKeys, slot_device_bytes);
  }
}

uint64_t gpu_device_bytes(uint64_t filter_bytes, uint64_t batch_keys) {
  return filter_bytes + kSlots * slot_device_bytes(batch_keys);
}

std::unique_ptr<Backend> make_gpu_backend(Filter& filter, const GpuOptions& options) {
  return std::make_unique<CudaBackend>(filter, options);
}

}  // namespace gdedup
