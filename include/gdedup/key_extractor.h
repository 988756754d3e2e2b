// Turns a record into the bytes that are hashed: the selected field, then
// normalized (docs/KEYS.md). The record itself is never changed.
//
//   KeyExtractor extractor(KeyOptions::parse("field:2", "tab", "url"));
//   std::string scratch;                        // one per thread, reused
//   std::string_view key = extractor.key(record, scratch);
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "gdedup/key_options.h"

namespace gdedup::keys {

class UrlNormalizer;

// Immutable: one extractor may be shared by threads, each with its own
// scratch.
class KeyExtractor {
 public:
  // Throws UsageError for a field key with field number 0. With
  // `strict_json`, a JSON or CDXJ key is taken only from a record whose JSON
  // is one value, all of it JSON (--strict-json; docs/KEYS.md).
  explicit KeyExtractor(const KeyOptions& options, bool strict_json = false);

  // The key of `record`. Without normalization, or when it changes nothing
  // but the field's ends, a view into `record`; otherwise a view into
  // `scratch`, valid until the next call with the same scratch (which is
  // grown as needed and may hold more bytes than the view). Keep one scratch
  // per thread and reuse it: then no call allocates once it has grown.
  std::string_view key(std::string_view record, std::string& scratch) const {
    std::string_view k;
    extract(record, scratch, k);
    return k;
  }

  // The same, saying whether the record has its key (--missing-key): false
  // (and `key` empty) for a JSON or CDXJ key the record lacks, a record
  // whose JSON is more than one value, or a record that is not JSON as far
  // as it is read (with strict_json, anywhere). Whole and field keys are
  // never missing. A structured key is always a view into `scratch`.
  bool extract(std::string_view record, std::string& scratch, std::string_view& key) const {
    if (structured_) return extract_structured(record, scratch, key);
    const std::string_view f = field(record);
    key = normalizer_ ? normalized(f, scratch) : f;
    return true;
  }

  // The selected field of a whole or field key, with no normalization. A
  // record with fewer fields than asked for gives the empty field, the same
  // as a present empty field: all such records share one key, so only the
  // first of them is kept. Structured keys: see extract().
  std::string_view field(std::string_view record) const {
    if (spec_.kind == KeySpec::Kind::kWhole) return record;
    const char* p = record.data();
    const char* const end = p + record.size();
    for (uint32_t i = 1; i < spec_.field; ++i) {
      if (p == end) return {};
      const void* d = std::memchr(p, delimiter_, static_cast<size_t>(end - p));
      if (d == nullptr) return {};
      p = static_cast<const char*>(d) + 1;
    }
    if (p == end) return {};
    const void* d = std::memchr(p, delimiter_, static_cast<size_t>(end - p));
    const char* const stop = d ? static_cast<const char*>(d) : end;
    return std::string_view(p, static_cast<size_t>(stop - p));
  }

  const KeySpec& spec() const { return spec_; }
  char delimiter() const { return delimiter_; }
  bool normalizes() const { return normalizer_ != nullptr; }
  bool strict_json() const { return strict_json_; }

 private:
  std::string_view normalized(std::string_view field, std::string& scratch) const;
  bool extract_structured(std::string_view record, std::string& scratch,
                          std::string_view& key) const;

  KeySpec spec_;
  char delimiter_;
  bool structured_;
  bool strict_json_;
  std::shared_ptr<const UrlNormalizer> normalizer_;  // null without rules
};

}  // namespace gdedup::keys
