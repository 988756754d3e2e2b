#include "mpi/row_group_pieces.h"

#include "gdedup/error.h"
#include "pipeline/missing_keys.h"
#include "pipeline/parquet_front_end.h"

namespace gdedup::mpi {

void refuse_parquet_on_ranks(const PipelineOptions& options) {
  const OptionNames& names = options.option_names();
  const std::string what = "Parquet input (" + options.inputs.front() + ")";
  const std::string on_ranks = " on the ranks of an MPI job yet: ";
  if (!options.checkpoint.empty() || options.resume != nullptr) {
    throw UsageError(what + " cannot be checkpointed" + on_ranks + "leave out " +
                     names.name(JobOption::kCheckpoint) + ", or run the job in one process.");
  }
  if (!options.output_parts.empty()) {
    throw UsageError(what + " cannot be written in parts" + on_ranks + "give " +
                     names.name(JobOption::kOutput) + " (one Parquet file, which rank 0 "
                     "writes), or run the job in one process.");
  }
  if (options.output_format == OutputFormat::kLines) {
    throw UsageError(what + " cannot write its keys as lines" + on_ranks + "leave out " +
                     names.name(JobOption::kOutputFormat) + " (rank 0 writes the rows as "
                     "Parquet), or run the job in one process.");
  }
}

std::vector<pipeline::Piece> plan_row_group_pieces(const columnar::ParquetReader& reader) {
  std::vector<pipeline::Piece> pieces;
  for (size_t input = 0; input < reader.paths().size(); ++input) {
    const uint64_t groups = reader.row_groups(input);
    for (uint64_t group = 0; group < groups; ++group) {
      pipeline::Piece piece;
      piece.input = input;
      piece.kind = pipeline::PieceKind::kRowGroups;
      piece.begin = group;
      piece.end = group + 1;
      piece.ends_input = group + 1 == groups;
      pieces.push_back(piece);
    }
  }
  return pieces;
}

void read_row_group(columnar::ParquetReader& reader, const pipeline::Piece& piece,
                    pipeline::BatchHasher& hasher, const PipelineOptions& options,
                    PieceRecords& out) {
  reader.seek(piece.input, piece.begin);
  columnar::RowGroupPlace place;
  std::unique_ptr<columnar::RowGroup> rows = reader.next(place);
  if (!rows || !place.ends_group) {
    // The plan came from this reader's footers: never so, unless a bug.
    throw Error(options.inputs.at(piece.input) + ": row group " +
                    std::to_string(piece.begin + 1) + " is past the row groups its footer "
                    "lists, or was not read in one slice.",
                ErrorKind::failure);
  }
  const std::vector<uint64_t>& nulls = rows->nulls();
  if (!nulls.empty() && options.missing_key == keys::MissingKey::kError) {
    throw pipeline::null_key_error(options, place, nulls.front());
  }
  const uint64_t n = rows->rows();
  if (hasher.exact()) {
    out.keys.resize(n);
    pipeline::hash_row_keys(*rows, hasher, nullptr, out.keys.data());
    out.keys.resize(pipeline::gather_present(out.keys.data(), n, nulls));
  } else {
    out.fingerprints.resize(n);
    pipeline::hash_row_keys(*rows, hasher, out.fingerprints.data(), nullptr);
    out.fingerprints.resize(pipeline::gather_present(out.fingerprints.data(), n, nulls));
  }
  out.missing = nulls;
  out.bytes = place.bytes;
  out.place = place;
  out.rows = std::move(rows);
}

}  // namespace gdedup::mpi
