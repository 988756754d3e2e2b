#include "pipeline/parquet_output.h"

namespace gdedup::pipeline {

ParquetOutput::ParquetOutput(const columnar::ParquetReader& like,
                             const PipelineOptions& options, io::OutputWriter& writer,
                             const columnar::ParquetContinuation* from)
    : writer_(writer),
      parquet_(columnar::open_parquet_writer(
          like, columnar::WriteOptions{options.parquet_compression, options.row_group_rows},
          *this, from)) {}

void keep_flags(const uint8_t* answers, size_t n, Mode mode, std::vector<uint8_t>& keep) {
  keep.resize(n);
  for (size_t i = 0; i < n; ++i) keep[i] = keeps_record(mode, answers[i]);
}

void ParquetOutput::write(const columnar::RowGroup& rows, const uint8_t* answers, Mode mode,
                          bool ends_group) {
  keep_flags(answers, rows.rows(), mode, keep_);
  parquet_->write(rows, keep_.data(), ends_group);
}

}  // namespace gdedup::pipeline
