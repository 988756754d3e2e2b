#include "mpi/parts_output.h"

#include <mpi.h>

#include <algorithm>
#include <exception>
#include <sstream>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"
#include "mpi/check.h"

namespace gdedup::mpi {

struct PartsOutput::Checksum {
  XXH3_state_t state;
};

namespace {

// A list of names, one a line, as it crosses MPI.
std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += name + "\n";
  return text;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out.push_back(line);
  return out;
}

}  // namespace

PartsOutput::PartsOutput(const std::string& dir, uint64_t pieces, const OptionNames& names)
    : dir_(dir), pieces_(pieces), checksum_(std::make_unique<Checksum>()) {
  std::string previous;
  std::exception_ptr failure;
  if (rank_info().rank == 0) {
    try {
      io::prepare_parts_dir(dir, names);
      previous = join(io::listed_parts(dir, names));
      run_ = io::new_parts_run();
    } catch (const Error&) {
      failure = std::current_exception();
    }
  }
  share_failure_of_rank0(failure);
  broadcast(run_, "the name of the output's parts");
  broadcast(previous, "the names of the folder's previous parts");
  previous_ = split(previous);
  // The folder as this rank's machine sees it: its own where the ranks
  // share no filesystem.
  if (rank_info().rank != 0) io::prepare_parts_dir(dir, names);
}

PartsOutput::~PartsOutput() {
  current_.reset();  // its temporary file goes
  if (listed_) return;
  for (const auto& [piece, part] : done_) fs::unlink_file(io::in_dir(dir_, part.name));
}

void PartsOutput::write(uint64_t piece, const char* data, uint64_t size) {
  if (size == 0) return;
  if (current_ && current_piece_ != piece) finish_part();
  if (!current_) {
    current_.emplace(io::OutputFile::create(io::in_dir(dir_, io::part_name(run_, piece, pieces_)),
                                            io::OutputWriter::kDefaultBuffer, "output part"));
    current_->writer().skip_checksum();
    current_piece_ = piece;
    XXH3_INITSTATE(&checksum_->state);
    XXH3_64bits_reset(&checksum_->state);
  }
  current_->writer().write(data, static_cast<size_t>(size));
  XXH3_64bits_update(&checksum_->state, data, static_cast<size_t>(size));
}

void PartsOutput::finish_part() {
  io::OutputFile& file = *current_;
  const uint64_t bytes = file.writer().bytes_written();
  file.close();
  file.commit();
  const std::string path = file.path();
  done_.emplace_back(current_piece_,
                     io::OutputPart{path.substr(path.rfind('/') + 1), bytes,
                                    XXH3_64bits_digest(&checksum_->state), rank_info().host});
  current_.reset();
}

void PartsOutput::commit() {
  if (current_) finish_part();
  // Every rank's parts, "piece bytes checksum host" a line, to rank 0.
  std::string mine;
  for (const auto& [piece, part] : done_) {
    mine += std::to_string(piece) + " " + part.name + " " + std::to_string(part.bytes) + " " +
            std::to_string(part.checksum) + " " + part.host + "\n";
  }
  const RankInfo& me = rank_info();
  int length = mpi_count(mine.size(), "the list of a rank's output parts");
  std::vector<int> lengths(me.ranks), at(me.ranks);
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
        "MPI_Gather");
  uint64_t total = 0;
  for (unsigned r = 0; r < me.ranks; ++r) {
    at[r] = mpi_count(total, "the list of the output's parts");
    total += static_cast<uint64_t>(lengths[r]);
  }
  std::string all(me.rank == 0 ? total : 0, '\0');
  check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), at.data(),
                    MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::exception_ptr failure;
  if (me.rank == 0) {
    std::vector<std::pair<uint64_t, io::OutputPart>> parts;
    for (const std::string& line : split(all)) {
      std::istringstream fields(line);
      std::pair<uint64_t, io::OutputPart> part;
      fields >> part.first >> part.second.name >> part.second.bytes >> part.second.checksum >>
          part.second.host;
      parts.push_back(part);
    }
    std::sort(parts.begin(), parts.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<io::OutputPart> listed;
    for (auto& part : parts) listed.push_back(std::move(part.second));
    try {
      io::write_parts_manifest(dir_, listed);
    } catch (const Error&) {
      failure = std::current_exception();
    }
  }
  share_failure_of_rank0(failure);
  listed_ = true;
  // The previous run's parts, wherever a rank's folder holds them; the
  // names of this run's never match.
  io::remove_parts(dir_, previous_, {});
}

}  // namespace gdedup::mpi
