#include "mpi/shared_output.h"

#include <mpi.h>

#include "gdedup/error.h"
#include "mpi/check.h"

namespace gdedup::mpi {

SharedOutput::SharedOutput(const std::string& path) : path_(path) {
  // Rank 0 creates the temporary file and tells the others its name.
  std::string name;
  int failed = 0;
  std::string failure;
  if (rank_info().rank == 0) {
    try {
      output_.emplace(io::OutputFile::create(path));
      name = output_->temporary();
    } catch (const Error& e) {
      failed = 1;
      failure = e.what();
    }
  }
  uint64_t length = name.size();
  check(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (failed != 0) {
    throw Error(rank_info().rank == 0 ? failure : "rank 0 could not create the output " + path);
  }
  check(MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  name.resize(length);
  check(MPI_Bcast(name.data(), mpi_count(length, "the output's name"), MPI_CHAR, 0,
                  MPI_COMM_WORLD),
        "MPI_Bcast");
  if (const int err = fs::open_own_file(name, file_)) {
    throw Error("cannot open the output's temporary file " + name + ", which rank 0 created: " +
                fs::error_text(err) + "; every rank must see the output's folder (a shared "
                "filesystem)");
  }
}

uint64_t SharedOutput::write_round(const char* data, uint64_t size, uint64_t written) {
  uint64_t before = 0, total = 0;
  check(MPI_Exscan(&size, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Exscan");
  if (rank_info().rank == 0) before = 0;  // MPI_Exscan leaves rank 0's undefined
  check(MPI_Allreduce(&size, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  if (size != 0) {
    if (const int err = file_.pwrite_all(data, static_cast<size_t>(size), written + before)) {
      throw Error("cannot write the output " + path_ + " (its temporary file " + file_.name() +
                      ") at byte offset " + std::to_string(written + before) + ": " +
                      fs::error_text(err),
                  ErrorKind::io);
    }
  }
  return total;
}

void SharedOutput::commit() {
  if (const int err = file_.sync()) {
    throw Error("cannot sync the output " + path_ + " (its temporary file " + file_.name() +
                    "): " + fs::error_text(err),
                ErrorKind::io);
  }
  file_.close_now();
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  if (output_) {
    output_->close();
    output_->commit();
  }
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

}  // namespace gdedup::mpi
