// The output of a job of Parquet input written as lines
// (OutputFormat::kLines): each kept row's key value as one record of the
// job's io::OutputWriter, ended by the record separator, as a job of
// records writes its records (so a temporary file renamed into place, or
// removed on failure, or standard output). How each column type is
// written is docs/KEYS.md's "Parquet keys as lines": a string as its
// bytes, a binary value in lowercase hex, an integer in decimal. A string
// that holds the separator cannot be one record: the job fails naming it.
#pragma once

#include <cstdint>
#include <string>

#include "columnar/parquet_table.h"
#include "gdedup/frontend/output_writer.h"
#include "gdedup/mode.h"
#include "gdedup/pipeline.h"

namespace gdedup::pipeline {

// Refuses (UsageError) what the options ask of Parquet input's output that
// it cannot give: a record separator for Parquet output, whose rows have
// none, and, for lines, null keys to be written (missing_key kKeep where
// the mode writes a row whose key is missing: a null has no value).
void check_parquet_output(const PipelineOptions& options);

class KeyLinesOutput {
 public:
  // `reader` says the key column's kind; `options` the separator, the key
  // and how messages name the options.
  KeyLinesOutput(const columnar::ParquetReader& reader, const PipelineOptions& options,
                 io::OutputWriter& writer);

  // Writes the key of each row of `rows` (from `place`) that `mode` keeps
  // by its `answers`, in order. A row whose key is null is never kept
  // (check_parquet_output). Throws Error naming the file, the row and its
  // row group for a string value that holds the separator; the values
  // before it are written.
  void write(const columnar::RowGroup& rows, const columnar::RowGroupPlace& place,
             const uint8_t* answers, Mode mode);

 private:
  // The value as its record: hex or decimal in text_, or the string as it is.
  std::string_view record_of(std::string_view key);
  [[noreturn]] void refuse_separator(const columnar::RowGroupPlace& place, size_t row) const;

  const columnar::ParquetReader& reader_;
  const PipelineOptions& options_;
  io::OutputWriter& writer_;
  const columnar::ColumnKind kind_;
  const bool unsigned_;
  std::string text_;
};

}  // namespace gdedup::pipeline
