// The output of a sharded run: one file that every rank writes its kept
// records into, each at its offset (the bytes kept before it in input
// order), with pwrite. As one process does (gdedup/output_file.h), rank 0
// creates a unique temporary file beside the output and renames it over the
// output only when every rank has written and synced its part, so a job
// that fails leaves the output as it was; the temporary file is removed by
// rank 0 on failure (abort_job, or the signal handlers), or stays under its
// own name if rank 0 itself is killed, or once a checkpoint names it. Every
// rank opens the temporary file by name, so past one machine it must be on a
// filesystem all ranks share.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "fs/file_ops.h"
#include "gdedup/checkpoint.h"
#include "gdedup/output_file.h"

namespace gdedup::mpi {

class SharedOutput {
 public:
  // Collective. `path` must be one that is replaced through a temporary
  // file (io::replaced_file; check_supported refuses the others). With
  // `resume`, rank 0 continues the checkpointed run's temporary file
  // (io::OutputFile::resume: checked against the state's prefix and cut back
  // to it) instead of creating one. When rank 0 cannot, every rank throws
  // JobFailed, rank 0's holding its error.
  SharedOutput(const std::string& path, const ResumeState* resume);
  ~SharedOutput();

  // Writes `size` bytes of this rank's at byte `offset` (the bytes kept
  // before them in input order). Not collective.
  void write_at(const char* data, uint64_t size, uint64_t offset);

  // Collective, for a checkpoint after the rounds that wrote `written` bytes
  // holding `kept` records: every rank syncs its part to disk, and from then
  // on the temporary file outlives a failure or a signal, for the resume.
  // Returns, on rank 0, the prefix the checkpoint records (its checksum
  // taken over the bytes added since the last call); on the others, only
  // bytes and records.
  io::OutputPrefix sync_for_checkpoint(uint64_t written, uint64_t kept);

  // Rank 0: removes the temporary file when the first checkpoint, which was
  // to name it, could not be written. Not collective.
  void discard();

  // The temporary file the output is written to until commit().
  const std::string& temporary() const { return file_.name(); }

  // Collective. Syncs every rank's part, then rank 0 renames the file into
  // place.
  void commit();

 private:
  // Rank 0: adds the file's bytes up to `upto` to the running checksum.
  void hash_up_to(uint64_t upto);

  std::string path_;
  std::optional<io::OutputFile> output_;  // rank 0's: the temporary file's owner
  fs::File file_;                         // this rank's descriptor of it
  struct Checksum;                        // XXH3-64 of the file's first `hashed` bytes
  std::unique_ptr<Checksum> checksum_;    // rank 0's
};

}  // namespace gdedup::mpi
