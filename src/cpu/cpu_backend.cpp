// The CPU backend. With T threads, thread o owns the blocks b with
// floor(b * T / num_blocks) = o: every block has one owner, which probes the
// block's keys in input order, so test_and_set is sequential for any T with
// no locks and no atomics. A batch goes through three phases, all threads
// working in each:
//   1. partition: thread t splits its slice of the batch by owner, keeping
//      input order, and notes each key's owner;
//   2. probe: owner o runs the keys for its blocks, slice 0's first, then
//      slice 1's, ... (input order again), answering into arrays of its own;
//   3. scatter: thread t walks its slice and takes each key's answer from its
//      owner's array, writing the answers in input order.
// Every thread reads and writes only what its phase gives it, so no cache
// line bounces between cores on every key. contains needs no ownership: the
// keys are split in slices.
#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "cpu/kernels.h"
#include "gdedup/backend.h"
#include "gdedup/error.h"

namespace gdedup {
namespace {

constexpr unsigned kMaxThreads = 256;

cpu::Arith choose_arith(CpuKernel kernel) {
  if (kernel == CpuKernel::kAuto) {
    const char* env = std::getenv("GDEDUP_CPU_KERNEL");
    const std::string forced = env == nullptr ? "" : env;
    if (forced == "scalar") return cpu::Arith::kScalar;
    if (forced.empty() || forced == "simd") return cpu::Arith::kSimd;
    throw UsageError("GDEDUP_CPU_KERNEL=" + forced + " is not a CPU kernel; use scalar or simd");
  }
  return kernel == CpuKernel::kScalar ? cpu::Arith::kScalar : cpu::Arith::kSimd;
}

// Lets threads wait for each other between phases (std::barrier is C++20).
// abort() releases every waiter, now and later, with BarrierAborted: a part
// that failed must not leave the others waiting for it.
struct BarrierAborted {};

class Barrier {
 public:
  explicit Barrier(unsigned parties) : parties_(parties) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (aborted_) throw BarrierAborted{};
    const uint64_t generation = generation_;
    if (++arrived_ == parties_) {
      arrived_ = 0;
      ++generation_;
      all_here_.notify_all();
    } else {
      all_here_.wait(lock, [&] { return generation_ != generation || aborted_; });
      if (generation_ == generation) throw BarrierAborted{};
    }
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
    all_here_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_here_;
  unsigned parties_;
  unsigned arrived_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
};

// Runs fn(t) for t in [0, parts) on parts threads (the caller being one).
// No fn starts before every thread exists, and an exception in one part
// (std::bad_alloc under a memory limit) aborts `barrier` and is rethrown
// here once all have ended: the parts wait for each other at the barrier,
// so a thread the system refuses or a part that fails must not leave the
// others waiting, nor end the process from a worker thread.
template <class Fn>
void run_parallel(unsigned parts, Barrier* barrier, Fn fn) {
  std::mutex mutex;
  std::condition_variable opened;
  bool open = false;
  bool cancelled = false;
  std::exception_ptr failure;
  auto guarded = [&](unsigned t) {
    try {
      fn(t);
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
      }
      if (barrier != nullptr) barrier->abort();
    }
  };
  auto gated = [&](unsigned t) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      opened.wait(lock, [&] { return open; });
    }
    if (!cancelled) guarded(t);
  };
  auto open_gate = [&](bool cancel) {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cancelled = cancel;
    opened.notify_all();
  };
  std::vector<std::thread> workers;
  workers.reserve(parts - 1);
  try {
    for (unsigned t = 1; t < parts; ++t) workers.emplace_back(gated, t);
  } catch (const std::system_error& e) {
    open_gate(true);
    for (auto& w : workers) w.join();
    throw Error("cannot start the CPU backend's " + std::to_string(parts) +
                " threads: the system refused a thread (" + e.code().message() +
                "), for lack of memory (a limit such as ulimit -v) or over the process "
                "limit; give a smaller --threads or allow more memory.");
  }
  open_gate(false);
  guarded(0u);
  for (auto& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);
}

