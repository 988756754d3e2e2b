// gdedup plan: what a filter for N keys at rate P would be, nothing else done.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/report.h"
#include "cli/sizing.h"

namespace gdedup::cli {
namespace {

struct PlanOptions {
  SizingOptions sizing;
  bool json = false;
};

int run_plan(const PlanOptions& options) {
  const SizingRequest request = parse_sizing(options.sizing);
  const Plan plan = plan_standalone(request);
  const double target = request.memory ? -1.0 : request.fpr;
  if (options.json) {
    std::cout << plan_json(plan, target).str() << "\n";
  } else {
    std::cout << plan_text(plan, target);
  }
  std::cout.flush();
  return 0;
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand(
      "plan", "Show the filter a capacity and rate (or memory budget) call for; nothing is built");
  add_sizing_options(*sub, options->sizing);
  sub->add_flag("--json", options->json, "Print the plan as a JSON object")->group(kGroupOutput);
  sub->footer("Example: gdedup plan --capacity 1e9 --fpr 1e-4");
  return [options] { return run_plan(*options); };
}

}  // namespace gdedup::cli
