// What the ranks must agree on before the rounds, beyond the command line:
// every rank plans the filter and the pieces alone, from what it finds on
// its own machine, and the rounds are right only when the plans are alike
// (a filter of other blocks sends keys to ranks that do not hold them; other
// pieces make ranks wait in other collective calls). mpi_job compares the
// inputs before any work (check_same_inputs, gdedup/frontend/mpi.h); these catch
// inputs that differ past what it compares (a filter sized from records
// sampled inside them) or changed since.
#pragma once

#include <string>
#include <vector>

#include "gdedup/frontend/mpi.h"
#include "pipeline/piece_plan.h"

namespace gdedup::mpi {

// Collective. Throws JobFailed unless every rank holds a filter of rank 0's
// layers, growth rule and limit; the lowest other rank names the first
// difference.
void check_same_filter(const ShardedFilter& filter);

// Collective. Throws JobFailed unless every rank cut `inputs` into rank 0's
// `pieces`; the lowest other rank names the first input cut otherwise.
void check_same_pieces(const std::vector<pipeline::Piece>& pieces,
                       const std::vector<std::string>& inputs);

}  // namespace gdedup::mpi
