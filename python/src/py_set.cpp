#include "py_set.h"

#include <memory>
#include <mutex>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "answers.h"
#include "call_lock.h"
#include "errors.h"
#include "gdedup/error.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/guarded_save.h"
#include "gdedup/live_set.h"
#include "gdedup/set_file.h"
#include "key_input.h"
#include "key_rules.h"
#include "py_events.h"
#include "thread_count.h"

namespace gdedup::python {
namespace {

// A Set's guard of its saves, whose refusal says how to merge in a file
// another process saved.
SaveGuard set_guard() { return SaveGuard(SavedKind::kSet, "merge(Set.load(path))"); }

class PySet {
 public:
  // `strict_json`: as a Filter's. `path` and `guard`: the file it was
  // loaded from, and that file as it was before the load (a new set's saw
  // none).
  PySet(std::unique_ptr<LiveSet> engine, bool strict_json, bool read_only = false,
        std::string path = "", SaveGuard guard = set_guard())
      : engine_(std::move(engine)),
        hasher_(engine_->rules().keys, engine_->rules().seed, strict_json),
        read_only_(read_only),
        path_(std::move(path)),
        guard_(std::move(guard)) {}

  // add, test_and_set or contains of one key (bytes or str) or many.
  nb::object apply(nb::handle keys, Op op) {
    call_lock_.check_process();
    const bool insert = op != Op::kContains;
    if (insert) check_writable();
    if (const std::optional<std::string_view> one = single_key(keys)) {
      const Key84 key = record_key<Key84>(hasher_, *one, scratch_for_one_, 0);
      uint8_t answer = 0;
      try {
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(call_lock_.mutex());
        engine_->run(&key, 1, insert, &answer);
      } catch (const SetFullAt& e) {
        raise_refused(e, std::unique_ptr<uint8_t[]>(new uint8_t[1]));  // none answered
      }
      return nb::bool_(op == Op::kAdd ? answer == 0 : answer != 0);
    }
    KeyInput input = key84_input(keys);
    std::unique_ptr<uint8_t[]> answers(new uint8_t[input.size > 0 ? input.size : 1]);
    uint64_t added = 0;
    try {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(call_lock_.mutex());
      added = run(input, insert, answers.get());
    } catch (const SetFullAt& e) {
      raise_refused(e, std::move(answers));
    }
    if (op == Op::kAdd) return nb::int_(added);
    return bool_array(std::move(answers), input.size);
  }

  // SetFullError with what the call did before the refused key: `answered`,
  // its place, and `answers`, whether each key before it was present (the
  // keys dedup() keeps, which are in the set now).
  [[noreturn]] static void raise_refused(const SetFullAt& e, std::unique_ptr<uint8_t[]> answers) {
    const nb::object answered = nb::int_(e.answered());
    const nb::object before = bool_array(std::move(answers), e.answered());
    set_error(e, {{"answered", answered}, {"answers", before}});
    throw nb::python_error();
  }

  bool contains_one(nb::handle key) {
    check_in_operand(key);
    return nb::cast<bool>(apply(key, Op::kContains));
  }

  // The union, as `gdedup merge --exact`: the same key rules.
  void merge(PySet& other) {
    call_lock_.check_process();
    other.call_lock_.check_process();
    check_writable();
    nb::gil_scoped_release release;
    if (&other == this) {
      std::lock_guard<std::mutex> lock(call_lock_.mutex());
      engine_->merge(*engine_);
    } else {
      std::scoped_lock lock(call_lock_.mutex(), other.call_lock_.mutex());
      engine_->merge(*other.engine_);
      guard_.note_merged(other.guard_);
    }
  }

  void save(const std::filesystem::path& path) {
    call_lock_.check_process();
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(call_lock_.mutex());
    engine_->save(path.string(), guard_);
  }

  // fn(the set) with the GIL released and the lock held: a call from
  // another thread may be running on it.
  template <class Fn>
  auto read(Fn fn) {
    call_lock_.check_process();
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(call_lock_.mutex());
    return fn(engine_->keys());
  }

  const KeyRules& rules() const { return engine_->rules(); }
  bool strict_json() const { return hasher_.strict_json(); }
  bool read_only() const { return read_only_; }

 private:
  void check_writable() const {
    if (read_only_) {
      throw UsageError("the set " + path_ + " was loaded with read_only=True, so add, "
                       "test_and_set and merge are refused; load it without read_only to add "
                       "keys");
    }
  }

  // answers[i] for the i-th key of `input` (LiveSet::run), its records
  // hashed a chunk at a time into a buffer kept from call to call. A call
  // of many keys takes room for them, as a job on a file does (a call
  // within the sample takes none).
  uint64_t run(const KeyInput& input, bool insert, uint8_t* answers) {
    uint64_t added = 0;
    RoomFromSample room;
    for_each_chunk(input, hasher_, engine_->chunk_keys(), chunk_, scratch_,
                   [&](const Key84* keys, uint64_t n, uint64_t at) {
                     const uint64_t fresh = engine_->run(keys, n, insert, answers + at, at);
                     added += fresh;
                     if (insert) room.after(engine_->keys(), n, fresh, input.size - (at + n));
                   });
    return added;
  }

