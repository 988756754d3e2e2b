// Parquet input on the ranks of an MPI job: a piece is one row group of one
// input (pipeline::PieceKind::kRowGroups), planned alike on every rank from
// the footers, read whole in one round by the rank that takes it, so that
// the row groups' rows in piece order are the inputs' rows. Each kept row
// goes to rank 0, which writes the output's row group for each input row
// group, as one process does (mpi/shared_output.h).
#pragma once

#include <vector>

#include "columnar/parquet_table.h"
#include "gdedup/pipeline.h"
#include "mpi/piece_records.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/piece_plan.h"

namespace gdedup::mpi {

// What Parquet input cannot do on ranks yet, refused by name: checkpoints
// and output in parts. Throws UsageError.
void refuse_parquet_on_ranks(const PipelineOptions& options);

// One piece a row group of each of `reader`'s inputs, in input order.
std::vector<pipeline::Piece> plan_row_group_pieces(const columnar::ParquetReader& reader);

// Reads the row group of `piece` into `out` (empty): its rows, the keys of
// those whose key is not null, fingerprinted with `hasher` (made with
// pipeline::parquet_key_options), and the null ones in out.missing. Throws
// gdedup::Error naming the file for damaged data, and, under
// MissingKey::kError, one process's error for the first null key, with
// `out` left empty: no row of that row group goes through.
void read_row_group(columnar::ParquetReader& reader, const pipeline::Piece& piece,
                    pipeline::BatchHasher& hasher, const PipelineOptions& options,
                    PieceRecords& out);

}  // namespace gdedup::mpi
