#include "cli/mpi_launch.h"

#include <cstdlib>
#include <cstring>

#include "cli/flags.h"
#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"

namespace gdedup::cli {
namespace {

std::string& stored_command_line() {
  static std::string line;
  return line;
}

}  // namespace

void remember_command_line(int argc, char** argv) {
  std::string& line = stored_command_line();
  line.clear();
  // Each argument with its length, so that no two lists join alike.
  for (int i = 1; i < argc; ++i) line += std::to_string(std::strlen(argv[i])) + ":" + argv[i];
}

const std::string& command_line() { return stored_command_line(); }

MpiLaunch detect_mpi_launch() {
  // OpenMPI's mpirun; MPICH's and Intel MPI's Hydra, and srun --mpi=pmi2;
  // MVAPICH; any srun step (Slurm), whatever its MPI plugin.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE",
                           "SLURM_STEP_NUM_TASKS"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const unsigned long n = std::strtoul(value, &end, 10);
    if (*end != '\0' || n == 0) continue;
    return MpiLaunch{static_cast<unsigned>(n), std::string(name) + "=" + value};
  }
  return {};
}

void resolve_mpi_launch(JobOptions& o) {
  if (o.mpi || o.no_mpi) return;
  const MpiLaunch launch = detect_mpi_launch();
  if (launch.processes < 2) return;
  if (!mpi::built()) {
    throw UsageError("this process is one of " + std::to_string(launch.processes) +
                     " started by an MPI launcher (" + launch.evidence + "), but gdedup was "
                     "built without MPI, so each would run the whole job into the same files; "
                     "build gdedup with MPI (libopenmpi-dev) to run them as one job, run one "
                     "process without the launcher, or give " + flag::kNoMpi +
                     " to run each alone");
  }
  o.mpi = true;
  o.mpi_launch = launch.evidence;
}

void refuse_mpi_launch(const std::string& command) {
  const MpiLaunch launch = detect_mpi_launch();
  if (launch.processes < 2) return;
  throw UsageError("gdedup " + command + " runs in one process, and this one is one of " +
                   std::to_string(launch.processes) + " started by an MPI launcher (" +
                   launch.evidence + "), which would all write the same file; run it once, "
                   "without the launcher");
}

}  // namespace gdedup::cli
