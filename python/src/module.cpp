// gdedup._core: the engine's filter (py_filter.cpp) and exact set
// (py_set.cpp), jobs run by the library (py_job.cpp), fingerprints as the
// command makes them, and the errors' translation. python/gdedup wraps it.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "errors.h"
#include "key_input.h"
#include "key_rules.h"
#include "py_filter.h"
#include "py_job.h"
#include "py_set.h"

namespace gdedup::python {
namespace {

// The fingerprint of one key (an int) or of many (a NumPy uint64 array),
// exactly as the command computes them with the same key rules.
nb::object fingerprints(nb::handle keys, const OptionalText& key, const OptionalText& delimiter,
                        const OptionalText& normalize, std::optional<uint64_t> seed,
                        bool strict_json) {
  KeyRules rules = key_rules(key, delimiter, normalize);
  check_strict_json(rules, strict_json);
  if (seed) rules.seed = *seed;
  const KeyHasher hasher(rules.keys, rules.seed, strict_json);
  std::string scratch;
  if (const std::optional<std::string_view> one = single_key(keys)) {
    return nb::int_(record_key<uint64_t>(hasher, *one, scratch, 0));
  }
  KeyInput input = key_input(keys, "");
  if (!input.has_records) {
    throw nb::type_error("fingerprint() takes keys (bytes or str, or an Arrow array of them), "
                         "not an array of fingerprints");
  }
  std::unique_ptr<uint64_t[]> out(new uint64_t[input.size > 0 ? input.size : 1]);
  {
    nb::gil_scoped_release release;
    uint64_t at = 0;
    for (const auto& part : input.parts) {
      if (const uint64_t* hashed = part->fingerprints()) {
        std::copy(hashed, hashed + part->size(), out.get() + at);
      } else {
        part->hash(0, part->size(), hasher, scratch, out.get() + at);
      }
      at += part->size();
    }
  }
  uint64_t* data = out.release();
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<uint64_t*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, uint64_t, nb::ndim<1>>(data, {input.size}, owner));
}

}  // namespace
}  // namespace gdedup::python

NB_MODULE(_core, m) {
  using namespace gdedup::python;
  bind_errors(m);
  bind_filter(m);
  bind_set(m);
  bind_run(m);
  // keys=None is let through, to be refused with the accepted types named.
  m.def("fingerprint", &fingerprints, nb::arg("keys").none(), nb::kw_only(),
        nb::arg("key") = nb::none(), nb::arg("delimiter") = nb::none(),
        nb::arg("normalize") = nb::none(), nb::arg("seed") = nb::none(),
        nb::arg("strict_json") = false,
        "The command's fingerprints (XXH3-64 with the seed, after the key rules key=, "
        "delimiter=, normalize= as --key, --delimiter, --normalize): an int for one key, a "
        "NumPy uint64 array for many. A filter with the same rules takes them as keys. "
        "strict_json=True (--strict-json, json: and cdxj: keys only) takes a key only from a "
        "record that is exactly one JSON value; a record without its key is refused.");
  m.attr("DEFAULT_SEED") = gdedup::kDefaultSeed;
}
