#include "arrow_keys.h"

#include <cstring>
#include <string>

#include "arrow_c.h"
#include "gdedup/error.h"

namespace gdedup::python {
namespace {

// An ArrowArray moved out of its capsule or stream: this part releases it.
class ArrowPart : public KeyPart {
 public:
  explicit ArrowPart(ArrowArray* array) : KeyPart(static_cast<uint64_t>(array->length)) {
    array_ = *array;
    array->release = nullptr;  // moved: the producer's copy no longer owns it
  }
  ~ArrowPart() override {
    if (array_.release != nullptr) array_.release(&array_);
  }
  ArrowPart(const ArrowPart&) = delete;
  ArrowPart& operator=(const ArrowPart&) = delete;

 protected:
  const void* buffer(int64_t i) const { return array_.buffers[i]; }
  int64_t offset() const { return array_.offset; }

 private:
  ArrowArray array_;
};

// string / binary (int32 offsets) and large_string / large_binary (int64).
template <class Offset>
class ArrowOffsetPart : public HashedBy<ArrowOffsetPart<Offset>, ArrowPart> {
 public:
  explicit ArrowOffsetPart(ArrowArray* array) : HashedBy<ArrowOffsetPart, ArrowPart>(array) {
    offsets_ = static_cast<const Offset*>(this->buffer(1)) + this->offset();
    data_ = static_cast<const char*>(this->buffer(2));
  }

 private:
  friend HashedBy<ArrowOffsetPart, ArrowPart>;
  template <class Hashed>
  void hash_each(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
                 Hashed* out) const {
    const Offset* o = offsets_ + begin;
    for (uint64_t i = 0; i < count; ++i) {
      const Offset start = o[i], end = o[i + 1];
      out[i] = record_key<Hashed>(
          hasher, std::string_view(data_ + start, static_cast<size_t>(end - start)), scratch,
          begin + i);
    }
  }

  const Offset* offsets_;
  const char* data_;
};

// string_view / binary_view: 16-byte views, short values inline, long ones
// in the data buffers after the views.
class ArrowViewPart : public HashedBy<ArrowViewPart, ArrowPart> {
 public:
  explicit ArrowViewPart(ArrowArray* array) : HashedBy(array) {
    views_ = static_cast<const char*>(buffer(1)) + 16 * offset();
    data_ = reinterpret_cast<const char* const*>(array->buffers) + 2;
  }
 private:
  friend HashedBy<ArrowViewPart, ArrowPart>;
  template <class Hashed>
  void hash_each(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
                 Hashed* out) const {
    for (uint64_t i = 0; i < count; ++i) {
      const char* view = views_ + 16 * (begin + i);
      int32_t length, index, at;
      std::memcpy(&length, view, 4);
      const char* bytes = view + 4;
      if (length > 12) {
        std::memcpy(&index, view + 8, 4);
        std::memcpy(&at, view + 12, 4);
        bytes = data_[index] + at;
      }
      out[i] = record_key<Hashed>(hasher, std::string_view(bytes, static_cast<size_t>(length)),
                                  scratch, begin + i);
    }
  }

