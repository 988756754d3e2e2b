// The front end of a job whose inputs are Parquet files (columnar/
// parquet_table.h): one batch a row group, its key column's values
// fingerprinted as a text record's key is, its null keys noted as missing
// keys. A thread of its own decodes and fingerprints the next row group
// while the filter stage answers this one; Arrow decodes a row group's
// columns on its own thread pool. Memory: three row groups decoded, and
// Arrow's buffers for the one being read.
#pragma once

#include <memory>

#include "pipeline/front_end.h"

namespace gdedup::pipeline {

// Whether `path` starts with Parquet's magic bytes ("-" and files that
// cannot be opened are not Parquet: their reader says why).
bool is_parquet_input(const std::string& path);

// Opens every input's footer and checks the job against them: the key is a
// column (KeySpec::Kind::kColumn) of a type that can be keyed, every input
// is Parquet with the first one's schema, nothing asks for what Parquet
// input does not have yet (checkpoints, resume), and its output can be
// written as asked (check_parquet_output).
// Throws UsageError or Error naming the file otherwise.
std::unique_ptr<FrontEnd> make_parquet_front_end(const PipelineOptions& options,
                                                 const KeyHashing& hashing,
                                                 const Backend* backend);

}  // namespace gdedup::pipeline
