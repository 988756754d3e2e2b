// Whether this process is one of several that an MPI launcher started
// (mpirun, mpiexec, srun), as the launchers tell each process through its
// environment: a job command started so runs as one rank of one job, even
// without --mpi, instead of every process running the whole job into the
// same files.
#pragma once

#include <string>

#include "cli/options.h"

namespace gdedup::cli {

struct MpiLaunch {
  unsigned processes = 1;  // 1: not started as one of several
  std::string evidence;    // the variable that says so, "OMPI_COMM_WORLD_SIZE=4"
};

// Reads the launchers' variables; the only place the command reads its
// environment.
MpiLaunch detect_mpi_launch();

// Sets o.mpi for a job command (dedup, build, query) started as one of
// several processes, unless --no-mpi says to run each alone. Throws
// UsageError where that cannot be: this build has no MPI.
void resolve_mpi_launch(JobOptions& o);

// The command line as main() got it, for the ranks to compare: one job
// needs the same command on every rank.
void remember_command_line(int argc, char** argv);
const std::string& command_line();

// For a command that runs in one process only (merge): throws UsageError
// when several were started, which would all write the same file.
void refuse_mpi_launch(const std::string& command);

}  // namespace gdedup::cli
