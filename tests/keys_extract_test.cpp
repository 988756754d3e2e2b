// Key selection: --key and --delimiter parsing, field extraction, and the
// zero-copy contract of KeyExtractor::key.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/key_extractor.h"
#include "gdedup/key_options.h"

namespace gdedup::keys {
namespace {

using namespace std::string_view_literals;

std::string message_of_key_spec(std::string_view text) {
  try {
    parse_key_spec(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string message_of_delimiter(std::string_view text) {
  try {
    parse_delimiter(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string_view field(std::string_view spec, std::string_view record, char delimiter = '\t') {
  thread_local std::string scratch;
  const KeyExtractor extractor(KeyOptions{parse_key_spec(spec), delimiter, NormalizeRules{}});
  return extractor.key(record, scratch);
}

TEST(KeysSpecTest, WholeAndLine) {
  EXPECT_EQ(parse_key_spec("whole").kind, KeySpec::Kind::kWhole);
  EXPECT_EQ(parse_key_spec("line").kind, KeySpec::Kind::kWhole);
}

TEST(KeysSpecTest, FieldNumbers) {
  EXPECT_EQ(parse_key_spec("field:1").kind, KeySpec::Kind::kField);
  EXPECT_EQ(parse_key_spec("field:1").field, 1u);
  EXPECT_EQ(parse_key_spec("field:3").field, 3u);
  EXPECT_EQ(parse_key_spec("field:007").field, 7u);
  EXPECT_EQ(parse_key_spec("field:4294967295").field, 4294967295u);
}

TEST(KeysSpecTest, BadSpecsNameTheValueAndTheForms) {
  const std::string forms =
      "use \"whole\" (or \"line\") for the whole record, \"field:N\" with N from 1 "
      "to 4294967295 for the N-th field, \"json:PATH\" for a value of a JSON record "
      "(PATH such as url, meta.source.url or links.0), \"cdxj:PATH\" for one of a CDXJ line's "
      "JSON, \"cdxj:surt\" or \"cdxj:timestamp\" for a CDXJ line's first two fields, or "
      "\"column:NAME\" for a column of Parquet input (NAME such as url or meta.url).";
  EXPECT_EQ(message_of_key_spec("field:0"),
            "the key \"field:0\" is not valid: field numbers start at 1; " + forms);
  EXPECT_EQ(message_of_key_spec("field:x"),
            "the key \"field:x\" is not valid: the field number is not a whole number; " + forms);
  EXPECT_EQ(message_of_key_spec("field:-1"),
            "the key \"field:-1\" is not valid: the field number is not a whole number; " + forms);
  EXPECT_EQ(message_of_key_spec("foo"),
            "the key \"foo\" is not valid: it is not a known form; " + forms);
  EXPECT_EQ(message_of_key_spec("field:"),
            "the key \"field:\" is not valid: the field number is missing; " + forms);
  EXPECT_EQ(message_of_key_spec("field:4294967296"),
            "the key \"field:4294967296\" is not valid: the field number is too large; " + forms);
  EXPECT_EQ(message_of_key_spec(""), "the key \"\" is not valid: it is not a known form; " + forms);
  EXPECT_NE(message_of_key_spec("field: 2").find("not a whole number"), std::string::npos);
  EXPECT_NE(message_of_key_spec("field:+2").find("not a whole number"), std::string::npos);
  EXPECT_NE(message_of_key_spec("Whole").find("not a known form"), std::string::npos);
  EXPECT_NE(message_of_key_spec("3").find("not a known form"), std::string::npos);
}

TEST(KeysDelimiterTest, LiteralsNamesAndEscapes) {
  EXPECT_EQ(parse_delimiter(","), ',');
  EXPECT_EQ(parse_delimiter("|"), '|');
  EXPECT_EQ(parse_delimiter("\t"), '\t');
  EXPECT_EQ(parse_delimiter("\\t"), '\t');
  EXPECT_EQ(parse_delimiter("tab"), '\t');
  EXPECT_EQ(parse_delimiter("comma"), ',');
  EXPECT_EQ(parse_delimiter("space"), ' ');
  EXPECT_EQ(parse_delimiter("pipe"), '|');
  // A newline separates fields of NUL-separated records (-z).
  EXPECT_EQ(parse_delimiter("\\x0a"), '\n');
  EXPECT_EQ(parse_delimiter("semicolon"), ';');
  EXPECT_EQ(parse_delimiter("colon"), ':');
  EXPECT_EQ(parse_delimiter("\\\\"), '\\');
  EXPECT_EQ(parse_delimiter("\\x1f"), '\x1f');
  EXPECT_EQ(parse_delimiter("\\x1F"), '\x1f');
  EXPECT_EQ(parse_delimiter("\\x00"), '\0');
  EXPECT_EQ(parse_delimiter("\\"), '\\');
}

TEST(KeysDelimiterTest, BadDelimitersNameTheValue) {
  const std::string forms =
      "give one byte literally (for example \",\"), by name (tab, comma, space, pipe, "
      "semicolon, colon) or as an escape (\\t, \\\\, \\xHH).";
  EXPECT_EQ(message_of_delimiter("ab"),
            "the delimiter \"ab\" is not valid: it is 2 bytes long and a delimiter is a "
            "single byte; " + forms);
  EXPECT_EQ(message_of_delimiter(""), "the delimiter \"\" is not valid: it is empty; " + forms);
  EXPECT_EQ(message_of_delimiter("\\n"),
            "the delimiter \"\\n\" is not valid: it is not a known escape; " + forms);
  EXPECT_EQ(message_of_delimiter("\\xZZ"),
            "the delimiter \"\\xZZ\" is not valid: it is not a known escape; " + forms);
  // A two-byte UTF-8 character is not one byte.
  EXPECT_NE(message_of_delimiter("\xc2\xa7").find("2 bytes long"), std::string::npos);
}

TEST(KeysFieldTest, WholeRecord) {
  EXPECT_EQ(field("whole", "a\tb\tc"), "a\tb\tc");
  EXPECT_EQ(field("line", ""), "");
}

TEST(KeysFieldTest, FirstMiddleLast) {
  EXPECT_EQ(field("field:1", "a\tbb\tccc"), "a");
  EXPECT_EQ(field("field:2", "a\tbb\tccc"), "bb");
  EXPECT_EQ(field("field:3", "a\tbb\tccc"), "ccc");
}

TEST(KeysFieldTest, SingleFieldRecord) {
  EXPECT_EQ(field("field:1", "http://example.com/"), "http://example.com/");
  EXPECT_EQ(field("field:2", "http://example.com/"), "");
}

TEST(KeysFieldTest, MissingFieldIsEmpty) {
  EXPECT_EQ(field("field:4", "a\tb\tc"), "");
  EXPECT_EQ(field("field:100", "a\tb\tc"), "");
  EXPECT_EQ(field("field:4294967295", "a\tb\tc"), "");
  EXPECT_EQ(field("field:1", ""), "");
  EXPECT_EQ(field("field:2", ""), "");
}

TEST(KeysFieldTest, EmptyFields) {
  EXPECT_EQ(field("field:2", "a\t\tc"), "");
  EXPECT_EQ(field("field:3", "a\t\tc"), "c");
  EXPECT_EQ(field("field:1", "\t\t"), "");
  EXPECT_EQ(field("field:2", "\t\t"), "");
  EXPECT_EQ(field("field:3", "\t\t"), "");
  EXPECT_EQ(field("field:4", "\t\t"), "");
}

TEST(KeysFieldTest, DelimiterAtEnds) {
  EXPECT_EQ(field("field:1", "\ta\tb"), "");
  EXPECT_EQ(field("field:2", "\ta\tb"), "a");
  EXPECT_EQ(field("field:3", "\ta\tb"), "b");
  EXPECT_EQ(field("field:2", "a\tb\t"), "b");
  EXPECT_EQ(field("field:3", "a\tb\t"), "");
}

TEST(KeysFieldTest, OtherDelimiters) {
  EXPECT_EQ(field("field:2", "1,http://a/,x", ','), "http://a/");
  EXPECT_EQ(field("field:2", "1|b|c", '|'), "b");
  EXPECT_EQ(field("field:3", "x y  z", ' '), "");
  EXPECT_EQ(field("field:4", "x y  z", ' '), "z");
  // Tabs are ordinary bytes when the delimiter is something else.
  EXPECT_EQ(field("field:1", "a\tb,c", ','), "a\tb");
  EXPECT_EQ(field("field:2", "a\0b\0c"sv, '\0'), "b");
}

TEST(KeysFieldTest, ArbitraryBytesPassThrough) {
  const std::string_view record = "\xff\xfe\r\0\tb\r"sv;
  EXPECT_EQ(field("field:1", record), "\xff\xfe\r\0"sv);
  EXPECT_EQ(field("field:2", record), "b\r");
}

TEST(KeysFieldTest, FieldIsAViewIntoTheRecord) {
  const std::string record = "a\tbb\tccc";
  std::string scratch;
  const KeyExtractor extractor(KeyOptions::parse("field:2"));
  const std::string_view key = extractor.key(record, scratch);
  EXPECT_EQ(key.data(), record.data() + 2);
  EXPECT_EQ(key.size(), 2u);
  EXPECT_FALSE(extractor.normalizes());
}

TEST(KeysExtractorTest, NormalizesTheSelectedFieldOnly) {
  const KeyExtractor extractor(KeyOptions::parse("field:2", "comma", "url"));
  std::string scratch;
  EXPECT_EQ(extractor.key("X,HTTP://Example.COM:80#top,Y", scratch), "http://example.com/");
  EXPECT_EQ(extractor.key("X", scratch), "");
  EXPECT_TRUE(extractor.normalizes());
}

TEST(KeysExtractorTest, UnchangedKeyIsAViewIntoTheRecord) {
  const KeyExtractor extractor(KeyOptions::parse("whole", "tab", "url"));
  std::string scratch;
  const std::string record = "https://example.com/a?b=c";
  EXPECT_EQ(extractor.key(record, scratch).data(), record.data());
  // Trimming alone needs no copy either.
  const std::string padded = "  https://example.com/a?b=c\r";
  const std::string_view key = extractor.key(padded, scratch);
  EXPECT_EQ(key, record);
  EXPECT_EQ(key.data(), padded.data() + 2);
}

TEST(KeysExtractorTest, ChangedKeyIsWrittenIntoScratch) {
  const KeyExtractor extractor(KeyOptions::parse("whole", "tab", "url"));
  std::string scratch;
  const std::string_view key = extractor.key("HTTP://EXAMPLE.com/", scratch);
  EXPECT_EQ(key, "http://example.com/");
  EXPECT_EQ(key.data(), scratch.data());
}

TEST(KeysExtractorTest, ReusedScratchStopsGrowing) {
  const KeyExtractor extractor(KeyOptions::parse("whole", "tab", "url-aggressive"));
  std::string scratch;
  extractor.key("HTTP://WWW.EXAMPLE.COM/a/?utm_source=x&b=2&a=1#f", scratch);
  const size_t capacity = scratch.capacity();
  const char* data = scratch.data();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(extractor.key("HTTP://WWW.EXAMPLE.COM/a/?utm_source=x&b=2&a=1#f", scratch),
              "http://example.com/a?a=1&b=2");
  }
  EXPECT_EQ(scratch.capacity(), capacity);
  EXPECT_EQ(scratch.data(), data);
}

TEST(KeysExtractorTest, FieldZeroIsRefused) {
  try {
    KeyExtractor(KeyOptions{KeySpec::nth_field(0), '\t', NormalizeRules{}});
    FAIL() << "field 0 was accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "the key field number 0 is not valid: field numbers start at 1.");
  }
}

// Every spelling of one option is one typed value with one canonical text,
// which parses back to it: what lets a checkpoint written with one spelling
// be resumed with another.
TEST(KeysOptionsTest, SpellingsOfOneOptionAreOneValueWithOneText) {
  const std::vector<std::vector<KeyOptions>> same = {
      {KeyOptions::parse("whole"), KeyOptions::parse("line", "\\t", "none"),
       KeyOptions::parse("whole", "\t", "")},
      {KeyOptions::parse("field:2", "tab"), KeyOptions::parse("field:002", "\\x09")},
      {KeyOptions::parse("field:1", "comma"), KeyOptions::parse("field:1", ",")},
      {KeyOptions::parse("whole", "tab", "url"),
       KeyOptions::parse("whole", "tab",
                         "add-root-slash,trim,lowercase-scheme,lowercase-host,drop-default-port,"
                         "drop-fragment,drop-host-dot,uppercase-percent,decode-unreserved,url")},
      {KeyOptions::parse("whole", "tab", "drop-params:B|a*,drop-params:b"),
       KeyOptions::parse("whole", "tab", "drop-params:A*|b")},
  };
  for (size_t i = 0; i < same.size(); ++i) {
    const KeyOptions& first = same[i].front();
    for (const KeyOptions& other : same[i]) {
      EXPECT_TRUE(other == first) << "group " << i << ": " << other.normalize_text();
      EXPECT_EQ(other.key_text(), first.key_text());
      EXPECT_EQ(other.delimiter_text(), first.delimiter_text());
      EXPECT_EQ(other.normalize_text(), first.normalize_text());
    }
    const KeyOptions again =
        KeyOptions::parse(first.key_text(), first.delimiter_text(), first.normalize_text());
    EXPECT_TRUE(again == first) << "group " << i;
    for (size_t j = 0; j < i; ++j) EXPECT_FALSE(same[j].front() == first) << i << " vs " << j;
  }
  EXPECT_EQ(KeyOptions::parse("field:2", "\\t").delimiter_text(), "tab");
  EXPECT_EQ(KeyOptions::parse("whole", "tab", "none").normalize_text(), "");
}

TEST(KeysOptionsTest, EveryDelimiterTextParsesBackToItsByte) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    if (c == '\n') continue;
    const std::string text = delimiter_text(c);
    EXPECT_EQ(parse_delimiter(text), c) << "byte " << b << " as " << text;
  }
  EXPECT_EQ(delimiter_text('\\'), "\\\\");
  EXPECT_EQ(delimiter_text('\x01'), "\\x01");
  EXPECT_EQ(delimiter_text('#'), "#");
}

// --- JSON and CDXJ keys (docs/KEYS.md, "Structured records") ---

// The key, or "(missing)".
std::string structured(std::string_view spec, std::string_view record,
                       std::string_view normalize = "") {
  thread_local std::string scratch;
  const KeyExtractor extractor(KeyOptions::parse(spec, "tab", normalize));
  std::string_view key;
  if (!extractor.extract(record, scratch, key)) {
    EXPECT_TRUE(key.empty());
    return "(missing)";
  }
  return std::string(key);
}

TEST(KeysPathTest, PathsParseToStepsAndBackToOneText) {
  EXPECT_EQ(parse_key_spec("json:url").path, (std::vector<std::string>{"url"}));
  EXPECT_EQ(parse_key_spec("json:meta.source.url").path,
            (std::vector<std::string>{"meta", "source", "url"}));
  EXPECT_EQ(parse_key_spec("json:links[2]"), parse_key_spec("json:links.2"));
  EXPECT_EQ(parse_key_spec("json:[0].a"), parse_key_spec("json:0.a"));
  EXPECT_EQ(parse_key_spec("json:a[0][1]").path, (std::vector<std::string>{"a", "0", "1"}));
  EXPECT_EQ(parse_key_spec("json:a\\.b.c\\[d\\]\\\\").path,
            (std::vector<std::string>{"a.b", "c[d]\\"}));
  EXPECT_EQ(parse_key_spec("cdxj:surt").kind, KeySpec::Kind::kCdxjSurt);
  EXPECT_EQ(parse_key_spec("cdxj:timestamp").kind, KeySpec::Kind::kCdxjTimestamp);
  // A JSON member named like the line's own fields, escaped.
  EXPECT_EQ(parse_key_spec("cdxj:\\surt").kind, KeySpec::Kind::kCdxj);
  EXPECT_EQ(parse_key_spec("cdxj:\\surt").path, (std::vector<std::string>{"surt"}));
  for (const char* spec : {"json:url", "json:a\\.b.c\\[d\\]\\\\", "json:links[2]", "cdxj:url",
                           "cdxj:\\surt", "cdxj:\\timestamp", "cdxj:surt", "cdxj:timestamp",
                           "cdxj:a.surt", "json:surt", "json:[0].a"}) {
    const KeySpec parsed = parse_key_spec(spec);
    EXPECT_EQ(parse_key_spec(parsed.to_string()), parsed) << spec;
  }
  EXPECT_EQ(parse_key_spec("json:links[2]").to_string(), "json:links.2");
  EXPECT_EQ(parse_key_spec("cdxj:\\surt").to_string(), "cdxj:\\surt");
  EXPECT_EQ(parse_key_spec("json:surt").to_string(), "json:surt");
  EXPECT_NE(parse_key_spec("json:url"), parse_key_spec("cdxj:url"));
  // A Parquet column, at a path into struct columns: a key rule of its own.
  EXPECT_EQ(parse_key_spec("column:meta.url").kind, KeySpec::Kind::kColumn);
  EXPECT_EQ(parse_key_spec("column:meta.url").path,
            (std::vector<std::string>{"meta", "url"}));
  EXPECT_EQ(parse_key_spec("column:a\\.b").to_string(), "column:a\\.b");
  EXPECT_NE(parse_key_spec("column:url"), parse_key_spec("json:url"));
  EXPECT_TRUE(parse_key_spec("column:url").structured());
}

TEST(KeysSpecTest, AColumnKeyIsRefusedForTextRecords) {
  const KeyOptions options = KeyOptions::parse("column:url");
  try {
    keys::KeyExtractor extractor(options);
    FAIL() << "a column key was taken for text records";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("column:url is a column of Parquet input"),
              std::string::npos) << e.what();
  }
}

TEST(KeysPathTest, BadPathsSayWhatIsWrong) {
  EXPECT_NE(message_of_key_spec("json:").find("the path is empty"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a..b").find("empty name"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:.a").find("empty name"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a.").find("ends in '.'"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a[").find("has no ']'"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a[x]").find("must be digits"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a[]").find("must be digits"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a]").find("has no '['"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a[0]b").find("must be followed"), std::string::npos);
  EXPECT_NE(message_of_key_spec("json:a\\").find("escaping backslash"), std::string::npos);
  EXPECT_NE(message_of_key_spec("cdxj:").find("the path is empty"), std::string::npos);
}

TEST(KeysJsonTest, StringsAreTheirUnescapedBytes) {
  EXPECT_EQ(structured("json:url", R"({"url":"http://a/"})"), "http://a/");
  EXPECT_EQ(structured("json:url", R"({ "url" : "a\"b\\c\/\u00e9\ud83d\ude00" })"),
            "a\"b\\c/\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(structured("json:url", R"({"url":"a\u0000b"})"), std::string("a\0b", 3));
  EXPECT_EQ(structured("json:url", R"({"url":""})"), "");
  // Escapes in names match the name they spell.
  EXPECT_EQ(structured("json:url", R"({"u\u0072l":"x"})"), "x");
}

TEST(KeysJsonTest, PathsReachNestedValues) {
  const std::string_view r = R"({"a":1,"meta":{"source":{"url":"u"}},"links":["l0","l1"]})";
  EXPECT_EQ(structured("json:meta.source.url", r), "u");
  EXPECT_EQ(structured("json:links.1", r), "l1");
  EXPECT_EQ(structured("json:links[0]", r), "l0");
  EXPECT_EQ(structured("json:links.2", r), "(missing)");
  EXPECT_EQ(structured("json:links.01", r), "(missing)");
  // Digits name a member of an object.
  EXPECT_EQ(structured("json:m.0", R"({"m":{"0":"zero"}})"), "zero");
  EXPECT_EQ(structured("json:a\\.b", R"({"a.b":"dotted","a":{"b":"nested"}})"), "dotted");
  EXPECT_EQ(structured("json:a.b", R"({"a.b":"dotted","a":{"b":"nested"}})"), "nested");
  EXPECT_EQ(structured("json:0", R"(["first"])"), "first");
}

TEST(KeysJsonTest, TheFirstOfDuplicateNamesWins) {
  EXPECT_EQ(structured("json:url", R"({"url":"first","url":"second"})"), "first");
  EXPECT_EQ(structured("json:o", R"({"o":{"a":1,"b":2,"a":3}})"), R"({"a":1,"b":2})");
}

TEST(KeysJsonTest, OtherValuesAreTheirCanonicalText) {
  EXPECT_EQ(structured("json:v", R"({"v":{"a":1}})"),
            structured("json:v", R"({ "v" : { "a" : 1 } })"));
  EXPECT_EQ(structured("json:v", R"({"v": { "b" : [ 1 , true , null , "x\u0001\n" ] ,
                                           "a" : {} } })"),
            R"({"b":[1,true,null,"x\u0001\n"],"a":{}})");
  // Numbers as written, any size.
  EXPECT_EQ(structured("json:v", R"({"v":1.50})"), "1.50");
  EXPECT_EQ(structured("json:v", R"({"v":-0e+10 })"), "-0e+10");
  EXPECT_EQ(structured("json:v", R"({"v":123456789012345678901234567890})"),
            "123456789012345678901234567890");
  EXPECT_EQ(structured("json:v", R"({"v":1e999})"), "1e999");
  EXPECT_EQ(structured("json:v", R"({"v":false})"), "false");
  EXPECT_EQ(structured("json:v", R"({"v":null})"), "null");
  EXPECT_EQ(structured("json:v", R"({"v":[]})"), "[]");
}

TEST(KeysJsonTest, RecordsWithoutTheValueOrNotJsonMissIt) {
  for (const char* record :
       {"", "not json", "{", "[", "{\"url\"", "{\"url\":", "{\"x\":1}", "\"url\"", "42",
        "{\"url\":01}", "{\"url\":1.}", "{\"url\":tru}", "{\"url\":nul}", "{\"url\":NaN}",
        "{\"url\":\"\\ud800\"}", "{\"url\":\"\xff\"}", "{\"a\":\"\xc0\xaf\",\"url\":\"x\"}",
        "{\"url\":\"a\\q\"}", "{\"url\":[1,]}", "{\"url\":{\"a\" 1}}"}) {
    EXPECT_EQ(structured("json:url", record), "(missing)") << record;
  }
  std::string deep = "{\"url\":";
  for (int i = 0; i < 3000; ++i) deep += '[';
  for (int i = 0; i < 3000; ++i) deep += ']';
  deep += '}';
  EXPECT_EQ(structured("json:url", deep), "(missing)");
}

// A record past the size a thread's parser keeps (1 MiB) gives its key, and
// the parser that is let go after it serves the next record.
TEST(KeysJsonTest, ALargeRecordAndTheNextOneOnTheSameThread) {
  const std::string large = R"({"pad":")" + std::string(3 << 20, 'x') + R"(","url":"big"})";
  EXPECT_EQ(structured("json:url", large), "big");
  EXPECT_EQ(structured("json:url", R"({"url":"small"})"), "small");
  EXPECT_EQ(structured("json:pad", large).size(), size_t{3} << 20);
}

TEST(KeysJsonTest, NormalizingAppliesAfterExtraction) {
  EXPECT_EQ(structured("json:url", R"({"url":"HTTP://Example.COM:80/a#f"})", "url"),
            "http://example.com/a");
  EXPECT_EQ(structured("json:url", R"({"x":1})", "url"), "(missing)");
}

TEST(KeysCdxjTest, TheLinesFieldsAndItsJson) {
  const std::string_view line =
      R"(com,example)/a 20240101120000 {"url": "http://example.com/a", "status": "200"})";
  EXPECT_EQ(structured("cdxj:surt", line), "com,example)/a");
  EXPECT_EQ(structured("cdxj:timestamp", line), "20240101120000");
  EXPECT_EQ(structured("cdxj:url", line), "http://example.com/a");
  EXPECT_EQ(structured("cdxj:status", line), "200");
  EXPECT_EQ(structured("cdxj:\\surt", R"(s t {"surt":"in json"})"), "in json");
  for (const char* bad : {"", "onlysurt", "surt 2024", " 2024 {}", "surt  {}", "s t not-json"}) {
    EXPECT_EQ(structured("cdxj:url", bad), "(missing)") << bad;
  }
  EXPECT_EQ(structured("cdxj:surt", "surt 2024"), "(missing)");
  EXPECT_EQ(structured("cdxj:timestamp", "s t x"), "t");
}

TEST(KeysMissingTest, PoliciesParseAndPrint) {
  for (const char* text : {"error", "keep", "drop"}) {
    EXPECT_STREQ(missing_key_text(parse_missing_key(text)), text);
  }
  EXPECT_THROW(parse_missing_key("skip"), UsageError);
}

}  // namespace
}  // namespace gdedup::keys
