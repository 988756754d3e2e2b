// One job over the ranks of an MPI launch (docs/SCALE-OUT.md): every rank
// holds only its range of the filter's blocks, reads its share of the input
// pieces, and sends each fingerprint to the rank that owns its block; the
// owners apply the keys in global input order, so the output and the saved
// filter are byte-identical to one process's. Built into the command only
// (gdedup_mpi); in a build without MPI, built() is false and every other
// function throws Error saying so.
//
// Functions marked collective are called by every rank of the job, in the
// same order; the others run on one rank alone.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/checkpoint.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/layered_filter.h"
#include "gdedup/pipeline.h"

namespace gdedup::mpi {

bool built();

struct RankInfo {
  unsigned rank = 0;
  unsigned ranks = 1;
  // Its rank among the ranks on its machine (MPI_COMM_TYPE_SHARED): the
  // GPU it runs on.
  unsigned local_rank = 0;
  std::string host;  // MPI_Get_processor_name
};

// Collective. Starts MPI in this process; call once, before any other
// function here.
RankInfo join(int* argc, char*** argv);
// Collective. Ends MPI; after it, only built() may be called.
void leave();
// Ends every rank of the job at once with `status`: prints "gdedup: rank R
// on HOST: message" to stderr, removes this rank's temporary files, then
// calls MPI_Abort, whose runtime stops the others. For a failure on one
// rank, which the others cannot learn of through the work they wait on.
[[noreturn]] void abort_job(const std::string& message, int status);

// Collective. Whether a check that every rank ran failed on some of them: the lowest
// rank that failed, or -1 when none did; `all_failed` says whether every
// rank failed (the same check on the same input: one message is enough).
int first_failure(bool failed, bool& all_failed);

// Thrown on every rank by a collective call that found a rank's work failed
// (run_sharded_pipeline, after a piece that could not be read): on the rank
// that failed, `failure` holds its error, to report; on the others it is
// null. Every rank knows, so each can end without MPI_Abort.
struct JobFailed : std::exception {
  int rank = 0;
  std::exception_ptr failure;
  // Every rank failed alike (a check of the same options and files): the
  // message needs no rank named.
  bool everywhere = false;
  const char* what() const noexcept override { return "a rank of the job failed"; }
};

// Collective. The job's largest exit status (each rank gives its own).
int max_status(int status);

// Collective. Whether every rank gave the same `value`.
bool same_everywhere(uint64_t value);

// A fixed filter spread over the ranks: rank r holds blocks
// [first_block(r), first_block(r + 1)) of the whole layout
// (core/owner_partition.h), num_blocks / ranks of them, and nothing else:
// a Filter::part, which a backend (CPU, or the GPU of the rank) works on.
class ShardedFilter {
 public:
  // A zeroed filter of `params`; `counters` are the whole filter's. Throws
  // UsageError for more ranks than blocks or than 256.
  ShardedFilter(const FilterParams& params, const FilterCounters& counters);
  // The fixed filter of the file at `path`: each rank reads only its blocks;
  // rank 0 also reads the whole bit array once, without holding it, to
  // verify its checksum. Throws Error as load_filter_file does, and
  // UsageError for a growing filter (a fixed one is needed under MPI). Not
  // collective: a rank that fails throws alone.
  static ShardedFilter load(const std::string& path);
  ShardedFilter(ShardedFilter&&) noexcept = default;
  ShardedFilter& operator=(ShardedFilter&&) = delete;
  ShardedFilter(const ShardedFilter&) = delete;
  ShardedFilter& operator=(const ShardedFilter&) = delete;

  // Collective. Writes the filter to `path` as save_filter writes the whole
  // filter, byte for byte: rank 0 writes the file, taking each rank's blocks
  // in turn in pieces of at most 64 MiB, so that no rank holds more than its
  // own. The part's words must be current (Backend::sync_to_host).
  void save(const std::string& path, const std::optional<KeyRules>& keys);
  // Collective. Writes a checkpoint of the filter and `state` to `path`, as
  // save_checkpoint writes one process's fixed filter (the same format, so
  // either kind of run resumes it), the way save() writes a filter file.
  void save_checkpoint(const ResumeState& state, const std::string& path);
  // The fixed filter of the checkpoint at `path`, each rank reading only its
  // blocks and rank 0 checking the whole bit array's checksum, and in
  // `state` the checkpoint's state. Throws Error as load_checkpoint does,
  // and UsageError for a growing filter's checkpoint. Not collective.
  static ShardedFilter load_checkpoint(const std::string& path, ResumeState& state);

  const FilterParams& params() const { return part_.params(); }
  // Collective. The whole filter's counters (the ranks' insertions summed).
  FilterCounters counters() const;
  // Collective. Set bits of the whole filter.
  uint64_t count_set_bits() const;

  // This rank's blocks. Its counters count the keys found new by them (a
  // backend made on it counts them); counters() sums them over the ranks.
  Filter& part() { return part_; }

 private:
  FilterCounters counters_;  // the whole filter's, as planned or loaded
  Filter part_;
};

// Collective. run_pipeline over the ranks: modes dedup, duplicates, build and
// query, text or fingerprint input, an output file (which every rank must
// be able to open: a shared filesystem past one machine) or a stream that
// rank 0 writes, checkpoints.
// `make_backend` makes the backend of this rank's part (the CPU backend
// when empty). Returns the whole job's stats on every rank, with the part's
// words current.
PipelineStats run_sharded_pipeline(const PipelineOptions& options, ShardedFilter& filter,
                                   const BackendMaker& make_backend = {});

// What a round of the sharded filter costs (gdedup bench --mpi), in the
// slowest rank's seconds over all the batches.
struct ExchangeCosts {
  // Partition by owner and the two MPI_Alltoallv (8 bytes out, 1 back a
  // key), with owners that answer without probing.
  double exchange_seconds = 0;
  // The same with each owner's test_and_set on its blocks: what a round
  // costs besides reading, hashing and writing.
  double round_seconds = 0;
  // test_and_set of the rank's keys on the whole filter held by the rank
  // alone: the one-process figure to compare with.
  double whole_seconds = 0;
  std::string backend;  // the backend the owners ran on
};

// Collective. Hands in each of this rank's `batches` of fingerprints in
// turn, over a zeroed filter of `params` shared by the ranks whose parts
// (and, for the last figure, whole filter) run on backends made by
// `make_backend`.
ExchangeCosts measure_exchange(const FilterParams& params,
                               const std::vector<std::vector<uint64_t>>& batches,
                               const BackendMaker& make_backend);

}  // namespace gdedup::mpi
