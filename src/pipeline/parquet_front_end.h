// The front end of a job whose inputs are Parquet files (columnar/
// parquet_table.h): one batch a slice of a row group (at most
// batch_records rows, and at most 131,072), its key column's values fingerprinted as a text
// record's key is, its null keys noted as missing keys; a slice that does
// not end its row group is not resumable_after. A thread of its own decodes
// and fingerprints the next slice while the filter stage answers this one;
// Arrow decodes a slice's columns on its own thread pool. Memory: three
// slices decoded, Arrow's page buffers for the row group being read, and
// the writer's open output row group (parquet_output.h).
#pragma once

#include <memory>

#include "pipeline/front_end.h"

namespace gdedup::pipeline {

// Whether `path` starts with Parquet's magic bytes ("-" and files that
// cannot be opened are not Parquet: their reader says why).
bool is_parquet_input(const std::string& path);

// Opens every input's footer and checks the job against them: the key is a
// column (KeySpec::Kind::kColumn) of a type that can be keyed, every input
// is Parquet with the first one's schema, and nothing asks for what
// Parquet input does not have yet (checkpoints, output in parts, resume).
// Throws UsageError or Error naming the file otherwise.
std::unique_ptr<FrontEnd> make_parquet_front_end(const PipelineOptions& options,
                                                 const KeyHashing& hashing,
                                                 const Backend* backend);

}  // namespace gdedup::pipeline
