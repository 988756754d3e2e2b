// The output of a job whose inputs are Parquet: a Parquet file with their
// schema (columnar::ParquetWriter), its bytes going through the job's
// io::OutputWriter like records do, so that the output is written to a
// temporary file renamed into place when the job completes, or removed
// when it fails, or streamed to standard output.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/parquet_table.h"
#include "gdedup/frontend/output_writer.h"
#include "gdedup/mode.h"
#include "gdedup/pipeline.h"

namespace gdedup::pipeline {

// keep[i]: whether `mode` keeps row i of `n` by its answers[i].
void keep_flags(const uint8_t* answers, size_t n, Mode mode, std::vector<uint8_t>& keep);

class ParquetOutput final : public columnar::ByteSink {
 public:
  // A new file, shaped by `options`' Parquet output options, or, given
  // `from`, the one a checkpoint left, continued.
  ParquetOutput(const columnar::ParquetReader& like, const PipelineOptions& options,
                io::OutputWriter& writer, const columnar::ParquetContinuation* from);

  // The rows of the slice `rows` that `mode` keeps by their `answers`, into
  // the output row group of the slice's row group, which `ends_group` ends.
  void write(const columnar::RowGroup& rows, const uint8_t* answers, Mode mode,
             bool ends_group);
  // The kept rows of one row group that another process packed
  // (columnar::ParquetReader::pack): the bytes write() gives for them.
  void write_packed(const char* data, size_t size) { parquet_->write_packed(data, size); }
  // For a checkpoint, between input row groups: the footer of the row
  // groups written so far, every byte of which is then in the writer.
  std::string footer_so_far() { return parquet_->footer_so_far(); }
  // Writes the footer.
  void close() { parquet_->close(); }

  void write(const char* data, size_t size) override { writer_.write(data, size); }

 private:
  io::OutputWriter& writer_;
  std::unique_ptr<columnar::ParquetWriter> parquet_;
  std::vector<uint8_t> keep_;
};

}  // namespace gdedup::pipeline
