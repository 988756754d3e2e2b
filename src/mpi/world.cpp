// MPI start, end and failure for the whole job (gdedup/frontend/mpi.h). Errors of
// MPI calls are returned, not fatal (MPI_ERRORS_RETURN), so that a failed
// call becomes an Error naming the call and this rank (mpi/check.h), which
// the command turns into abort_job.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gdedup/error.h"
#include "gdedup/frontend/live_temporaries.h"
#include "gdedup/frontend/mpi.h"
#include "mpi/check.h"

namespace gdedup::mpi {
namespace {

RankInfo& this_rank() {
  static RankInfo info;
  return info;
}

}  // namespace

bool built() { return true; }

RankInfo join(int* argc, char*** argv) {
  int provided = 0;
  // One thread calls MPI (the caller's); the engine's own threads never do.
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    throw Error("MPI could not be started (MPI_Init_thread failed); run the command under "
                "mpirun or srun");
  }
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  int rank = 0, ranks = 1, length = 0;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
  check(MPI_Get_processor_name(host, &length), "MPI_Get_processor_name");
  MPI_Comm machine = MPI_COMM_NULL;
  int local_rank = 0;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &machine),
        "MPI_Comm_split_type");
  check(MPI_Comm_rank(machine, &local_rank), "MPI_Comm_rank");
  check(MPI_Comm_free(&machine), "MPI_Comm_free");
  RankInfo& info = this_rank();
  info.local_rank = static_cast<unsigned>(local_rank);
  info.rank = static_cast<unsigned>(rank);
  info.ranks = static_cast<unsigned>(ranks);
  info.host.assign(host, static_cast<size_t>(length));
  return info;
}

void leave() { MPI_Finalize(); }

const RankInfo& rank_info() { return this_rank(); }

void abort_job(const std::string& message, int status) {
  const RankInfo& me = this_rank();
  const std::string line = "gdedup: rank " + std::to_string(me.rank) + " of " +
                           std::to_string(me.ranks) + " on " + me.host + ": " + message + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  // MPI_Abort's runtime ends this process by a signal it may not catch.
  fs::remove_live_temporaries();
  MPI_Abort(MPI_COMM_WORLD, status != 0 ? status : 1);
  std::_Exit(status != 0 ? status : 1);  // MPI_Abort does not return; if it did
}

int first_failure(bool failed, bool& all_failed) {
  const RankInfo& me = this_rank();
  int mine = failed ? static_cast<int>(me.rank) : static_cast<int>(me.ranks);
  int first = 0, count = 0, one = failed ? 1 : 0;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  check(MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  all_failed = count == static_cast<int>(me.ranks);
  return first == static_cast<int>(me.ranks) ? -1 : first;
}

int max_status(int status) {
  int out = 0;
  check(MPI_Allreduce(&status, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return out;
}

bool same_everywhere(uint64_t value) {
  uint64_t low = 0, high = 0;
  check(MPI_Allreduce(&value, &low, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  check(MPI_Allreduce(&value, &high, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return low == high;
}

}  // namespace gdedup::mpi
