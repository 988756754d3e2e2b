#include "key_input.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nanobind/ndarray.h>

#include "gdedup/error.h"

#include "arrow_keys.h"
#include "numpy_text.h"

namespace gdedup::python {
namespace {

std::string type_of(nb::handle object) {
  return nb::type_name(object.type()).c_str();
}

// str(object).
std::string text_of(nb::handle object) {
  PyObject* text = PyObject_Str(object.ptr());
  if (text == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(text).c_str();
}

// The TypeError for an array of numbers that are not fingerprints: `what`
// describes it ("a 2-dimensional array").
[[noreturn]] void refuse_array(nb::handle keys, const std::string& what) {
  std::string dtype = "another dtype";
  if (nb::hasattr(keys, "dtype")) dtype = "dtype " + text_of(keys.attr("dtype"));
  throw nb::type_error(("an array of keys must be a 1-dimensional NumPy uint64 array of "
                        "fingerprints (gdedup.fingerprint makes them) in the machine's byte "
                        "order, not " + what + " of " + dtype + "; accepted: " +
                        kAcceptedKeys).c_str());
}

// True when `keys` is an array (NumPy, or anything with the buffer protocol
// or DLPack) with a dtype nanobind reads; then it must be 1-D uint64.
bool add_array(nb::handle keys, KeyInput& input) {
  nb::ndarray<nb::ro, nb::device::cpu> array;
  if (!nb::try_cast(keys, array, false)) return false;
  if (array.dtype() != nb::dtype<uint64_t>() || array.ndim() != 1) {
    refuse_array(keys, "a " + std::to_string(array.ndim()) + "-dimensional array");
  }
  const uint64_t n = array.shape(0);
  const auto* data = static_cast<const uint64_t*>(array.data());
  const int64_t stride = array.stride(0);
  if (stride == 1 || n <= 1) {
    input.add(std::make_unique<FingerprintPart>(data, n));
  } else {
    std::vector<uint64_t> copy(n);
    for (uint64_t i = 0; i < n; ++i) copy[i] = data[static_cast<int64_t>(i) * stride];
    input.add(std::make_unique<FingerprintPart>(std::move(copy)));
  }
  input.owners.push_back(nb::borrow(keys));
  return true;
}

// The byte after the key of a bytes or ASCII str object (its terminating
// NUL), or 0 for another object: a load of the object's header and of its
// key's last line.
inline unsigned char byte_after_key(PyObject* object) {
  if (PyBytes_CheckExact(object)) {
    return static_cast<unsigned char>(PyBytes_AS_STRING(object)[PyBytes_GET_SIZE(object)]);
  }
  if (PyUnicode_CheckExact(object) && PyUnicode_IS_COMPACT_ASCII(object)) {
    return static_cast<const unsigned char*>(PyUnicode_DATA(object))[PyUnicode_GET_LENGTH(object)];
  }
  return 0;
}

// out[i - begin] = the key of items[i], each bytes or str, for i in
// [begin, end). Python objects may lie anywhere in memory, a cache and TLB
// miss each, and under a hypervisor a TLB miss is a long walk, which a
// prefetch of the object does not seem to make. So the objects are read a
// window at a time: first each one's header and last line, by loads that
// depend on no load before them, so that the misses of the window overlap;
// then their keys are hashed from the cache. On 3M scattered URL objects
// (bench/RESULTS.md) this took a sized Set from 10M keys/s (objects
// prefetched 64 ahead) to 15M. Objects made one after another lie in
// order, where the hardware fetches them ahead unasked: a window whose
// first and last objects lie that close is not read twice (the first pass
// cost 10% of a list of in-order str). Hashed: uint64_t (a filter's
// fingerprints) or Key84 (a set's keys).
template <class Hashed>
void hash_objects(PyObject* const* items, size_t begin, size_t end, const KeyHasher& hasher,
                  std::string& scratch, Hashed* out) {
  constexpr size_t kWindow = 128;                 // 32 to 256 ran alike
  constexpr uintptr_t kInOrderSpan = kWindow * 256;  // bytes: URL objects take about 100
  for (size_t from = begin; from < end; from += kWindow) {
    const size_t to = std::min(end, from + kWindow);
    const auto first = reinterpret_cast<uintptr_t>(items[from]);
    const auto last = reinterpret_cast<uintptr_t>(items[to - 1]);
    if ((last > first ? last - first : first - last) > kInOrderSpan) {
      unsigned touched = 0;
      for (size_t i = from; i < to; ++i) touched += byte_after_key(items[i]);
      asm volatile("" : : "r"(touched));  // the loads are made, their sum unused
    }
    for (size_t i = from; i < to; ++i) {
      nb::handle key(items[i]);
      const std::optional<std::string_view> view = single_key(key);
      if (!view) {
        throw nb::type_error(("key " + std::to_string(i) + " is a " + type_of(key) +
                              "; each key must be bytes or str").c_str());
      }
      out[i - begin] = record_key<Hashed>(hasher, *view, scratch, i);
    }
  }
}

// The objects of a list or tuple (PySequence_Fast's), read in place a chunk
// at a time with the GIL taken for the chunk. Between chunks other threads
// run and may change a list: it is read again each time, and refused if its
// length changed (the answers are one for each key of the list as given).
class ObjectPart : public HashedBy<ObjectPart> {
 public:
  explicit ObjectPart(nb::object sequence)
      : HashedBy(static_cast<uint64_t>(PySequence_Fast_GET_SIZE(sequence.ptr()))),
        sequence_(std::move(sequence)) {}

 private:
  friend HashedBy<ObjectPart>;
  template <class Hashed>
  void hash_each(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
                 Hashed* out) const {
    nb::gil_scoped_acquire gil;
    PyObject* sequence = sequence_.ptr();
    const auto n = static_cast<uint64_t>(PySequence_Fast_GET_SIZE(sequence));
    if (n != size()) {
      throw std::runtime_error(
          "the list of keys changed from " + std::to_string(size()) + " to " +
          std::to_string(n) + " keys during the call, on another thread; the keys before key " +
          std::to_string(begin) + " were answered. Pass a list no other thread changes, or a "
          "tuple");
    }
    hash_objects(PySequence_Fast_ITEMS(sequence), begin, begin + count, hasher, scratch, out);
  }

  nb::object sequence_;
};

// A list or tuple is read in place; any other iterable is made a list first.
void add_objects(nb::handle keys, KeyInput& input, const std::string& refuse_records,
                 const char* accepted) {
  PyObject* sequence = PySequence_Fast(keys.ptr(), "");
  if (sequence == nullptr) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      throw nb::type_error(("keys must be " + std::string(accepted) + ", not " +
                            type_of(keys)).c_str());
    }
    throw nb::python_error();
  }
  nb::object owner = nb::steal(sequence);
  if (!refuse_records.empty()) throw UsageError(refuse_records);
  input.add(std::make_unique<ObjectPart>(std::move(owner)));
  input.has_records = true;
}

// One key where many belong: refused, pointing to the single-key form.
void refuse_single(nb::handle keys) {
  if (single_key(keys)) {
    throw nb::type_error("expected many keys but got one bytes or str; pass a list of them, "
                         "or call the single-key form");
  }
}

// The dtype's kind when `keys` is an array of numbers (NumPy's kinds b, i,
// u, f, c, m, M), whatever its byte order, else 0.
char number_kind(nb::handle keys) {
  if (!nb::hasattr(keys, "dtype") || !nb::hasattr(keys.attr("dtype"), "kind")) return 0;
  const std::string kind = text_of(keys.attr("dtype").attr("kind"));
  if (kind.size() == 1 && std::string_view("biufcmM").find(kind[0]) != std::string_view::npos) {
    return kind[0];
  }
  return 0;
}

}  // namespace

