// gdedup plan: what a filter for N keys at rate P would be, nothing else done.
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/options.h"
#include "gdedup/filter_report.h"
#include "cli/command_events.h"
#include "cli/job_spec.h"
#include "gdedup/job.h"

namespace gdedup::cli {
namespace {

struct PlanOptions {
  SizingOptions sizing;
  bool json = false;
};

// The points `plan` shows a growing filter at: 1e6, 1e7, ... 1e12 keys.
std::vector<uint64_t> growth_points() {
  std::vector<uint64_t> keys;
  for (uint64_t n = 1000000; n <= 1000000000000; n *= 10) keys.push_back(n);
  return keys;
}

// A memory budget fixes the filter: it cannot grow. Otherwise the fixed
// filter for --capacity (if given) and the growth from a first layer of
// that capacity are shown.
int run_plan(const PlanOptions& options) {
  const JobSizing request = parse_sizing(options.sizing);
  JobOptions typed;
  typed.sizing = options.sizing;
  check_planned_rate(request, CommandEvents(typed, false));
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
    std::cout << o.str() << "\n";
  } else {
    if (fixed) std::cout << plan_text(*fixed, target) << (rule ? "\n" : "");
    if (rule) std::cout << growth_text(*rule, points);
  }
  std::cout.flush();
  return 0;
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand(
      "plan", "Show the filter a capacity and rate (or memory budget) call for, and how a growing filter "
      "starting there grows from 1e6 to 1e12 keys; nothing is built");
  add_sizing_options(*sub, options->sizing);
  sub->add_flag("--json", options->json, "Print the plan as a JSON object")->group(kGroupOutput);
  sub->footer("Example: gdedup plan --capacity 1e9 --fpr 1e-4");
  return [options] { return run_plan(*options); };
}

}  // namespace gdedup::cli
