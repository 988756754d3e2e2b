// The command line's number parsing and formatting, and its JSON writer.
// The CLI sources are not a library, so the two files under test are
// compiled into this test directly.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "cli/numbers.cpp"
#include "gdedup/error.h"
#include "gdedup/frontend/json.h"

namespace gdedup::cli {
namespace {

TEST(CliNumbers, CountsTakeDecimalSuffixesAndScientificNotation) {
  EXPECT_EQ(parse_count("0", "--x"), 0u);
  EXPECT_EQ(parse_count("1000000", "--x"), 1000000u);
  EXPECT_EQ(parse_count("1_000_000", "--x"), 1000000u);
  EXPECT_EQ(parse_count("1e9", "--x"), 1000000000u);
  EXPECT_EQ(parse_count("1E9", "--x"), 1000000000u);
  EXPECT_EQ(parse_count("2.5e3", "--x"), 2500u);
  EXPECT_EQ(parse_count("500M", "--x"), 500000000u);
  EXPECT_EQ(parse_count("500m", "--x"), 500000000u);
  EXPECT_EQ(parse_count("2G", "--x"), 2000000000u);
  EXPECT_EQ(parse_count("1.5K", "--x"), 1500u);
  EXPECT_EQ(parse_count("3T", "--x"), 3000000000000u);
  EXPECT_EQ(parse_count("+7", "--x"), 7u);
  EXPECT_EQ(parse_count("18446744073709551615", "--x"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(parse_count("0.001M", "--x"), 1000u);
}

TEST(CliNumbers, CountsRefuseWithTheOptionAndValueNamed) {
  for (const char* bad : {"", "-1", "1.5", "abc", "1X", "1KB", "18446744073709551616", "1e20",
                          "0x10", "inf", "nan", "1e-3", "1..2", "M", "2 G"}) {
    try {
      parse_count(bad, "--capacity");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("--capacity ", 0), 0u) << what;
    }
  }
}

TEST(CliNumbers, BytesTakeBinarySuffixes) {
  EXPECT_EQ(parse_bytes("4096", "--m"), 4096u);
  EXPECT_EQ(parse_bytes("4096B", "--m"), 4096u);
  EXPECT_EQ(parse_bytes("1K", "--m"), 1024u);
  EXPECT_EQ(parse_bytes("1KiB", "--m"), 1024u);
  EXPECT_EQ(parse_bytes("512M", "--m"), 512u << 20);
  EXPECT_EQ(parse_bytes("512MiB", "--m"), 512u << 20);
  EXPECT_EQ(parse_bytes("4G", "--m"), uint64_t{4} << 30);
  EXPECT_EQ(parse_bytes("1.5GiB", "--m"), uint64_t{3} << 29);
  EXPECT_EQ(parse_bytes("2T", "--m"), uint64_t{2} << 40);
  EXPECT_EQ(parse_bytes("1e3", "--m"), 1000u);
  EXPECT_EQ(parse_bytes("0.5K", "--m"), 512u);
  EXPECT_EQ(parse_bytes("0.3K", "--m"), 307u);  // with a unit, fractions of a byte dropped
}

TEST(CliNumbers, BytesWithoutAUnitMustBeWhole) {
  // "1.5" was read as 1 byte: a forgotten unit, refused with the fix named.
  for (const char* bad : {"1.5", "0.5", "1.5B", "1e-3"}) {
    try {
      parse_bytes(bad, "--memory");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("not a whole number of bytes; add a unit"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(parse_bytes("1.5G", "--memory"), uint64_t{3} << 29);
  EXPECT_EQ(parse_bytes("2.0", "--memory"), 2u);
}

TEST(CliNumbers, BytesRefuseAmbiguousAndUnknownSuffixes) {
  for (const char* bad : {"4GB", "4gb", "1MB", "4X", "4Gi", "-4G", "", "G", "16777216T"}) {
    EXPECT_THROW(parse_bytes(bad, "--memory"), UsageError) << bad;
  }
  try {
    parse_bytes("4GB", "--memory");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("ambiguous"), std::string::npos) << e.what();
  }
}

TEST(CliNumbers, MemoryCapsAreBytesAndNeverZero) {
  EXPECT_EQ(parse_memory_cap("1", "--max-memory"), 1u);
  EXPECT_EQ(parse_memory_cap("4G", "--max-memory"), uint64_t{4} << 30);
  for (const char* zero : {"0", "0K", "0.0001K"}) {  // the last is 0.1 bytes, dropped
    try {
      parse_memory_cap(zero, "--max-memory");
      ADD_FAILURE() << zero << " was taken";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--max-memory ") + zero +
                    ": a cap of 0 bytes holds no filter or set; give the most bytes it may "
                    "take, or leave --max-memory out for no cap");
    }
  }
}

TEST(CliNumbers, RatesAreStrictlyBetweenZeroAndOne) {
  EXPECT_DOUBLE_EQ(parse_fpr("1e-4", "--fpr"), 1e-4);
  EXPECT_DOUBLE_EQ(parse_fpr("0.001", "--fpr"), 0.001);
  EXPECT_DOUBLE_EQ(parse_fpr(".5", "--fpr"), 0.5);
  for (const char* bad : {"0", "1", "2", "-0.1", "1e-4K", "abc", ""}) {
    EXPECT_THROW(parse_fpr(bad, "--fpr"), UsageError) << bad;
  }
}

TEST(CliNumbers, Formatting) {
  EXPECT_EQ(group_digits(0), "0");
  EXPECT_EQ(group_digits(999), "999");
  EXPECT_EQ(group_digits(1000), "1,000");
  EXPECT_EQ(group_digits(1234567), "1,234,567");
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.50 KiB");
  EXPECT_EQ(human_bytes(uint64_t{3} << 30), "3.00 GiB");
  EXPECT_EQ(human_count(999), "999");
  EXPECT_EQ(human_count(12300000), "12.3M");
  EXPECT_EQ(format_rate(1e-4), "1.00e-04");
  EXPECT_EQ(format_rate(0.25), "0.25");
  EXPECT_EQ(format_rate(0), "0");
  EXPECT_EQ(format_duration(12), "0:12");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(format_percent(0.1234), "12.34%");
  EXPECT_EQ(approx_keys(1e300 * 1e300, "distinct keys"),
            "an unknown number of distinct keys (every bit is set)");
  EXPECT_EQ(approx_keys(1234.4, "keys"), "~1,234 keys");
  EXPECT_EQ(counted(1, "block"), "1 block");
  EXPECT_EQ(counted(0, "block"), "0 blocks");
  EXPECT_EQ(counted(1234, "record"), "1,234 records");
}

TEST(CliJson, StringsAreEscaped) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("tab\tnl\ncr\r"), "\"tab\\tnl\\ncr\\r\"");
  EXPECT_EQ(json_string(std::string("nul\0x", 5)), "\"nul\\u0000x\"");
  EXPECT_EQ(json_string("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(json_string("caf\xC3\xA9"), "\"caf\xC3\xA9\"");              // valid UTF-8 kept
  EXPECT_EQ(json_string("\xF0\x9F\x98\x80"), "\"\xF0\x9F\x98\x80\"");    // 4-byte kept
  EXPECT_EQ(json_string("a\xFFz"), "\"a\xEF\xBF\xBDz\"");                // invalid -> U+FFFD
  EXPECT_EQ(json_string("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");    // overlong
  EXPECT_EQ(json_string("\xED\xA0\x80"),
            "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // surrogate
  EXPECT_EQ(json_string("\xE2\x82"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");    // cut short
}

TEST(CliJson, NumbersRoundTripAndNonFiniteIsNull) {
  EXPECT_EQ(json_number(0.0001), "0.0001");
  EXPECT_EQ(json_number(0.5), "0.5");
  EXPECT_EQ(json_number(3), "3");
  EXPECT_EQ(json_number(9.999999503491386e-05), "9.999999503491386e-05");
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_number(std::numeric_limits<double>::quiet_NaN()), "null");
}

TEST(CliJson, ObjectsKeepOrderAndNest) {
  JsonObject inner;
  inner.add("x", uint64_t{1});
  JsonObject o;
  o.add("name", "a\"b").add("n", uint64_t{42}).add("ok", true).add("rate", 0.25).add("in", inner);
  EXPECT_EQ(o.str(),
            "{\n  \"name\": \"a\\\"b\",\n  \"n\": 42,\n  \"ok\": true,\n  \"rate\": 0.25,\n"
            "  \"in\": {\n    \"x\": 1\n  }\n}");
  EXPECT_EQ(JsonObject().str(), "{}");
}

TEST(CliJson, ArraysOfObjects) {
  JsonObject first;
  first.add("x", uint64_t{1});
  JsonObject second;
  second.add("x", uint64_t{2}).add("y", "b");
  JsonObject o;
  o.add("list", std::vector<JsonObject>{first, second}).add("none", std::vector<JsonObject>{});
  EXPECT_EQ(o.str(),
            "{\n  \"list\": [\n    {\n      \"x\": 1\n    },\n    {\n      \"x\": 2,\n"
            "      \"y\": \"b\"\n    }\n  ],\n  \"none\": []\n}");
}

}  // namespace
}  // namespace gdedup::cli
