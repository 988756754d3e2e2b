// The subcommands. Each add_*_command registers its options on `app` and
// returns what to run once the command line has parsed; the action returns
// the exit status or throws (main.cpp maps exceptions to statuses).
#pragma once

#include <functional>

#include "cli/cli11_fwd.h"

namespace gdedup::cli {

using Action = std::function<int()>;

Action add_dedup_command(CLI::App& app);
Action add_build_command(CLI::App& app);
Action add_query_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_info_command(CLI::App& app);
Action add_plan_command(CLI::App& app);
Action add_bench_command(CLI::App& app);

}  // namespace gdedup::cli
