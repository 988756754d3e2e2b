#include "pipeline/parquet_output.h"

namespace gdedup::pipeline {

ParquetOutput::ParquetOutput(const columnar::ParquetReader& like,
                             const columnar::WriteOptions& options, io::OutputWriter& writer)
    : writer_(writer), parquet_(columnar::open_parquet_writer(like, options, *this)) {}

void ParquetOutput::write(const columnar::RowGroup& rows, const uint8_t* answers, Mode mode,
                          bool ends_group) {
  keep_.resize(rows.rows());
  for (size_t i = 0; i < keep_.size(); ++i) keep_[i] = keeps_record(mode, answers[i]);
  parquet_->write(rows, keep_.data(), ends_group);
}

}  // namespace gdedup::pipeline
