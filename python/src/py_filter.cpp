#include "py_filter.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "answers.h"
#include "call_lock.h"
#include "errors.h"
#include "gdedup/error.h"
#include "gdedup/filter_summary.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/guarded_save.h"
#include "gdedup/live_filter.h"
#include "key_input.h"
#include "key_rules.h"
#include "py_events.h"
#include "py_job.h"
#include "thread_count.h"

namespace gdedup::python {
namespace {

// Records are hashed into batches of this many fingerprints (8 MiB) for the
// backend: large enough for its threads and a GPU's transfers, small enough
// to bound the memory beside the keys.
constexpr uint64_t kChunkKeys = uint64_t{1} << 20;

// A Filter's guard of its saves, whose refusal says how to merge in a file
// another process saved.
SaveGuard filter_guard() { return SaveGuard(SavedKind::kFilter, "merge(Filter.load(path))"); }

class PyFilter {
 public:
  // `guard`: the file it was loaded from, as it was before the load (a new
  // filter's saw none). `strict_json`: records are keyed as --strict-json keys them (refused
  // by check_strict_json for rules it does nothing for).
  PyFilter(std::unique_ptr<LiveFilter> engine, const KeyRules& rules, bool strict_json,
           bool read_only, std::string path, SaveGuard guard)
      : engine_(std::move(engine)),
        rules_(rules),
        hasher_(rules.keys, rules.seed, strict_json),
        read_only_(read_only),
        path_(std::move(path)),
        guard_(std::move(guard)) {}

  // add, test_and_set or contains of one key (bytes or str) or many.
  nb::object apply(nb::handle keys, Op op) {
    check_process();
    if (op != Op::kContains) check_writable();
    if (const std::optional<std::string_view> key = single_key(keys)) {
      check_records();
      uint8_t answer = 0;
      const uint64_t fp = record_key<uint64_t>(hasher_, *key, scratch_for_one_, 0);
      std::optional<LiveFilter::OverCapacity> over;
      {
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(mutex());
        run(&fp, 1, op, &answer);
        engine_->check_mapping();
        if (op != Op::kContains) over = engine_->over_capacity();
      }
      warn_once(over);
      return nb::bool_(op == Op::kAdd ? answer == 0 : answer != 0);
    }
    KeyInput input = key_input(keys, records_refused());
    std::unique_ptr<uint8_t[]> answers(new uint8_t[input.size > 0 ? input.size : 1]);
    uint64_t fresh = 0;
    std::optional<LiveFilter::OverCapacity> over;
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex());
      fresh = run_input(input, op, answers.get());
      engine_->check_mapping();
      if (op != Op::kContains) over = engine_->over_capacity();
    }
    warn_once(over);
    if (op == Op::kAdd) return nb::int_(fresh);
    return bool_array(std::move(answers), input.size);
  }

  bool contains_one(nb::handle key) {
    check_in_operand(key);
    return nb::cast<bool>(apply(key, Op::kContains));
  }

