// gen_urls: writes a realistic URL dump, one URL per line, that is the same
// byte for byte on every run and every machine for a given seed and line count.
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
// usage: gen_urls [-n LINES] [-s SEED] [-d DUP_PERCENT] [-o FILE] [-q]
//   -n LINES        lines to write (default 10M; suffixes k, M, G or 1e7 forms)
//   -s SEED         64-bit seed (default 1)
//   -d DUP_PERCENT  percent of lines that repeat an earlier line (default 40)
//   -o FILE         output file (default: standard output)
//   -q              no summary on standard error
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

namespace {

uint64_t mix64(uint64_t z) {
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
const char* pick(Rng& r, const char* const (&list)[N]) {
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

class Writer {
 public:
  explicit Writer(FILE* out) : out_(out) { buf_.reserve(kCapacity + 4096); }
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
  size_t size() const { return buf_.size(); }
  // Flushes once a line is complete and the buffer is full enough.
  bool end_line() {
    buf_.push_back('\n');
    if (buf_.size() >= kCapacity) return flush();
    return true;
  }
  bool flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size()) return false;
    written_ += buf_.size();
    buf_.clear();
    return true;
  }
  uint64_t written() const { return written_; }

 private:
  static constexpr size_t kCapacity = size_t{1} << 20;
  FILE* out_;
  std::string buf_;
  uint64_t written_ = 0;
};

// Hosts: about 4M, each of the 8 most popular with 0.66% of the URLs.
constexpr int kHostBitsLo = 3, kHostBitsHi = 22;

// Host h's own stream: its name and usual scheme are pure functions of
// (seed, h). The first draw is the scheme.
Rng host_rng(uint64_t seed, uint64_t h) { return Rng(mix64(seed ^ 0x686f7374ull) ^ mix64(h + 1)); }

void write_host(Writer& w, uint64_t seed, uint64_t h) {
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

void write_segment(Writer& w, Rng& r) {
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

void write_param_value(Writer& w, Rng& r, const char* name) {
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
void write_url(Writer& w, uint64_t seed, uint64_t id) {
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

bool parse_count(const char* text, uint64_t& out) {
  // Accepts 123, 10M, 1.5G, 1e7, 2.5e6.
  char* end = nullptr;
  errno = 0;
  const long double v = std::strtold(text, &end);
  if (errno != 0 || end == text || v < 0) return false;
  long double scale = 1;
  if (*end == 'k' || *end == 'K') scale = 1e3L, ++end;
  else if (*end == 'm' || *end == 'M') scale = 1e6L, ++end;
  else if (*end == 'g' || *end == 'G') scale = 1e9L, ++end;
  if (*end != '\0') return false;
  const long double total = v * scale;
  if (total > 1.8e19L) return false;
  out = static_cast<uint64_t>(total + 0.5L);
  return true;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "gen_urls: %s\n"
               "usage: gen_urls [-n LINES] [-s SEED] [-d DUP_PERCENT] [-o FILE] [-q]\n",
               why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t lines = 10000000;
  uint64_t seed = 1;
  uint64_t dup_percent = 40;
  const char* path = nullptr;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(("option " + a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "-n") {
      if (!parse_count(value(), lines)) usage("-n needs a line count such as 1000000, 10M or 1e7");
    } else if (a == "-s") {
      const char* v = value();
      char* end = nullptr;
      errno = 0;
      seed = std::strtoull(v, &end, 0);
      if (errno != 0 || *end != '\0' || end == v) usage("-s needs an unsigned 64-bit integer");
    } else if (a == "-d") {
      if (!parse_count(value(), dup_percent) || dup_percent > 99) usage("-d needs a percentage from 0 to 99");
    } else if (a == "-o") {
      path = value();
    } else if (a == "-q") {
      quiet = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: gen_urls [-n LINES] [-s SEED] [-d DUP_PERCENT] [-o FILE] [-q]\n"
                  "Writes LINES URLs (default 10M), DUP_PERCENT%% (default 40) of them repeats of\n"
                  "earlier lines, the same bytes for the same seed on every machine.\n");
      return 0;
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }

  FILE* out = stdout;
  if (path != nullptr) {
    out = std::fopen(path, "wb");
    if (out == nullptr) {
      std::fprintf(stderr, "gen_urls: cannot create %s: %s\n", path,
                   std::generic_category().message(errno).c_str());
      return 1;
    }
  }

  Writer w(out);
  Rng r(mix64(seed ^ 0x6c696e6573ull));
  uint64_t fresh = 0;  // URL ids handed out so far
  uint64_t repeats = 0;
  constexpr uint64_t kHot = 10000;
  for (uint64_t line = 0; line < lines; ++line) {
    uint64_t id;
    if (fresh > 0 && r.percent(static_cast<uint32_t>(dup_percent))) {
      const uint64_t how = r.below(100);
      if (how < 40) {
        id = fresh - 1 - r.log_uniform(fresh);
      } else if (how < 80) {
        id = r.below(fresh);
      } else {
        id = r.log_uniform(fresh < kHot ? fresh : kHot);
      }
      ++repeats;
    } else {
      id = fresh++;
    }
    write_url(w, seed, id);
    if (!w.end_line()) break;
  }
  const bool ok = w.flush() && std::fflush(out) == 0 && (path == nullptr || std::fclose(out) == 0);
  if (!ok) {
    std::fprintf(stderr, "gen_urls: cannot write %s: %s\n", path ? path : "standard output",
                 std::generic_category().message(errno).c_str());
    return 1;
  }
  if (!quiet) {
    std::fprintf(stderr,
                 "gen_urls: %llu lines, %llu bytes (mean %.1f bytes a line with its newline), "
                 "%llu repeats of earlier lines (%.1f%%), %llu URL ids, seed %llu\n",
                 static_cast<unsigned long long>(lines), static_cast<unsigned long long>(w.written()),
                 lines ? static_cast<double>(w.written()) / static_cast<double>(lines) : 0.0,
                 static_cast<unsigned long long>(repeats),
                 lines ? 100.0 * static_cast<double>(repeats) / static_cast<double>(lines) : 0.0,
                 static_cast<unsigned long long>(fresh), static_cast<unsigned long long>(seed));
  }
  return 0;
}
