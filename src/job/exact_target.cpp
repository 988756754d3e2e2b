// The target of a job in exact mode (gdedup/job_target.h): the keys seen
// kept in a KeySet, new, from a set file or from a checkpoint, held on the
// backend the registry chooses for sets (on a GPU it moves to the device
// for the run and comes back for the file).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/gpu.h"
#include "gdedup/key_set.h"
#include "gdedup/live_set.h"
#include "gdedup/set_file.h"
#include "job/job_checks.h"
#include "job/open_target.h"
#include "job/sizing.h"
#include "job/thread_split.h"

namespace gdedup::job {
namespace {

std::string set_text(const KeySet& set, const std::string& path) {
  return "set " + path + ": " + group_digits(set.size()) + " keys in " + human_bytes(set.bytes());
}

// Whether the set file at `path` holds exactly `set` and `rules`: the
// job's own save before it was stopped.
bool file_holds(const std::string& path, const KeySet& set, const KeyRules& rules) {
  const SetFile file = load_set_file(path);
  if (file.rules != rules || file.set.size() != set.size()) return false;
  bool same = true;
  std::vector<uint8_t> found;
  file.set.for_each_sorted([&](const Key84* keys, size_t n) {
    if (!same) return;
    found.resize(n);
    set.contains(keys, n, found.data());
    for (const uint8_t f : found) same = same && f != 0;
  });
  return same;
}

class SetTarget final : public JobTarget {
 public:
  // `set` as opened (within the cap), moved to the GPU when the registry
  // chooses it for sets.
  SetTarget(const Job& job, TargetFile file, KeySet set, std::optional<ResumeState> resume,
            const KeySetOptions& options)
      : job_(job), file_(std::move(file)), options_(options), set_(std::move(set)),
        resume_(std::move(resume)) {
    const JobSpec& o = job.spec;
    check_set_cap(job, set_.bytes(), "the set");
    BackendOptions backend;
    backend.device = o.device;
    if (choose_set_backend(o.backend, backend) == "gpu") {
      // The host copy is dropped while the set is on the device.
      gpu_.emplace(gpu_key_set_of(set_, o.sizing.capacity.value_or(0),
                                  GpuKeySetOptions{o.device, o.max_memory}));
      set_ = KeySet(0, options_);
      description_ = "gpu exact set (" + gpu_device_info(o.device).name + ", device " +
                     std::to_string(o.device) + ")";
    } else {
      description_ = "cpu exact set (" + std::to_string(options_.threads) +
                     (options_.threads == 1 ? " thread)" : " threads)");
    }
  }

  const std::string& description() const override { return description_; }
  const ResumeState* resume_state() const override { return resume_ ? &*resume_ : nullptr; }
  size_t growing_layers() const override { return 0; }

  void prepare_run(PipelineOptions& options) override {
    if (!gpu_) options.expected_records = expected_records_for_set(job_);
  }

  PipelineStats run(const PipelineOptions& options) override {
    return gpu_ ? run_pipeline(options, *gpu_, file_.rules)
                : run_pipeline(options, set_, file_.rules);
  }

  TargetEnd end_run(uint64_t) override {
    // Back from the device for the file.
    if (gpu_) set_ = key_set_of(*gpu_, options_);
    if (file_.check == FilterFileCheck::kCompareAtEnd) {
      require_own_file(job_, [&] { return file_holds(job_.spec.filter_path, set_, file_.rules); });
    }
    TargetEnd end;
    end.file_existed = file_.existed;
    return end;
  }

  void report(JobResult& result) const override {
    result.set = SetSummary{set_.size(), set_.bytes(), set_.load(),
                            KeySet::collision_chance(set_.size())};
    result.backend = description_;
  }

  void save() override { save_set_file(set_, file_.rules, job_.spec.filter_path); }

 private:
  const Job& job_;
  TargetFile file_;
  KeySetOptions options_;
  KeySet set_;
  std::optional<GpuKeySet> gpu_;
  std::optional<ResumeState> resume_;
  std::string description_;
};

}  // namespace

std::unique_ptr<JobTarget> open_set_target(const Job& j, Opening how, TargetFile file) {
  const JobSpec& o = j.spec;
  const KeySetOptions options{job_threads(o, false).filter, o.max_memory};
  const std::string cap_given = j.given(JobOption::kMaxMemory);
  if (how == Opening::kResume) {
    require_checkpoint(j);
    check_set_file_cap(o.checkpoint.path, true, o.max_memory, cap_given);
    SetCheckpoint ck = load_set_checkpoint(o.checkpoint.path, options);
    file.check = check_resume_files(j, ck.state, o.saves_filter(), true);
    file.rules = ck.rules;
    j.events.info("resuming from checkpoint " + o.checkpoint.path + " at record " +
                  group_digits(ck.state.records) + "; " + set_text(ck.set, o.checkpoint.path));
    return std::make_unique<SetTarget>(j, std::move(file), std::move(ck.set),
                                       std::move(ck.state), options);
  }
  if (how == Opening::kFile) {
    check_set_file_cap(o.filter_path, false, o.max_memory, cap_given);
    SetFile saved = load_set_file(o.filter_path, options);
    FilterRules rules;
    rules.keys = saved.rules;
    check_key_rules(j, rules, kFilterFileVersion, file.rules);
    file.rules = saved.rules;
    j.events.info(set_text(saved.set, o.filter_path));
    return std::make_unique<SetTarget>(j, std::move(file), std::move(saved.set), std::nullopt,
                                       options);
  }
  // A capacity sizes the set from the start; without one it starts small
  // and doubles as keys come. Either within the cap, checked before the set
  // is made.
  KeySet set = new_key_set(o.sizing.capacity.value_or(0), options, j.events);
  return std::make_unique<SetTarget>(j, std::move(file), std::move(set), std::nullopt, options);
}

}  // namespace gdedup::job
