// scale_run: the billion-key run on the CPU backend. Inserts --keys random
// 64-bit fingerprints (default 1e9) into a filter planned for that many keys
// at --fpr (default 1e-4), then queries --queries keys that were never
// inserted (default 1e8) and reports the measured false-positive rate beside
// the planned one, the time and ns/key of both phases, the filter size, and
// the distinct keys estimated from the fill against the true count. It also
// re-queries a sample of inserted keys from the first and last batches: a
// single miss there is a false negative and fails the run (exit status 1).
//
// Keys are splitmix64 outputs at counters 0, 1, 2, ...: key(i) = mix(seed +
// (i + 1) * gamma). Inserted keys are counters [0, keys), absent keys are
// counters [keys, keys + queries); the mix is a bijection, so the two sets are
// disjoint and every inserted key is distinct. Keys are made a batch at a time
// (--batch, default 16M), never all in memory; making them is timed apart
// from the filter operations.
//
// usage: scale_run [--keys N] [--queries N] [--fpr P] [--threads T]
//                  [--batch N] [--op test_and_set|add] [--block-bits 0|256|512]
//                  [--check N] [--seed S]
// Counts accept 1e9, 100M, 16M, 1G. Quick run: scale_run --keys 1e8 --queries 1e7
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/planner.h"

