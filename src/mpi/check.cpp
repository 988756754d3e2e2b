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

void share_failure_of_rank0(const std::exception_ptr& failure) {
  int failed = failure ? 1 : 0;
  check(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (failed == 0) return;
  JobFailed job;
  job.failure = failure;
  throw job;
}

void broadcast(std::string& text, const char* what) {
  uint64_t length = text.size();
  check(MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  text.resize(length);
  check(MPI_Bcast(text.data(), mpi_count(length, what), MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Bcast");
}

std::vector<uint64_t> values_of_rank0(const std::vector<uint64_t>& mine, const char* what) {
  std::vector<uint64_t> values = mine;
  uint64_t count = values.size();
  check(MPI_Bcast(&count, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  values.resize(count);
  check(MPI_Bcast(values.data(), mpi_count(count, what), MPI_UINT64_T, 0, MPI_COMM_WORLD),
        "MPI_Bcast");
  return values;
}

void check_together(const std::function<void()>& check) {
  std::exception_ptr failure;
  try {
    check();
  } catch (...) {
    failure = std::current_exception();
  }
  JobFailed failed;
  failed.rank = first_failure(failure != nullptr, failed.everywhere);
  if (failed.rank < 0) return;
  if (static_cast<int>(rank_info().rank) == failed.rank) failed.failure = failure;
  throw failed;
}

}  // namespace gdedup::mpi
