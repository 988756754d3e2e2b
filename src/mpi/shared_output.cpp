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

namespace {

// A rank's kept bytes of a round go to rank 0 in messages of at most this
// many bytes: MPI counts are ints, and one Parquet row group's kept rows
// may take more.
constexpr uint64_t kMessageBytes = uint64_t{1} << 30;

}  // namespace

struct SharedOutput::Checksum {
  XXH3_state_t state;
  uint64_t hashed = 0;
};

SharedOutput::SharedOutput(const PipelineOptions& options, const ResumeState* resume,
                           const columnar::ParquetReader* parquet)
    : path_(options.output),
      gathered_(parquet != nullptr || io::replaced_file(options.output).empty()) {
  // Rank 0 creates (or continues) the output and, for a file, tells the
  // others its temporary file's name.
  std::string name;
  std::exception_ptr failure;
  if (rank_info().rank == 0) {
    try {
      output_.emplace(resume ? io::OutputFile::resume(path_, resume->output_temporary,
                                                      io::OutputPrefix{resume->output_offset,
                                                                       resume->kept,
                                                                       resume->output_checksum})
                             : io::OutputFile::create(path_));
      name = output_->temporary();
      checksum_ = std::make_unique<Checksum>();
      XXH3_64bits_reset(&checksum_->state);
      // A stream is never checkpointed (resume_check refuses it), nor a
      // Parquet output on ranks (run_rounds refuses it).
      if (gathered_) output_->writer().skip_checksum();
      if (parquet) parquet_.emplace(*parquet, options, output_->writer(), nullptr);
    } catch (const Error&) {
      failure = std::current_exception();
    }
  }
  share_failure_of_rank0(failure);
  if (gathered_) return;
  broadcast(name, "the output's name");
  if (const int err = fs::open_own_file(name, file_)) {
    throw Error("cannot open the output's temporary file " + name + ", which rank 0 created: " +
                fs::error_text(err) + "; every rank must see the output's folder (a shared "
                "filesystem)");
  }
  // The resumed prefix was checked whole; its checksum goes on from there.
  if (checksum_ && resume) hash_up_to(resume->output_offset);
}

SharedOutput::~SharedOutput() = default;

uint64_t SharedOutput::write_round(const char* data, uint64_t size,
                                   const std::vector<unsigned>& order,
                                   const std::vector<uint64_t>& sizes, uint64_t written) {
  const unsigned me = rank_info().rank;
  for (unsigned r : order) {
    if (!gathered_) {
      if (r == me) write_at(data, size, written);
    } else if (me == 0) {
      // Rank 0 takes each rank's bytes in turn: it holds one rank's at most.
      if (r == 0) {
        write_gathered(data, size);
      } else if (sizes[r] != 0) {
        received_.resize(static_cast<size_t>(sizes[r]));
        for (uint64_t at = 0; at < sizes[r]; at += kMessageBytes) {
          const int count = static_cast<int>(std::min(kMessageBytes, sizes[r] - at));
          check(MPI_Recv(received_.data() + at, count, MPI_CHAR, static_cast<int>(r), 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Recv");
        }
        write_gathered(received_.data(), sizes[r]);
      }
    } else if (r == me) {
      for (uint64_t at = 0; at < size; at += kMessageBytes) {
        const int count = static_cast<int>(std::min(kMessageBytes, size - at));
        check(MPI_Send(data + at, count, MPI_CHAR, 0, 0, MPI_COMM_WORLD), "MPI_Send");
      }
    }
    written += sizes[r];
  }
  return written;
}

Error SharedOutput::closed_error() const {
  return Error("the reader of " + path_ + " went away", ErrorKind::broken_pipe);
}

void SharedOutput::write_gathered(const char* data, uint64_t size) {
  if (closed_ || size == 0) return;
  try {
    if (parquet_) {
      parquet_->write_packed(data, static_cast<size_t>(size));
    } else {
      output_->writer().write(data, static_cast<size_t>(size));
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::broken_pipe) throw;
    closed_ = true;
  }
}

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

uint64_t SharedOutput::bytes(uint64_t written) const {
  return parquet_ ? output_->writer().bytes_written() : written;
}

void SharedOutput::commit() {
  if (gathered_) {
    std::exception_ptr failure;
    if (output_) {
      try {
        if (closed_) throw closed_error();
        if (parquet_) parquet_->close();  // the footer, once every row group is in
        output_->close();
        output_->commit();
      } catch (const Error&) {
        failure = std::current_exception();
      }
    }
    share_failure_of_rank0(failure);
    return;
  }
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
