// The CPU backend. With T threads, thread t owns the blocks
// [t * B / T, (t + 1) * B / T) and walks the whole batch, probing only the
// keys that fall in its blocks, in input order: every block sees its keys in
// input order, so test_and_set is sequential for any T, with no locks and no
// atomics. Each thread pays for reading all fingerprints and computing their
// block (about 1 ns a key) but probes only its share.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cpu/kernels.h"
#include "gdedup/backend.h"
#include "gdedup/error.h"

namespace gdedup {
namespace {

// Below this many keys a batch is not worth a thread start (~20 us).
constexpr uint64_t kMinKeysPerThread = 1 << 14;

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

// Runs fn(t) for t in [0, parts) on parts threads (the caller being one).
template <class Fn>
void run_parallel(unsigned parts, Fn fn) {
  std::vector<std::thread> workers;
  workers.reserve(parts - 1);
  for (unsigned t = 1; t < parts; ++t) workers.emplace_back(fn, t);
  fn(0u);
  for (auto& w : workers) w.join();
}

uint64_t share_boundary(uint64_t total, unsigned part, unsigned parts) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * part / parts);
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(Filter& filter, const CpuOptions& options)
      : filter_(filter), arith_(choose_arith(options.kernel)) {
    cpu::apply_simd_target_override();
    threads_ = options.threads != 0 ? options.threads
                                    : std::max(1u, std::thread::hardware_concurrency());
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
    run_parallel(parts, [&](unsigned t) {
      const uint64_t lo = share_boundary(count, t, parts);
      const uint64_t hi = share_boundary(count, t + 1, parts);
      cpu::contains_slice({filter_.words(), filter_.params().geometry(), fingerprints + lo,
                           hi - lo, present + lo},
                          arith_);
    });
  }

  void sync_to_host() override {}

 private:
  unsigned parts_for(uint64_t count) const {
    const uint64_t useful = std::max<uint64_t>(1, count / kMinKeysPerThread);
    return static_cast<unsigned>(std::min<uint64_t>(threads_, useful));
  }

  // With several threads the answers of neighbouring keys come from
  // different threads; writing them into one array would bounce its cache
  // lines between cores on every key. So thread 0 answers into `was_present`
  // and thread t > 0 into a plane of its own (zero where it owns nothing),
  // and the planes are OR-ed in afterwards.
  uint64_t run_owned(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present) {
    const BlockGeometry g = filter_.params().geometry();
    const unsigned parts = parts_for(count);
    if (was_present != nullptr && parts > 1) planes_.resize(parts - 1);
    std::vector<uint64_t> fresh(parts, 0);
    run_parallel(parts, [&](unsigned t) {
      uint8_t* answers = was_present;
      if (was_present != nullptr) {
        if (t > 0) {
          planes_[t - 1].resize(count);
          answers = planes_[t - 1].data();
        }
        if (parts > 1) std::memset(answers, 0, count);
      }
      fresh[t] = cpu::test_and_set_owned(
          {filter_.words(), g, fingerprints, count, answers,
           share_boundary(g.num_blocks, t, parts), share_boundary(g.num_blocks, t + 1, parts)},
          arith_);
    });
    if (was_present != nullptr && parts > 1) {
      run_parallel(parts, [&](unsigned t) {
        const uint64_t lo = share_boundary(count, t, parts);
        const uint64_t hi = share_boundary(count, t + 1, parts);
        for (const auto& plane : planes_) {
          for (uint64_t i = lo; i < hi; ++i) was_present[i] |= plane[i];
        }
      });
    }
    uint64_t total = 0;
    for (uint64_t f : fresh) total += f;
    return total;
  }

  Filter& filter_;
  cpu::Arith arith_;
  unsigned threads_;
  std::vector<std::vector<uint8_t>> planes_;
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
