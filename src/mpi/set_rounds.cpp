// The exact set's rounds (docs/SCALE-OUT.md, "Exact mode"): each 84-bit key
// goes to the rank that owns its range of key values (mpi/key_ranges.h);
// checkpoints are one process's set checkpoints, written from the ranks.
#include <exception>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"
#include "mpi/check.h"
#include "mpi/key_exchange.h"
#include "mpi/rank_target.h"

namespace gdedup::mpi {
namespace {

class SetTarget final : public RankTarget {
 public:
  SetTarget(ShardedSet& set, const KeyRules& rules)
      : set_(set), rules_(rules), exchange_(KeyRanges(rank_info().ranks)) {}

  pipeline::KeyHashing hashing() const override { return pipeline::KeyHashing{rules_.seed, true}; }
  // The job made the set from the checkpoint itself
  // (ShardedSet::load_checkpoint), which holds no filter's parameters.
  void check_resume(const ResumeState&) const override {}
  // The ranges follow from the number of ranks alone.
  void agree() override {}

  // A rank whose part would grow past its cap (KeySetOptions::max_bytes)
  // answers nothing more this round; after the round every rank learns of
  // it, and the lowest such rank's error ends the job on all.
  uint64_t apply_round(const PieceRecords& records, uint64_t count, bool answered,
                       uint8_t* answers, const std::vector<unsigned>& order,
                       const std::vector<uint64_t>&, bool query) override {
    std::exception_ptr full;
    const SetKeyExchange::Apply apply = [&](const Key84* keys, uint64_t n, uint8_t* found) {
      if (full) return uint64_t{0};
      try {
        if (query) {
          set_.contains(keys, n, found);
          return uint64_t{0};
        }
        return set_.test_and_insert(keys, n, found);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::set_full) throw;
        full = std::current_exception();
        return uint64_t{0};
      }
    };
    const uint64_t fresh =
        exchange_.run(records.keys.data(), count, answered, answers, order, apply);
    bool everywhere = false;
    const int first = first_failure(full != nullptr, everywhere);
    if (first >= 0) {
      JobFailed failed;
      failed.rank = first;
      if (first == static_cast<int>(rank_info().rank)) failed.failure = full;
      throw failed;
    }
    return fresh;
  }

  void sync_to_host() override {}
  void save_checkpoint(const ResumeState& state, const std::string& path) override {
    set_.save_checkpoint(state, rules_, path);
  }

 private:
  ShardedSet& set_;
  KeyRules rules_;
  SetKeyExchange exchange_;
};

}  // namespace

PipelineStats run_sharded_pipeline(const PipelineOptions& options, ShardedSet& set,
                                   const KeyRules& rules) {
  SetTarget target(set, rules);
  return run_rounds(options, target);
}

}  // namespace gdedup::mpi