  void save(const std::filesystem::path& path, bool allow_overfull) {
    check_process();
    const PyEvents names;
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex());
    engine_->save(path.string(), rules_, guard_, names,
                  allow_overfull ? nullptr : "allow_overfull=True");
  }

  // ORs `other` into this filter (gdedup merge): the same key rules, and
  // both fixed or both growing by one rule.
  void merge(PyFilter& other) {
    check_process();
    other.check_process();
    check_writable();
    if (other.rules_ != rules_) {
      throw UsageError("cannot merge filters whose keys were made by different rules (\"" +
                       rules_.to_string() + "\" and \"" + other.rules_.to_string() +
                       "\"); their keys would not match");
    }
    const PyEvents names;
    nb::gil_scoped_release release;
    if (&other == this) {
      std::lock_guard<std::mutex> lock(mutex());
      engine_->merge(*engine_, names);
    } else {
      std::scoped_lock lock(mutex(), other.mutex());
      engine_->merge(*other.engine_, names);
      guard_.note_merged(other.guard_);
    }
  }

  LiveFilter& engine() { return *engine_; }
  const KeyRules& rules() const { return rules_; }
  bool strict_json() const { return hasher_.strict_json(); }
  bool read_only() const { return read_only_; }
  const std::string& path() const { return path_; }
  std::mutex& mutex() { return call_lock_.mutex(); }

  void check_process() { call_lock_.check_process(); }

 private:
  void check_writable() const {
    if (read_only_) {
      throw UsageError("the filter " + path_ + " was loaded with read_only=True, so add and "
                       "test_and_set are refused; load it without read_only to add keys");
    }
  }

  // A RuntimeWarning, the first time the filter is past its plan and
  // cannot grow, as the command warns (then exits 4 at the end, which a
  // library cannot): new keys are now lost to false positives more often
  // than planned.
  void warn_once(const std::optional<LiveFilter::OverCapacity>& over) {
    if (!over || warned_) return;
    warned_ = true;
    char rates[96];
    std::snprintf(rates, sizeof rates, "%.2e (planned %.2e)", over->fpr_now, over->planned_fpr);
    const std::string message =
        "more distinct keys than the " + std::to_string(over->planned) +
        " the filter was planned for, and it cannot grow (" +
        (engine_->growing() ? "max_memory" : "a fixed filter") +
        "): the false-positive rate is now about " + rates +
        " and rising; give a larger capacity or max_memory";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw nb::python_error();
  }

  // Records are hashed by the key rules; a filter of u64 fingerprints has
  // no rules to hash them by. The refusal's message, or "".
  std::string records_refused() const {
    if (rules_.format != InputFormat::kU64) return "";
    return "this filter holds u64 fingerprints (key rules \"" + rules_.to_string() +
           "\"), not keys of records: pass its fingerprints as a NumPy uint64 array";
  }
  void check_records() const {
    if (const std::string refused = records_refused(); !refused.empty()) throw UsageError(refused);
  }

  uint64_t run(const uint64_t* fps, uint64_t n, Op op, uint8_t* answers) {
    if (op == Op::kContains) {
      engine_->contains(fps, n, answers);
      return 0;
    }
    return engine_->test_and_set(fps, n, answers);
  }

  // The input's fingerprints, kChunkKeys at a time when they are hashed
  // here: the backend's batches.
  uint64_t run_input(const KeyInput& input, Op op, uint8_t* answers) {
    uint64_t fresh = 0;
    std::vector<uint64_t> fps;
    std::string scratch;
    for_each_chunk(input, hasher_, kChunkKeys, fps, scratch,
                   [&](const uint64_t* given, uint64_t n, uint64_t at) {
                     fresh += run(given, n, op, answers + at);
                   });
    return fresh;
  }

  std::unique_ptr<LiveFilter> engine_;
  KeyRules rules_;
  KeyHasher hasher_;
  bool read_only_;
  std::string path_;  // the file it was loaded from, for messages
  SaveGuard guard_;   // the file it last read or wrote (LiveFilter::save)
  std::string scratch_for_one_;  // used with the GIL held
  bool warned_ = false;  // over capacity, once
  CallLock call_lock_{"filter"};  // one engine call at a time, taken with the GIL released
};

BackendChoice backend_choice(const std::string& name, std::optional<unsigned> threads, int device) {
  BackendChoice choice;
  choice.which = name;
  choice.options.threads = thread_count(threads);
  choice.options.device = device;
  choice.given = PyEvents().name(JobOption::kBackend) + "\"" + name + "\"";
  return choice;
}

// fn(engine) with the GIL released and the filter's lock held: a call from
// another thread may be running on it. Its result is not handed out from
// bits of a mapped file found cut short.
template <class Fn>
auto locked(PyFilter& f, Fn fn) {
  f.check_process();
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(f.mutex());
  auto result = fn(f.engine());
  f.engine().check_mapping();
  return result;
}

