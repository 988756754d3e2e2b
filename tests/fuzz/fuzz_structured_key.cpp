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
// back to it.
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

Answer extract(std::string_view spec, std::string_view record) {
  const KeyExtractor extractor(gdedup::KeyOptions::parse(spec));
  std::string scratch;
  std::string_view key;
  const bool found = extractor.extract(record, scratch, key);
  FUZZ_CHECK(found || key.empty(), "a missing key is not empty for " + std::string(spec));
  return {found, std::string(key)};
}

void check_json(std::string_view path, std::string_view record) {
  const std::string spec = "json:" + std::string(path);
  const Answer a = extract(spec, record);
  const std::string context = spec + " on " + show(record);
  const Answer again = extract(spec, record);
  FUZZ_CHECK(again.found == a.found && again.key == a.key, "a second parse differs; " + context);
  if (a.found) {
    FUZZ_CHECK(simdjson::validate_utf8(a.key.data(), a.key.size()),
               "the key " + show(a.key) + " is not UTF-8; " + context);
  }
  const std::string wrapped = "{ \"w\" : " + std::string(record) + " }";
  const Answer w = extract("json:w." + std::string(path), wrapped);
  // One level deeper may pass the depth limit (1024).
  const bool deep = std::count(record.begin(), record.end(), '[') +
                        std::count(record.begin(), record.end(), '{') > 1000;
  if (a.found && !deep) {
    FUZZ_CHECK(w.found && w.key == a.key, "wrapped, the key is " + show(w.key) + " not " +
                                              show(a.key) + "; " + context);
  }
  const Answer cdxj = extract("cdxj:" + std::string(path), "s t " + std::string(record));
  FUZZ_CHECK(cdxj.found == a.found && cdxj.key == a.key,
             "as a CDXJ line's JSON the key is " + show(cdxj.key) + "; " + context);
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