  const char* views_;
  const char* const* data_;  // the array's buffers from the first data buffer
};

std::string format_name(const std::string& format) {
  if (format == "u") return "string";
  if (format == "z") return "binary";
  if (format == "U") return "large_string";
  if (format == "Z") return "large_binary";
  if (format == "vu") return "string_view";
  if (format == "vz") return "binary_view";
  return "format \"" + format + "\"";
}

bool bit_set(const void* bitmap, int64_t i) {
  return (static_cast<const uint8_t*>(bitmap)[i >> 3] >> (i & 7)) & 1;
}

int64_t nulls(const ArrowArray& array) {
  if (array.null_count >= 0 || array.buffers[0] == nullptr) {
    return array.buffers[0] == nullptr ? 0 : array.null_count;
  }
  int64_t count = 0;
  for (int64_t i = 0; i < array.length; ++i) count += !bit_set(array.buffers[0], array.offset + i);
  return count;
}

// The part for one array of `schema`'s type; the array is moved into it.
std::unique_ptr<KeyPart> part_for(const ArrowSchema& schema, ArrowArray* array,
                                  const char* accepted) {
  const std::string format = schema.format != nullptr ? schema.format : "";
  if (schema.dictionary != nullptr) {
    throw nb::type_error(("an Arrow dictionary-encoded array of " +
                          format_name(schema.dictionary->format) +
                          " holds indices, not keys; decode it first (pyarrow: "
                          "array.dictionary_decode(); polars: .cast(pl.String))").c_str());
  }
  const bool offsets32 = format == "u" || format == "z";
  const bool offsets64 = format == "U" || format == "Z";
  const bool views = format == "vu" || format == "vz";
  if (!offsets32 && !offsets64 && !views) {
    throw nb::type_error(("an Arrow array of " + format_name(format) +
                          " holds no keys; accepted: " + accepted).c_str());
  }
  if (const int64_t n = nulls(*array); n > 0) {
    throw UsageError("the Arrow array of " + std::to_string(array->length) + " keys holds " +
                     std::to_string(n) + " nulls, which have no key; drop them first "
                     "(pyarrow.compute.drop_null, polars .drop_nulls(), pandas .dropna())");
  }
  if (array->length == 0) {
    array->release(array);
    array->release = nullptr;
    return nullptr;
  }
  if (offsets32) return std::make_unique<ArrowOffsetPart<int32_t>>(array);
  if (offsets64) return std::make_unique<ArrowOffsetPart<int64_t>>(array);
  return std::make_unique<ArrowViewPart>(array);
}

template <class T>
T* capsule_pointer(nb::handle capsule, const char* name) {
  void* p = PyCapsule_GetPointer(capsule.ptr(), name);
  if (p == nullptr) throw nb::python_error();
  return static_cast<T*>(p);
}

void add_part(std::unique_ptr<KeyPart> part, KeyInput& input) {
  if (part) input.add(std::move(part));
}

// An Array through __arrow_c_array__: (schema capsule, array capsule).
void add_array(nb::handle keys, KeyInput& input, const char* accepted) {
  nb::object pair = keys.attr("__arrow_c_array__")();
  if (!nb::isinstance<nb::tuple>(pair) || nb::len(pair) != 2) {
    throw nb::type_error("__arrow_c_array__() did not return a (schema, array) pair of capsules");
  }
  nb::handle schema_capsule = pair[0], array_capsule = pair[1];
  const auto* schema = capsule_pointer<ArrowSchema>(schema_capsule, "arrow_schema");
  auto* array = capsule_pointer<ArrowArray>(array_capsule, "arrow_array");
  add_part(part_for(*schema, array, accepted), input);
  input.owners.push_back(std::move(pair));
}

// The stream's schema, released by its destructor.
struct OwnedSchema {
  ArrowSchema schema{};
  ~OwnedSchema() {
    if (schema.release != nullptr) schema.release(&schema);
  }
};

[[noreturn]] void stream_failed(ArrowArrayStream* stream, int code, const char* what) {
  const char* reason = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
  throw Error(std::string("the Arrow stream failed while ") + what + ": " +
              (reason != nullptr ? reason : std::strerror(code)));
}

// A ChunkedArray or column through __arrow_c_stream__: one part per chunk.
void add_stream(nb::handle keys, KeyInput& input, const char* accepted) {
  nb::object capsule = keys.attr("__arrow_c_stream__")();
  auto* stream = capsule_pointer<ArrowArrayStream>(capsule, "arrow_array_stream");
  OwnedSchema owned;
  if (const int code = stream->get_schema(stream, &owned.schema); code != 0) {
    stream_failed(stream, code, "giving its schema");
  }
  for (;;) {
    ArrowArray array{};
    if (const int code = stream->get_next(stream, &array); code != 0) {
      stream_failed(stream, code, "giving its next array");
    }
    if (array.release == nullptr) break;  // the end of the stream
    try {
      add_part(part_for(owned.schema, &array, accepted), input);
    } catch (...) {
      if (array.release != nullptr) array.release(&array);
      throw;
    }
  }
  input.owners.push_back(std::move(capsule));
}

}  // namespace

bool add_arrow(nb::handle keys, KeyInput& input, const char* accepted) {
  if (nb::hasattr(keys, "__arrow_c_array__")) {
    add_array(keys, input, accepted);
  } else if (nb::hasattr(keys, "__arrow_c_stream__")) {
    add_stream(keys, input, accepted);
  } else {
    return false;
  }
  input.has_records = true;
  return true;
}

}  // namespace gdedup::python
