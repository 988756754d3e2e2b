// The CPU backend. With T threads, thread o owns the blocks b with
// floor(b * T / num_blocks) = o (owner_partition.h): every block has one
// owner, which probes the block's keys in input order, so test_and_set is
// sequential for any T with no locks and no atomics. A batch goes through
// three phases, all threads working in each:
//   1. partition: thread t splits its slice of the batch by owner, keeping
//      input order, and notes each key's owner;
//   2. probe: owner o runs the keys for its blocks, slice 0's first, then
//      slice 1's, ... (input order again), answering into arrays of its own;
//   3. scatter: thread t walks its slice and takes each key's answer from its
//      owner's array, writing the answers in input order.
// Every thread reads and writes only what its phase gives it, so no cache
// line bounces between cores on every key. contains needs no ownership: the
// keys are split in slices. The threads are the backend's own for its life
// (core/thread_pool.h): a call hands them work instead of starting them.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "cpu/kernels.h"
#include "core/owner_partition.h"
#include "core/thread_pool.h"
#include "gdedup/backend.h"
#include "gdedup/error.h"

namespace gdedup {
namespace {

constexpr unsigned kMaxThreads = 256;

uint64_t share_boundary(uint64_t total, unsigned part, unsigned parts) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * part / parts);
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(Filter& filter, const CpuOptions& options)
      : Backend(filter),
        filter_(filter),
        kernels_(options.kernel == CpuKernel::kScalar ? cpu::Arith::kScalar : cpu::Arith::kSimd,
                 options.simd_target),
        min_keys_per_thread_(std::max<uint64_t>(1, options.min_keys_per_thread)) {
    threads_ = options.threads != 0 ? options.threads
                                    : std::max(1u, std::thread::hardware_concurrency());
    // Owners are noted in a byte per key; past a few dozen threads memory
    // bandwidth, not thread count, bounds the filter anyway.
    threads_ = std::min(threads_, kMaxThreads);
  }

  std::string name() const override {
    return kernels_.arith() == cpu::Arith::kSimd ? "cpu (" + kernels_.target_name() + ")"
                                                 : "cpu (scalar)";
  }

  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) override {
    const unsigned parts = parts_for(count);
    pool_.run(parts, [&](unsigned t) {
      const uint64_t lo = share_boundary(count, t, parts);
      const uint64_t hi = share_boundary(count, t + 1, parts);
      kernels_.contains_run({filter_.ref(), fingerprints + lo, hi - lo, present + lo});
    }, nullptr);
  }

  void sync_to_host() override {}

 protected:
  void add_keys(const uint64_t* fingerprints, uint64_t count) override {
    run_owned(fingerprints, count, nullptr);
  }

  uint64_t test_and_set_keys(const uint64_t* fingerprints, uint64_t count,
                             uint8_t* was_present) override {
    return run_owned(fingerprints, count, was_present);
  }

 private:
  unsigned parts_for(uint64_t count) const {
    const uint64_t useful = std::max<uint64_t>(1, count / min_keys_per_thread_);
    return static_cast<unsigned>(std::min<uint64_t>(threads_, useful));
  }

  uint64_t run_owned(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present) {
    const FilterRef f = filter_.ref();
    const unsigned parts = parts_for(count);
    if (parts == 1) return kernels_.test_and_set_run({f, fingerprints, count, was_present});
    // Over the blocks held (all, or a part's), so that each thread gets its
    // share of the keys.
    const detail::BlockOwners owners(f.num_blocks, parts, f.first_block, f.held_blocks);
    buckets_.resize(parts);
    owner_of_key_.resize(was_present != nullptr ? count : 0);
    std::vector<uint64_t> fresh(parts, 0);
    detail::Barrier barrier(parts);
    pool_.run(parts, [&](unsigned t) {
      const uint64_t lo = share_boundary(count, t, parts);
      const uint64_t hi = share_boundary(count, t + 1, parts);
      detail::partition_by_owner(owners, fingerprints, lo, hi, buckets_[t],
                                 was_present != nullptr ? owner_of_key_.data() : nullptr);
      barrier.arrive_and_wait();
      for (unsigned s = 0; s < parts; ++s) {
        detail::OwnerBucket& b = buckets_[s][t];
        b.answers.resize(was_present != nullptr ? b.fingerprints.size() : 0);
        fresh[t] += kernels_.test_and_set_run(
            {f, b.fingerprints.data(), b.fingerprints.size(),
             was_present != nullptr ? b.answers.data() : nullptr});
      }
      if (was_present == nullptr) return;
      barrier.arrive_and_wait();
      detail::scatter_answers(buckets_[t], owner_of_key_.data(), lo, hi, was_present);
    }, &barrier);
    uint64_t total = 0;
    for (uint64_t f : fresh) total += f;
    return total;
  }

  Filter& filter_;
  cpu::Kernels kernels_;
  unsigned threads_;
  uint64_t min_keys_per_thread_;
  // buckets_[slice][owner], reused across batches.
  std::vector<std::vector<detail::OwnerBucket>> buckets_;
  std::vector<detail::OwnerIndex> owner_of_key_;  // for the batch in progress
  detail::ThreadPool pool_{"the CPU backend"};  // the threads of every call, started once
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(Filter& filter, const CpuOptions& options) {
  return std::make_unique<CpuBackend>(filter, options);
}

std::string cpu_simd_target() {
  return cpu::best_simd_target_name();
}

}  // namespace gdedup