// The filter's sizes, fill and rates now (every layer's bits counted).
FilterSummary summary(PyFilter& f) {
  return locked(f, [](LiveFilter& e) {
    e.sync_to_host();
    return e.summary();
  });
}

// One of the filter's counts, read under its lock.
template <class T>
T read(PyFilter& f, T (LiveFilter::*count)() const) {
  return locked(f, [count](LiveFilter& e) { return (e.*count)(); });
}

struct LayerPlan {
  FilterParams params;
  FilterCounters counters;
  FilterSummary summary;  // for info() only: counting set bits reads the layer
};

std::vector<LayerPlan> layer_plans(LiveFilter& e, bool with_state) {
  std::vector<LayerPlan> layers;
  e.sync_to_host();
  for (size_t i = 0; i < e.layer_count(); ++i) {
    const Filter& layer = e.layer(i);
    layers.push_back(
        {layer.params(), layer.counters(), with_state ? summarize(layer) : FilterSummary{}});
  }
  return layers;
}

// The version of the JSON of `gdedup info --json` that info() mirrors
// (kInfoJsonVersion, gdedup/frontend/filter_report.h): the top-level members describe the
// whole filter, and "layers" is an array of each layer's.
constexpr uint64_t kInfoVersion = 2;

// The fields a layer and a whole filter share, as `gdedup info --json`
// gives them (add_counted_fields, src/format/filter_report.cpp), in its order.
void add_counted_fields(nb::dict& d, uint64_t seed, const FilterSummary& c) {
  d["blocks"] = c.blocks;
  d["seed"] = hex64(seed);
  d["bytes"] = c.bytes;
  d["set_bits"] = c.set_bits;
  d["total_bits"] = c.total_bits;
  d["fill"] = c.fill;
  d["estimated_keys"] = c.estimated_keys;
  d["current_fpr"] = c.current_fpr;
  d["expected_fpr"] = c.expected_fpr;
  d["insertions"] = c.insertions;
  d["planned_capacity"] = c.planned_capacity;
  d["planned_fpr"] = c.planned_fpr;
}

nb::dict layer_dict(const LayerPlan& layer) {
  nb::dict d;
  d["blocks"] = layer.params.num_blocks;
  d["block_bits"] = layer.params.layout.block_bits;
  d["k"] = layer.params.layout.k;
  d["bytes"] = layer.params.bytes();
  d["capacity"] = layer.counters.planned_capacity;
  d["fpr"] = layer.counters.planned_fpr;
  d["insertions"] = layer.counters.insertions;
  return d;
}

// The layers and growth of a filter, copied under its lock so that the
// dicts are built without it.
struct Snapshot {
  std::vector<LayerPlan> layers;
  std::optional<GrowthRule> rule;
  uint64_t max_bytes = 0;
  uint64_t keys_offered = 0;
};

// `with_state`: as layer_plans.
Snapshot snapshot(PyFilter& f, bool with_state) {
  return locked(f, [with_state](LiveFilter& e) {
    Snapshot s;
    s.layers = layer_plans(e, with_state);
    if (e.rule()) s.rule = *e.rule();
    s.max_bytes = e.max_bytes();
    s.keys_offered = e.keys_offered();
    return s;
  });
}

// The plan: what the filter was sized for, and each layer's.
nb::dict plan_dict(PyFilter& f) {
  const Snapshot s = snapshot(f, false);
  nb::list layers;
  uint64_t capacity = 0, bytes = 0;
  for (const LayerPlan& layer : s.layers) {
    layers.append(layer_dict(layer));
    capacity += layer.counters.planned_capacity;
    bytes += layer.params.bytes();
  }
  nb::dict d;
  d["grows"] = s.rule.has_value();
  d["capacity"] = capacity;
  d["fpr"] = s.rule ? s.rule->target_fpr : s.layers[0].counters.planned_fpr;
  d["bytes"] = bytes;
  d["layers"] = layers;
  if (s.rule) {
    d["first_capacity"] = s.rule->first_capacity;
    d["growth"] = s.rule->growth;
    d["tightening"] = s.rule->tightening;
    d["check_every"] = s.rule->check_every;
    d["max_memory"] = s.max_bytes != 0 ? nb::cast(s.max_bytes) : nb::none();
  }
  return d;
}

