// A realistic URL dump, one URL per line, the same byte for byte on every
// run and every machine for a given seed and line count.
//
// Each line is either a new URL (a fresh "URL id") or a repeat of one written
// earlier. URL text is a pure function of (seed, id), so repeats cost no
// memory. Repeats are drawn three ways, so that some are close and some far:
//   40%  a log-uniform distance back in URL ids (1, 2, 4, ... ids ago: many
//        near repeats, a long tail of far ones),
//   40%  uniform over every earlier id (far repeats, across the whole file),
//   20%  a Zipf-like pick among the first 10000 ids (a few very hot URLs).
// Hosts follow a Zipf-like law (log-uniform over about 4 million hosts), with
// subdomains, TLDs, http/https, paths of words, slugs, numbers and dates,
// file extensions, query strings (ids, utm_*, search terms, tokens) and a few
// fragments and ports. Mean length is about 70 bytes.
//
// Only integer arithmetic (splitmix64, multiply-high): no std distributions,
// no floating point, so the output does not depend on the library or CPU.
//
// Used by gen_urls (the files of bench/e2e.sh) and by the benchmarks that need
// URL text in memory (frontend_steps_bench), so both measure the same bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace gdedup::bench {
namespace url_detail {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() { return mix64(s += 0x9e3779b97f4a7c15ull); }
  // Uniform in [0, n), n >= 1 (multiply-high; the bias is below 2^-40).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  bool percent(uint32_t p) { return below(100) < p; }
  // Log-uniform in [0, n): a bit length first, then a value of that length.
  // P(x) falls like 1/x: a Zipf-like law with exponent 1.
  uint64_t log_uniform(uint64_t n) {
    if (n <= 1) return 0;
    const int bits = 64 - __builtin_clzll(n - 1);  // values < 2^bits cover [0, n)
    for (;;) {
      const int b = static_cast<int>(below(static_cast<uint64_t>(bits) + 1));
      const uint64_t x = b == 0 ? 0 : (uint64_t{1} << (b - 1)) + below(uint64_t{1} << (b - 1));
      if (x < n) return x;
    }
  }
  // A Zipf-like pick among 2^hi - 2^lo values: a bit length b uniform in
  // [lo, hi), then a value of that length, shifted to start at 0. The
  // 2^lo most popular values are equally likely.
  uint64_t zipf_like(int lo, int hi) {
    const int b = lo + static_cast<int>(below(static_cast<uint64_t>(hi - lo)));
    return (uint64_t{1} << b) + below(uint64_t{1} << b) - (uint64_t{1} << lo);
  }
  // Index into cumulative weights (integers summing to the last entry).
  template <size_t N>
  size_t weighted(const uint32_t (&cumulative)[N]) {
    const uint64_t r = below(cumulative[N - 1]);
    size_t i = 0;
    while (cumulative[i] <= r) ++i;
    return i;
  }
};

template <size_t N>
inline const char* pick(Rng& r, const char* const (&list)[N]) {
  return list[r.below(N)];
}

const char* const kWords[] = {
    "news", "blog", "article", "products", "category", "search", "about", "contact",
    "help", "support", "docs", "user", "users", "profile", "account", "login",
    "images", "img", "static", "assets", "media", "video", "videos", "music",
    "sports", "world", "business", "tech", "science", "health", "travel", "food",
    "recipes", "shop", "store", "cart", "item", "items", "deals", "sale",
    "forum", "forums", "thread", "topic", "post", "posts", "comments", "tags",
    "archive", "archives", "events", "jobs", "careers", "press", "team", "company",
    "download", "downloads", "files", "wiki", "page", "pages", "index", "home",
    "en", "de", "fr", "es", "it", "ja", "pt", "ru",
    "us", "uk", "api", "v1", "v2", "feed", "rss", "sitemap",
    "photos", "gallery", "reviews", "review", "guide", "guides", "howto", "tutorial",
    "library", "books", "movies", "games", "apps", "software", "hardware", "cars",
    "real-estate", "finance", "markets", "stocks", "weather", "local", "politics", "opinion",
    "culture", "arts", "fashion", "style", "home-garden", "kids", "education", "research",
    "community", "groups", "members", "list", "lists", "best", "top", "new",
};

const char* const kSlugWords[] = {
    "how", "to", "the", "best", "new", "why", "what", "guide", "review", "vs",
    "top", "ways", "make", "get", "free", "update", "release", "city", "first", "world",
    "price", "cheap", "easy", "quick", "home", "summer", "winter", "2023", "2024", "report",
    "study", "shows", "says", "after", "before", "with", "without", "for", "your", "day",
    "market", "record", "team", "season", "final", "open", "online", "data", "life", "water",
};

