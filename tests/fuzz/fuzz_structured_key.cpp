// JSON and CDXJ keys (--key json:PATH, cdxj:...; docs/KEYS.md).
//
// Input: a mode byte, then the record (or, for mode 7, a key spec's text).
//   mode 0-5: json:PATH with one of kPaths, on the record;
//   mode 6: cdxj:surt and cdxj:timestamp, on the record;
//   mode 7: the text given to parse_key_spec.
//
// Properties: extraction never fails other than by saying the key is
// missing, and gives the same answer twice (the thread's parser is reused);
// a JSON key is valid UTF-8; the record wrapped as the value of a member
// ({"w": RECORD }, path w.PATH) has the same key where it had one (unless
// nested near the depth limit); a CDXJ line "s t RECORD" has the
// record's JSON key under cdxj:PATH; the SURT and timestamp are the line's
// first two space-free fields. A spec that parses prints a text that parses
// back to it. Read strictly, a record has its key exactly when it has one
// by default and is one JSON value by an independent reading of RFC 8259
// (with the engine's limits: UTF-8, no lone surrogate escape, nothing
// nested deeper than 1024), and then the same key, which it keeps wrapped;
// in a CDXJ line it has the same answer.
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "gdedup/error.h"
#include "gdedup/key_extractor.h"
#include "gdedup/key_options.h"

namespace {

using gdedup::fuzz::show;
using namespace gdedup::keys;

const char* const kPaths[] = {"url", "a.b", "a.0", "0", "u\\.rl", "a.b.c.0.d"};

struct Answer {
  bool found;
  std::string key;
};

Answer extract(std::string_view spec, std::string_view record, bool strict = false) {
  const KeyExtractor extractor(gdedup::KeyOptions::parse(spec), strict);
  std::string scratch;
  std::string_view key;
  const bool found = extractor.extract(record, scratch, key);
  FUZZ_CHECK(found || key.empty(), "a missing key is not empty for " + std::string(spec));
  return {found, std::string(key)};
}

// RFC 8259's grammar of a JSON text, read by recursive descent, with the
// limits the engine keeps (docs/KEYS.md): no escape of a lone surrogate,
// no value nested more than 1024 deep. UTF-8 is checked apart.
class JsonGrammar {
 public:
  explicit JsonGrammar(std::string_view text) : t_(text) {}

  bool one_value() {
    space();
    if (!value(0)) return false;
    space();
    return i_ == t_.size();
  }

