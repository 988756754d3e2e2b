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

#include "columnar/parquet_table.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/front_end.h"

namespace gdedup::pipeline {

// Whether `path` starts with Parquet's magic bytes ("-" and files that
// cannot be opened are not Parquet: their reader says why).
bool is_parquet_input(const std::string& path);

// Checks the job's options against Parquet input and opens every input's
// footer (see make_parquet_front_end): the reader of the job's row groups,
// in slices as `read` says.
std::unique_ptr<columnar::ParquetReader> open_parquet_input(const PipelineOptions& options,
                                                            const columnar::ReadOptions& read);

// The options a Parquet job's keys are fingerprinted under: the key
// column's value is the key, as a whole text record is, normalized by the
// job's rules (a BatchHasher's options).
PipelineOptions parquet_key_options(const PipelineOptions& options);

// Fingerprints the key of each row of `rows` with `hasher`: into
// `fingerprints`, or into `keys` when the hasher is exact (rows whose key
// is null get a meaningless one).
void hash_row_keys(const columnar::RowGroup& rows, BatchHasher& hasher, uint64_t* fingerprints,
                   Key84* keys);

// Opens every input's footer and checks the job against them: the key is a
// column (KeySpec::Kind::kColumn) of a type that can be keyed, every input
// is Parquet with the first one's schema, nothing asks for what Parquet
// input does not have yet, and its output can be written as asked
// (check_parquet_output).
// Throws UsageError or Error naming the file otherwise.
std::unique_ptr<FrontEnd> make_parquet_front_end(const PipelineOptions& options,
                                                 const KeyHashing& hashing,
                                                 const Backend* backend);

}  // namespace gdedup::pipeline
