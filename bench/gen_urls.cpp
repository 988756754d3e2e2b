// gen_urls: writes a realistic URL dump, one URL per line, that is the same
// byte for byte on every run and every machine for a given seed and line count
// (the generator and what it draws: url_generator.h).
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

#include "url_generator.h"

namespace {

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

  // Written a megabyte at a time, each time a line is complete.
  constexpr size_t kChunk = size_t{1} << 20;
  gdedup::bench::UrlGenerator gen(seed, static_cast<uint32_t>(dup_percent));
  std::string buf;
  buf.reserve(kChunk + 4096);
  uint64_t written = 0;
  bool ok = true;
  for (uint64_t line = 0; line < lines && ok; ++line) {
    gen.append_line(buf);
    if (buf.size() >= kChunk || line + 1 == lines) {
      ok = std::fwrite(buf.data(), 1, buf.size(), out) == buf.size();
      written += buf.size();
      buf.clear();
    }
  }
  ok = ok && std::fflush(out) == 0 && (path == nullptr || std::fclose(out) == 0);
  if (!ok) {
    std::fprintf(stderr, "gen_urls: cannot write %s: %s\n", path ? path : "standard output",
                 std::generic_category().message(errno).c_str());
    return 1;
  }
  if (!quiet) {
    std::fprintf(stderr,
                 "gen_urls: %llu lines, %llu bytes (mean %.1f bytes a line with its newline), "
                 "%llu repeats of earlier lines (%.1f%%), %llu URL ids, seed %llu\n",
                 static_cast<unsigned long long>(lines), static_cast<unsigned long long>(written),
                 lines ? static_cast<double>(written) / static_cast<double>(lines) : 0.0,
                 static_cast<unsigned long long>(gen.repeats()),
                 lines ? 100.0 * static_cast<double>(gen.repeats()) / static_cast<double>(lines) : 0.0,
                 static_cast<unsigned long long>(gen.url_ids()), static_cast<unsigned long long>(seed));
  }
  return 0;
}
