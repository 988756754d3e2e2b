// Records without their key (--missing-key; a JSON or CDXJ record that
// lacks it, a Parquet row whose key is null) never reach the filter or set:
// the keys of the others are answered, and each missing one gets the answer
// its rule gives. One process (pipeline.cpp) and the ranks of an MPI job
// (mpi/sharded_pipeline.cpp) take them apart and put them back alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/parquet_table.h"
#include "gdedup/error.h"
#include "gdedup/mode.h"
#include "gdedup/pipeline.h"

namespace gdedup::pipeline {

// Moves the keys of the `n` records that are not `missing` (their indices,
// ascending) to the front of `keys`, in order; returns how many there are.
template <typename Key>
uint64_t gather_present(Key* keys, uint64_t n, const std::vector<uint64_t>& missing) {
  uint64_t present = 0;
  for (uint64_t i = 0, next = 0; i < n; ++i) {
    if (next < missing.size() && missing[next] == i) {
      ++next;
      continue;
    }
    keys[present++] = keys[i];
  }
  return present;
}

// The answer a record without its key gets: that of a key seen nowhere
// else, which `mode` keeps (a dedup, an absent query) or not; under
// MissingKey::kDrop one that is never written.
uint8_t missing_answer(Mode mode, keys::MissingKey rule);

// `answers` holds the answers of the present records of `n`, first, in
// order: spreads them back to their records, from the end, and gives each
// of `missing` the answer `absent`.
void spread_answers(uint8_t* answers, uint64_t n, const std::vector<uint64_t>& missing,
                    uint8_t absent);

// The advice that ends a --missing-key error's message.
std::string missing_key_advice(const PipelineOptions& options);

// --missing-key error on Parquet input: row `row` of the row group at
// `place` (of options.inputs) has a null key.
Error null_key_error(const PipelineOptions& options, const columnar::RowGroupPlace& place,
                     uint64_t row);

}  // namespace gdedup::pipeline
