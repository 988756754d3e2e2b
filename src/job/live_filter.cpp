#include "gdedup/live_filter.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "gdedup/error.h"
#include "gdedup/filter_merge.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/mapping_guard.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/planner.h"

namespace gdedup {

BackendMaker LiveFilter::backends() {
  // The maker outlives this filter's place (it moves): it keeps the first
  // layer's description in a string of its own. `auto` takes the GPU for a
  // layer only while it fits, and every backend gives the same bytes.
  return [choice = choice_, first = first_description_](Filter& layer) {
    MadeBackend made = choose_backend(choice.which, choice.options, layer, choice.given);
    if (first->empty()) *first = made.description;
    return std::move(made.backend);
  };
}

LiveFilter::LiveFilter(Filter filter, const BackendChoice& choice)
    : choice_(choice), fixed_(std::make_unique<Filter>(std::move(filter))) {
  // Chosen for the filter where it now lives: a backend works on it in place.
  fixed_backend_ = backends()(*fixed_);
  description_ = *first_description_;
}

LiveFilter::LiveFilter(const GrowthRule& rule, const BackendChoice& choice) : choice_(choice) {
  growing_ = std::make_unique<LayeredFilter>(rule, kDefaultSeed, backends());
  description_ = *first_description_;
}

LiveFilter::LiveFilter(Checkpoint start, const BackendChoice& choice)
    : choice_(choice), resume_(start.state) {
  if (start.state.growth) {
    growing_ = resume_growing_filter(start, backends());
  } else {
    fixed_ = std::make_unique<Filter>(std::move(start.filter));
    fixed_backend_ = backends()(*fixed_);
  }
  description_ = *first_description_;
}

namespace {

// [begin, end) of the bit arrays of `layers` that are mapped read-only
// (all of them or none), or {0, 0}: they lie in one mapping, in order.
std::pair<uintptr_t, uintptr_t> mapped_span(const std::vector<Filter>& layers) {
  uintptr_t begin = UINTPTR_MAX, end = 0;
  for (const Filter& layer : layers) {
    if (!layer.read_only()) continue;
    const auto at = reinterpret_cast<uintptr_t>(layer.words());
    begin = std::min(begin, at);
    end = std::max(end, at + layer.params().bytes());
  }
  return end == 0 ? std::pair<uintptr_t, uintptr_t>{0, 0} : std::pair{begin, end};
}

}  // namespace

LiveFilter::LiveFilter(FilterFile file, const BackendChoice& choice, const std::string& path)
    : choice_(choice) {
  if (const auto [begin, end] = mapped_span(file.layers); end != 0) {
    mapped_path_ = path;
    mapping_guard_ = std::make_unique<fs::MappingGuard>(reinterpret_cast<const void*>(begin),
                                                        end - begin);
    if (!mapping_guard_->taken()) {
      throw Error("cannot use the mapped filter file " + path + ": this process already maps " +
                      std::to_string(fs::MappingGuard::kSlots) +
                      " files, the most that are guarded against being cut short by another "
                      "program; load it without mmap, or release other mapped filters",
                  ErrorKind::io);
    }
  }
  if (file.rules.growth) {
    growing_ = std::make_unique<LayeredFilter>(*file.rules.growth, std::move(file.layers),
                                               file.rules.keys_offered, backends());
  } else {
    fixed_ = std::make_unique<Filter>(std::move(file.layers[0]));
    fixed_backend_ = backends()(*fixed_);
  }
  description_ = *first_description_;
  check_mapping();  // a device backend copied the bits
}

LiveFilter::~LiveFilter() = default;
LiveFilter::LiveFilter(LiveFilter&&) noexcept = default;

std::string LiveFilter::backend_name() const {
  return growing_ ? growing_->backend(0).name() : fixed_backend_->name();
}

void LiveFilter::set_max_bytes(uint64_t max_bytes) {
  if (growing_) growing_->set_max_bytes(max_bytes);
}

uint64_t LiveFilter::bytes() const {
  return growing_ ? growing_->bytes() : fixed_->params().bytes();
}

uint64_t LiveFilter::insertions() const {
  return growing_ ? growing_->insertions() : fixed_->counters().insertions;
}

void LiveFilter::sync_to_host() {
  // A mapped filter's bits are never written (keys cannot be added), so a
  // device backend's copy equals them; copying back would write to a
  // read-only mapping.
  if (layer(0).read_only()) return;
  if (growing_) {
    growing_->sync_to_host();
  } else {
    fixed_backend_->sync_to_host();
  }
}

FilterSummary LiveFilter::summary() const {
  return growing_ ? summarize(*growing_) : summarize(*fixed_);
}

std::optional<LiveFilter::OverCapacity> LiveFilter::over_capacity() const {
  if (growing_ && !growing_->growth_refused()) return std::nullopt;
  const Filter& newest = layer(layer_count() - 1);
  const FilterCounters& c = newest.counters();
  if (c.planned_capacity == 0 || c.insertions <= c.planned_capacity) return std::nullopt;
  const FilterParams& p = newest.params();
  return OverCapacity{c.planned_capacity, c.planned_fpr,
                      expected_fpr(p.layout, p.num_blocks, c.insertions)};
}

PipelineStats LiveFilter::run(const PipelineOptions& options) {
  if (growing_) return run_pipeline(options, *growing_);
  return run_pipeline(options, *fixed_, *fixed_backend_);
}

uint64_t LiveFilter::test_and_set(const uint64_t* fingerprints, uint64_t count,
                                  uint8_t* was_present) {
  if (growing_) return growing_->test_and_set(fingerprints, count, was_present);
  return fixed_backend_->test_and_set(fingerprints, count, was_present);
}

void LiveFilter::contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) {
  if (growing_) {
    growing_->contains(fingerprints, count, present);
  } else {
    fixed_backend_->contains(fingerprints, count, present);
  }
}

