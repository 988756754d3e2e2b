// Normalization rules: parsing, each rule on its own, the presets, and the
// properties every combination keeps (idempotence, any bytes accepted).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gdedup/error.h"
#include "keys/glob.h"
#include "gdedup/key_options.h"
#include "keys/url_normalizer.h"

namespace gdedup::keys {
namespace {

using namespace std::string_view_literals;

std::string norm(std::string_view rules, std::string_view key) {
  const UrlNormalizer normalizer(parse_normalize_rules(rules));
  std::string scratch;
  return std::string(normalizer.normalize(key, scratch));
}

std::string message_of_rules(std::string_view text) {
  try {
    parse_normalize_rules(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// --- Parsing -----------------------------------------------------------------

TEST(KeysNormalizeRulesTest, ScrapyTakesOnlyKeepFragments) {
  EXPECT_EQ(parse_normalize_rules("scrapy").to_string(), "scrapy");
  EXPECT_EQ(parse_normalize_rules("keep-fragments,scrapy").to_string(), "scrapy,keep-fragments");
  EXPECT_NE(parse_normalize_rules("scrapy"), parse_normalize_rules("scrapy,keep-fragments"));
  EXPECT_EQ(message_of_rules("scrapy,sort-query"),
            "the rule scrapy gives exactly Scrapy's canonical URL and takes no other rules; "
            "give scrapy or scrapy,keep-fragments alone.");
  EXPECT_EQ(message_of_rules("url,scrapy"), message_of_rules("scrapy,sort-query"));
  EXPECT_EQ(message_of_rules("keep-fragments"),
            "the rule keep-fragments is an option of the rule scrapy; write "
            "scrapy,keep-fragments.");
}

TEST(KeysNormalizeRulesTest, ParsesNamesAndLists) {
  const NormalizeRules r = parse_normalize_rules("lowercase-host,drop-fragment");
  EXPECT_TRUE(r.lowercase_host);
  EXPECT_TRUE(r.drop_fragment);
  EXPECT_FALSE(r.lowercase_scheme);
  EXPECT_EQ(r.to_string(), "lowercase-host,drop-fragment");
  EXPECT_TRUE(parse_normalize_rules("none").empty());
  EXPECT_EQ(parse_normalize_rules("none").to_string(), "none");
}

// A set: lowercase, sorted, each once, so that any order of the names gives
// equal rules and one canonical text.
TEST(KeysNormalizeRulesTest, DropParamsListsAreLowercasedAndMerged) {
  const NormalizeRules r = parse_normalize_rules("drop-params:UTM_*|ref,drop-params:ref|x*y");
  EXPECT_EQ(r.drop_params, (std::vector<std::string>{"ref", "utm_*", "x*y"}));
  EXPECT_EQ(r.to_string(), "drop-params:ref|utm_*|x*y");
  EXPECT_TRUE(r == parse_normalize_rules("drop-params:x*y|REF|utm_*"));
  EXPECT_FALSE(r == parse_normalize_rules("drop-params:x*y|utm_*"));
}

TEST(KeysNormalizeRulesTest, Presets) {
  EXPECT_EQ(parse_normalize_rules("url").to_string(),
            "trim,lowercase-scheme,lowercase-host,drop-default-port,drop-fragment,"
            "drop-host-dot,uppercase-percent,decode-unreserved,add-root-slash");
  EXPECT_EQ(parse_normalize_rules("url-aggressive").to_string(),
            "trim,lowercase-scheme,lowercase-host,drop-default-port,drop-fragment,"
            "drop-host-dot,uppercase-percent,decode-unreserved,add-root-slash,sort-query,"
            "drop-www,drop-trailing-slash,drop-params:_hsenc|_hsmi|dclid|fbclid|gbraid|"
            "gclid|igshid|mc_cid|mc_eid|msclkid|utm_*|wbraid|yclid");
  EXPECT_EQ(parse_normalize_rules("url,url").to_string(), parse_normalize_rules("url").to_string());
}

TEST(KeysNormalizeRulesTest, UnknownRuleListsTheKnownOnes) {
  EXPECT_EQ(message_of_rules("lowercase-path"),
            "the normalization rule \"lowercase-path\" is not known; the known rules are the "
            "presets url and url-aggressive, none, trim, lowercase, lowercase-scheme, "
            "lowercase-host, drop-default-port, drop-fragment, drop-host-dot, "
            "uppercase-percent, decode-unreserved, add-root-slash, sort-query, drop-www, "
            "drop-trailing-slash, scrapy, keep-fragments, drop-tracking and "
            "drop-params:NAME|NAME.");
  EXPECT_NE(message_of_rules("url,Lowercase").find("\"Lowercase\" is not known"),
            std::string::npos);
  EXPECT_NE(message_of_rules("drop-params").find("\"drop-params\" is not known"),
            std::string::npos);
}

TEST(KeysNormalizeRulesTest, MalformedListsAreRefused) {
  EXPECT_EQ(message_of_rules(""),
            "the normalization rule list is empty; give \"none\" or some of the presets url "
            "and url-aggressive, none, trim, lowercase, lowercase-scheme, lowercase-host, "
            "drop-default-port, drop-fragment, drop-host-dot, uppercase-percent, "
            "decode-unreserved, add-root-slash, sort-query, drop-www, drop-trailing-slash, "
            "scrapy, keep-fragments, drop-tracking and drop-params:NAME|NAME.");
  EXPECT_EQ(message_of_rules("url,,sort-query"),
            "the normalization rule list has an empty item; separate rules with a single "
            "comma (for example url,sort-query).");
  EXPECT_EQ(message_of_rules("url,"), message_of_rules("url,,sort-query"));
  EXPECT_EQ(message_of_rules("drop-params:"),
            "the rule \"drop-params:\" names no parameters; write drop-params:NAME|NAME, "
            "where a NAME may end in or contain * (for example drop-params:utm_*|ref).");
  EXPECT_EQ(message_of_rules("drop-params:a||b"),
            "the rule \"drop-params:a||b\" has an empty parameter name; separate names with a "
            "single | (for example drop-params:utm_*|ref).");
  EXPECT_EQ(message_of_rules("drop-params:a=1"),
            "the parameter name \"a=1\" in \"drop-params:a=1\" contains '='; drop-params "
            "matches parameter names only, never values.");
}

// --- Glob ----------------------------------------------------------------------

TEST(KeysGlobTest, Matches) {
  EXPECT_TRUE(glob_match("utm_*", "utm_source"));
  EXPECT_TRUE(glob_match("utm_*", "UTM_Medium"));
  EXPECT_TRUE(glob_match("utm_*", "utm_"));
  EXPECT_FALSE(glob_match("utm_*", "utm"));
  EXPECT_FALSE(glob_match("utm_*", "xutm_a"));
  EXPECT_TRUE(glob_match("fbclid", "fbclid"));
  EXPECT_FALSE(glob_match("fbclid", "fbclid2"));
  EXPECT_TRUE(glob_match("*id", "sessionid"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(glob_match("a*b*c", "aXbYbZ"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_FALSE(glob_match("a", ""));
  EXPECT_TRUE(glob_match("**a", "bba"));
}

TEST(KeysGlobTest, NameFilterAgreesWithGlob) {
  const std::vector<std::string> patterns = {"utm_*", "fbclid", "*ref", "a*b", "_x"};
  const NameFilter filter(patterns);
  for (std::string_view name : {"utm_source", "UTM_", "utm", "fbclid", "FBCLID", "fbclid2",
                                "ref", "xref", "refx", "ab", "aXXb", "aXXbc", "_x", "_X", "",
                                "x", "\xff"}) {
    bool any = false;
    for (const std::string& p : patterns) any = any || glob_match(p, name);
    EXPECT_EQ(filter.matches(name), any) << name;
  }
  EXPECT_FALSE(NameFilter().matches("anything"));
  EXPECT_TRUE(NameFilter({"*"}).matches(""));
}

// --- Each rule on its own ------------------------------------------------------

TEST(KeysNormalizeRuleTest, Trim) {
  EXPECT_EQ(norm("trim", "  http://a/ \r"), "http://a/");
  EXPECT_EQ(norm("trim", "\t\x01x y\0"sv), "x y");
  EXPECT_EQ(norm("trim", " \r\n "), "");
  EXPECT_EQ(norm("trim", "a\xa0"), "a\xa0");  // only ASCII controls and space
}

TEST(KeysNormalizeRuleTest, Lowercase) {
  EXPECT_EQ(norm("lowercase", "Alice@Example.COM"), "alice@example.com");
  EXPECT_EQ(norm("lowercase", "HTTP://A.B/Path?Q=V#F"), "http://a.b/path?q=v#f");
  EXPECT_EQ(norm("lowercase", "\xC3\x84"), "\xC3\x84");  // ASCII only
  // Escape digits keep their case, so uppercase-percent cannot fight it.
  EXPECT_EQ(norm("lowercase", "http://A/%4A%2f"), "http://a/%4A%2f");
  EXPECT_EQ(norm("lowercase,uppercase-percent", "http://A/%4a%2f"), "http://a/%4A%2F");
}

TEST(KeysNormalizeRuleTest, LowercaseScheme) {
  EXPECT_EQ(norm("lowercase-scheme", "HTTP://Example.COM/A"), "http://Example.COM/A");
  EXPECT_EQ(norm("lowercase-scheme", "Svn+SSH://h/"), "svn+ssh://h/");
  EXPECT_EQ(norm("lowercase-scheme", "http://a/"), "http://a/");
  EXPECT_EQ(norm("lowercase-scheme", "MAILTO:X@Y"), "MAILTO:X@Y");  // not scheme://
}

TEST(KeysNormalizeRuleTest, LowercaseHost) {
  EXPECT_EQ(norm("lowercase-host", "HTTP://Example.COM/A"), "HTTP://example.com/A");
  EXPECT_EQ(norm("lowercase-host", "http://User:PW@Host.COM:8080/P"), "http://User:PW@host.com:8080/P");
  EXPECT_EQ(norm("lowercase-host", "http://[FE80::1]:80/"), "http://[fe80::1]:80/");
  EXPECT_EQ(norm("lowercase-host", "http://EX%41MPLE.com/"), "http://ex%41mple.com/");
  EXPECT_EQ(norm("lowercase-host", "http://a@B@C/"), "http://a@B@c/");  // host after the last '@'
}

TEST(KeysNormalizeRuleTest, DropDefaultPort) {
  EXPECT_EQ(norm("drop-default-port", "http://a:80/x"), "http://a/x");
  EXPECT_EQ(norm("drop-default-port", "https://a:443/x"), "https://a/x");
  EXPECT_EQ(norm("drop-default-port", "HTTPS://a:0443"), "HTTPS://a");
  EXPECT_EQ(norm("drop-default-port", "http://a:443/"), "http://a:443/");
  EXPECT_EQ(norm("drop-default-port", "https://a:80/"), "https://a:80/");
  EXPECT_EQ(norm("drop-default-port", "http://a:8080/"), "http://a:8080/");
  EXPECT_EQ(norm("drop-default-port", "ws://a:80/"), "ws://a/");
  EXPECT_EQ(norm("drop-default-port", "ftp://a:21/"), "ftp://a/");
  EXPECT_EQ(norm("drop-default-port", "foo://a:80/"), "foo://a:80/");
  EXPECT_EQ(norm("drop-default-port", "foo://a:/"), "foo://a/");  // empty port, any scheme
  EXPECT_EQ(norm("drop-default-port", "http://u:80@a:80/"), "http://u:80@a/");
  EXPECT_EQ(norm("drop-default-port", "http://[::1]:80/"), "http://[::1]/");
  EXPECT_EQ(norm("drop-default-port", "http://[::1]:8080/"), "http://[::1]:8080/");
  EXPECT_EQ(norm("drop-default-port", "http://a:80x/"), "http://a:80x/");  // not a port
  EXPECT_EQ(norm("drop-default-port", "http://a:b:80/"), "http://a:b:80/");
  EXPECT_EQ(norm("drop-default-port", "http://a:99999999999999999999/"),
            "http://a:99999999999999999999/");
}

TEST(KeysNormalizeRuleTest, DropFragment) {
  EXPECT_EQ(norm("drop-fragment", "http://a/b#c"), "http://a/b");
  EXPECT_EQ(norm("drop-fragment", "http://a/b?q#"), "http://a/b?q");
  EXPECT_EQ(norm("drop-fragment", "http://a#b?c"), "http://a");
  EXPECT_EQ(norm("drop-fragment", "http://a/b"), "http://a/b");
  EXPECT_EQ(norm("drop-fragment", "notes#1"), "notes#1");  // not a URL
}

TEST(KeysNormalizeRuleTest, DropHostDot) {
  EXPECT_EQ(norm("drop-host-dot", "http://example.com./"), "http://example.com/");
  EXPECT_EQ(norm("drop-host-dot", "http://example.com..:8080/"), "http://example.com:8080/");
  EXPECT_EQ(norm("drop-host-dot", "http://a/b./"), "http://a/b./");
  EXPECT_EQ(norm("drop-host-dot", "http://[::1.]/"), "http://[::1.]/");
}

TEST(KeysNormalizeRuleTest, UppercasePercent) {
  EXPECT_EQ(norm("uppercase-percent", "http://a/%2f%c3%a4?x=%3d#%7e"), "http://a/%2F%C3%A4?x=%3D#%7E");
  EXPECT_EQ(norm("uppercase-percent", "http://a/%zz%4"), "http://a/%zz%4");
  EXPECT_EQ(norm("uppercase-percent", "http://a/%"), "http://a/%");
  EXPECT_EQ(norm("uppercase-percent", "http://us%2fer@h%2e/"), "http://us%2Fer@h%2E/");
}

TEST(KeysNormalizeRuleTest, DecodeUnreserved) {
  EXPECT_EQ(norm("decode-unreserved", "http://a/%7Euser/%41%2D%5f%2e"), "http://a/~user/A-_.");
  EXPECT_EQ(norm("decode-unreserved", "http://a/%2F%20%25"), "http://a/%2F%20%25");
  EXPECT_EQ(norm("decode-unreserved", "http://a/%2541"), "http://a/%2541");
  EXPECT_EQ(norm("decode-unreserved", "http://a/?q=%61#%62"), "http://a/?q=a#b");
  // A decoded hex digit may not complete a stray '%' into a new escape.
  EXPECT_EQ(norm("decode-unreserved", "http://a/%%34%31"), "http://a/%%341");
  EXPECT_EQ(norm("decode-unreserved", "http://a/%4%31"), "http://a/%4%31");
  EXPECT_EQ(norm("decode-unreserved", "http://a/%%7E"), "http://a/%~");
}

TEST(KeysNormalizeRuleTest, AddRootSlash) {
  EXPECT_EQ(norm("add-root-slash", "http://a"), "http://a/");
  EXPECT_EQ(norm("add-root-slash", "https://a?q"), "https://a/?q");
  EXPECT_EQ(norm("add-root-slash", "http://a#f"), "http://a/#f");
  EXPECT_EQ(norm("add-root-slash", "http://a/b"), "http://a/b");
  EXPECT_EQ(norm("add-root-slash", "foo://a"), "foo://a");  // no default port, no rule
}

TEST(KeysNormalizeRuleTest, SortQuery) {
  EXPECT_EQ(norm("sort-query", "http://a/?b=1&a=2"), "http://a/?a=2&b=1");
  // Stable by name: the order of repeated names is kept.
  EXPECT_EQ(norm("sort-query", "http://a/?b=1&a=2&a=1&a"), "http://a/?a=2&a=1&a&b=1");
  EXPECT_EQ(norm("sort-query", "http://a/?&&b&&a&"), "http://a/?a&b");
  EXPECT_EQ(norm("sort-query", "http://a/?"), "http://a/");
  EXPECT_EQ(norm("sort-query", "http://a/?&"), "http://a/");
  EXPECT_EQ(norm("sort-query", "http://a/?x#b&a"), "http://a/?x#b&a");
  EXPECT_EQ(norm("sort-query", "http://a/?a=1&b=2"), "http://a/?a=1&b=2");
}

TEST(KeysNormalizeRuleTest, DropParams) {
  EXPECT_EQ(norm("drop-params:utm_*|fbclid", "http://a/?utm_source=x&id=3&fbclid=y"),
            "http://a/?id=3");
  EXPECT_EQ(norm("drop-params:utm_*", "http://a/?utm_source=x&UTM_MEDIUM=y"), "http://a/");
  EXPECT_EQ(norm("drop-params:utm_*", "http://a/?b=2&utm=1&a=1"), "http://a/?b=2&utm=1&a=1");
  EXPECT_EQ(norm("drop-params:ref", "http://a/?ref&x=ref&ref=1&ref"), "http://a/?x=ref");
  EXPECT_EQ(norm("drop-params:ref", "http://a/?a&&b#ref=1"), "http://a/?a&b#ref=1");
  EXPECT_EQ(norm("drop-params:*", "http://a/?x=1&y=2#f"), "http://a/#f");
  EXPECT_EQ(norm("drop-tracking", "http://a/p?gclid=1&q=x&utm_campaign=c"), "http://a/p?q=x");
}

TEST(KeysNormalizeRuleTest, DropWww) {
  EXPECT_EQ(norm("drop-www", "http://www.example.com/"), "http://example.com/");
  EXPECT_EQ(norm("drop-www", "http://WWW.example.com/"), "http://example.com/");
  EXPECT_EQ(norm("drop-www", "http://www.www.example.com:81/"), "http://example.com:81/");
  EXPECT_EQ(norm("drop-www", "http://www.com/"), "http://www.com/");
  EXPECT_EQ(norm("drop-www", "http://www2.example.com/"), "http://www2.example.com/");
  EXPECT_EQ(norm("drop-www", "http://u@www.a.b/"), "http://u@a.b/");
  EXPECT_EQ(norm("drop-www", "http://a/www.b.c"), "http://a/www.b.c");
}

TEST(KeysNormalizeRuleTest, DropTrailingSlash) {
  EXPECT_EQ(norm("drop-trailing-slash", "http://a/b/"), "http://a/b");
  EXPECT_EQ(norm("drop-trailing-slash", "http://a/b//?q/"), "http://a/b?q/");
  EXPECT_EQ(norm("drop-trailing-slash", "http://a/"), "http://a/");
  EXPECT_EQ(norm("drop-trailing-slash", "http://a///"), "http://a/");
  EXPECT_EQ(norm("drop-trailing-slash", "http://a"), "http://a");
}

// --- Presets and combinations ------------------------------------------------

TEST(KeysNormalizePresetTest, Url) {
  EXPECT_EQ(norm("url", " HTTP://User@WWW.Example.COM.:80/%7euser/a%2fb?Q=%41#top\r"),
            "http://User@www.example.com/~user/a%2Fb?Q=A");
  EXPECT_EQ(norm("url", "https://example.com"), "https://example.com/");
  EXPECT_EQ(norm("url", "https://example.com:443?b=1&a=2"), "https://example.com/?b=1&a=2");
  EXPECT_EQ(norm("url", "http://[2001:DB8::1]:80"), "http://[2001:db8::1]/");
  EXPECT_EQ(norm("url", "http://[::1]:8080/x/"), "http://[::1]:8080/x/");
}

TEST(KeysNormalizePresetTest, UrlAggressive) {
  EXPECT_EQ(norm("url-aggressive",
                 "HTTPS://www.Example.com/Shop/?utm_source=news&b=2&fbclid=x&a=1#reviews"),
            "https://example.com/Shop?a=1&b=2");
  EXPECT_EQ(norm("url-aggressive", "http://www.example.com"), "http://example.com/");
  EXPECT_EQ(norm("url-aggressive", "http://example.com/?utm_medium=x"), "http://example.com/");
}

TEST(KeysNormalizePresetTest, NonUrlsOnlyTrimAndLowercase) {
  EXPECT_EQ(norm("url-aggressive", "  Example.COM/a/?utm_x=1#f\r"), "Example.COM/a/?utm_x=1#f");
  EXPECT_EQ(norm("url-aggressive", "mailto:A@B"), "mailto:A@B");
  EXPECT_EQ(norm("url-aggressive", "//www.a.com/"), "//www.a.com/");
  EXPECT_EQ(norm("url-aggressive", "1http://A/"), "1http://A/");
  EXPECT_EQ(norm("url-aggressive,lowercase", "Some Key "), "some key");
}

TEST(KeysNormalizePresetTest, TrimRunsUntilStable) {
  // Dropping the fragment leaves " /" behind, which trim and then
  // drop-trailing-slash remove on the next round.
  EXPECT_EQ(norm("url-aggressive", "http://a/b/ #x"), "http://a/b");
  EXPECT_EQ(norm("url-aggressive", "http://a/b / / /"), "http://a/b");
  EXPECT_EQ(norm("trim,drop-params:x", "http://a/?y= &x=1"), "http://a/?y=");
}

TEST(KeysNormalizePresetTest, OddUrlsDoNotBreakIt) {
  for (std::string_view rules : {"url", "url-aggressive", "url-aggressive,lowercase"}) {
    for (std::string_view key :
         {"http://"sv, "http://:"sv, "http://@"sv, "http://[::1"sv, "http://[::1]x/"sv,
          "http://[]:/"sv, "http://a:80:80/"sv, "http://?#"sv, "http:///path"sv, "a://b"sv,
          "http://a/\0b\xff?\0=\0#\0"sv, "http://%"sv, "http://a%"sv, "http://a/%%%"sv,
          ""sv, "\0"sv, "http://user:pa@ss@[::FFFF:1.2.3.4]:0080/x"sv}) {
      const std::string once = norm(rules, key);
      EXPECT_EQ(norm(rules, once), once) << rules << " on " << testing::PrintToString(key);
    }
  }
  EXPECT_EQ(norm("url", "http://user:pa@ss@[::FFFF:1.2.3.4]:0080/x"),
            "http://user:pa@ss@[::ffff:1.2.3.4]/x");
  EXPECT_EQ(norm("url", "http://[::1]x/"), "http://[::1]x/");
}

// --- Properties ----------------------------------------------------------------

const char* const kRuleSets[] = {
    "trim",
    "lowercase",
    "url",
    "url-aggressive",
    "url-aggressive,lowercase",
    "decode-unreserved",
    "decode-unreserved,sort-query",
    "uppercase-percent,lowercase-host",
    "drop-host-dot,drop-www,drop-default-port",
    "trim,drop-fragment,drop-trailing-slash,drop-params:a*|b",
    "lowercase,decode-unreserved,sort-query,drop-params:*x*",
};

std::string random_bytes(std::mt19937_64& rng) {
  std::string s(rng() % 24, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Mostly the bytes that steer the parser, so that every branch is reached.
std::string random_url(std::mt19937_64& rng) {
  static const char* const kPieces[] = {
      "http://", "HTTPS://", "ws://", "foo://", "://", "h:", "@", ":", ":80", ":443", ":0",
      ":", "[", "]", "[::1]", "[FE80::A]", "www.", "WWW.", ".", "..", "/", "//", "?", "#", "&",
      "=", "%", "%4", "%41", "%2f", "%2F", "%7e", "%7E", "%25", "%3", "%31", "%%", "a", "B",
      "z", "9", "0", "utm_x", "fbclid", "x", " ", "\t", "\r", "\0", "\xff", "\x80", "-", "~"};
  constexpr size_t kCount = sizeof(kPieces) / sizeof(kPieces[0]);
  std::string s;
  if (rng() % 4 != 0) s += kPieces[rng() % 5];
  const size_t n = rng() % 16;
  for (size_t i = 0; i < n; ++i) {
    const char* piece = kPieces[rng() % kCount];
    // "\0" as a piece is one NUL byte, not an empty string.
    s += piece[0] == '\0' ? std::string(1, '\0') : std::string(piece);
  }
  return s;
}

void expect_idempotent(std::string (*generate)(std::mt19937_64&), int rounds) {
  for (const char* rules : kRuleSets) {
    const UrlNormalizer normalizer(parse_normalize_rules(rules));
    std::mt19937_64 rng(20240601);
    std::string scratch1;
    std::string scratch2;
    int failures = 0;
    for (int i = 0; i < rounds && failures < 5; ++i) {
      const std::string key = generate(rng);
      const std::string once(normalizer.normalize(key, scratch1));
      const std::string twice(normalizer.normalize(once, scratch2));
      if (once != twice) {
        ++failures;
        ADD_FAILURE() << rules << ": " << testing::PrintToString(key) << " -> "
                      << testing::PrintToString(once) << " -> " << testing::PrintToString(twice);
      }
    }
  }
}

// --- scrapy ------------------------------------------------------------------

// Checked by hand against w3lib 2.5.0's canonicalize_url (the pytest
// test_normalize_scrapy compares the two on generated URLs).
TEST(KeysNormalizeScrapyTest, AsW3libCanonicalizesThem) {
  EXPECT_EQ(norm("scrapy", "HTTP://Www.Example.COM:80/a/./b/../c?b=2&a=1&a=&c#top"),
            "http://www.example.com:80/a/c?a=&a=1&b=2&c=");
  EXPECT_EQ(norm("scrapy,keep-fragments", "HTTP://Www.Example.COM:80/a/./b/../c?b=2&a=1&a=&c#top"),
            "http://www.example.com:80/a/c?a=&a=1&b=2&c=#top");
  EXPECT_EQ(norm("scrapy", "http://u%41:p w@h.com:0080/%7e%2f%2e%41;p?q=a+b%20c&x=%ff"),
            "http://uA:p%20w@h.com:80/~%2F.A;p?q=a+b+c&x=%FF");
  EXPECT_EQ(norm("scrapy", "https://h.com?b&a"), "https://h.com/?a=&b=");
  EXPECT_EQ(norm("scrapy", "http://h.com/p;x?&&"), "http://h.com/p;x");
  EXPECT_EQ(norm("scrapy", "mailto:A/../b?Z&a"), "mailto:A/../b?Z=&a=");
  EXPECT_EQ(norm("scrapy,keep-fragments", "  http://h.com/\xc3\xa9\\x?\\y#f\t"),
            "http://h.com/%C3%A9/x?%5Cy=#f");
  EXPECT_EQ(norm("scrapy", "http://h.com/\xff"), "http://h.com/%FF");
  // Bytes that are not UTF-8 are escaped before the URL is split, as w3lib
  // decodes it; the host's escapes are then lowercased with it.
  EXPECT_EQ(norm("scrapy", "http://us\xff" "er@Ex\xff" "Ample.com/"),
            "http://us%FFer@ex%ffample.com/");
}

TEST(KeysNormalizeScrapyTest, HostsInBracketsAsPythonWritesThem) {
  EXPECT_EQ(norm("scrapy", "http://[2001:DB8:0:0:8:800:200C:417A]:080/"),
            "http://[2001:db8::8:800:200c:417a]:80/");
  EXPECT_EQ(norm("scrapy", "http://[::ffff:1.2.3.4]/"), "http://[::ffff:102:304]/");
  EXPECT_EQ(norm("scrapy", "http://[fe80::1%25Eth0]/"), "http://[fe80::1%25eth0]/");
  EXPECT_EQ(norm("scrapy", "http://[v1.X]/"), "http://v1.x/");
  EXPECT_EQ(norm("scrapy", "http://[1:0:0:2:0:0:0:3]/"), "http://[1:0:0:2::3]/");
  EXPECT_EQ(norm("scrapy", "http://[1:2:3:4:5:6:7::]/"), "http://[1:2:3:4:5:6:7:0]/");
}

std::string repeat(std::string_view text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// w3lib's own tests (tests/test_url.py) and hosts that hit each of the
// steps of w3lib's IDNA (docs/KEYS.md): lowercasing, NFKC, Python's IDNA
// 2003 codec, and its fallback to the host as it was.
TEST(KeysNormalizeScrapyTest, InternationalHostsAsW3libWritesThem) {
  EXPECT_EQ(norm("scrapy", "http://www.bücher.de?q=bücher"),
            "http://www.xn--bcher-kva.de/?q=b%C3%BCcher");
  EXPECT_EQ(norm("scrapy", "http://user@例え.jp/path"), "http://user@xn--r8jz45g.jp/path");
  EXPECT_EQ(norm("scrapy", "http://user:pass@例え.jp:8080/p"),
            "http://user:pass@xn--r8jz45g.jp:8080/p");
  // An empty label: the codec raises, and the host stays as it was.
  EXPECT_EQ(norm("scrapy", "http://.éxamplé.com/résumé?q=résumé"),
            "http://.éxamplé.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9");
  const std::string long_label = "http://www." + repeat("éxamplé", 11) + ".com/";  // 77
  EXPECT_EQ(norm("scrapy", long_label), long_label);
  // Fullwidth letters and an ideographic full stop; a final dot.
  EXPECT_EQ(norm("scrapy", "HTTP://ＢÜＣＨＥＲ。ＤＥ:8080/"), "http://xn--bcher-kva.de:8080/");
  EXPECT_EQ(norm("scrapy", "http://bücher.de./"), "http://xn--bcher-kva.de./");
  // IDNA 2003, not 2008: ß is ss, a zero width joiner goes; İ is i and a dot.
  EXPECT_EQ(norm("scrapy", "http://Straße.de/"), "http://strasse.de/");
  EXPECT_EQ(norm("scrapy", "http://a\u200Db.com/"), "http://ab.com/");
  EXPECT_EQ(norm("scrapy", "http://İ.com/"), "http://xn--i-9bb.com/");
  EXPECT_EQ(norm("scrapy", "http://💩.la/"), "http://xn--ls8h.la/");
  // Lowercased to ASCII, then no IDNA at all (the Kelvin sign).
  EXPECT_EQ(norm("scrapy", "http://\u212A.com/"), "http://k.com/");
  // Python's final sigma, where the codec fails on the empty label.
  EXPECT_EQ(norm("scrapy", "http://.ΌΣΟΣ.gr/"), "http://.όσοσ.gr/");
  EXPECT_EQ(norm("scrapy", "http://ΌΣΟΣ/"), "http://xn--0xahb7a/");
  // Refused by the codec: bidi (Hebrew after a Latin letter), "xn--" on a
  // label of other characters.
  EXPECT_EQ(norm("scrapy", "http://a\u05D0.com/"), "http://a\u05D0.com/");
  EXPECT_EQ(norm("scrapy", "http://xn--ü.com/"), "http://xn--ü.com/");
  // A byte that is not UTF-8 is %XX in the host's text before IDNA.
  EXPECT_EQ(norm("scrapy", "http://\xff\xc3\xbc.de/"), "http://xn--%ff-joa.de/");
  EXPECT_EQ(norm("scrapy", "http://a\0ü.com/"sv), "http://xn--a\0-yka.com/"sv);
  EXPECT_EQ(norm("scrapy", "http://[v1.Ü]/"), "http://v1.xn--tda/");
  // w3lib decodes before it drops tabs: a tab inside a character leaves
  // two bytes that are not UTF-8.
  EXPECT_EQ(norm("scrapy", "http://\xc3\t\xbc.de/"), "http://%c3%bc.de/");
  // Combining marks in Python's order once nameprep drops what parts them
  // (U+035C, which Unicode 3.2 did not have, after U+0308).
  EXPECT_EQ(norm("scrapy", "http://a\u035C\u034F\u0308.x/"), "http://xn--4ca87j.x/");
  // Long labels: 100,000 soft hyphens that nameprep drops, then ü, make
  // one good label; 300 ü make one too long, kept as it was.
  EXPECT_EQ(norm("scrapy", "http://" + repeat("\u00AD", 100000) + "ü/"), "http://xn--tda/");
  const std::string too_long = "http://" + repeat("ü", 300) + ".de/";
  EXPECT_EQ(norm("scrapy", too_long), too_long);
  // Only the host: the user info is escaped as ever.
  EXPECT_EQ(norm("scrapy", "http://ü@Ex.com/"), "http://%C3%BC@ex.com/");
}

TEST(KeysNormalizeScrapyTest, KeysW3libRefusesOrThatItDoesNotCopyStayAsTheyAre) {
  // w3lib raises on all but the last: ports, brackets, an IPvFuture host
  // with ':' and a character above 0x7F, authorities whose NFKC form has a
  // '/' or '@' (a fullwidth solidus, a small commercial at), a port in
  // fullwidth digits. The last has brackets that are not around the host.
  for (std::string_view key : {"http://h.com:099999/"sv, "http://h.com:8o/"sv,
                               "http://[::01.2.3.4]/"sv, "http://[1.2.3.4]/"sv,
                               "http://[V1.x]/"sv, "http://[v1.ü:1]/"sv,
                               "http://ex／ample.com/"sv, "http://a﹫b.com/"sv,
                               "http://ü.com:８０/"sv, "http://x[::1]/"sv}) {
    EXPECT_EQ(norm("scrapy", key), key);
  }
}

TEST(KeysNormalizePropertyTest, IdempotentOnRandomBytes) { expect_idempotent(random_bytes, 20000); }

TEST(KeysNormalizePropertyTest, IdempotentOnRandomUrls) { expect_idempotent(random_url, 50000); }

TEST(KeysNormalizePropertyTest, UnchangedKeysAreNotCopied) {
  const UrlNormalizer normalizer(parse_normalize_rules("url-aggressive"));
  std::string scratch;
  for (std::string_view key : {"http://a.com/"sv, "https://a.com/x?a=1&b=2"sv, "plain"sv, ""sv}) {
    const std::string_view out = normalizer.normalize(key, scratch);
    EXPECT_EQ(out.data(), key.data()) << key;
    EXPECT_EQ(out.size(), key.size()) << key;
  }
}

TEST(KeysNormalizePropertyTest, ResultIsAViewOfKeyOrScratch) {
  // scrapy is not idempotent (w3lib's function), so it is checked here only.
  for (const char* rules : {"url-aggressive", "scrapy", "scrapy,keep-fragments"}) {
    const UrlNormalizer normalizer(parse_normalize_rules(rules));
    std::mt19937_64 rng(7);
    std::string scratch;
    for (int i = 0; i < 20000; ++i) {
      const std::string key = i % 2 ? random_url(rng) : random_bytes(rng);
      const std::string_view out = normalizer.normalize(key, scratch);
      const bool in_key =
          out.data() >= key.data() && out.data() + out.size() <= key.data() + key.size();
      const bool in_scratch = out.data() >= scratch.data() &&
                              out.data() + out.size() <= scratch.data() + scratch.size();
      ASSERT_TRUE(in_key || in_scratch || out.empty()) << rules << testing::PrintToString(key);
    }
  }
}

}  // namespace
}  // namespace gdedup::keys
