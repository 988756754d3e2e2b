// A place in the stream of records a run reads: what the record reader hands
// out and what a checkpoint records (gdedup/checkpoint.h), so that a resumed
// run can skip to it.
#pragma once

#include <cstdint>

namespace gdedup {

// How far the input stream had been consumed: always on a record boundary.
// The end of one input and the start of the next are the same place and may
// be named either way.
struct StreamPoint {
  uint64_t records = 0;       // records consumed, all inputs together
  uint64_t offset = 0;        // uncompressed bytes they span, all inputs
  uint64_t input_index = 0;   // input the next record comes from
  uint64_t input_offset = 0;  // uncompressed bytes of that input consumed
};

}  // namespace gdedup
