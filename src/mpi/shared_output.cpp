#include "mpi/shared_output.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gdedup/error.h"
#include "mpi/check.h"

namespace gdedup::mpi {

struct SharedOutput::Checksum {
  XXH3_state_t state;
  uint64_t hashed = 0;
};

SharedOutput::SharedOutput(const std::string& path, const ResumeState* resume) : path_(path) {
  // Rank 0 creates (or continues) the temporary file and tells the others
  // its name.
  std::string name;
  int failed = 0;
  std::exception_ptr failure;
  if (rank_info().rank == 0) {
    try {
      output_.emplace(resume ? io::OutputFile::resume(path, resume->output_temporary,
                                                      io::OutputPrefix{resume->output_offset,
                                                                       resume->kept,
                                                                       resume->output_checksum})
                             : io::OutputFile::create(path));
      name = output_->temporary();
      checksum_ = std::make_unique<Checksum>();
      XXH3_64bits_reset(&checksum_->state);
    } catch (const Error&) {
      failed = 1;
      failure = std::current_exception();
    }
  }
  uint64_t length = name.size();
  check(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (failed != 0) {
    // Every rank knows: rank 0 alone reports it.
    JobFailed job;
    job.failure = failure;
    throw job;
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
  // The resumed prefix was checked whole; its checksum goes on from there.
  if (checksum_ && resume) hash_up_to(resume->output_offset);
}

SharedOutput::~SharedOutput() = default;

void SharedOutput::write_at(const char* data, uint64_t size, uint64_t offset) {
  if (size == 0) return;
  if (const int err = file_.pwrite_all(data, static_cast<size_t>(size), offset)) {
    throw Error("cannot write the output " + path_ + " (its temporary file " + file_.name() +
                    ") at byte offset " + std::to_string(offset) + ": " + fs::error_text(err),
                ErrorKind::io);
  }
}

void SharedOutput::hash_up_to(uint64_t upto) {
  std::vector<char> piece(static_cast<size_t>(std::min<uint64_t>(upto - checksum_->hashed,
                                                                 uint64_t{8} << 20)));
  while (checksum_->hashed < upto) {
    const uint64_t want = std::min<uint64_t>(piece.size(), upto - checksum_->hashed);
    const int64_t got = fs::read_at(file_.fd(), piece.data(), want, checksum_->hashed);
    if (got <= 0) {
      throw Error("cannot read back the output's temporary file " + file_.name() +
                      " at byte offset " + std::to_string(checksum_->hashed) + " for a "
                      "checkpoint: " + (got < 0 ? fs::error_text(errno) : "it ends there"),
                  ErrorKind::io);
    }
    XXH3_64bits_update(&checksum_->state, piece.data(), static_cast<size_t>(got));
    checksum_->hashed += static_cast<uint64_t>(got);
  }
}

io::OutputPrefix SharedOutput::sync_for_checkpoint(uint64_t written, uint64_t kept) {
  if (const int err = file_.sync()) {
    throw Error("cannot sync the output " + path_ + " (its temporary file " + file_.name() +
                    ") for a checkpoint: " + fs::error_text(err),
                ErrorKind::io);
  }
  // Every rank's part is on disk, so rank 0 reads the whole of it.
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  io::OutputPrefix prefix{written, kept, 0};
  if (output_) {
    hash_up_to(written);
    prefix.checksum = XXH3_64bits_digest(&checksum_->state);
    output_->keep_for_resume();
  }
  return prefix;
}

void SharedOutput::discard() {
  if (output_) output_->discard();
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