namespace {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// key(i) for i in [first, first + out.size()).
void make_keys(uint64_t seed, uint64_t first, std::vector<uint64_t>& out) {
  uint64_t s = seed + first * kGamma;
  for (auto& k : out) k = mix64(s += kGamma);
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool parse_count(const char* text, uint64_t& out) {
  char* end = nullptr;
  const long double v = std::strtold(text, &end);
  if (end == text || !(v >= 0)) return false;
  long double scale = 1;
  if (*end == 'k' || *end == 'K') scale = 1e3L, ++end;
  else if (*end == 'm' || *end == 'M') scale = 1e6L, ++end;
  else if (*end == 'g' || *end == 'G') scale = 1e9L, ++end;
  if (*end != '\0' || v * scale > 1.8e19L) return false;
  out = static_cast<uint64_t>(v * scale + 0.5L);
  return true;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "scale_run: %s\n"
               "usage: scale_run [--keys N] [--queries N] [--fpr P] [--threads T] [--batch N]\n"
               "                 [--op test_and_set|add] [--block-bits 0|256|512] [--check N] [--seed S]\n",
               why.c_str());
  std::exit(2);
}

double gib(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t keys = 1000000000;
  uint64_t queries = 100000000;
  uint64_t batch = uint64_t{1} << 24;
  uint64_t threads = 2;
  uint64_t block_bits = 0;
  uint64_t check = 10000000;
  uint64_t seed = 0x5ca1e0001ull;
  double fpr = 1e-4;
  std::string op = "test_and_set";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf("usage: scale_run [--keys N] [--queries N] [--fpr P] [--threads T] [--batch N]\n"
                  "                 [--op test_and_set|add] [--block-bits 0|256|512] [--check N] [--seed S]\n"
                  "Defaults: 1e9 keys, 1e8 absent queries, p = 1e-4, 2 threads, 16M-key batches,\n"
                  "test_and_set, planner's block size, 1e7 inserted keys re-queried.\n");
      return 0;
    }
    if (i + 1 >= argc) usage("option " + a + " needs a value");
    const char* v = argv[++i];
    bool ok = true;
    if (a == "--keys") ok = parse_count(v, keys) && keys > 0;
    else if (a == "--queries") ok = parse_count(v, queries);
    else if (a == "--batch") ok = parse_count(v, batch) && batch > 0;
    else if (a == "--threads") ok = parse_count(v, threads) && threads > 0 && threads <= 1024;
    else if (a == "--block-bits") ok = parse_count(v, block_bits) && (block_bits == 0 || block_bits == 256 || block_bits == 512);
    else if (a == "--check") ok = parse_count(v, check);
    else if (a == "--seed") ok = parse_count(v, seed);
    else if (a == "--op") { op = v; ok = op == "test_and_set" || op == "add"; }
    else if (a == "--fpr") { char* end = nullptr; fpr = std::strtod(v, &end); ok = *end == '\0' && end != v; }
    else usage("unknown option " + a);
    if (!ok) usage("bad value for " + a + ": " + v);
  }
  check = std::min(check, keys);

  try {
    const auto t_plan = Clock::now();
    const gdedup::Plan plan = gdedup::plan_for_capacity(keys, fpr, static_cast<uint32_t>(block_bits));
    gdedup::Filter filter = gdedup::Filter::from_plan(plan);
    const double alloc_s = since(t_plan);
    auto backend = gdedup::make_cpu_backend(filter, {static_cast<unsigned>(threads), gdedup::CpuKernel::kAuto});
    const uint64_t bits = plan.bytes() * 8;
    std::printf("plan:     %" PRIu64 " keys at p = %g: %u-bit blocks, k = %u, %" PRIu64
                " blocks, %" PRIu64 " bytes (%.3f GiB), %.2f bits/key, %" PRIu64
                " bits (%.2f x 2^32), expected FPR %.4e\n",
                keys, fpr, plan.layout.block_bits, plan.layout.k, plan.num_blocks, plan.bytes(),
                gib(plan.bytes()), plan.bits_per_key(), bits, static_cast<double>(bits) / 4294967296.0,
                plan.expected_fpr);
    std::printf("backend:  %s, %" PRIu64 " threads, op %s, batches of %" PRIu64 " keys, filter allocated in %.2f s\n",
                backend->name().c_str(), threads, op.c_str(), batch, alloc_s);
    std::fflush(stdout);

    std::vector<uint64_t> buf(std::min(batch, std::max(keys, queries)));
    std::vector<uint8_t> answers(buf.size());

    // Inserts.
    double gen_s = 0, insert_s = 0;
    uint64_t reported_new = 0;
    uint64_t next_report = keys / 10;
    const auto t_all = Clock::now();
    for (uint64_t first = 0; first < keys; first += buf.size()) {
      const uint64_t n = std::min<uint64_t>(buf.size(), keys - first);
      buf.resize(n);
      auto t = Clock::now();
      make_keys(seed, first, buf);
      gen_s += since(t);
      t = Clock::now();
      if (op == "add") {
        backend->add(buf.data(), n);
      } else {
        reported_new += backend->test_and_set(buf.data(), n, answers.data());
      }
      insert_s += since(t);
      if (first + n >= next_report && first + n < keys) {
        std::fprintf(stderr, "scale_run: %5.1f%% inserted, %.1f s, %.2f ns/key so far\n",
                     100.0 * static_cast<double>(first + n) / static_cast<double>(keys), since(t_all),
                     insert_s * 1e9 / static_cast<double>(first + n));
        next_report += keys / 10;
      }
    }
    buf.resize(std::min(batch, std::max(keys, queries)));
    backend->sync_to_host();
    std::printf("insert:   %" PRIu64 " keys in %.2f s (filter operations; %.2f s more making keys), "
                "%.2f ns/key, %.1f M keys/s\n",
                keys, insert_s, gen_s, insert_s * 1e9 / static_cast<double>(keys),
                static_cast<double>(keys) / insert_s / 1e6);
    if (op == "test_and_set") {
      const uint64_t lost = keys - reported_new;
      std::printf("          test_and_set reported %" PRIu64 " keys new and %" PRIu64
                  " already present (false positives while filling: %.3e of the keys)\n",
                  reported_new, lost, static_cast<double>(lost) / static_cast<double>(keys));
    }

    const auto t_fill = Clock::now();
    const uint64_t set_bits = filter.count_set_bits();
    const double estimated = filter.estimated_keys();
    const double current_fpr = filter.current_fpr();
    std::printf("fill:     %" PRIu64 " of %" PRIu64 " bits set (%.4f); estimated distinct keys %.6e "
                "vs %.6e inserted (%+.4f%%); FPR from the fill %.4e (%.2f s)\n",
                set_bits, bits, static_cast<double>(set_bits) / static_cast<double>(bits), estimated,
                static_cast<double>(keys), 100.0 * (estimated / static_cast<double>(keys) - 1.0), current_fpr,
                since(t_fill));

    // False negatives: the first and the last inserted keys, queried again.
    uint64_t missing = 0;
    for (int part = 0; part < 2 && check > 0; ++part) {
      const uint64_t half = part == 0 ? check / 2 : check - check / 2;
      const uint64_t first = part == 0 ? 0 : keys - half;
      for (uint64_t done = 0; done < half; done += buf.size()) {
        const uint64_t n = std::min<uint64_t>(buf.size(), half - done);
        buf.resize(n);
        make_keys(seed, first + done, buf);
        backend->contains(buf.data(), n, answers.data());
        for (uint64_t i = 0; i < n; ++i) missing += answers[i] == 0;
      }
      buf.resize(std::min(batch, std::max(keys, queries)));
    }
    std::printf("present:  %" PRIu64 " inserted keys re-queried (first and last %" PRIu64
                "), %" PRIu64 " false negatives\n",
                check, check - check / 2, missing);

    // Absent keys.
    double query_s = 0;
    gen_s = 0;
    uint64_t false_positives = 0;
    for (uint64_t done = 0; done < queries; done += buf.size()) {
      const uint64_t n = std::min<uint64_t>(buf.size(), queries - done);
      buf.resize(n);
      auto t = Clock::now();
      make_keys(seed, keys + done, buf);
      gen_s += since(t);
      t = Clock::now();
      backend->contains(buf.data(), n, answers.data());
      query_s += since(t);
      for (uint64_t i = 0; i < n; ++i) false_positives += answers[i];
    }
    if (queries > 0) {
      const double q = static_cast<double>(queries);
      const double measured = static_cast<double>(false_positives) / q;
      // 95% interval (Wilson score).
      const double z = 1.96, den = 1 + z * z / q;
      const double centre = (measured + z * z / (2 * q)) / den;
      const double half = z * std::sqrt(measured * (1 - measured) / q + z * z / (4 * q * q)) / den;
      std::printf("query:    %" PRIu64 " absent keys in %.2f s (%.2f s more making keys), %.2f ns/key, "
                  "%.1f M keys/s\n",
                  queries, query_s, gen_s, query_s * 1e9 / q, q / query_s / 1e6);
      std::printf("FPR:      measured %.4e (%" PRIu64 " false positives, 95%% interval %.4e .. %.4e), "
                  "planned %.4e, target %g; measured / planned = %.3f\n",
                  measured, false_positives, centre - half, centre + half, plan.expected_fpr, fpr,
                  measured / plan.expected_fpr);
    }
    std::printf("total:    %.1f s wall, peak RSS %.3f GiB (filter %.3f GiB)\n", since(t_all),
                static_cast<double>(peak_rss_kib()) / (1024.0 * 1024.0), gib(plan.bytes()));
    if (missing != 0) {
      std::fprintf(stderr, "scale_run: FAILED: %" PRIu64 " inserted keys were not found\n", missing);
      return 1;
    }
  } catch (const gdedup::Error& e) {
    std::fprintf(stderr, "scale_run: %s\n", e.what());
    return 1;
  }
  return 0;
}