uint64_t share_boundary(uint64_t total, unsigned part, unsigned parts) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * part / parts);
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(Filter& filter, const CpuOptions& options)
      : filter_(filter),
        arith_(choose_arith(options.kernel)),
        min_keys_per_thread_(std::max<uint64_t>(1, options.min_keys_per_thread)) {
    cpu::apply_simd_target_override();
    threads_ = options.threads != 0 ? options.threads
                                    : std::max(1u, std::thread::hardware_concurrency());
    // Owners are noted in a byte per key; past a few dozen threads memory
    // bandwidth, not thread count, bounds the filter anyway.
    threads_ = std::min(threads_, kMaxThreads);
  }

  std::string name() const override {
    return arith_ == cpu::Arith::kSimd ? "cpu (" + cpu::simd_target_name() + ")" : "cpu (scalar)";
  }

  void add(const uint64_t* fingerprints, uint64_t count) override {
    run_owned(fingerprints, count, nullptr);
    filter_.counters().insertions += count;
  }

  uint64_t test_and_set(const uint64_t* fingerprints, uint64_t count,
                        uint8_t* was_present) override {
    const uint64_t fresh = run_owned(fingerprints, count, was_present);
    filter_.counters().insertions += fresh;
    return fresh;
  }

  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) override {
    const unsigned parts = parts_for(count);
    run_parallel(parts, nullptr, [&](unsigned t) {
      const uint64_t lo = share_boundary(count, t, parts);
      const uint64_t hi = share_boundary(count, t + 1, parts);
      cpu::contains_run({filter_.words(), filter_.params().geometry(), fingerprints + lo,
                         hi - lo, present + lo},
                        arith_);
    });
  }

  void sync_to_host() override {}

 private:
  // The keys of one slice bound for one owner, in input order.
  struct Bucket {
    std::vector<uint64_t> fingerprints;
    std::vector<uint8_t> answers;
  };

  unsigned parts_for(uint64_t count) const {
    const uint64_t useful = std::max<uint64_t>(1, count / min_keys_per_thread_);
    return static_cast<unsigned>(std::min<uint64_t>(threads_, useful));
  }

  uint64_t run_owned(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present) {
    const BlockGeometry g = filter_.params().geometry();
    const unsigned parts = parts_for(count);
    if (parts == 1) {
      return cpu::test_and_set_run({filter_.words(), g, fingerprints, count, was_present}, arith_);
    }
    buckets_.resize(parts);
    for (auto& row : buckets_) row.resize(parts);
    owners_.resize(was_present != nullptr ? count : 0);
    std::vector<uint64_t> fresh(parts, 0);
    Barrier barrier(parts);
    run_parallel(parts, &barrier, [&](unsigned t) {
      const uint64_t lo = share_boundary(count, t, parts);
      const uint64_t hi = share_boundary(count, t + 1, parts);
      partition(g, fingerprints, lo, hi, parts, buckets_[t], was_present != nullptr);
      barrier.arrive_and_wait();
      for (unsigned s = 0; s < parts; ++s) {
        Bucket& b = buckets_[s][t];
        b.answers.resize(was_present != nullptr ? b.fingerprints.size() : 0);
        fresh[t] += cpu::test_and_set_run(
            {filter_.words(), g, b.fingerprints.data(), b.fingerprints.size(),
             was_present != nullptr ? b.answers.data() : nullptr},
            arith_);
      }
      if (was_present == nullptr) return;
      barrier.arrive_and_wait();
      scatter(lo, hi, parts, buckets_[t], was_present);
    });
    uint64_t total = 0;
    for (uint64_t f : fresh) total += f;
    return total;
  }

  // Phase 1 for keys [lo, hi): each to its owner's bucket, in order.
  void partition(const BlockGeometry& g, const uint64_t* fingerprints, uint64_t lo, uint64_t hi,
                 unsigned parts, std::vector<Bucket>& row, bool note_owners) {
    for (Bucket& b : row) {
      b.fingerprints.clear();
      b.fingerprints.reserve((hi - lo) / parts + (hi - lo) / 16 + 16);
    }
    for (uint64_t i = lo; i < hi; ++i) {
      const uint64_t fp = fingerprints[i];
      const auto owner = static_cast<unsigned>(
          static_cast<unsigned __int128>(block_index(fp, g.num_blocks)) * parts / g.num_blocks);
      row[owner].fingerprints.push_back(fp);
      if (note_owners) owners_[i] = static_cast<uint8_t>(owner);
    }
  }

  // Phase 3 for keys [lo, hi): answers back into input order.
  void scatter(uint64_t lo, uint64_t hi, unsigned parts, const std::vector<Bucket>& row,
               uint8_t* was_present) const {
    std::vector<const uint8_t*> next(parts);
    for (unsigned o = 0; o < parts; ++o) next[o] = row[o].answers.data();
    for (uint64_t i = lo; i < hi; ++i) was_present[i] = *next[owners_[i]]++;
  }

  Filter& filter_;
  cpu::Arith arith_;
  unsigned threads_;
  uint64_t min_keys_per_thread_;
  // buckets_[slice][owner], reused across batches.
  std::vector<std::vector<Bucket>> buckets_;
  std::vector<uint8_t> owners_;  // owner of each key of the batch
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(Filter& filter, const CpuOptions& options) {
  return std::make_unique<CpuBackend>(filter, options);
}

std::string cpu_simd_target() {
  cpu::apply_simd_target_override();
  return cpu::simd_target_name();
}

}  // namespace gdedup
