// What parquet_table.h's types hold, in Arrow's types: included only by this
// folder's sources that are built with Arrow (C++20).
#pragma once

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/reader.h>
#include <parquet/file_reader.h>

#include <memory>
#include <string>
#include <vector>

#include "columnar/parquet_table.h"

namespace gdedup::columnar {

struct RowGroup::Data {
  std::shared_ptr<arrow::Table> table;
  std::string integer_keys;  // kInteger: each row's key, 8 bytes
};

struct ParquetReader::State {
  struct Input {
    std::unique_ptr<parquet::arrow::FileReader> reader;
    uint64_t rows = 0;
    uint64_t bytes = 0;
  };
  std::vector<std::string> paths;
  std::vector<std::string> column;
  std::vector<Input> inputs;
  std::shared_ptr<arrow::Schema> schema;  // the first file's, with its metadata
  std::vector<int> key_path;  // the key's field index at each level
  ColumnKind kind = ColumnKind::kText;
  uint64_t total_rows = 0;
  uint64_t total_bytes = 0;
  // The first file's compression and its largest row group's rows, which
  // the writer follows.
  arrow::Compression::type compression = arrow::Compression::UNCOMPRESSED;
  int64_t row_group_rows = 0;
  // Where next() stands.
  size_t input = 0;
  uint64_t bytes_before = 0;  // of the inputs before `input`
  int group = 0;
  uint64_t first_row = 0;
};

// "FILE: WHAT (Arrow's words)", as an Error of `kind`, for a status that is
// not OK.
[[noreturn]] void throw_status(const std::string& where, const std::string& what,
                               const arrow::Status& status);

}  // namespace gdedup::columnar
