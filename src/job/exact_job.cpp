#include "job/exact_job.h"

#include <optional>
#include <string>
#include <utility>

#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/gpu.h"
#include "gdedup/job_files.h"
#include "gdedup/key_set.h"
#include "gdedup/number_text.h"
#include "gdedup/set_file.h"
#include "job/checkpoint_job.h"
#include "job/job_checks.h"
#include "job/job_steps.h"
#include "job/sizing.h"
#include "job/thread_split.h"

namespace gdedup::job {
namespace {

std::string set_text(const KeySet& set, const std::string& path) {
  return "set " + path + ": " + group_digits(set.size()) + " keys in " + human_bytes(set.bytes());
}

// Whether the set file at filter_path holds exactly `set` and `rules`: the
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

// Whether the set lives on the GPU: asked for by name, or the registry's
// choice for auto (its first available entry of the two that hold sets,
// the GPU before the CPU). A GPU asked for but unusable fails when the set
// is made, with the reason (kind no_device).
bool set_on_gpu(const JobSpec& o) {
  if (o.backend != "auto") return o.backend == "gpu";
  BackendOptions options;
  options.device = o.device;
  for (const BackendEntry& e : backend_registry()) {
    if ((e.name == "gpu" || e.name == "cpu") && e.available(options, nullptr)) {
      return e.name == "gpu";
    }
  }
  return false;
}

}  // namespace

void refuse_for_exact(const Job& job) {
  const JobSpec& o = job.spec;
  const std::string exact = job.name(JobOption::kExact);
  auto refuse = [&](JobOption option, const std::string& why) {
    throw UsageError(job.given(option) + " has no effect with " + exact + ": " + why +
                     "; drop " + job.name(option));
  };
  const std::string no_rate = "an exact set drops no key for a false positive, so it has no "
                              "rate to plan for and no size to fix; it grows as keys come (" +
                              job.name(JobOption::kMaxMemory) + " caps it)";
  if (o.sizing.fpr) refuse(JobOption::kFpr, no_rate);
  if (o.sizing.memory) refuse(JobOption::kMemory, no_rate);
  if (o.sizing.block_bits != 0) refuse(JobOption::kBlockBits, no_rate);
  if (o.sizing.allow_high_fpr) refuse(JobOption::kAllowHighFpr, no_rate);
  if (o.no_grow) {
    refuse(JobOption::kNoGrow, "an exact set must grow to hold every key; " +
                                   job.name(JobOption::kMaxMemory) + " caps it");
  }
  if (o.format == InputFormat::kU64) {
    throw UsageError(job.given(JobOption::kInputFormat) + " cannot be used with " + exact +
                     ": its records are 64-bit fingerprints, and an exact set keeps 84 bits "
                     "of each key's 128-bit hash; give the keys as text");
  }
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "gpu") {
    throw UsageError(job.given(JobOption::kBackend) + " cannot run " + exact + ": exact "
                     "mode runs on the CPU or a GPU; drop " + job.name(JobOption::kBackend) +
                     " or give cpu or gpu");
  }
}

void check_set_cap(const Job& job, uint64_t bytes, const std::string& what) {
  gdedup::check_set_cap(bytes, job.spec.max_memory, what, job.given(JobOption::kMaxMemory));
}

