// An exact set as the driver's target: 84-bit keys, checkpoints in the set
// checkpoint format (gdedup/set_file.h). One target for a KeySet and a
// GpuKeySet, which answer alike; a checkpoint takes a host copy of either.
#include <memory>
#include <type_traits>
#include <utility>

#include "gdedup/set_file.h"
#include "pipeline/resume_check.h"
#include "pipeline/run_target.h"

namespace gdedup::pipeline {
namespace {

// What a checkpoint writes in the background: a copy of the set on the host.
KeySet host_copy(const KeySet& set) { return set.clone(); }
KeySet host_copy(const GpuKeySet& set) { return key_set_of(set); }

template <class Set>
class SetTarget final : public RunTarget {
 public:
  SetTarget(Set& set, const KeyRules& rules) : set_(set), rules_(rules) {}

  KeyHashing hashing() const override { return KeyHashing{rules_.seed, true}; }
  const Backend* memory() const override { return nullptr; }

  uint64_t test_and_set(WorkBatch& batch, uint64_t n) override {
    const uint64_t fresh = set_.test_and_insert(batch.keys.data(), n, batch.answers.data());
    answered_ = n;
    fresh_ = fresh;
    return fresh;
  }
  void contains(WorkBatch& batch, uint64_t n) override {
    set_.contains(batch.keys.data(), n, batch.answers.data());
  }

  // The job made the set from the checkpoint itself.
  void check_resume(const ResumeState& state, const PipelineOptions& options,
                    const std::vector<InputIdentity>& now) const override {
    check_resume_run(state, options, now);
  }

  // Room for the keys to come, taken once: as many new keys a record as in
  // the sample, for every record the estimate leaves. A device's set
  // doubles at the device's memory speed and takes no such room.
  void after_batch(const PipelineOptions& options, const PipelineStats& stats) override {
    if constexpr (std::is_same_v<Set, KeySet>) {
      if (options.expected_records == 0) return;
      const uint64_t rest =
          options.expected_records > stats.records ? options.expected_records - stats.records : 0;
      room_.after(set_, std::exchange(answered_, 0), std::exchange(fresh_, 0), rest);
    }
  }

  void checkpoint(CheckpointWriter& writer, ResumeState state) override {
    const uint64_t records = state.position.records;
    auto copy = std::make_shared<const KeySet>(host_copy(set_));
    writer.start_image([copy, rules = rules_, state = std::move(state)](const std::string& path) {
      save_set_checkpoint(*copy, rules, state, path);
    }, records);
  }

 private:
  Set& set_;
  KeyRules rules_;
  // The keys the last test_and_set answered and the new ones among them,
  // for room_.
  uint64_t answered_ = 0;
  uint64_t fresh_ = 0;
  RoomFromSample room_;
};

}  // namespace

std::unique_ptr<RunTarget> set_target(KeySet& set, const KeyRules& rules) {
  return std::make_unique<SetTarget<KeySet>>(set, rules);
}

std::unique_ptr<RunTarget> set_target(GpuKeySet& set, const KeyRules& rules) {
  return std::make_unique<SetTarget<GpuKeySet>>(set, rules);
}

}  // namespace gdedup::pipeline
