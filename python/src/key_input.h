// Keys handed over from Python: one bytes or str, a sequence or iterable of
// them, a NumPy array of uint64 fingerprints, or an Arrow array or stream
// of strings or binaries (arrow_keys.h). Taken while the GIL is held, read
// by the engine after it is released: the Python objects whose bytes are
// read stay referenced by the KeyInput, and no part is a view of a mutable
// object (a list is copied to a tuple first).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nanobind/nanobind.h>

#include "key_hasher.h"

namespace gdedup::python {

namespace nb = nanobind;

// A run of keys: records to hash, or fingerprints used as they are.
class KeyPart {
 public:
  explicit KeyPart(uint64_t size) : size_(size) {}
  virtual ~KeyPart() = default;
  uint64_t size() const { return size_; }
  // The part's fingerprints when it holds fingerprints, else null.
  virtual const uint64_t* fingerprints() const { return nullptr; }
  // out[i] = the fingerprint of record begin + i, for i < count. Called
  // only on parts without fingerprints().
  virtual void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
                    uint64_t* out) const = 0;

 private:
  uint64_t size_;
};

// Records at views whose bytes something else keeps alive.
class ViewPart : public KeyPart {
 public:
  explicit ViewPart(std::vector<std::string_view> views)
      : KeyPart(views.size()), views_(std::move(views)) {}
  void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
            uint64_t* out) const override {
    for (uint64_t i = 0; i < count; ++i) out[i] = hasher(views_[begin + i], scratch);
  }

 private:
  std::vector<std::string_view> views_;
};

// Fingerprints at a buffer something else keeps alive.
class FingerprintPart : public KeyPart {
 public:
  FingerprintPart(const uint64_t* fingerprints, uint64_t size)
      : KeyPart(size), fingerprints_(fingerprints) {}
  const uint64_t* fingerprints() const override { return fingerprints_; }
  void hash(uint64_t, uint64_t, const KeyHasher&, std::string&, uint64_t*) const override {}

 private:
  const uint64_t* fingerprints_;
};

struct KeyInput {
  std::vector<std::unique_ptr<KeyPart>> parts;
  uint64_t size = 0;
  // Whether some part holds records (which a filter of u64 fingerprints
  // cannot take).
  bool has_records = false;
  // What keeps the parts' bytes alive: the tuple of keys, the array, the
  // Arrow capsules. Dropped with the GIL held.
  std::vector<nb::object> owners;

  void add(std::unique_ptr<KeyPart> part);
};

// The accepted types, for TypeError messages.
inline constexpr const char* kAcceptedKeys =
    "bytes or str, a list, tuple or iterable of bytes or str, a NumPy uint64 array of "
    "fingerprints, or an Arrow string, binary, large_string, large_binary, string_view or "
    "binary_view array or chunked array";

// The key's bytes (str as UTF-8) when `key` is one bytes or str, else
// nullopt. The view lives as long as the object.
std::optional<std::string_view> single_key(nb::handle key);

// Many keys. Throws nb::type_error naming the accepted types, for the
// argument and for any element that is not bytes or str.
KeyInput key_input(nb::handle keys);

}  // namespace gdedup::python
