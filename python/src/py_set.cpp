#include "py_set.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "answers.h"
#include "call_lock.h"
#include "errors.h"
#include "gdedup/error.h"
#include "key_input.h"
#include "key_rules.h"
#include "memory_cap.h"
#include "set_engine.h"

namespace gdedup::python {
namespace {

class PySet {
 public:
  explicit PySet(std::unique_ptr<SetEngine> engine)
      : engine_(std::move(engine)), hasher_(engine_->rules().keys, engine_->rules().seed) {}

  // add, test_and_set or contains of one key (bytes or str) or many.
  nb::object apply(nb::handle keys, Op op) {
    call_lock_.check_process();
    const bool insert = op != Op::kContains;
    if (const std::optional<std::string_view> one = single_key(keys)) {
      const Key84 key = record_key<Key84>(hasher_, *one, scratch_for_one_, 0);
      uint8_t answer = 0;
      try {
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(call_lock_.mutex());
        engine_->run(&key, 1, insert, &answer);
      } catch (const SetFull& e) {
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
      added = engine_->run(input, hasher_, insert, answers.get());
    } catch (const SetFull& e) {
      raise_refused(e, std::move(answers));
    }
    if (op == Op::kAdd) return nb::int_(added);
    return bool_array(std::move(answers), input.size);
  }

  // SetFullError with what the call did before the refused key: `answered`,
  // its place, and `answers`, whether each key before it was present (the
  // keys dedup() keeps, which are in the set now).
  [[noreturn]] static void raise_refused(const SetFull& e, std::unique_ptr<uint8_t[]> answers) {
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
    nb::gil_scoped_release release;
    if (&other == this) {
      std::lock_guard<std::mutex> lock(call_lock_.mutex());
      engine_->merge(*engine_);
    } else {
      std::scoped_lock lock(call_lock_.mutex(), other.call_lock_.mutex());
      engine_->merge(*other.engine_);
    }
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

 private:
  std::unique_ptr<SetEngine> engine_;
  KeyHasher hasher_;
  std::string scratch_for_one_;  // used with the GIL held
  CallLock call_lock_{"set"};    // one engine call at a time, taken with the GIL released
};

}  // namespace

void bind_set(nb::module_& m) {
  nb::class_<PySet>(m, "Set", R"(An exact set of keys: no false positives, no capacity to plan.

Set(capacity=None, threads=None, key=None, normalize=None, *,
    delimiter=None, max_memory=None)

The set of `gdedup dedup --exact`: each key is kept as 84 bits of its
XXH3-128, so two distinct keys are taken for one only by the chance that
collision_chance() gives (about 3e-8 for a billion keys), never at a
planned rate as in a Filter. It starts small and grows as keys come;
capacity=N sizes it for N keys from the start. max_memory caps its bytes:
a key that would grow it past them raises SetFullError (the keys before
it were added). threads: the threads that answer a batch (None: the
set's default, one). key, delimiter and normalize are the command's
--key, --delimiter and --normalize, as for a Filter.

Keys: one bytes or str (UTF-8), or many: a list, tuple or iterable of them
(a NumPy array of bytes or str too), or an Arrow string/binary array or
chunked array, read in place. NumPy uint64 fingerprints are refused: the
set needs more bits of each key than 64. Calls release the GIL; one set
runs one call at a time.)")
      .def(
          "__init__",
          [](PySet* self, std::optional<uint64_t> capacity, std::optional<unsigned> threads,
             std::optional<std::string> key, std::optional<std::string> normalize,
             std::optional<std::string> delimiter, std::optional<uint64_t> max_memory) {
            const KeyRules rules = key_rules(key, delimiter, normalize);
            KeySetOptions options;
            if (threads) options.threads = *threads;
            options.max_bytes = memory_cap(max_memory);
            new (self) PySet(std::make_unique<SetEngine>(capacity.value_or(0), options, rules));
          },
          nb::arg("capacity") = nb::none(), nb::arg("threads") = nb::none(),
          nb::arg("key") = nb::none(), nb::arg("normalize") = nb::none(), nb::kw_only(),
          nb::arg("delimiter") = nb::none(), nb::arg("max_memory") = nb::none())
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
      .def_prop_ro("load",
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
      .def_prop_ro("key_rules", [](PySet& s) { return s.rules().to_string(); });
}

}  // namespace gdedup::python
