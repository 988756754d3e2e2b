// Keys handed over from Python: one bytes or str, a sequence or iterable of
// them, a NumPy array of uint64 fingerprints (for a filter), or an Arrow
// array or stream of strings or binaries (arrow_keys.h); hashed into 64-bit
// fingerprints for a filter or 84-bit keys for a set, by one KeyHasher.
// Taken while the GIL is held, read
// by the engine after it is released, a chunk at a time (for_each_chunk):
// what a part reads stays referenced by the KeyInput (the list, the array,
// the Arrow capsules), and Python objects are read only with the GIL taken
// again, so no other thread can change or free them under the engine.
#pragma once

#include <algorithm>
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
// without its JSON or CDXJ key, or (with the hasher's strict_json) not
// exactly one JSON value, is refused (UsageError naming it): a Filter or
// Set has no missing-key policy, its callers choose the records.
template <class Hashed>
Hashed record_key(const KeyHasher& hasher, std::string_view record, std::string& scratch,
                  uint64_t index);

// A run of keys: records to hash, or fingerprints already made, used as
// they are.
class KeyPart {
 public:
  explicit KeyPart(uint64_t size) : size_(size) {}
  virtual ~KeyPart() = default;
  uint64_t size() const { return size_; }
  // The part's fingerprints when it holds them, else null.
  virtual const uint64_t* fingerprints() const { return nullptr; }
  // out[i] = the fingerprint (or the set's key) of record begin + i, for
  // i < count. Called with the GIL released, only on parts that hold
  // records; a part of Python objects takes the GIL to read them.
  virtual void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
                    uint64_t* out) const = 0;
  virtual void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher,
                    std::string& scratch, Key84* out) const = 0;

 private:
  uint64_t size_;
};

// A part's two hash overrides, for fingerprints and for a set's keys, both
// by Part's template hash_each, on the part base Base (CRTP).
template <class Part, class Base = KeyPart>
class HashedBy : public Base {
 public:
  using Base::Base;
  void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
            uint64_t* out) const override {
    static_cast<const Part*>(this)->hash_each(begin, count, hasher, scratch, out);
  }
  void hash(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
            Key84* out) const override {
    static_cast<const Part*>(this)->hash_each(begin, count, hasher, scratch, out);
  }
};

// Fingerprints in a buffer something else keeps alive, or that the part
// owns (a copy of a strided array).
class FingerprintPart : public KeyPart {
 public:
  FingerprintPart(const uint64_t* fingerprints, uint64_t size)
      : KeyPart(size), fingerprints_(fingerprints) {}
  explicit FingerprintPart(std::vector<uint64_t> owned)
      : KeyPart(owned.size()), owned_(std::move(owned)), fingerprints_(owned_.data()) {}
  const uint64_t* fingerprints() const override { return fingerprints_; }
  void hash(uint64_t, uint64_t, const KeyHasher&, std::string&, uint64_t*) const override {}
  void hash(uint64_t, uint64_t, const KeyHasher&, std::string&, Key84*) const override {}

 private:
  std::vector<uint64_t> owned_;
  const uint64_t* fingerprints_;
};

struct KeyInput {
  std::vector<std::unique_ptr<KeyPart>> parts;
  uint64_t size = 0;
  // Whether some part holds records (which a filter of u64 fingerprints
  // cannot take).
  bool has_records = false;
  // What keeps the parts' bytes alive: the array, the Arrow capsules (a
  // part of Python objects holds its list). Dropped with the GIL held.
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

// Many keys, to be hashed by for_each_chunk (Python objects and Arrow
// arrays alike). `refuse_records`, when not empty, is the message of the
// UsageError thrown for keys that are records rather than fingerprints.
// Throws nb::type_error naming the accepted types for the argument; an
// element that is not bytes or str is refused when its chunk is hashed.
KeyInput key_input(nb::handle keys, const std::string& refuse_records);

// Many keys for a set, as key_input takes them for a filter. Arrays of
// numbers are refused (nb::type_error): a set keeps 84 bits of each key's
// XXH3-128, which 64-bit fingerprints cannot give.
KeyInput key84_input(nb::handle keys);

// Calls run(keys, count, at) on the keys of `input` in order, `at` the
// place of keys[0] in the input: a part's fingerprints as they are, whole;
// records hashed by `hasher` (Hashed: uint64_t fingerprints for a filter,
// Key84 for a set) into `buffer`, `chunk_keys` at a time at most. The
// buffer is the caller's, so that it serves call after call: a chunk that
// fits in the cache is hashed and answered before the next is read, with no
// memory the size of the input beside it. Called with the GIL released: a
// part of Python objects takes it while it hashes a chunk, so other
// threads run while `run` does.
template <class Hashed, class Run>
void for_each_chunk(const KeyInput& input, const KeyHasher& hasher, uint64_t chunk_keys,
                    std::vector<Hashed>& buffer, std::string& scratch, Run&& run) {
  uint64_t at = 0;
  for (const auto& part : input.parts) {
    const uint64_t size = part->size();
    if constexpr (std::is_same_v<Hashed, uint64_t>) {
      if (const uint64_t* given = part->fingerprints()) {
        run(given, size, at);
        at += size;
        continue;
      }
    }
    if (buffer.size() < std::min(size, chunk_keys)) buffer.resize(std::min(size, chunk_keys));
    for (uint64_t begin = 0; begin < size; begin += chunk_keys) {
      const uint64_t count = std::min(chunk_keys, size - begin);
      part->hash(begin, count, hasher, scratch, buffer.data());
      run(static_cast<const Hashed*>(buffer.data()), count, at + begin);
    }
    at += size;
  }
}

}  // namespace gdedup::python
