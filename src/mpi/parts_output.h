// The output of a sharded run in parts (--output-parts DIR,
// io/output_parts.h): each rank writes the kept records of each piece
// it applies to a part file of its own, named by the piece, through a
// temporary file renamed when the piece is done; no file is shared, so the
// folder may be each machine's own. When every rank is done, rank 0 writes
// the manifest, listing the parts in piece order (with the host that wrote
// each), and every rank removes the parts of the folder's previous run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/output_file.h"
#include "io/output_parts.h"

namespace gdedup::mpi {

class PartsOutput {
 public:
  // Collective. Rank 0 prepares the folder, reads its manifest and chooses
  // the run's token for part names; every rank learns them. When rank 0
  // cannot, every rank throws JobFailed, rank 0's holding its error.
  // `pieces`: the pieces of the job, for the width of part numbers.
  PartsOutput(const std::string& dir, uint64_t pieces, const OptionNames& names);
  // Removes this rank's parts of this run unless commit() listed them.
  ~PartsOutput();
  PartsOutput(const PartsOutput&) = delete;
  PartsOutput& operator=(const PartsOutput&) = delete;

  // This rank's `size` kept bytes of piece `piece`, after those it wrote
  // of that piece before; a piece with none has no part.
  void write(uint64_t piece, const char* data, uint64_t size);

  // Collective. Puts every rank's parts in place, then rank 0 writes the
  // manifest; then the previous run's parts go. When rank 0 cannot write
  // the manifest, every rank throws JobFailed, rank 0's holding its error.
  void commit();

 private:
  // Closes the part being written and renames it into place.
  void finish_part();

  std::string dir_;
  std::string run_;
  uint64_t pieces_;
  std::vector<std::string> previous_;  // the parts the folder's manifest listed
  std::optional<io::OutputFile> current_;
  uint64_t current_piece_ = 0;
  struct Checksum;
  std::unique_ptr<Checksum> checksum_;  // of the part being written
  // This rank's parts in place, by piece, and their files.
  std::vector<std::pair<uint64_t, io::OutputPart>> done_;
  bool listed_ = false;  // a manifest lists them
};

}  // namespace gdedup::mpi
