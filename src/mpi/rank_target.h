// What the rounds of run_sharded_pipeline apply the keys to, on each rank:
// its part of a Bloom filter (ShardedFilter) or of an exact set
// (ShardedSet). The rounds read, exchange, write and checkpoint alike for
// both; the target says how keys are made, sends them to their owners and
// applies them there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gdedup/checkpoint.h"
#include "gdedup/pipeline.h"
#include "mpi/piece_records.h"
#include "pipeline/batch_hasher.h"

namespace gdedup::mpi {

class RankTarget {
 public:
  virtual ~RankTarget() = default;

  // How records are made into keys (PieceRecords::fingerprints or keys).
  virtual pipeline::KeyHashing hashing() const = 0;
  // When resuming (inside check_together): throws Error unless `state` is
  // a checkpoint of this target.
  virtual void check_resume(const ResumeState& state) const = 0;
  // Collective, before the first round: every rank's target like rank 0's,
  // and ready to work.
  virtual void agree() = 0;
  // Collective. Sends `count` keys of `records` (0 where this rank applies
  // nothing this round) to their owners, which apply the round's keys of
  // the ranks in `order` (counts[r] keys of rank r) in input order, testing
  // without adding them when `query`; sets answers[i] for key i when
  // `answered`. Returns the keys new to this rank's part.
  virtual uint64_t apply_round(const PieceRecords& records, uint64_t count, bool answered,
                               uint8_t* answers, const std::vector<unsigned>& order,
                               const std::vector<uint64_t>& counts, bool query) = 0;
  // Makes this rank's part current in host memory.
  virtual void sync_to_host() = 0;
  // Collective. Writes a checkpoint of the whole target and `state`.
  virtual void save_checkpoint(const ResumeState& state, const std::string& path) = 0;
};

// Collective. run_sharded_pipeline (gdedup/frontend/mpi.h) on any target.
PipelineStats run_rounds(const PipelineOptions& options, RankTarget& target);

}  // namespace gdedup::mpi
