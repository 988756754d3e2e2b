// The Bloom filter's rounds (docs/SCALE-OUT.md): each fingerprint goes to the
// rank that holds its block of the newest layer.
#include <algorithm>
#include <vector>

#include "gdedup/frontend/mpi.h"
#include "mpi/agreement.h"
#include "mpi/check.h"
#include "mpi/key_exchange.h"
#include "mpi/rank_target.h"
#include "mpi/sharding.h"

namespace gdedup::mpi {
namespace {

class FilterTarget final : public RankTarget {
 public:
  FilterTarget(ShardedFilter& filter, const BackendMaker& make_backend)
      : filter_(filter), make_backend_(make_backend), exchange_(filter.owners()) {}

  pipeline::KeyHashing hashing() const override {
    return pipeline::KeyHashing{filter_.params().seed, false};
  }
  void check_resume(const ResumeState& state) const override {
    check_checkpoint_params(state.params, filter_.params());
  }
  void agree() override {
    // Each rank planned the filter and will cut the inputs from what it
    // found of them: the rounds need the same plans everywhere.
    check_same_filter(filter_);
    // The backends count the keys new to this rank's blocks in its parts'
    // counters, which the filter's counters() sums. A rank whose backend
    // cannot run (no GPU of its number) stops the job before any output.
    check_together([&] { filter_.use_backends(make_backend_); });
  }

  // A growing filter takes the round's keys in spans that no growth check
  // cuts (ShardedFilter::next_span): a layer added between two spans
  // changes the owners of the keys after it, as in one process it changes
  // where they go.
  uint64_t apply_round(const PieceRecords& records, uint64_t count, bool answered,
                       uint8_t* answers, const std::vector<unsigned>& order,
                       const std::vector<uint64_t>& counts, bool query) override {
    query_ = query;
    const uint64_t* keys = records.fingerprints.data();
    if (!filter_.growth() || query) {
      return exchange_.run(keys, count, answered, answers, order, apply_);
    }
    uint64_t total = 0;
    uint64_t mine = 0;  // the round's keys before this rank's
    for (unsigned r : order) {
      if (r == rank_info().rank) mine = total;
      total += counts[r];
    }
    auto local = [&](uint64_t at) { return std::min(count, at > mine ? at - mine : 0); };
    uint64_t fresh = 0;
    for (uint64_t at = 0; at < total;) {
      const uint64_t span = std::min(total - at, filter_.next_span());
      exchange_.set_owners(filter_.owners());
      const uint64_t lo = local(at);
      const uint64_t hi = local(at + span);
      fresh += exchange_.run(keys + lo, hi - lo, answered, answers + lo, order, apply_);
      filter_.offered(span);
      at += span;
    }
    return fresh;
  }

  void sync_to_host() override { filter_.sync_to_host(); }
  void save_checkpoint(const ResumeState& state, const std::string& path) override {
    filter_.save_checkpoint(state, path);
  }

 private:
  ShardedFilter& filter_;
  const BackendMaker& make_backend_;
  KeyExchange exchange_;
  bool query_ = false;  // the round's
  const KeyExchange::Apply apply_ = [this](const uint64_t* keys, uint64_t n, uint8_t* answers) {
    if (query_) {
      filter_.contains(keys, n, answers);
      return uint64_t{0};
    }
    return filter_.test_and_set(keys, n, answers);
  };
};

}  // namespace

PipelineStats run_sharded_pipeline(const PipelineOptions& options, ShardedFilter& filter,
                                   const BackendMaker& make_backend) {
  FilterTarget target(filter, make_backend);
  return run_rounds(options, target);
}

}  // namespace gdedup::mpi
