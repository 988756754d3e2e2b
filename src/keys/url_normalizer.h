// Applies NormalizeRules to one key.
#pragma once

#include <string>
#include <string_view>

#include "keys/host_port.h"
#include "gdedup/key_options.h"
#include "keys/percent.h"
#include "keys/query.h"

namespace gdedup::keys {

// A key is treated as a URL when it starts with "scheme://" (a letter, then
// letters, digits, '+', '-' or '.'). Other keys get only trim and lowercase.
// The rule scrapy reads every key as a URL, as w3lib does.
//
// The result is idempotent for every input: normalizing a normalized key
// changes nothing; the rule scrapy is w3lib's function, which is not always
// (docs/KEYS.md). One instance may be shared by threads: normalize() is const
// and its only buffers are the caller's scratch and thread_local ones.
class UrlNormalizer {
 public:
  explicit UrlNormalizer(const NormalizeRules& rules);

  // The normalized key: a view into `key` when the rules change nothing but
  // its ends, otherwise a view into `scratch`, valid until the next call with
  // the same scratch. Grows `scratch` to twice the key's size when it is
  // smaller, so a reused scratch stops allocating.
  std::string_view normalize(std::string_view key, std::string& scratch) const;

 private:
  std::string_view normalize_once(std::string_view key, std::string& scratch) const;
  void normalize_url(std::string_view url, size_t scheme_size, Out& out) const;

  NormalizeRules rules_;
  // lowercase needs the URL split as well, to spare escape digits.
  bool parse_urls_;
  PercentRules percent_;
  QueryRules query_;
};

}  // namespace gdedup::keys