 private:
  bool value(int depth) {
    if (depth > 1024 || i_ == t_.size()) return false;
    switch (t_[i_]) {
      case '{': return items('}', depth);
      case '[': return items(']', depth);
      case '"': return string();
      case 't': return word("true");
      case 'f': return word("false");
      case 'n': return word("null");
      default: return number();
    }
  }
  // An object's members or an array's elements, up to `close`.
  bool items(char close, int depth) {
    ++i_;
    space();
    if (eat(close)) return true;
    do {
      space();
      if (close == '}') {  // a member: its name first
        if (!string()) return false;
        space();
        if (!eat(':')) return false;
        space();
      }
      if (!value(depth + 1)) return false;
      space();
    } while (eat(','));
    return eat(close);
  }
  bool string() {
    if (!eat('"')) return false;
    while (i_ < t_.size()) {
      const auto c = static_cast<unsigned char>(t_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (i_ == t_.size()) return false;
      const char e = t_[i_++];
      if (e == 'u') {
        unsigned u = 0, low = 0;
        if (!hex4(u) || (u >= 0xdc00 && u <= 0xdfff)) return false;
        if (u >= 0xd800 && u <= 0xdbff &&
            !(eat('\\') && eat('u') && hex4(low) && low >= 0xdc00 && low <= 0xdfff)) {
          return false;
        }
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return false;
      }
    }
    return false;
  }
  bool number() {
    eat('-');
    if (!eat('0') && !digits()) return false;
    if (eat('.') && !digits()) return false;
    if (eat('e') || eat('E')) {
      if (!eat('+')) eat('-');
      if (!digits()) return false;
    }
    return true;
  }
  bool digits() {
    const size_t from = i_;
    while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
    return i_ > from;
  }
  bool hex4(unsigned& u) {
    for (int k = 0; k < 4; ++k, ++i_) {
      if (i_ == t_.size()) return false;
      const char c = t_[i_];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return false;
      u = u * 16 + static_cast<unsigned>(d);
    }
    return true;
  }
  bool word(std::string_view w) {
    if (t_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  bool eat(char c) {
    if (i_ == t_.size() || t_[i_] != c) return false;
    ++i_;
    return true;
  }
  void space() {
    while (i_ < t_.size() && std::string_view(" \t\n\r").find(t_[i_]) != std::string_view::npos) {
      ++i_;
    }
  }

  std::string_view t_;
  size_t i_ = 0;
};

bool is_json_text(std::string_view record) {
  return simdjson::validate_utf8(record.data(), record.size()) && JsonGrammar(record).one_value();
}

// The key of `record` under json:PATH, read by default or strictly, with
// the properties both readings keep.
Answer checked_key(std::string_view path, std::string_view record, bool strict) {
  const std::string spec = "json:" + std::string(path);
  const Answer a = extract(spec, record, strict);
  const std::string context = spec + (strict ? " strictly" : "") + " on " + show(record);
  const Answer again = extract(spec, record, strict);
  FUZZ_CHECK(again.found == a.found && again.key == a.key, "a second parse differs; " + context);
  if (a.found) {
    FUZZ_CHECK(simdjson::validate_utf8(a.key.data(), a.key.size()),
               "the key " + show(a.key) + " is not UTF-8; " + context);
  }
  const std::string wrapped = "{ \"w\" : " + std::string(record) + " }";
  const Answer w = extract("json:w." + std::string(path), wrapped, strict);
  // One level deeper may pass the depth limit (1024).
  const bool deep = std::count(record.begin(), record.end(), '[') +
                        std::count(record.begin(), record.end(), '{') > 1000;
  if (a.found && !deep) {
    FUZZ_CHECK(w.found && w.key == a.key, "wrapped, the key is " + show(w.key) + " not " +
                                              show(a.key) + "; " + context);
  }
  const Answer cdxj = extract("cdxj:" + std::string(path), "s t " + std::string(record), strict);
  FUZZ_CHECK(cdxj.found == a.found && cdxj.key == a.key,
             "as a CDXJ line's JSON the key is " + show(cdxj.key) + "; " + context);
  return a;
}

void check_json(std::string_view path, std::string_view record) {
  const Answer by_default = checked_key(path, record, false);
  const Answer strict = checked_key(path, record, true);
  const std::string context = "json:" + std::string(path) + " on " + show(record);
  FUZZ_CHECK(strict.found == (by_default.found && is_json_text(record)),
             std::string(strict.found ? "a key" : "no key") + " strictly; " + context);
  if (strict.found) {
    FUZZ_CHECK(strict.key == by_default.key,
               "strictly the key is " + show(strict.key) + "; " + context);
  }
}

void check_cdxj_fields(std::string_view line) {
  const Answer surt = extract("cdxj:surt", line);
  const Answer stamp = extract("cdxj:timestamp", line);
  const size_t first = line.find(' ');
  const size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  const bool whole = first != std::string_view::npos && first > 0 &&
                     second != std::string_view::npos && second > first + 1;
  FUZZ_CHECK(surt.found == whole && stamp.found == whole, "found differs on " + show(line));
  if (whole) {
    FUZZ_CHECK(surt.key == line.substr(0, first), "surt " + show(surt.key) + " of " + show(line));
    FUZZ_CHECK(stamp.key == line.substr(first + 1, second - first - 1),
               "timestamp " + show(stamp.key) + " of " + show(line));
  }
}

void check_spec(std::string_view text) {
  try {
    const KeySpec spec = parse_key_spec(text);
    const std::string printed = spec.to_string();
    FUZZ_CHECK(parse_key_spec(printed) == spec && parse_key_spec(printed).to_string() == printed,
               "the spec " + show(text) + " prints as " + show(printed) +
                   ", which does not read back");
  } catch (const gdedup::UsageError& e) {
    FUZZ_CHECK(std::string(e.what()).rfind("the key \"", 0) == 0, e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const uint8_t mode = in.byte() % 8;
  const std::string_view rest = in.rest();
  if (mode < 6) {
    check_json(kPaths[mode], rest);
  } else if (mode == 6) {
    check_cdxj_fields(rest);
  } else {
    check_spec(rest);
  }
  return 0;
}
