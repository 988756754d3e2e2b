// Keys handed over from Python: one bytes or str, a sequence or iterable of
// them, a NumPy array of uint64 fingerprints (for a filter), or an Arrow
// array or stream of strings or binaries (arrow_keys.h); hashed into 64-bit
// fingerprints for a filter or 84-bit keys for a set, by one KeyHasher.
// Taken while the GIL is held, read
// by the engine after it is released: what a part reads stays referenced
// by the KeyInput (the array, the Arrow capsules), and Python objects are
// hashed before the GIL is released, so no other thread can change or free
// them under the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nanobind/nanobind.h>

#include "gdedup/key_hasher.h"
#include "gdedup/key_set.h"

namespace gdedup::python {

using keys::KeyHasher;

namespace nb = nanobind;

// The key of `record`, the `index`-th of a call (from 0), as `Hashed`: its
// 64-bit fingerprint (a filter's) or its 84 bits (a set's). A record
// without its JSON or CDXJ key is refused (UsageError naming it): a Filter
// or Set has no missing-key policy, its callers choose the records.
template <class Hashed>
Hashed record_key(const KeyHasher& hasher, std::string_view record, std::string& scratch,
                  uint64_t index);

// A run of keys: records to hash, or keys already hashed, used as they are.
class KeyPart {
 public:
  explicit KeyPart(uint64_t size) : size_(size) {}
  virtual ~KeyPart() = default;
  uint64_t size() const { return size_; }
  // The part's fingerprints (keys84) when it holds them, else null.
  virtual const uint64_t* fingerprints() const { return nullptr; }
  virtual const Key84* keys84() const { return nullptr; }
  // out[i] = the fingerprint (key84) of record begin + i, for i < count.
  // Called only on parts that hold records.
  virtual void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
                    uint64_t* out) const = 0;
  virtual void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher,
                    std::string& scratch, Key84* out) const = 0;

 private:
  uint64_t size_;
};

// Hashed keys (uint64_t fingerprints or Key84) in a buffer something else
// keeps alive, or that the part owns (a copy of a strided array, the hashes
// of Python objects).
template <class Hashed>
class HashedPart : public KeyPart {
 public:
  HashedPart(const Hashed* keys, uint64_t size) : KeyPart(size), keys_(keys) {}
  explicit HashedPart(std::vector<Hashed> owned)
      : KeyPart(owned.size()), owned_(std::move(owned)), keys_(owned_.data()) {}
  const uint64_t* fingerprints() const override {
    if constexpr (std::is_same_v<Hashed, uint64_t>) return keys_;
    return nullptr;
  }
  const Key84* keys84() const override {
    if constexpr (std::is_same_v<Hashed, Key84>) return keys_;
    return nullptr;
  }
  void hash(uint64_t, uint64_t, const KeyHasher&, std::string&, uint64_t*) const override {}
  void hash(uint64_t, uint64_t, const KeyHasher&, std::string&, Key84*) const override {}

 private:
  std::vector<Hashed> owned_;
  const Hashed* keys_;
};

using FingerprintPart = HashedPart<uint64_t>;
using Key84Part = HashedPart<Key84>;

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

// The accepted types, for TypeError messages: a filter's, and a set's
// (which takes no fingerprints).
inline constexpr const char* kAcceptedKeys =
    "bytes or str, a list, tuple or iterable of bytes or str, a NumPy uint64 array of "
    "fingerprints, or an Arrow string, binary, large_string, large_binary, string_view or "
    "binary_view array or chunked array";
inline constexpr const char* kAcceptedSetKeys =
    "bytes or str, a list, tuple or iterable of bytes or str (a NumPy array of bytes or str "
    "too), or an Arrow string, binary, large_string, large_binary, string_view or "
    "binary_view array or chunked array";

// The key's bytes (str as UTF-8) when `key` is one bytes or str, else
// nullopt. The view lives as long as the object.
std::optional<std::string_view> single_key(nb::handle key);

// The key of `key in filter` (or set): one bytes or str, else TypeError
// pointing to contains() for many.
void check_in_operand(nb::handle key);

// Many keys. Python objects (bytes, str) are hashed here by `hasher`, with
// the GIL held (they can only be read with it), into fingerprints; Arrow
// arrays are hashed later, without it. `refuse_records`, when not empty, is
// the message of the UsageError thrown for keys that are records rather
// than fingerprints. Throws nb::type_error naming the accepted types, for
// the argument and for any element that is not bytes or str.
KeyInput key_input(nb::handle keys, const KeyHasher& hasher, const std::string& refuse_records);

// Many keys for a set, as key_input takes them for a filter, into Key84
// (Python objects hashed here, Arrow arrays later). Arrays of numbers are
// refused (nb::type_error): a set keeps 84 bits of each key's XXH3-128,
// which 64-bit fingerprints cannot give.
KeyInput key84_input(nb::handle keys, const KeyHasher& hasher);

}  // namespace gdedup::python