const char* const kSyllables[] = {
    "ka", "lo", "mi", "ne", "ra", "to", "vi", "zu", "an", "el", "or", "us",
    "ber", "con", "dan", "fel", "gar", "hol", "jin", "kor", "lan", "mar", "nor", "pol",
    "quin", "ros", "sun", "tar", "ver", "wil", "xen", "yor", "zen", "bright", "cloud", "data",
    "net", "web", "hub", "soft", "tech", "info", "media", "link", "star", "city", "shop", "world",
};

const char* const kSubdomains[] = {
    "m.", "blog.", "shop.", "news.", "en.", "api.", "static.", "docs.", "forum.", "mail.",
    "cdn.", "img.", "support.", "store.", "de.", "fr.", "app.", "www2.", "wiki.", "dev.",
};

const char* const kTlds[] = {".com", ".org", ".net", ".de", ".co.uk", ".io", ".fr",
                             ".ru", ".jp", ".com.br", ".info", ".nl", ".it", ".es", ".edu"};
const uint32_t kTldWeights[] = {480, 560, 620, 680, 720, 750, 780, 810, 840, 865, 885, 910, 935, 960, 1000};

const char* const kExtensions[] = {".html", ".html", ".html", ".php", ".php", ".htm", ".aspx",
                                   ".jpg", ".png", ".pdf", ".js", ".css", ".jsp", ".xml"};

const char* const kParams[] = {
    "id", "page", "q", "ref", "utm_source", "utm_medium", "utm_campaign", "sort",
    "lang", "sessionid", "p", "s", "category", "start", "limit", "tag",
    "view", "filter", "from", "fbclid", "gclid", "type", "year", "offset",
};
const char* const kUtmSources[] = {"google", "facebook", "twitter", "newsletter", "bing", "reddit", "email", "partner"};

// Path depth 0..5, weights in percent (cumulative).
const uint32_t kDepthWeights[] = {4, 24, 56, 82, 95, 100};

// Appends URL text to a caller's string.
class LineWriter {
 public:
  explicit LineWriter(std::string& out) : buf_(out) {}
  void str(const char* s) { buf_.append(s); }
  void ch(char c) { buf_.push_back(c); }
  void num(uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
      tmp[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) buf_.push_back(tmp[--n]);
  }
  void num2(uint64_t v) {  // two digits, zero-padded
    buf_.push_back(static_cast<char>('0' + v / 10 % 10));
    buf_.push_back(static_cast<char>('0' + v % 10));
  }
  void hex(Rng& r, int n) {
    static const char kHex[] = "0123456789abcdef";
    uint64_t bits = r.next();
    for (int i = 0; i < n; ++i) {
      if (i % 16 == 15) bits = r.next();
      buf_.push_back(kHex[bits & 15]);
      bits >>= 4;
    }
  }

 private:
  std::string& buf_;
};

// Hosts: about 4M, each of the 8 most popular with 0.66% of the URLs.
constexpr int kHostBitsLo = 3, kHostBitsHi = 22;

// Host h's own stream: its name and usual scheme are pure functions of
// (seed, h). The first draw is the scheme.
inline Rng host_rng(uint64_t seed, uint64_t h) { return Rng(mix64(seed ^ 0x686f7374ull) ^ mix64(h + 1)); }

inline void write_host(LineWriter& w, uint64_t seed, uint64_t h) {
  Rng r = host_rng(seed, h);
  r.next();  // the scheme, drawn in write_url
  const uint64_t sub = r.below(100);
  if (sub < 55) {
    w.str("www.");
  } else if (sub < 80) {
    // no subdomain
  } else {
    w.str(pick(r, kSubdomains));
  }
  const uint64_t syllables = 2 + r.below(3);
  for (uint64_t i = 0; i < syllables; ++i) w.str(pick(r, kSyllables));
  if (r.percent(15)) {
    w.ch('-');
    w.str(pick(r, kSyllables));
    w.str(pick(r, kSyllables));
  }
  if (r.percent(10)) w.num(r.below(100));
  w.str(kTlds[r.weighted(kTldWeights)]);
  if (r.percent(2)) w.str(r.percent(50) ? ":8080" : ":8443");
}