  std::unique_ptr<LiveSet> engine_;
  KeyHasher hasher_;
  bool read_only_;
  std::string path_;  // the file it was loaded from, for messages
  SaveGuard guard_;   // the file it last read or wrote (LiveSet::save)
  std::string scratch_for_one_;  // used with the GIL held
  std::vector<Key84> chunk_;     // a call's keys, a chunk at a time (with the lock)
  std::string scratch_;          // the key rules' scratch (with the lock)
  CallLock call_lock_{"set"};    // one engine call at a time, taken with the GIL released
};

// A new or loaded Set's options, its cap checked as a job's (live_set_cap).
KeySetOptions set_options(std::optional<unsigned> threads, std::optional<uint64_t> max_memory,
                          const PyEvents& names) {
  KeySetOptions options;
  if (threads) options.threads = thread_count(threads);
  options.max_bytes = live_set_cap(max_memory, names);
  return options;
}

void name_sizes(PyEvents& names, std::optional<uint64_t> capacity,
                std::optional<uint64_t> max_memory) {
  names.set_given(JobOption::kCapacity, std::to_string(capacity.value_or(0)));
  names.set_given(JobOption::kMaxMemory, std::to_string(max_memory.value_or(0)));
}

// What `gdedup info --json FILE` says of this set saved to FILE, less the
// file's own fields (file, kind, version, file_bytes): its bytes and load
// are this set's tables as they are now.
nb::dict info_dict(PySet& s) {
  struct Numbers {
    uint64_t keys, bytes;
    double load;
  };
  const Numbers n = s.read([](const KeySet& k) { return Numbers{k.size(), k.bytes(), k.load()}; });
  nb::dict d;
  d["info_version"] = kInfoJsonVersion;
  d["key_rules"] = s.rules().to_string();
  d["keys"] = n.keys;
  d["bytes"] = n.bytes;
  d["bytes_per_key"] =
      n.keys == 0 ? 0.0 : static_cast<double>(n.bytes) / static_cast<double>(n.keys);
  d["load"] = n.load;
  d["collision_chance"] = KeySet::collision_chance(n.keys);
  return d;
}

}  // namespace

void bind_set(nb::module_& m) {
  nb::class_<PySet>(m, "Set", R"(An exact set of keys: no false positives, no capacity to plan.

Set(capacity=None, threads=None, key=None, normalize=None, *,
    delimiter=None, max_memory=None, strict_json=False)

The set of `gdedup dedup --exact`: each key is kept as 84 bits of its
XXH3-128, so two distinct keys are taken for one only by the chance that
collision_chance() gives (about 3e-8 for a billion keys), never at a
planned rate as in a Filter. It starts small and grows as keys come;
capacity=N sizes it for N keys from the start. max_memory caps its bytes:
a key that would grow it past them raises SetFullError (the keys before
it were added). threads: the threads that answer a batch (None: the
set's default, one). key, delimiter and normalize are the command's
--key, --delimiter and --normalize, and strict_json its --strict-json,
as for a Filter.

Keys: one bytes or str (UTF-8), or many: a list, tuple or iterable of them
(a NumPy array of bytes or str too), or an Arrow string/binary array or
chunked array, read in place. NumPy uint64 fingerprints are refused: the
set needs more bits of each key than 64. Calls release the GIL; one set
runs one call at a time. save() and Set.load() write and read the
command's set file (`gdedup build --exact`, `dedup --exact -f FILE`).)")
      .def(
          "__init__",
          [](PySet* self, std::optional<uint64_t> capacity, std::optional<unsigned> threads,
             std::optional<std::string> key, std::optional<std::string> normalize,
             std::optional<std::string> delimiter, std::optional<uint64_t> max_memory,
             bool strict_json) {
            const KeyRules rules = key_rules(key, delimiter, normalize);
            check_strict_json(rules, strict_json);
            PyEvents names;
            name_sizes(names, capacity, max_memory);
            new (self) PySet(std::make_unique<LiveSet>(capacity.value_or(0),
                                                       set_options(threads, max_memory, names),
                                                       rules, names),
                             strict_json);
          },
          nb::arg("capacity") = nb::none(), nb::arg("threads") = nb::none(),
          nb::arg("key") = nb::none(), nb::arg("normalize") = nb::none(), nb::kw_only(),
          nb::arg("delimiter") = nb::none(), nb::arg("max_memory") = nb::none(),
          nb::arg("strict_json") = false)
      .def_static(
          "load",
          [](const std::filesystem::path& path, bool read_only, std::optional<unsigned> threads,
             std::optional<std::string> key, std::optional<std::string> normalize,
             std::optional<std::string> delimiter, std::optional<uint64_t> max_memory,
             bool strict_json) {
            const std::string name = path.string();
            PyEvents names;
            name_sizes(names, std::nullopt, max_memory);
            const KeySetOptions options = set_options(threads, max_memory, names);
            std::unique_ptr<LiveSet> engine;
            SaveGuard guard = set_guard();
            {
              nb::gil_scoped_release release;
              guard.note_read(name);
              engine = advise_other_mode("gdedup.Filter.load reads it", [&] {
                return std::make_unique<LiveSet>(name, options, names, [&](const KeyRules& in) {
                  const KeyRules rules =
                      loaded_key_rules(name, "set", in, key, delimiter, normalize);
                  check_strict_json(rules, strict_json);
                  return rules;
                });
              });
            }
            return new PySet(std::move(engine), strict_json, read_only, name, std::move(guard));
          },
          nb::arg("path"), nb::arg("read_only") = false, nb::kw_only(),
          nb::arg("threads") = nb::none(), nb::arg("key") = nb::none(),
          nb::arg("normalize") = nb::none(), nb::arg("delimiter") = nb::none(),
          nb::arg("max_memory") = nb::none(), nb::arg("strict_json") = false,
          nb::rv_policy::take_ownership,
          "Load a set file (`gdedup build --exact`'s, a job's --filter of --exact, or one saved "
          "here) with every check of the command: its keys and key rules. key/delimiter/"
          "normalize, when given, must match the file's; strict_json=True reads records as a "
          "new Set's does (a file does not record it). read_only refuses add, test_and_set "
          "and merge. max_memory caps the loaded set as a new one's (SetFullError when the "
          "file's keys need more). A Bloom filter's file is refused: a filter cannot become a "
          "set.")
      .def("save", &PySet::save, nb::arg("path"),
           "Write the command's set file format (docs/FORMAT.md) to path, crash-safely: a "
           "temporary file beside it, fsync, rename. Its bytes are those of `gdedup build "
           "--exact` with the same keys and key rules, whatever the order they came in. "
           "Refused (InputChangedError) when path is the file this set last loaded or saved "
           "and another process saved it since: merge it first.")
      .def("info", &info_dict,
           "What `gdedup info --json` says of this set once saved, as a dict (less file, kind, "
           "version and file_bytes): info_version, key_rules, keys, bytes, bytes_per_key, load "
           "and collision_chance, the bytes and load of this set's tables as they are now.")
      // keys=None is let through, to be refused with the accepted types named.
      .def("add", [](PySet& s, nb::handle keys) { return s.apply(keys, Op::kAdd); },
           nb::arg("keys").none(),
           "Add keys. One key: True when it was new. Many: the number that were new.")
      .def("test_and_set", [](PySet& s, nb::handle keys) { return s.apply(keys, Op::kTestAndSet); },
           nb::arg("keys").none(),
           "Whether each key was in the set before (keys earlier in the same call count), then "
           "add it: `gdedup dedup --exact` keeps the records answered False. One key: a bool; "
           "many: a NumPy bool array.")
      .def("contains", [](PySet& s, nb::handle keys) { return s.apply(keys, Op::kContains); },
           nb::arg("keys").none(),
           "Whether each key is in the set (read-only). One key: a bool; many: a NumPy bool "
           "array.")
      .def("__contains__", &PySet::contains_one, nb::arg("key").none())
      .def("__len__", [](PySet& s) { return s.read([](const KeySet& k) { return k.size(); }); })
      .def("merge", &PySet::merge, nb::arg("other"),
           "Add every key of another Set (the union); both must have the same key rules. Past "
           "max_memory it raises SetFullError and merges nothing.")
      .def(
          "collision_chance",
          [](PySet& s, std::optional<uint64_t> keys) {
            const uint64_t n = keys ? *keys : s.read([](const KeySet& k) { return k.size(); });
            return KeySet::collision_chance(n);
          },
          nb::arg("keys") = nb::none(),
          "The chance that any two distinct keys of a set of `keys` keys (None: this set's "
          "count) share their 84 bits, so that one of them is taken for the other: the chance "
          "that exact mode drops a unique key.")
      .def_prop_ro("nbytes",
                   [](PySet& s) { return s.read([](const KeySet& k) { return k.bytes(); }); })
      .def_prop_ro("fill",
                   [](PySet& s) { return s.read([](const KeySet& k) { return k.load(); }); })
      .def_prop_ro("growths",
                   [](PySet& s) { return s.read([](const KeySet& k) { return k.growths(); }); })
      .def_prop_ro("max_memory",
                   [](PySet& s) -> std::optional<uint64_t> {
                     const uint64_t cap =
                         s.read([](const KeySet& k) { return k.options().max_bytes; });
                     if (cap == 0) return std::nullopt;
                     return cap;
                   })
      .def_prop_ro("threads",
                   [](PySet& s) {
                     return s.read([](const KeySet& k) { return k.options().threads; });
                   })
      .def_prop_ro("key_rules", [](PySet& s) { return s.rules().to_string(); })
      .def_prop_ro("strict_json", &PySet::strict_json)
      .def_prop_ro("read_only", &PySet::read_only);
  // For the package's own use (gdedup.scrapy takes seen files of either kind).
  m.def(
      "_is_set_file", [](const std::filesystem::path& path) { return is_set_file(path.string()); },
      nb::arg("path"), "Whether path starts as a set file does.");
}

}  // namespace gdedup::python
