// The output of a sharded run. A file is one that every rank writes its
// kept records into, each at its offset (the bytes kept before it in input
// order), with pwrite. As one process does (io/output_file.h), rank 0
// creates a unique temporary file beside the output and renames it over the
// output only when every rank has written and synced its part, so a job
// that fails leaves the output as it was; the temporary file is removed by
// rank 0 on failure (abort_job, or the signal handlers), or stays under its
// own name if rank 0 itself is killed, or once a checkpoint names it. Every
// rank opens the temporary file by name, so past one machine it must be on a
// filesystem all ranks share. Standard output, pipes and devices, written
// where they are as a stream, are written by rank 0 alone: the other ranks
// send it their kept records each round, and it writes them in input order.
// So is a Parquet output, whose footer holds every row group's offset: the
// ranks send rank 0 their kept rows packed (columnar::ParquetReader::pack),
// and its one writer encodes them, in input order, as one process does
// (docs/SCALE-OUT.md, "Parquet").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fs/file_ops.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "io/output_file.h"
#include "pipeline/parquet_output.h"

namespace gdedup::mpi {

class SharedOutput {
 public:
  // Collective. Opens the output at `path`: a file replaced through a
  // temporary file (io::replaced_file), or a stream. With `resume` (a
  // file's), rank 0 continues the checkpointed run's temporary file
  // (io::OutputFile::resume: checked against the state's prefix and cut back
  // to it) instead of creating one. When rank 0 cannot, every rank throws
  // JobFailed, rank 0's holding its error.
  //
  // With `parquet` (the job's reader, whose schema the output takes, shaped
  // by `options`' Parquet output options), the bytes each rank gives
  // write_round are its kept rows, packed.
  SharedOutput(const PipelineOptions& options, const ResumeState* resume,
               const columnar::ParquetReader* parquet = nullptr);
  ~SharedOutput();

  // Collective. Writes a round's kept records, after the `written` bytes of
  // the rounds before: this rank's `size` bytes at `data`, and every rank's
  // in `order` (the applying ranks in input order), `sizes[r]` bytes of
  // rank r. Returns the bytes written by this and every earlier round. A
  // stream whose reader went away (a closed pipe) is closed() from then on,
  // and the rounds' bytes go nowhere.
  uint64_t write_round(const char* data, uint64_t size, const std::vector<unsigned>& order,
                       const std::vector<uint64_t>& sizes, uint64_t written);

  // Rank 0, on a stream: its reader went away. The job cannot deliver the
  // rest, so it ends (run_sharded_pipeline).
  bool closed() const { return closed_; }
  // The error a closed stream ends the job with (ErrorKind::broken_pipe).
  Error closed_error() const;

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

  // The output's bytes, once the rounds wrote `written` bytes: those, or
  // on rank 0 of a Parquet output, the file's.
  uint64_t bytes(uint64_t written) const;

  // Collective. Syncs every rank's part, then rank 0 renames the file into
  // place (or flushes the stream). When rank 0 cannot, every rank throws
  // JobFailed, rank 0's holding its error.
  void commit();

 private:
  // Rank 0: adds the file's bytes up to `upto` to the running checksum.
  void hash_up_to(uint64_t upto);
  // Writes `size` bytes of this rank's at byte `offset` of the file.
  void write_at(const char* data, uint64_t size, uint64_t offset);
  // Rank 0 of a gathered output: writes `size` bytes of the round, in
  // input order.
  void write_gathered(const char* data, uint64_t size);

  std::string path_;
  bool gathered_;        // a stream or Parquet, written by rank 0 alone
  bool closed_ = false;  // rank 0 of a stream: its reader went away
  std::vector<char> received_;  // rank 0 of a stream: another rank's bytes
  std::optional<io::OutputFile> output_;  // rank 0's: the temporary file's owner
  std::optional<pipeline::ParquetOutput> parquet_;  // rank 0's, writing to output_
  fs::File file_;                         // this rank's descriptor of it
  struct Checksum;                        // XXH3-64 of the file's first `hashed` bytes
  std::unique_ptr<Checksum> checksum_;    // rank 0's
};

}  // namespace gdedup::mpi