// What `gdedup info --json FILE` says of this filter saved to FILE, less
// the file's own fields (file, kind, version): the key rules, the growth
// rule, the whole filter's totals, and "layers", each layer's fields.
nb::dict info_dict(PyFilter& f) {
  const Snapshot s = snapshot(f, true);
  nb::dict d;
  d["info_version"] = kInfoVersion;
  d["key_rules"] = f.rules().to_string();
  if (s.rule) {
    nb::dict growth;
    growth["first_capacity"] = s.rule->first_capacity;
    growth["target_fpr"] = s.rule->target_fpr;
    growth["growth"] = s.rule->growth;
    growth["tightening"] = s.rule->tightening;
    growth["block_bits"] = s.rule->block_bits;
    growth["check_every"] = s.rule->check_every;
    growth["keys_offered"] = s.keys_offered;
    d["growth"] = growth;
  }
  d["layer_count"] = s.layers.size();
  // Layers of a growing filter may have other layouts: then there is no
  // one block size at the top, and each layer says its own.
  const Layout& first = s.layers[0].params.layout;
  bool one_layout = true;
  for (const LayerPlan& l : s.layers) one_layout = one_layout && l.params.layout == first;
  if (one_layout) {
    d["block_bits"] = first.block_bits;
    d["k"] = first.k;
  }
  std::vector<FilterSummary> each;
  for (const LayerPlan& l : s.layers) each.push_back(l.summary);
  add_counted_fields(d, s.layers[0].params.seed, combine(each));
  nb::list layers;
  for (const LayerPlan& l : s.layers) {
    nb::dict layer;
    layer["block_bits"] = l.params.layout.block_bits;
    layer["k"] = l.params.layout.k;
    add_counted_fields(layer, l.params.seed, l.summary);
    layers.append(layer);
  }
  d["layers"] = layers;
  return d;
}

}  // namespace