template <class Hashed>
Hashed record_key(const KeyHasher& hasher, std::string_view record, std::string& scratch,
                  uint64_t index) {
  bool found = true;
  Hashed key;
  if constexpr (std::is_same_v<Hashed, Key84>) {
    key = hasher.key84(record, scratch, &found);
  } else {
    key = hasher(record, scratch, &found);
  }
  if (!found) {
    throw UsageError("key " + std::to_string(index) + " (counting from 0) has no key " +
                     hasher.key_text() + ": it lacks that value or is not one JSON value" +
                     (hasher.strict_json() ? "" : " as far as it was read") +
                     " (docs/KEYS.md); pass only records that have it, or run a job with "
                     "missing_key=\"keep\" or \"drop\"");
  }
  return key;
}

template uint64_t record_key<uint64_t>(const KeyHasher&, std::string_view, std::string&,
                                       uint64_t);
template Key84 record_key<Key84>(const KeyHasher&, std::string_view, std::string&, uint64_t);

void KeyInput::add(std::unique_ptr<KeyPart> part) {
  size += part->size();
  parts.push_back(std::move(part));
}

void check_in_operand(nb::handle key) {
  if (!single_key(key)) {
    throw nb::type_error(("`in` takes one key, bytes or str, not " +
                          std::string(nb::type_name(key.type()).c_str()) +
                          "; use contains() for many").c_str());
  }
}

std::optional<std::string_view> single_key(nb::handle key) {
  PyObject* o = key.ptr();
  if (PyBytes_Check(o)) {
    return std::string_view(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    // Cached in the str object: valid as long as it lives.
    const char* utf8 = PyUnicode_AsUTF8AndSize(o, &size);
    if (utf8 == nullptr) throw nb::python_error();  // a lone surrogate
    return std::string_view(utf8, static_cast<size_t>(size));
  }
  return std::nullopt;
}

KeyInput key_input(nb::handle keys, const std::string& refuse_records) {
  KeyInput input;
  refuse_single(keys);
  if (add_arrow(keys, input, kAcceptedKeys)) {
    if (!refuse_records.empty()) throw UsageError(refuse_records);
    return input;
  }
  if (add_array(keys, input)) return input;
  // A NumPy array of numbers that nanobind does not read (another byte
  // order, a date): its items are numbers, not keys, whatever the order.
  if (number_kind(keys) != 0) refuse_array(keys, "an array");
  if (add_numpy_text(keys, input)) {
    if (!refuse_records.empty()) throw UsageError(refuse_records);
    return input;
  }
  add_objects(keys, input, refuse_records, kAcceptedKeys);
  return input;
}

KeyInput key84_input(nb::handle keys) {
  KeyInput input;
  refuse_single(keys);
  if (add_arrow(keys, input, kAcceptedSetKeys)) return input;
  if (number_kind(keys) != 0) {
    std::string dtype = text_of(keys.attr("dtype"));
    throw nb::type_error(("a set takes keys, not an array of numbers (dtype " + dtype +
                          "): 64-bit fingerprints such as gdedup.fingerprint makes cannot serve "
                          "a set, which keeps 84 bits of each key's 128-bit hash (a set of a "
                          "billion keys would take two for one with a chance of about 1 in 37 from "
                          "64 bits); pass the keys themselves: " + kAcceptedSetKeys).c_str());
  }
  if (add_numpy_text(keys, input)) return input;
  add_objects(keys, input, "", kAcceptedSetKeys);
  return input;
}

}  // namespace gdedup::python
