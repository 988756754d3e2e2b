// JSON and CDXJ keys on JSONTestSuite's one-line parsing cases
// (tests/data/json_suite.txt): with strict_json, no document that every
// parser must reject gives a key, wherever it stands in the record, and
// every document that every parser must accept does; by default a record
// whose JSON is more than one value (two records glued on one line) has no
// key (docs/KEYS.md, "Records without their key").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "gdedup/key_extractor.h"
#include "gdedup/key_options.h"

namespace gdedup::keys {
namespace {

struct SuiteCase {
  bool accept;  // a y_ case; an n_ case otherwise
  std::string name;
  std::string json;
};

// The line's bytes: make_json_suite.py writes a backslash as \\ and every
// byte outside 0x20-0x7e as \xHH.
std::string unescaped(std::string_view text) {
  std::string bytes;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      bytes += text[i];
    } else if (text.at(i + 1) == '\\') {
      bytes += '\\';
      i += 1;
    } else {
      bytes += static_cast<char>(std::stoi(std::string(text.substr(i + 2, 2)), nullptr, 16));
      i += 3;
    }
  }
  return bytes;
}

std::vector<SuiteCase> suite() {
  const auto path = std::filesystem::path(GDEDUP_TEST_DATA_DIR) / "json_suite.txt";
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<SuiteCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t'), second = line.find('\t', tab + 1);
    cases.push_back({line[0] == 'y', line.substr(tab + 1, second - tab - 1),
                     unescaped(std::string_view(line).substr(second + 1))});
  }
  return cases;
}

// The key, or "(missing)".
std::string key_of(std::string_view spec, const std::string& record, bool strict) {
  const KeyExtractor extractor(KeyOptions::parse(spec), strict);
  std::string scratch;
  std::string_view key;
  if (!extractor.extract(record, scratch, key)) return "(missing)";
  return std::string(key);
}

// The document as a value before the key, after it, as an element of an
// array and in a CDXJ line: each record's key is "x" when the document is
// JSON.
struct Placed {
  const char* spec;
  std::string record;
};

std::vector<Placed> placed(const std::string& json) {
  return {{"json:k", "{\"v\":" + json + ",\"k\":\"x\"}"},
          {"json:k", "{\"k\":\"x\",\"v\":" + json + "}"},
          {"json:a.1", "{\"a\":[" + json + ",\"x\"]}"},
          {"cdxj:k", "s t {\"v\":" + json + ",\"k\":\"x\"}"}};
}

TEST(KeysJsonSuiteTest, TheSuiteIsWhole) {
  const std::vector<SuiteCase> cases = suite();
  size_t accept = 0;
  for (const SuiteCase& c : cases) accept += c.accept ? 1 : 0;
  EXPECT_EQ(cases.size() - accept, 182u);
  EXPECT_EQ(accept, 91u);
}

TEST(KeysJsonSuiteTest, StrictlyNoDocumentToRejectGivesAKey) {
  for (const SuiteCase& c : suite()) {
    if (c.accept) continue;
    for (const Placed& p : placed(c.json)) {
      EXPECT_EQ(key_of(p.spec, p.record, true), "(missing)") << c.name << ": " << p.record;
    }
    // Alone, under paths that reach into it where it parses as far as
    // them (by default n_array_double_comma.json, [1,,2], has the key 1
    // for json:0).
    for (const char* spec : {"json:0", "json:a", "json:0.0", "cdxj:0", "cdxj:a"}) {
      const std::string record = spec[0] == 'c' ? "s t " + c.json : c.json;
      EXPECT_EQ(key_of(spec, record, true), "(missing)") << c.name << ": " << spec;
    }
  }
}

TEST(KeysJsonSuiteTest, EveryDocumentToAcceptGivesItsKey) {
  for (const SuiteCase& c : suite()) {
    if (!c.accept) continue;
    for (const bool strict : {false, true}) {
      for (const Placed& p : placed(c.json)) {
        EXPECT_EQ(key_of(p.spec, p.record, strict), "x") << c.name << ": " << p.record;
      }
      // Alone, the key of its first element or of its member "a" is the
      // same read either way.
      for (const char* spec : {"json:0", "json:a"}) {
        EXPECT_EQ(key_of(spec, c.json, strict), key_of(spec, c.json, false)) << c.name;
      }
    }
  }
}

TEST(KeysJsonSuiteTest, StrictlyTheKeyOfAValueIsTheSame) {
  const std::string record =
      R"({"id":7,"v":{"b":[1,true,null,"x\u0001"],"a":{}},"url":"a\/b","n":1e999,)"
      R"("big":123456789012345678901234567890,"url":"second"})";
  for (const char* spec : {"json:id", "json:v", "json:v.b.3", "json:url", "json:n", "json:big"}) {
    EXPECT_EQ(key_of(spec, record, true), key_of(spec, record, false)) << spec;
    EXPECT_NE(key_of(spec, record, true), "(missing)") << spec;
  }
  EXPECT_EQ(key_of("json:url", record, true), "a/b");
}

// Two records glued on one line are not one record, whichever reading.
TEST(KeysJsonSuiteTest, GluedRecordsHaveNoKey) {
  for (const bool strict : {false, true}) {
    for (const Placed& p : std::vector<Placed>{
             {"json:url", R"({"url":"a"}{"url":"b"})"},
             {"json:url", R"({"url":"a"} {"url":"b"})"},
             {"json:url", R"({"url":"a"}[])"},
             {"json:url", R"({"url":"a"}{})"},
             {"json:url", R"({"url":"a"}"x"{})"},
             {"json:0.url", R"([{"url":"a"}][{"url":"b"}])"},
             {"json:url", R"({"url":"a","b":{}}})"},
             {"cdxj:url", R"(s t {"url":"a"}{"url":"b"})"}}) {
      EXPECT_EQ(key_of(p.spec, p.record, strict), "(missing)") << strict << ": " << p.record;
    }
  }
}

// A string followed by ':' where a ',' belongs is not a member's name,
// as simdjson's skipping of a value left unread takes it: then "x":"y"}
// was skipped as a member and a closing bracket, and the record's extra
// one closed it (found by fuzz_structured_key: its corpus's
// regress-string-before-colon). The DOM parser refuses these records, so
// that they are walked value by value.
TEST(KeysJsonSuiteTest, StrictlyAStringBeforeAColonIsNoName) {
  for (const char* record : {R"({"url":"a","v":"x":"y"}})", R"({"url":"a","v":{"w":"x":"y"}}})",
                             R"({"url":"a","n":1e999,"v":"x":"y"}})"}) {
    EXPECT_EQ(key_of("json:url", record, true), "(missing)") << record;
  }
  EXPECT_EQ(key_of("json:url", R"({"url":"a","v":"x","n":1e999})", true), "a");
}

// By default the values before the key are skipped by their brackets and
// quotes, not read: such a record keeps its key, as documented.
TEST(KeysJsonSuiteTest, ByDefaultValuesBeforeTheKeyAreSkipped) {
  const std::string record = R"({"x":tru,"url":"a","y":[1,,2]})";
  EXPECT_EQ(key_of("json:url", record, false), "a");
  EXPECT_EQ(key_of("json:url", record, true), "(missing)");
}

}  // namespace
}  // namespace gdedup::keys
