// The output of a sharded run: one file that every rank writes its kept
// records into, each at its offset (the bytes kept before it in input
// order), with pwrite. As one process does (gdedup/output_file.h), rank 0
// creates a unique temporary file beside the output and renames it over the
// output only when every rank has written and synced its part, so a job
// that fails leaves the output as it was; the temporary file is removed by
// rank 0 on failure (abort_job, or the signal handlers), or stays under its
// own name if rank 0 itself is killed. Every rank opens the temporary file
// by name, so past one machine it must be on a filesystem all ranks share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fs/file_ops.h"
#include "gdedup/output_file.h"

namespace gdedup::mpi {

class SharedOutput {
 public:
  // Collective. `path` must be one that is replaced through a temporary
  // file (io::replaced_file; check_supported refuses the others).
  explicit SharedOutput(const std::string& path);

  // Collective. Writes this rank's `size` bytes of the round after the
  // `written` bytes of the rounds before; returns the round's bytes over all
  // ranks.
  uint64_t write_round(const char* data, uint64_t size, uint64_t written);

  // Collective. Syncs every rank's part, then rank 0 renames the file into
  // place.
  void commit();

 private:
  std::string path_;
  std::optional<io::OutputFile> output_;  // rank 0's: the temporary file's owner
  fs::File file_;                         // this rank's descriptor of it
};

}  // namespace gdedup::mpi
