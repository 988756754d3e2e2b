// N workers read, decode, split and fingerprint pieces of the input
// (pipeline/piece_plan.h) at once; the filter stage takes their batches in
// input order through next(), which also joins the records that span pieces
// and turns each piece's own positions into the stream's (StreamPoint).
//
// Order and memory: workers take the pieces in order, each when it has
// finished its last one; next() drains the worker holding the earliest
// piece not yet delivered. A worker has kBatchesPerWorker batches and waits
// for one to come back when all are full, so a fast worker cannot outrun
// the filter stage, and nothing waits on a later piece: no deadlock. The
// filter stage holds one batch when it asks for the next (the output's side
// writes it meanwhile), so a worker whose piece it takes always has one to
// fill.
#pragma once

#include <memory>

#include "pipeline/front_end.h"

namespace gdedup::pipeline {

// The batches each worker fills ahead of the filter stage: enough to hold a
// whole default piece (16 MiB) in batches of 8 MiB, so that every worker can
// read a piece ahead while the stage takes the earlier ones.
inline constexpr int kBatchesPerWorker = 3;

std::unique_ptr<FrontEnd> make_parallel_front_end(const PipelineOptions& options,
                                                  const KeyHashing& hashing,
                                                  const Backend* backend);

}  // namespace gdedup::pipeline
