// gdedup dedup, build and query: the subcommands that stream records through
// a filter. They share options and one runner (job_command.cpp).
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/job_command.h"
#include "cli/mpi_launch.h"
#include "cli/options.h"

namespace gdedup::cli {

Action add_dedup_command(CLI::App& app) {
  auto o = std::make_shared<JobOptions>();
  CLI::App* sub = app.add_subcommand(
      "dedup", "Write each record whose key was not seen before, in input order");
  add_input_options(*sub, *o);
  add_output_options(*sub, *o, true);
  sub->add_flag(flag::kDuplicates.names(), o->duplicates,
                "Write the records that would be dropped instead (the exact complement)")
      ->group(kGroupOutput);
  sub->add_option(flag::kFilter.names(), o->filter_path,
                  "Start from this filter file and save the updated filter to it at the end; "
                  "created with the sizing options if it does not exist")
      ->type_name("FILE")
      ->group(kGroupFilter);
  add_sizing_options(*sub, o->sizing);
  add_growth_options(*sub, *o);
  add_exact_option(*sub, *o);
  add_key_options(*sub, o->keys);
  add_backend_options(*sub, *o);
  add_checkpoint_options(*sub, o->checkpoint);
  sub->footer(
      "The filter grows: it starts at " + flag::kCapacity + ", or the record count estimated "
      "from the input sizes, or 524,288 keys for standard input, and adds layers as keys "
      "arrive, keeping the rate, with or without " + flag::kCheckpoint + ". With " +
      flag::kMemory + " or " + flag::kNoGrow + " it has a fixed size instead, sized the same "
      "way (standard input then needs " + flag::kCapacity + " or " + flag::kMemory + "). A "
      "filter file given with " + flag::kFilter + " keeps growing if it was made growing, and "
      "is refused if its keys were made by other key rules.");
  return [o, sub] {
    resolve_mpi_launch(*o);
    o->given = given_options(*sub);
    return run_job_command(*o, JobKind::kDedup);
  };
}

Action add_build_command(CLI::App& app) {
  auto o = std::make_shared<JobOptions>();
  CLI::App* sub = app.add_subcommand(
      "build", "Add the keys of the inputs to a filter file, creating it if needed");
  add_input_options(*sub, *o);
  sub->add_option(flag::kFilter.names(), o->filter_path,
                  "The filter file: extended if it exists, else created with the sizing options")
      ->type_name("FILE")
      ->required()
      ->group(kGroupFilter);
  add_output_options(*sub, *o, false);
  add_sizing_options(*sub, o->sizing);
  add_growth_options(*sub, *o);
  add_exact_option(*sub, *o);
  add_key_options(*sub, o->keys);
  add_backend_options(*sub, *o);
  add_checkpoint_options(*sub, o->checkpoint);
  return [o, sub] {
    resolve_mpi_launch(*o);
    o->given = given_options(*sub);
    return run_job_command(*o, JobKind::kBuild);
  };
}

Action add_query_command(CLI::App& app) {
  auto o = std::make_shared<JobOptions>();
  CLI::App* sub = app.add_subcommand(
      "query", "Write the records whose key is in a filter file (or, with " + flag::kAbsent +
                   ", is not)");
  add_input_options(*sub, *o);
  add_output_options(*sub, *o, true);
  sub->add_flag(flag::kAbsent.names(), o->absent,
                "Write the records whose key is not in the filter instead")
      ->group(kGroupOutput);
  sub->add_option(flag::kFilter.names(), o->filter_path, "The filter file; it is not changed")
      ->type_name("FILE")
      ->required()
      ->group(kGroupFilter);
  add_max_memory_option(*sub, *o,
                        "Refuse a filter or set file that would take more than this many bytes "
                        "in memory, from its header, before it is loaded: 4G, 512MiB (powers "
                        "of 1024); a set file past it ends the job with exit status 4, a "
                        "filter file past it is refused as with dedup (exit status 2); under " +
                            flag::kMpi + " a set's cap is each rank's part")
      ->group(kGroupFilter);
  add_exact_option(*sub, *o);
  add_key_options(*sub, o->keys);
  add_backend_options(*sub, *o);
  return [o, sub] {
    resolve_mpi_launch(*o);
    o->given = given_options(*sub);
    return run_job_command(*o, JobKind::kQuery);
  };
}

}  // namespace gdedup::cli