JobResult run_exact_job(Job& j) {
  const JobSpec& o = j.spec;
  JobEvents& events = j.events;
  // Everything the spec asks is checked before anything is read or created.
  refuse_ignored_options(j);
  refuse_for_exact(j);
  const uint64_t skipped = resolve_and_check_inputs(j);
  check_files(j);
  const FileLocks locks = lock_files(j);
  refuse_existing_checkpoint(j);

  const bool file_existed = !o.filter_path.empty() && file_exists(o.filter_path);
  const KeyRules key_rules = job_key_rules(o);
  KeyRules saved_rules = key_rules;  // what the set's keys are made by
  const ThreadSplit threads = split_threads(o.threads, o.filter_threads);
  const KeySetOptions set_options{threads.filter, o.max_memory};
  FilterFileCheck file_check = FilterFileCheck::kUnchanged;
  std::optional<ResumeState> resume;
  KeySet set = [&]() -> KeySet {
    if (o.checkpoint.resume) {
      require_checkpoint(j);
      check_set_file_cap(o.checkpoint.path, true, o.max_memory, j.given(JobOption::kMaxMemory));
      SetCheckpoint ck = load_set_checkpoint(o.checkpoint.path, set_options);
      file_check = check_resume_files(j, ck.state, o.saves_filter(), true);
      saved_rules = ck.rules;
      resume = std::move(ck.state);
      events.info("resuming from checkpoint " + o.checkpoint.path + " at record " +
                  group_digits(resume->records) + "; " + set_text(ck.set, o.checkpoint.path));
      return std::move(ck.set);
    }
    if (o.kind == JobKind::kQuery || file_existed) {
      check_set_file_cap(o.filter_path, false, o.max_memory, j.given(JobOption::kMaxMemory));
      SetFile file = load_set_file(o.filter_path, set_options);
      FilterRules rules;
      rules.keys = file.rules;
      check_key_rules(j, rules, kFilterFileVersion, key_rules);
      saved_rules = file.rules;
      events.info(set_text(file.set, o.filter_path));
      return std::move(file.set);
    }
    // A capacity sizes the set from the start; without one it starts
    // small and doubles as keys come. Either within --max-memory, checked
    // before the set is made.
    return KeySet::sized(o.sizing.capacity.value_or(0), set_options,
                         KeySetSizeNames{j.given(JobOption::kCapacity),
                                         j.name(JobOption::kCapacity),
                                         j.given(JobOption::kMaxMemory),
                                         j.name(JobOption::kMaxMemory)});
  }();
  check_set_cap(j, set.bytes(), "the set");
  // On a GPU the set moves to the device for the run and comes back for
  // the file; the host copy is dropped meanwhile.
  std::optional<GpuKeySet> gpu;
  std::string backend = "cpu exact set (" + std::to_string(threads.filter) +
                        (threads.filter == 1 ? " thread)" : " threads)");
  if (set_on_gpu(o)) {
    gpu.emplace(gpu_key_set_of(set, o.sizing.capacity.value_or(0),
                               GpuKeySetOptions{o.device, o.max_memory}));
    set = KeySet(0, set_options);
    backend = "gpu exact set (" + gpu_device_info(o.device).name + ", device " +
              std::to_string(o.device) + ")";
  }
  events.info("backend " + backend);

  PipelineOptions run = pipeline_options(j);
  run.read_threads = threads.read;
  run.resume = resume ? &*resume : nullptr;
  if (!gpu) run.expected_records = expected_records_for_set(j);
  run.stop = o.checkpoint.enabled() ? events.stop() : nullptr;
  bool began = false;  // a batch went through: the files may have changed
  run.on_progress = [&events, &began](const Progress& p) {
    began = true;
    events.progress(p, 0);
  };
  JobResult result = start_result(j, skipped, run.resume);
  if (!run_stream(j, result, run.resume != nullptr, began, [&] {
        return gpu ? run_pipeline(run, *gpu, saved_rules) : run_pipeline(run, set, saved_rules);
      })) {
    return result;
  }
  // Back from the device for the file (the output is in place: a failure
  // from here on says so, job/publication.h).
  if (gpu) set = key_set_of(*gpu, set_options);
  if (file_check == FilterFileCheck::kCompareAtEnd) {
    require_own_file(j, [&] { return file_holds(o.filter_path, set, saved_rules); });
  }
  JobEnding ending;
  ending.filter_existed = file_existed;
  ending.save = [&] { save_set_file(set, saved_rules, o.filter_path); };
  result.set = SetSummary{set.size(), set.bytes(), set.load(),
                          KeySet::collision_chance(set.size())};
  result.backend = backend;
  finish_job(j, ending, result);
  return result;
}

}  // namespace gdedup::job
