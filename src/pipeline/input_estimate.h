// How many records the inputs of a run hold, estimated without reading them
// all: what sizes a filter when the caller knows no capacity. Every record is
// taken to be distinct, so the estimate is a safe capacity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/pipeline.h"

namespace gdedup {

struct RecordEstimate {
  uint64_t records = 0;
  uint64_t input_bytes = 0;  // file bytes of all inputs
  bool counted = false;      // every input was read to its end: `records` is exact
  int places = 0;            // places where the record density was measured
  // Decoded bytes per file byte over the compressed inputs' sampled starts;
  // 0 when no compressed input was sampled.
  double compression = 0;
};

// Estimates each input's records from its record density (records per file
// byte: text records end at `separator`, '\n' or '\0') measured at several
// places; one input is open at a time. Inputs up to 4 MiB are counted whole. A
// larger plain file is read in 33 windows spread from its first byte to its
// last, and each stretch between two windows is planned at the denser of
// them. A compressed one is decoded from its start over at least 8
// compressed chunks and 1,000 records (a sample of one long record says
// nothing), and the rest of it is planned at the densest chunk. Inputs past
// the 16th are planned at the densest place of those sampled. Standard input
// ("-") redirected from a file is sampled like a path. nullopt when some
// input's size is unknown (a pipe, a terminal); `unsized` (if given) then
// names it: "standard input" or "PATH (not a regular file)". Damaged
// compressed data ends an input's sample where the damage starts. Throws
// Error when an input cannot be opened or read.
std::optional<RecordEstimate> estimate_records(const std::vector<std::string>& inputs,
                                               InputFormat format, char separator = '\n',
                                               std::string* unsized = nullptr);

}  // namespace gdedup
