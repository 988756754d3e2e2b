#include "filter_engine.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/filter_merge.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/planner.h"

namespace gdedup::python {

BackendMaker FilterEngine::backends() {
  std::shared_ptr<std::string> first = first_description_;
  return [choice = choice_, first](Filter& layer) {
    MadeBackend made = choose_backend(choice.name, choice.options, layer, choice.given);
    if (first->empty()) *first = made.description;
    return std::move(made.backend);
  };
}

FilterEngine::FilterEngine(const Sizing& s, const BackendChoice& backend, JobEvents& events)
    : choice_(backend) {
  const bool grows = s.grow && !s.sizing.memory;
  if (!grows && s.max_memory != 0) {
    throw UsageError(events.given(JobOption::kMaxMemory) + " caps a filter that grows, but " +
                     events.name(s.grow ? JobOption::kMemory : JobOption::kNoGrow) +
                     " makes this filter fixed; leave out " +
                     events.name(JobOption::kMaxMemory));
  }
  if (grows) {
    growing_ = std::make_unique<LayeredFilter>(growth_rule(s.sizing), kDefaultSeed, backends());
    if (s.max_memory != 0) {
      if (growing_->bytes() > s.max_memory) {
        throw UsageError(events.given(JobOption::kMaxMemory) + " is less than the first "
                         "layer's " + std::to_string(growing_->bytes()) + " bytes; raise it, "
                         "or give a smaller " + events.name(JobOption::kCapacity));
      }
      growing_->set_max_bytes(s.max_memory);
    }
  } else {
    fixed_ = std::make_unique<Filter>(Filter::from_plan(plan_fixed_filter(s.sizing, events)));
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

FilterEngine::FilterEngine(FilterFile file, const BackendChoice& backend, const std::string& path)
    : choice_(backend) {
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
  BackendMaker make = backends();
  if (file.rules.growth) {
    growing_ = std::make_unique<LayeredFilter>(*file.rules.growth, std::move(file.layers),
                                               file.rules.keys_offered, std::move(make));
  } else {
    fixed_ = std::make_unique<Filter>(std::move(file.layers[0]));
    fixed_backend_ = make(*fixed_);
  }
  description_ = *first_description_;
  check_mapping();  // a device backend copied the bits
}

void FilterEngine::check_mapping() const {
  if (!mapping_guard_ || !mapping_guard_->cut()) return;
  throw Error("the filter file " + mapped_path_ + " was cut short by another program while it "
                  "was mapped (mmap=True): the bits gone with it read as zeros, so this "
                  "filter's answers would be wrong, and it refuses every call now. Load the "
                  "file again once nothing truncates or rewrites it in place (gdedup and save "
                  "replace a filter file by renaming a new one over it, which a mapped filter "
                  "survives).",
              ErrorKind::input_changed);
}

uint64_t FilterEngine::test_and_set(const uint64_t* fingerprints, uint64_t count,
                                    uint8_t* was_present) {
  if (growing_) return growing_->test_and_set(fingerprints, count, was_present);
  return fixed_backend_->test_and_set(fingerprints, count, was_present);
}

void FilterEngine::contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) {
  if (growing_) {
    growing_->contains(fingerprints, count, present);
  } else {
    fixed_backend_->contains(fingerprints, count, present);
  }
}

void FilterEngine::sync() {
  // A mapped filter's bits are never written (keys cannot be added), so a
  // device backend's copy equals them; copying back would write to a
  // read-only mapping.
  if (at(0).read_only()) return;
  if (growing_) {
    growing_->sync_to_host();
  } else {
    fixed_backend_->sync_to_host();
  }
}

const Filter& FilterEngine::layer(size_t i) {
  sync();
  return at(i);
}

const Filter& FilterEngine::at(size_t i) const {
  return growing_ ? growing_->layer(i) : *fixed_;
}

void FilterEngine::save(const std::string& path, const std::optional<KeyRules>& keys,
                        SaveGuard& guard, bool allow_overfull) {
  if (!allow_overfull) refuse_overfull(path);
  guard.save(path, [&] { write(path, keys); });
}

void FilterEngine::refuse_overfull(const std::string& path) {
  for (size_t i = 0; i < layer_count(); ++i) {
    const std::optional<Overfull> over = check_overfull(layer(i));
    if (!over) continue;
    const std::string what =
        growing() ? "layer " + std::to_string(i + 1) + " of the " + layers_text(layer_count()) +
                        " of the filter"
                  : "the filter";
    throw Error(what + " is far past its plan (" + past_plan(*over, "holds") + "), so it "
                    "was not saved to " + path + ": every job that used it would take new keys "
                    "for ones already present that often. Make a filter with capacity=" +
                    std::to_string(over->capacity) + " (or more), or a growing one, and add the "
                    "keys again; or save this one anyway with allow_overfull=True",
                ErrorKind::filter_overfull);
  }
}

void FilterEngine::write(const std::string& path, const std::optional<KeyRules>& keys) {
  if (mapping_guard_) {
    // Bits read from a file cut short meanwhile would be saved as zeros:
    // they are copied and checked first.
    FilterFile copy = to_file();
    check_mapping();
    copy.rules.keys = keys;
    save_filter_file(copy, path);
    return;
  }
  sync();
  if (growing_) {
    save_filter(*growing_, path, keys);
  } else {
    save_filter(*fixed_, path, keys);
  }
}

FilterFile FilterEngine::to_file() {
  sync();
  FilterFile file;
  for (size_t i = 0; i < layer_count(); ++i) {
    const Filter& layer = at(i);
    Filter copy(layer.params());
    copy.merge(layer);
    copy.counters() = layer.counters();
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
// rules are left out: the Python filter compares its own.
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
std::string overfull_merge_message(const OverfullLayer& over, size_t layers, bool growing) {
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
                  : ", with capacity=" + std::to_string(o.capacity) + " (or more).");
}

}  // namespace

void FilterEngine::merge(FilterEngine& other) {
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
    throw UsageError(overfull_merge_message(*over, merged.layers.size(), growing()));
  }
  const uint64_t max_bytes = this->max_bytes();
  FilterEngine rebuilt(std::move(merged), choice_);
  if (rebuilt.growing_) rebuilt.growing_->set_max_bytes(max_bytes);
  std::swap(fixed_, rebuilt.fixed_);
  std::swap(fixed_backend_, rebuilt.fixed_backend_);
  std::swap(growing_, rebuilt.growing_);
  std::swap(mapped_path_, rebuilt.mapped_path_);
  std::swap(mapping_guard_, rebuilt.mapping_guard_);
}

std::optional<FilterEngine::OverCapacity> FilterEngine::over_capacity() const {
  if (growing_ && !growing_->growth_refused()) return std::nullopt;
  const Filter& newest = at(layer_count() - 1);
  const FilterCounters& c = newest.counters();
  if (c.planned_capacity == 0 || c.insertions <= c.planned_capacity) return std::nullopt;
  const FilterParams& p = newest.params();
  return OverCapacity{c.planned_capacity, c.planned_fpr,
                      expected_fpr(p.layout, p.num_blocks, c.insertions)};
}

uint64_t FilterEngine::bytes() const {
  return growing_ ? growing_->bytes() : fixed_->params().bytes();
}

uint64_t FilterEngine::insertions() const {
  return growing_ ? growing_->insertions() : fixed_->counters().insertions;
}

double FilterEngine::current_fpr() {
  sync();
  std::vector<double> rates;
  for (size_t i = 0; i < layer_count(); ++i) rates.push_back(at(i).current_fpr());
  return compound_fpr(rates.data(), rates.size());
}

double FilterEngine::estimated_keys() {
  sync();
  double keys = 0;
  for (size_t i = 0; i < layer_count(); ++i) keys += at(i).estimated_keys();
  return keys;
}

double FilterEngine::fill() {
  sync();
  uint64_t set = 0, total = 0;
  for (size_t i = 0; i < layer_count(); ++i) {
    set += at(i).count_set_bits();
    total += at(i).params().bytes() * 8;
  }
  return total == 0 ? 0 : static_cast<double>(set) / static_cast<double>(total);
}

}  // namespace gdedup::python