void bind_filter(nb::module_& m) {
  nb::class_<PyFilter>(m, "Filter", R"(A blocked Bloom filter on the gdedup engine, shared with the command.

Filter(capacity=None, fpr=None, memory=None, backend="auto", threads=None,
       key=None, normalize=None, *, delimiter=None, grow=True,
       max_memory=None, block_bits=None, device=0, allow_high_fpr=False,
       strict_json=False)

Sized by the command's planning (docs/CLI.md, "Sizing"): with no capacity
and no memory it starts small and grows in layers as keys arrive;
capacity=N plans the first layer for N distinct keys (it grows past them
unless grow=False); memory=BYTES makes a fixed filter of that size (not
with fpr). fpr is the target false-positive rate (default 1e-4). A plan
whose rate is above 0.5 is refused unless allow_high_fpr=True; a memory
budget that holds the rate above 1e-3 is warned of (RuntimeWarning).
max_memory caps a growing filter's bytes. backend is "auto" (a GPU when
usable and the filter fits it, else the CPU), "cpu" or "gpu", chosen as
the command chooses; threads the CPU backend's threads (None: the
library's default, the hardware threads less two, at least one). key,
delimiter and normalize are the command's --key, --delimiter and
--normalize: the rules by which a record gives the key that is hashed; a
saved filter records them. strict_json=True is the command's
--strict-json, for json: and cdxj: keys only: a record has its key only
when it is exactly one JSON value, every value in it read, and a record
without its key is refused. It is not a key rule: a file does not record
it, and Filter.load takes it again.

Keys: one bytes or str (UTF-8), or many: a list, tuple or iterable of them,
a NumPy uint64 array of fingerprints (gdedup.fingerprint), or an Arrow
string/binary array or chunked array (pyarrow, polars, pandas), read in
place. Calls release the GIL; one filter runs one call at a time.)")
      .def(
          "__init__",
          [](PyFilter* self, std::optional<uint64_t> capacity, std::optional<double> fpr,
             std::optional<uint64_t> memory, const std::string& backend,
             std::optional<unsigned> threads, std::optional<std::string> key,
             std::optional<std::string> normalize, std::optional<std::string> delimiter,
             bool grow, std::optional<uint64_t> max_memory, std::optional<uint32_t> block_bits,
             int device, bool allow_high_fpr, bool strict_json) {
            const KeyRules rules = key_rules(key, delimiter, normalize);
            check_strict_json(rules, strict_json);
            PyEvents events;
            JobSpec spec;
            spec.sizing = job_sizing(capacity, fpr, memory, block_bits, allow_high_fpr, events);
            spec.no_grow = !grow;
            if (max_memory) {
              spec.max_memory = *max_memory;
              spec.given.insert(JobOption::kMaxMemory);
              events.set_given(JobOption::kMaxMemory, std::to_string(*max_memory));
            }
            auto engine = speaking(events, [&] {
              return std::make_unique<LiveFilter>(
                  new_live_filter(spec, backend_choice(backend, threads, device), events));
            });
            new (self) PyFilter(std::move(engine), rules, strict_json, false, "", filter_guard());
          },
          nb::arg("capacity") = nb::none(), nb::arg("fpr") = nb::none(),
          nb::arg("memory") = nb::none(), nb::arg("backend") = "auto",
          nb::arg("threads") = nb::none(), nb::arg("key") = nb::none(),
          nb::arg("normalize") = nb::none(), nb::kw_only(), nb::arg("delimiter") = nb::none(),
          nb::arg("grow") = true, nb::arg("max_memory") = nb::none(),
          nb::arg("block_bits") = nb::none(), nb::arg("device") = 0,
          nb::arg("allow_high_fpr") = false, nb::arg("strict_json") = false)
      .def_static(
          "load",
          [](const std::filesystem::path& path, bool mmap, bool read_only,
             const std::string& backend, std::optional<unsigned> threads,
             std::optional<std::string> key, std::optional<std::string> normalize,
             std::optional<std::string> delimiter, int device, bool strict_json) {
            const std::string name = path.string();
            if (mmap && !read_only) {
              // docs/PYTHON.md, "Several crawler processes, one seen filter".
              throw UsageError(
                  "cannot map " + name + " with mmap=True unless read_only=True: a mapped "
                  "filter's bits are the file's, shared read-only with every process that "
                  "maps it, so keys cannot be added; pass read_only=True, or load it with "
                  "mmap=False to add keys");
            }
            std::unique_ptr<LiveFilter> engine;
            KeyRules rules;
            SaveGuard guard = filter_guard();
            {
              nb::gil_scoped_release release;
              guard.note_read(name);
              FilterFile file = advise_other_mode("gdedup.Set.load reads it", [&] {
                return mmap ? map_filter_file(name) : load_filter_file(name);
              });
              rules = loaded_key_rules(name, "filter", file.rules.keys, key, delimiter, normalize);
              check_strict_json(rules, strict_json);
              engine = std::make_unique<LiveFilter>(
                  std::move(file), backend_choice(backend, threads, device), name);
            }
            return new PyFilter(std::move(engine), rules, strict_json, read_only, name,
                                std::move(guard));
          },
          nb::arg("path"), nb::arg("mmap") = false, nb::arg("read_only") = false, nb::kw_only(),
          nb::arg("backend") = "auto", nb::arg("threads") = nb::none(),
          nb::arg("key") = nb::none(), nb::arg("normalize") = nb::none(),
          nb::arg("delimiter") = nb::none(), nb::arg("device") = 0,
          nb::arg("strict_json") = false, nb::rv_policy::take_ownership,
          "Load a filter file (the command's, or one saved here): its layers, growth rule and "
          "key rules. key/delimiter/normalize, when given, must match the file's; "
          "strict_json=True reads records as a new Filter's does (a file does not record it). "
          "read_only refuses add and test_and_set. mmap=True (with read_only=True) maps the file "
          "read-only and shared and uses its bits in place, so that processes mapping one file "
          "share one copy in the page cache; the file must be version 4 (written by this "
          "release), every checksum is verified as by a load (docs/PYTHON.md).")
      // keys=None is let through, to be refused with the accepted types named.
      .def("add", [](PyFilter& f, nb::handle keys) { return f.apply(keys, Op::kAdd); },
           nb::arg("keys").none(),
           "Add keys. One key: True when it was new. Many: the number that were new.")
      .def("test_and_set",
           [](PyFilter& f, nb::handle keys) { return f.apply(keys, Op::kTestAndSet); },
           nb::arg("keys").none(),
           "Whether each key was present before (keys earlier in the same call count), then "
           "add it: the command's dedup keeps the records answered False. One key: a bool; "
           "many: a NumPy bool array.")
      .def("contains", [](PyFilter& f, nb::handle keys) { return f.apply(keys, Op::kContains); },
           nb::arg("keys").none(),
           "Whether each key is present (read-only). One key: a bool; many: a NumPy bool array.")
      .def("__contains__", &PyFilter::contains_one, nb::arg("key").none())
      .def("save", &PyFilter::save, nb::arg("path"), nb::kw_only(),
           nb::arg("allow_overfull") = false,
           "Write the command's filter file format to path, crash-safely: a temporary file "
           "beside it, fsync, rename. Refused (InputChangedError) when path is the file this "
           "filter last loaded or saved and another process saved it since: merge it first. "
           "Refused (FilterOverfullError) when the filter is far past its plan, as a job does "
           "not save one, unless allow_overfull=True.")
      .def("merge", &PyFilter::merge, nb::arg("other"),
           "OR another filter into this one, as gdedup merge: the same key rules, and both "
           "fixed with equal parameters or both growing by one rule. A filter merged with "
           "itself is unchanged.")
      .def("info", &info_dict,
           "What `gdedup info --json` says of this filter once saved, as a dict (less "
           "file, kind and version): info_version 2, the key and growth rules, the whole "
           "filter's totals (rates compounded over the layers), and \"layers\", a list of "
           "each layer's fields.")
      .def_prop_ro("plan", [](PyFilter& f) { return plan_dict(f); })
      .def_prop_ro("fill", [](PyFilter& f) { return summary(f).fill; })
      .def_prop_ro("estimated_keys", [](PyFilter& f) { return summary(f).estimated_keys; })
      .def_prop_ro("current_fpr", [](PyFilter& f) { return summary(f).current_fpr; })
      .def_prop_ro("insertions", [](PyFilter& f) { return read(f, &LiveFilter::insertions); })
      .def_prop_ro("layers", [](PyFilter& f) { return read(f, &LiveFilter::layer_count); })
      .def_prop_ro("nbytes", [](PyFilter& f) { return read(f, &LiveFilter::bytes); })
      .def_prop_ro("grows", [](PyFilter& f) { return f.engine().growing(); })
      .def_prop_ro("key_rules", [](PyFilter& f) { return f.rules().to_string(); })
      .def_prop_ro("strict_json", &PyFilter::strict_json)
      .def_prop_ro("backend", [](PyFilter& f) { return f.engine().description(); })
      .def_prop_ro("read_only", &PyFilter::read_only);
}

}  // namespace gdedup::python