inline void write_segment(LineWriter& w, Rng& r) {
  const uint64_t kind = r.below(100);
  if (kind < 55) {
    w.str(pick(r, kWords));
  } else if (kind < 75) {  // slug: 3-7 words
    const uint64_t n = 3 + r.below(5);
    for (uint64_t i = 0; i < n; ++i) {
      if (i) w.ch('-');
      w.str(pick(r, kSlugWords));
    }
  } else if (kind < 88) {  // numeric id
    w.num(r.log_uniform(100000000));
  } else if (kind < 94) {  // date
    w.num(2005 + r.below(20));
    w.ch('/');
    w.num2(1 + r.below(12));
    w.ch('/');
    w.num2(1 + r.below(28));
  } else {  // word-id
    w.str(pick(r, kWords));
    w.ch('-');
    w.num(r.below(1000000));
  }
}

inline void write_param_value(LineWriter& w, Rng& r, const char* name) {
  if (std::strncmp(name, "utm_", 4) == 0) {
    w.str(pick(r, kUtmSources));
  } else if (std::strcmp(name, "sessionid") == 0 || std::strcmp(name, "fbclid") == 0 ||
             std::strcmp(name, "gclid") == 0) {
    w.hex(r, 16 + static_cast<int>(r.below(17)));
  } else if (std::strcmp(name, "q") == 0 || std::strcmp(name, "s") == 0) {
    const uint64_t n = 1 + r.below(3);
    for (uint64_t i = 0; i < n; ++i) {
      if (i) w.ch('+');
      w.str(pick(r, kSlugWords));
    }
  } else if (r.percent(60)) {
    w.num(r.log_uniform(1000000));
  } else {
    w.str(pick(r, kWords));
  }
}

// The URL of id `id`: a pure function of (seed, id).
inline void write_url(LineWriter& w, uint64_t seed, uint64_t id) {
  Rng r(mix64(seed) ^ mix64(id ^ 0x75726c00ull));
  const uint64_t host = r.zipf_like(kHostBitsLo, kHostBitsHi);
  Rng hr = host_rng(seed, host);
  bool https = hr.percent(75);       // the host's usual scheme
  if (r.percent(5)) https = !https;  // the odd link with the other one
  w.str(https ? "https://" : "http://");
  write_host(w, seed, host);

  const size_t depth = r.weighted(kDepthWeights);
  for (size_t i = 0; i < depth; ++i) {
    w.ch('/');
    write_segment(w, r);
  }
  if (depth == 0) {
    w.ch('/');
  } else {
    const uint64_t tail = r.below(100);
    if (tail < 40) {
      w.str(pick(r, kExtensions));
    } else if (tail < 60) {
      w.ch('/');
    }
  }
  if (r.percent(35)) {
    const uint64_t params = 1 + r.log_uniform(5);
    for (uint64_t i = 0; i < params; ++i) {
      w.ch(i == 0 ? '?' : '&');
      const char* name = pick(r, kParams);
      w.str(name);
      w.ch('=');
      write_param_value(w, r, name);
    }
  }
  if (r.percent(3)) {
    w.ch('#');
    w.str(pick(r, kWords));
  }
}

}  // namespace url_detail

// The lines of one dump, in order: each a new URL or a repeat of an earlier
// one, drawn as described at the top.
class UrlGenerator {
 public:
  UrlGenerator(uint64_t seed, uint32_t dup_percent)
      : seed_(seed), dup_percent_(dup_percent), r_(url_detail::mix64(seed ^ 0x6c696e6573ull)) {}

  // Appends the next line, with its '\n', to `out`.
  void append_line(std::string& out) {
    constexpr uint64_t kHot = 10000;
    uint64_t id;
    if (fresh_ > 0 && r_.percent(dup_percent_)) {
      const uint64_t how = r_.below(100);
      if (how < 40) {
        id = fresh_ - 1 - r_.log_uniform(fresh_);
      } else if (how < 80) {
        id = r_.below(fresh_);
      } else {
        id = r_.log_uniform(fresh_ < kHot ? fresh_ : kHot);
      }
      ++repeats_;
    } else {
      id = fresh_++;
    }
    url_detail::LineWriter w(out);
    url_detail::write_url(w, seed_, id);
    w.ch('\n');
  }

  uint64_t repeats() const { return repeats_; }  // lines that repeat an earlier one
  uint64_t url_ids() const { return fresh_; }    // distinct URL ids so far

 private:
  uint64_t seed_;
  uint32_t dup_percent_;
  url_detail::Rng r_;
  uint64_t fresh_ = 0;
  uint64_t repeats_ = 0;
};

// Whole lines of the dump of `seed` (40% repeats), at least `min_bytes` of
// them: the first lines of what `gen_urls -s SEED` writes.
inline std::string generate_urls(uint64_t seed, size_t min_bytes) {
  std::string out;
  out.reserve(min_bytes + 4096);
  UrlGenerator gen(seed, 40);
  while (out.size() < min_bytes) gen.append_line(out);
  return out;
}

}  // namespace gdedup::bench