void LiveFilter::check_mapping() const {
  if (!mapping_guard_ || !mapping_guard_->cut()) return;
  throw Error("the filter file " + mapped_path_ + " was cut short by another program while it "
                  "was mapped (mmap=True): the bits gone with it read as zeros, so this "
                  "filter's answers would be wrong, and it refuses every call now. Load the "
                  "file again once nothing truncates or rewrites it in place (gdedup and save "
                  "replace a filter file by renaming a new one over it, which a mapped filter "
                  "survives).",
              ErrorKind::input_changed);
}

void LiveFilter::save(const std::string& path, const std::optional<KeyRules>& keys) {
  if (mapping_guard_) {
    // Bits read from a file cut short meanwhile would be saved as zeros:
    // they are copied and checked first.
    FilterFile copy = to_file();
    check_mapping();
    copy.rules.keys = keys;
    save_filter_file(copy, path);
    return;
  }
  sync_to_host();
  if (growing_) {
    save_filter(*growing_, path, keys);
  } else {
    save_filter(*fixed_, path, keys);
  }
}

void LiveFilter::save(const std::string& path, const std::optional<KeyRules>& keys,
                      SaveGuard& guard, const OptionNames& names, const char* save_anyway) {
  if (save_anyway != nullptr) refuse_overfull(path, names, save_anyway);
  guard.save(path, [&] { save(path, keys); });
}

void LiveFilter::refuse_overfull(const std::string& path, const OptionNames& names,
                                 const std::string& save_anyway) {
  sync_to_host();
  for (size_t i = 0; i < layer_count(); ++i) {
    const std::optional<Overfull> over = check_overfull(layer(i));
    if (!over) continue;
    const std::string what =
        growing() ? "layer " + std::to_string(i + 1) + " of the " + layers_text(layer_count()) +
                        " of the filter"
                  : "the filter";
    throw Error(what + " is far past its plan (" + past_plan(*over, "holds") + "), so it "
                    "was not saved to " + path + ": every job that used it would take new keys "
                    "for ones already present that often. Make a filter with " +
                    names.with(JobOption::kCapacity, std::to_string(over->capacity)) +
                    " (or more), or a growing one, and add the keys again; or save this one "
                    "anyway with " + save_anyway,
                ErrorKind::filter_overfull);
  }
}

