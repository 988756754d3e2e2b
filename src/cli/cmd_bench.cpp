// gdedup bench: one generated workload through the CPU backend and, where a
// usable GPU exists, the GPU backend, side by side: rates, the GPU/CPU ratio,
// and a check that both left the same answers and filter bytes (the
// determinism the whole tool rests on). Two workloads: 64-bit fingerprints
// already in memory (the backends alone), and URL text through the whole
// streaming pipeline (read, split, hash, filter, write to /dev/null).
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/backend_help.h"
#include "cli/commands.h"
#include "cli/console.h"
#include "cli/mpi_launch.h"
#include "cli/numbers.h"
#include "cli/options.h"
#include "cli/standard_output.h"
#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/frontend/json.h"
#include "gdedup/frontend/mpi.h"
#include "gdedup/frontend/paths.h"
#include "gdedup/gpu.h"
#include "gdedup/job.h"
#include "gdedup/pipeline.h"
#include "gdedup/planner.h"

namespace gdedup::cli {
namespace {

constexpr uint64_t kBatchKeys = uint64_t{1} << 22;

struct BenchOptions {
  std::string keys = "64M";
  std::string urls = "2M";
  std::string fpr = "1e-4";
  unsigned threads = 0;
  int device = 0;
  bool json = false;
  bool list_backends = false;
  bool mpi = false;
};

// printf's formatting, into a string: bench prints its table through
// print(), which checks that standard output took it.
__attribute__((format(printf, 1, 2))) std::string formatted(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(size > 0 ? static_cast<size_t>(size) : 0, '\0');
  std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  return text;
}

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Fills `keys` with random fingerprints from `state`, every fourth one a
// repeat of an earlier one, so that test_and_set answers both ways.
void fill_keys(std::vector<uint64_t>& keys, uint64_t& state) {
  for (uint64_t i = 0; i < keys.size(); ++i) {
    const uint64_t r = splitmix(state);
    keys[i] = (i > 0 && (r & 3) == 0) ? keys[(r >> 2) % i] : r;
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Measurement {
  std::string workload;
  std::string backend;
  double seconds = 0;
  uint64_t items = 0;
  double rate() const { return seconds > 0 ? items / seconds : 0; }
};

// What a backend leaves behind, to compare across backends.
struct Result {
  Measurement measured;
  std::vector<uint8_t> answers;
  std::vector<uint32_t> words;
  uint64_t kept = 0;
};

std::vector<uint32_t> words_of(const Filter& filter) {
  return std::vector<uint32_t>(filter.words(), filter.words() + filter.params().words());
}

// test_and_set over all keys in batches, as the pipeline feeds a backend.
Result run_fingerprints(const std::string& which, const BackendOptions& on, const Plan& plan,
                        const std::vector<uint64_t>& keys) {
  Filter filter = Filter::from_plan(plan);
  MadeBackend chosen = choose_backend(which, on, filter, flag::kBackend + " " + which);
  Result r;
  r.answers.resize(keys.size());
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < keys.size(); i += kBatchKeys) {
    const uint64_t n = std::min<uint64_t>(kBatchKeys, keys.size() - i);
    r.kept += chosen.backend->test_and_set(keys.data() + i, n, r.answers.data() + i);
  }
  chosen.backend->sync_to_host();
  r.measured = {"fingerprints", chosen.description, seconds_since(start), keys.size()};
  r.words = words_of(filter);
  return r;
}

// URLs with about 40% repeats of earlier lines, written to a temporary file.
std::string write_urls(uint64_t count) {
  // The folder TMPDIR names, else /tmp.
  std::error_code error;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(error);
  if (error) throw Error("cannot find the folder for temporary files (TMPDIR): " + error.message());
  std::string path = dir.string() + "/gdedup-bench-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) throw Error("cannot create a temporary file in " + path + ": " + fs::error_text(errno));
  close(fd);
  std::ofstream out(path, std::ios::binary);
  uint64_t state = 7;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t r = splitmix(state);
    const uint64_t id = (r % 10 < 4 && i > 0) ? (r >> 8) % i : i;
    out << "https://www.host" << id % 50000 << ".example/articles/" << id * 2654435761u % 1000003
        << "/page-" << id << ".html?ref=feed\n";
  }
  if (!out.flush()) throw Error("cannot write the benchmark's URL file " + path);
  return path;
}

Result run_urls(const std::string& which, const BackendOptions& on, const Plan& plan,
                const std::string& path, uint64_t count) {
  Filter filter = Filter::from_plan(plan);
  MadeBackend chosen = choose_backend(which, on, filter, flag::kBackend + " " + which);
  PipelineOptions options;
  options.inputs = {path};
  options.output = "/dev/null";
  const PipelineStats stats = run_pipeline(options, filter, *chosen.backend);
  chosen.backend->sync_to_host();
  Result r;
  r.measured = {"url text", chosen.description, stats.seconds, count};
  r.words = words_of(filter);
  r.kept = stats.kept;
  return r;
}

std::string results_text(const std::vector<Measurement>& rows, bool json,
                         const std::string& gpu_note, const std::vector<std::string>& ratios) {
  if (json) {
    JsonObject o;
    for (size_t i = 0; i < rows.size(); ++i) {
      JsonObject row;
      row.add("workload", rows[i].workload)
          .add("backend", rows[i].backend)
          .add("seconds", rows[i].seconds)
          .add("items", rows[i].items)
          .add("items_per_second", rows[i].rate());
      o.add("run" + std::to_string(i), std::move(row));
    }
    if (!gpu_note.empty()) o.add("gpu", gpu_note);
    return o.str() + "\n";
  }
  std::string text = formatted("%-14s %-44s %10s %16s\n", "workload", "backend", "seconds", "rate");
  for (const Measurement& m : rows) {
    text += formatted("%-14s %-44s %10.3f %14s/s\n", m.workload.c_str(),
                      m.backend.substr(0, 44).c_str(), m.seconds, human_count(m.rate()).c_str());
  }
  for (const std::string& line : ratios) text += line + "\n";
  if (!gpu_note.empty()) text += "gpu: " + gpu_note + "\n";
  return text;
}

// Differences between backends are a broken promise, not a slow run.
void check_same(const Result& cpu, const Result& gpu) {
  if (cpu.answers != gpu.answers || cpu.words != gpu.words || cpu.kept != gpu.kept) {
    throw Error("the GPU and CPU backends disagree on the " + cpu.measured.workload +
                " workload (answers or filter bytes differ); please report this with the "
                "output of 'gdedup bench'");
  }
}

// Two lines a backend: its name and what it runs on, then whether it can
// run here, or why not.
int list_backends(const BenchOptions& options) {
  BackendOptions on;
  on.device = options.device;
  std::string text;
  for (const BackendEntry& e : backend_registry()) {
    std::string why_not;
    const bool available = e.available(on, &why_not);
    text += formatted("%-6s %s\n       %s\n", e.name.c_str(), backend_summary(e).c_str(),
                      available ? "available" : ("unavailable: " + why_not).c_str());
  }
  print(text);
  return 0;
}

// Keys a rank hands in per round under --mpi.
constexpr uint64_t kMpiRoundKeys = uint64_t{1} << 20;

// gdedup bench --mpi: the key exchange of the sharded filter, per key and
// rank, with the owners on the backend each rank would run a job on.
int run_mpi_bench(const BenchOptions& options, uint64_t key_count, double fpr) {
  const mpi::RankInfo me = mpi::join(nullptr, nullptr);
  const Plan plan = plan_for_capacity(key_count * me.ranks, fpr);
  // This rank's keys, in rounds of kMpiRoundKeys.
  std::vector<std::vector<uint64_t>> batches;
  uint64_t state = 0x6764656475700000ull + me.rank;
  for (uint64_t done = 0; done < key_count;) {
    std::vector<uint64_t>& batch = batches.emplace_back(std::min(kMpiRoundKeys, key_count - done));
    fill_keys(batch, state);
    done += batch.size();
  }
  BackendOptions on;
  on.threads = options.threads > 0 ? options.threads : 1;
  on.device = static_cast<int>(me.local_rank);
  const mpi::ExchangeCosts costs = mpi::measure_exchange(
      FilterParams{plan.num_blocks, plan.layout, kDefaultSeed}, batches,
      [&](Filter& filter) {
        return choose_backend("auto", on, filter, flag::kBackend + " auto").backend;
      });
  // Rank 0 prints once every rank has left MPI: a failed print ends it
  // with no rank left waiting.
  std::string text;
  if (me.rank == 0) {
    const uint64_t total = key_count * me.ranks;
    const std::string ranks = counted(me.ranks, "rank");
    std::vector<Measurement> rows = {
        {"mpi exchange", ranks + ", owners answer at once", costs.exchange_seconds, total},
        {"mpi round", ranks + ", owners on " + costs.backend, costs.round_seconds, total},
        {"whole filter", "each rank alone on " + costs.backend, costs.whole_seconds, total}};
    std::vector<std::string> lines;
    for (const Measurement& m : rows) {
      lines.push_back(formatted("%s: %.1f ns a key and rank", m.workload.c_str(),
                                1e9 * m.seconds / static_cast<double>(key_count)));
    }
    text = results_text(rows, options.json, "", lines);
  }
  mpi::leave();
  print(text);
  return 0;
}

int run_bench(const BenchOptions& options, bool urls_given) {
  if (options.list_backends) return list_backends(options);
  const uint64_t key_count = parse_count(options.keys, flag::kKeys.name);
  const uint64_t url_count = parse_count(options.urls, flag::kUrls.name);
  if (key_count == 0 && url_count == 0) {
    throw UsageError(flag::kKeys + " 0 and " + flag::kUrls + " 0 skip both workloads, leaving "
                     "nothing to measure; give one of them a count");
  }
  const double fpr = parse_fpr(options.fpr, flag::kFpr.name);
  if (options.mpi) {
    if (urls_given && url_count > 0) {
      throw UsageError(flag::kUrls + " has no effect with " + flag::kMpi + ", which measures "
                       "the key exchange of the sharded filter; drop " + flag::kUrls);
    }
    if (key_count == 0) {
      throw UsageError(flag::kKeys + " 0 leaves " + flag::kMpi + " nothing to measure");
    }
    return run_mpi_bench(options, key_count, fpr);
  }
  BackendOptions on;
  on.threads = options.threads;
  on.device = options.device;
  std::string why_not;
  const bool gpu = gpu_available(&why_not, options.device);

  std::vector<Measurement> rows;
  std::vector<std::string> ratios;
  auto compare = [&](const Result& cpu, const Result* on_gpu) {
    rows.push_back(cpu.measured);
    if (on_gpu == nullptr) return;
    rows.push_back(on_gpu->measured);
    check_same(cpu, *on_gpu);
    ratios.push_back(formatted("%s: GPU/CPU %.2fx, identical answers and filter bytes",
                               cpu.measured.workload.c_str(),
                               on_gpu->measured.rate() / cpu.measured.rate()));
  };

  if (key_count > 0) {
    const Plan plan = plan_for_capacity(key_count, fpr);
    std::vector<uint64_t> keys(key_count);
    uint64_t state = 1;
    fill_keys(keys, state);
    const Result cpu = run_fingerprints("cpu", on, plan, keys);
    std::unique_ptr<Result> on_gpu;
    if (gpu) on_gpu = std::make_unique<Result>(run_fingerprints("gpu", on, plan, keys));
    compare(cpu, on_gpu.get());
  }
  if (url_count > 0) {
    const std::string path = write_urls(url_count);
    try {
      const Plan plan = plan_for_capacity(url_count, fpr);
      const Result cpu = run_urls("cpu", on, plan, path, url_count);
      std::unique_ptr<Result> on_gpu;
      if (gpu) on_gpu = std::make_unique<Result>(run_urls("gpu", on, plan, path, url_count));
      compare(cpu, on_gpu.get());
    } catch (...) {
      fs::unlink_file(path);
      throw;
    }
    fs::unlink_file(path);
  }
  print(results_text(rows, options.json, gpu ? "" : "not measured: " + why_not, ratios));
  return 0;
}

}  // namespace

Action add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench", "Run a generated workload through the CPU and GPU backends and compare their rates");
  sub->add_option(flag::kKeys.names(), options->keys,
                  "Random 64-bit fingerprints for the backend-only workload (default 64M; 0 skips it)")
      ->group(kGroupInput);
  sub->add_option(flag::kUrls.names(), options->urls,
                  "Generated URL lines for the end-to-end workload (default 2M; 0 skips it)")
      ->group(kGroupInput);
  sub->add_option(flag::kFpr.names(), options->fpr,
                  "False-positive rate the filters are planned for (default 1e-4)")
      ->group(kGroupSizing);
  add_threads_option(*sub, flag::kThreads, options->threads,
                     "CPU backend threads (default: the hardware threads less 2, at least 1)")
      ->check(CLI::Range(1u, kMaxJobThreads).description(""));
  sub->add_option(flag::kDevice.names(), options->device,
                  "The GPU backend's CUDA device (default 0)")
      ->type_name("N")
      ->check(CLI::Range(0, 4095).description(""))
      ->group(kGroupBackend);
  sub->add_flag(flag::kListBackends.names(), options->list_backends,
                "List the registered backends, whether each can run here and why not, and "
                "measure nothing")
      ->group(kGroupOutput);
  sub->add_flag(flag::kJson.names(), options->json, "Print the measurements as a JSON object")
      ->group(kGroupOutput);
  sub->add_flag(flag::kMpi.names(), options->mpi,
                "Under mpirun (-np R): measure the sharded filter's key exchange instead, per "
                "key and rank, with " + flag::kKeys + " fingerprints a rank (default 8M) and "
                "the owners on the backend a job would use (docs/SCALE-OUT.md); the default "
                "where an MPI launcher started several processes")
      ->group(kGroupBackend);
  sub->footer(
      "Each workload runs on the CPU and, when a GPU is usable, on the GPU; the two must leave "
      "identical answers and filter bytes, or the command fails.");
  return [options, sub] {
    if (!options->mpi && detect_mpi_launch().processes > 1) options->mpi = true;
    // One process's default would hold 64M keys on every rank.
    if (options->mpi && sub->count(flag::kKeys.name) == 0) options->keys = "8M";
    return run_bench(*options, sub->count(flag::kUrls.name) > 0);
  };
}

}  // namespace gdedup::cli
