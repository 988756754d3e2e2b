#include "mpi/check.h"

#include <mpi.h>

#include <limits>

#include "gdedup/error.h"

namespace gdedup::mpi {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  const RankInfo& me = rank_info();
  throw Error(std::string("MPI call ") + what + " failed on rank " + std::to_string(me.rank) +
              " (" + me.host + "): " + std::string(text, static_cast<size_t>(length)) +
              "; another rank may have ended: see its message");
}

int mpi_count(uint64_t count, const char* what) {
  if (count > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    throw Error(std::string(what) + ": " + std::to_string(count) + " items in one MPI call, "
                "more than MPI's int counts hold; use smaller pieces (more ranks or a smaller "
                "piece size)");
  }
  return static_cast<int>(count);
}

}  // namespace gdedup::mpi
