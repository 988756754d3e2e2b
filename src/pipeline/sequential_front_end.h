// One thread reads, decodes and splits the inputs (BatchSource::next), a
// second fingerprints (BatchSource::fingerprint), with kBatchesInFlight
// batches among them and the filter stage. Measured on 67-byte URLs, the
// reading, hashing and filter stages cost about 40%, 25% and 35% of the CPU
// time: three threads spread evenly over two cores.
#pragma once

#include <memory>

#include "pipeline/front_end.h"

namespace gdedup::pipeline {

std::unique_ptr<FrontEnd> make_sequential_front_end(const PipelineOptions& options,
                                                    const KeyHashing& hashing,
                                                    const Backend* backend);

}  // namespace gdedup::pipeline
