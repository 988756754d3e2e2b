// The output of a job whose inputs are Parquet: a Parquet file with their
// schema (columnar::ParquetWriter), its bytes going through the job's
// io::OutputWriter like records do, so that the output is written to a
// temporary file renamed into place when the job completes, or removed
// when it fails, or streamed to standard output.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "columnar/parquet_table.h"
#include "gdedup/frontend/output_writer.h"
#include "gdedup/mode.h"

namespace gdedup::pipeline {

class ParquetOutput final : public columnar::ByteSink {
 public:
  ParquetOutput(const columnar::ParquetReader& like, const columnar::WriteOptions& options,
                io::OutputWriter& writer);

  // The rows of the slice `rows` that `mode` keeps by their `answers`, into
  // the output row group of the slice's row group, which `ends_group` ends.
  void write(const columnar::RowGroup& rows, const uint8_t* answers, Mode mode,
             bool ends_group);
  // Writes the footer.
  void close() { parquet_->close(); }

  void write(const char* data, size_t size) override { writer_.write(data, size); }

 private:
  io::OutputWriter& writer_;
  std::unique_ptr<columnar::ParquetWriter> parquet_;
  std::vector<uint8_t> keep_;
};

}  // namespace gdedup::pipeline
