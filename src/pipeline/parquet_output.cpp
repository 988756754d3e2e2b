#include "pipeline/parquet_output.h"

namespace gdedup::pipeline {

ParquetOutput::ParquetOutput(const columnar::ParquetReader& like, io::OutputWriter& writer,
                             const columnar::ParquetContinuation* from)
    : writer_(writer), parquet_(columnar::open_parquet_writer(like, *this, from)) {}

void keep_flags(const uint8_t* answers, size_t n, Mode mode, std::vector<uint8_t>& keep) {
  keep.resize(n);
  for (size_t i = 0; i < n; ++i) keep[i] = keeps_record(mode, answers[i]);
}

void ParquetOutput::write(const columnar::RowGroup& rows, const uint8_t* answers, Mode mode) {
  keep_flags(answers, rows.rows(), mode, keep_);
  parquet_->write(rows, keep_.data());
}

}  // namespace gdedup::pipeline