FilterFile LiveFilter::to_file() {
  sync_to_host();
  FilterFile file;
  for (size_t i = 0; i < layer_count(); ++i) {
    Filter copy(layer(i).params());
    copy.merge(layer(i));
    copy.counters() = layer(i).counters();
    file.layers.push_back(std::move(copy));
  }
  if (growing_) {
    file.rules.growth = growing_->rule();
    file.rules.keys_offered = growing_->keys_offered();
  }
  return file;
}

namespace {

// The headers of a filter, as merged_rules reads them from files. The key
// rules are left out: the owner compares its own.
FilterFileInfo info_of(const FilterFile& file) {
  FilterFileInfo info;
  for (const Filter& layer : file.layers) {
    info.params.push_back(layer.params());
    info.counters.push_back(layer.counters());
  }
  info.rules = file.rules;
  info.version = kFilterFileVersion;
  return info;
}

// Why a merge whose layer `over` would end far past its plan is refused
// (`gdedup merge` writes such a filter and exits 4).
std::string overfull_merge_message(const OverfullLayer& over, size_t layers, bool growing,
                                   const OptionNames& names) {
  const std::string part =
      growing ? "layer " + std::to_string(over.index + 1) + " of the " + std::to_string(layers) +
                    (layers == 1 ? " layer" : " layers") + " of the merged filter"
              : "the merged filter";
  const Overfull& o = over.over;
  return "cannot merge: " + part + " would be far past its plan: planned for " +
         group_digits(o.planned) + " distinct keys, it would hold " + keys_taken_text(o) +
         " (a merge adds up the keys of its inputs, and theirs were full), so its "
         "false-positive rate would be " + format_rate(o.fpr_now) + " (planned " +
         format_rate(o.planned_fpr) +
         ") and queries would take new keys for ones already present that much more often. "
         "This filter is unchanged (gdedup merge writes such a filter, then fails with exit "
         "status 4). Build one filter from the keys of both instead" +
         (growing ? std::string(".")
                  : ", with " + names.with(JobOption::kCapacity, std::to_string(o.capacity)) +
                        " (or more).");
}

}  // namespace

void LiveFilter::merge(LiveFilter& other, const OptionNames& names) {
  // Its union with itself is itself: merged, its keys would be counted
  // twice (in its plan's and its growth's counters) for the same bits.
  if (&other == this) return;
  FilterFile merged = to_file();
  FilterFile theirs = other.to_file();
  check_mapping();
  other.check_mapping();
  const FilterRules rules =
      merged_rules({info_of(merged), info_of(theirs)}, {"this filter", "the other filter"}, false);
  merge_layers(merged.layers, std::move(theirs.layers));
  merged.rules = rules;
  if (const std::optional<OverfullLayer> over = first_overfull_layer(merged.layers)) {
    throw UsageError(overfull_merge_message(*over, merged.layers.size(), growing(), names));
  }
  LiveFilter rebuilt(std::move(merged), choice_);
  rebuilt.set_max_bytes(max_bytes());
  // Swapped member by member: the old layers go with `rebuilt`, in the
  // order its destructor takes (a guard before its mapping, a backend
  // before its filter).
  std::swap(fixed_, rebuilt.fixed_);
  std::swap(fixed_backend_, rebuilt.fixed_backend_);
  std::swap(growing_, rebuilt.growing_);
  std::swap(mapped_path_, rebuilt.mapped_path_);
  std::swap(mapping_guard_, rebuilt.mapping_guard_);
}

}  // namespace gdedup
