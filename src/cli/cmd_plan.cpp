// gdedup plan: what a filter for N keys at rate P would be, or with --exact
// the set that N keys take; nothing else done.
#include <memory>
#include <optional>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command_events.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/job_spec.h"
#include "cli/options.h"
#include "cli/standard_output.h"
#include "gdedup/error.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/job.h"
#include "gdedup/key_set.h"

namespace gdedup::cli {
namespace {

struct PlanOptions {
  SizingOptions sizing;
  bool json = false;
  bool exact = false;
};

// The points `plan` shows a growing filter at: 1e6, 1e7, ... 1e12 keys.
std::vector<uint64_t> growth_points() {
  std::vector<uint64_t> keys;
  for (uint64_t n = 1000000; n <= 1000000000000; n *= 10) keys.push_back(n);
  return keys;
}

int run_exact_plan(const PlanOptions& options, const JobSizing& request) {
  if (!request.capacity) {
    throw UsageError("plan " + flag::kExact + " needs " + flag::kCapacity +
                     " N, the distinct keys to plan the set for");
  }
  KeySet::check_capacity(*request.capacity, flag::kCapacity + " " + options.sizing.capacity);
  print(options.json ? set_plan_json(*request.capacity).str() + "\n"
                     : set_plan_text(*request.capacity));
  return 0;
}

// A memory budget fixes the filter: it cannot grow. Otherwise the fixed
// filter for --capacity (if given) and the growth from a first layer of
// that capacity are shown.
int run_plan(const PlanOptions& options) {
  const JobSizing request = parse_sizing(options.sizing);
  JobOptions typed;
  typed.sizing = options.sizing;
  check_job_sizing(request, CommandEvents(typed, false), options.exact);
  if (options.exact) return run_exact_plan(options, request);
  std::optional<Plan> fixed;
  if (request.memory || request.capacity) fixed = plan_standalone(request);
  const double target = request.memory ? -1.0 : request.rate();
  std::optional<GrowthRule> rule;
  if (!request.memory) rule = growth_rule(request);
  const std::vector<GrowthPoint> points =
      rule ? growth_at(*rule, growth_points()) : std::vector<GrowthPoint>{};
  if (options.json) {
    JsonObject o = fixed ? plan_json(*fixed, target) : JsonObject{};
    if (rule) o.add("growth", growth_json(*rule, points));
    print(o.str() + "\n");
  } else {
    std::string text;
    if (fixed) text += plan_text(*fixed, target) + (rule ? "\n" : "");
    if (rule) text += growth_text(*rule, points);
    print(text);
  }
  return 0;
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand(
      "plan", "Show the filter a capacity and rate (or memory budget) call for, and how a growing filter "
      "starting there grows from 1e6 to 1e12 keys; nothing is built");
  add_sizing_options(*sub, options->sizing);
  sub->add_flag(flag::kExact.names(), options->exact,
                "Plan the exact set of " + flag::kExact + " instead: the memory " +
                    flag::kCapacity + " keys take and the chance of a collision among them")
      ->group(kGroupSizing);
  sub->add_flag(flag::kJson.names(), options->json, "Print the plan as a JSON object")
      ->group(kGroupOutput);
  sub->footer("Examples: gdedup plan " + flag::kCapacity + " 1e9 " + flag::kFpr + " 1e-4\n" +
              "          gdedup plan " + flag::kExact + " " + flag::kCapacity + " 1e9");
  return [options] { return run_plan(*options); };
}

}  // namespace gdedup::cli
