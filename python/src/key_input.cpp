#include "key_input.h"

#include <cstring>

#include <nanobind/ndarray.h>

#include "arrow_keys.h"

namespace gdedup::python {
namespace {

std::string type_of(nb::handle object) {
  return nb::type_name(object.type()).c_str();
}

// A fingerprint array: read in place when contiguous, else copied into a
// buffer the input owns.
class OwnedFingerprintPart : public KeyPart {
 public:
  explicit OwnedFingerprintPart(std::vector<uint64_t> fingerprints)
      : KeyPart(fingerprints.size()), fingerprints_(std::move(fingerprints)) {}
  const uint64_t* fingerprints() const override { return fingerprints_.data(); }
  void hash(uint64_t, uint64_t, const KeyHasher&, std::string&, uint64_t*) const override {}

 private:
  std::vector<uint64_t> fingerprints_;
};

// True when `keys` is an array (NumPy, or anything with the buffer protocol
// or DLPack) with a dtype nanobind reads; then it must be 1-D uint64.
bool add_array(nb::handle keys, KeyInput& input) {
  nb::ndarray<nb::ro, nb::device::cpu> array;
  if (!nb::try_cast(keys, array, false)) return false;
  if (array.dtype() != nb::dtype<uint64_t>() || array.ndim() != 1) {
    throw nb::type_error(("an array of keys must be a 1-dimensional NumPy uint64 array of "
                          "fingerprints (gdedup.fingerprint makes them), not a " +
                          std::to_string(array.ndim()) + "-dimensional array of another dtype; "
                          "accepted: " + kAcceptedKeys).c_str());
  }
  const uint64_t n = array.shape(0);
  const auto* data = static_cast<const uint64_t*>(array.data());
  const int64_t stride = array.stride(0);
  if (stride == 1 || n <= 1) {
    input.add(std::make_unique<FingerprintPart>(data, n));
  } else {
    std::vector<uint64_t> copy(n);
    for (uint64_t i = 0; i < n; ++i) copy[i] = data[static_cast<int64_t>(i) * stride];
    input.add(std::make_unique<OwnedFingerprintPart>(std::move(copy)));
  }
  input.owners.push_back(nb::borrow(keys));
  return true;
}

void add_objects(nb::handle keys, KeyInput& input) {
  // A tuple of the keys: immutable, so no other thread can drop a key
  // while the engine reads it; a tuple given is used as it is.
  PyObject* tuple = PySequence_Tuple(keys.ptr());
  if (tuple == nullptr) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      throw nb::type_error(("keys must be " + std::string(kAcceptedKeys) + ", not " +
                            type_of(keys)).c_str());
    }
    throw nb::python_error();
  }
  nb::object owner = nb::steal(tuple);
  const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  std::vector<std::string_view> views(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::handle key(PyTuple_GET_ITEM(tuple, i));
    const std::optional<std::string_view> view = single_key(key);
    if (!view) {
      throw nb::type_error(("key " + std::to_string(i) + " is a " + type_of(key) +
                            "; each key must be bytes or str").c_str());
    }
    views[static_cast<size_t>(i)] = *view;
  }
  input.add(std::make_unique<ViewPart>(std::move(views)));
  input.has_records = true;
  input.owners.push_back(std::move(owner));
}

}  // namespace

void KeyInput::add(std::unique_ptr<KeyPart> part) {
  size += part->size();
  parts.push_back(std::move(part));
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

KeyInput key_input(nb::handle keys) {
  KeyInput input;
  if (single_key(keys)) {
    throw nb::type_error("expected many keys but got one bytes or str; pass a list of them, "
                         "or call the single-key form");
  }
  if (add_arrow(keys, input)) return input;
  if (add_array(keys, input)) return input;
  add_objects(keys, input);
  return input;
}

}  // namespace gdedup::python
