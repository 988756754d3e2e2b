// parquet_table.h's interfaces in Arrow's types: included only by the
// Parquet module's sources, which are built with Arrow (C++20).
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

struct ArrowRows final : RowGroup::Data {
  std::shared_ptr<arrow::RecordBatch> rows;
  // kInteger: each row's key, 8 bytes; a dictionary-encoded key column's
  // values' keys (8 bytes each for integers) follow them.
  std::string key_bytes;
};

class ArrowReader final : public ParquetReader {
 public:
  ArrowReader(std::vector<std::string> paths, std::vector<std::string> column,
              const ReadOptions& options, FileOpener& opener);

  ColumnKind key_kind() const override { return kind_; }
  bool key_unsigned() const override { return arrow::is_unsigned_integer(key_type_->id()); }
  uint64_t total_rows() const override { return total_rows_; }
  uint64_t total_bytes() const override { return total_bytes_; }
  const std::vector<std::string>& paths() const override { return paths_; }
  std::unique_ptr<RowGroup> next(RowGroupPlace& place) override;
  uint64_t row_groups(size_t input) const override;
  void seek(size_t input, uint64_t group) override;
  void pack(const RowGroup& group, const uint8_t* keep, std::string& out) const override;
  void read_key_only() override;  // parquet_key_only.cpp

  // What the writer follows: the first file's schema, with its metadata,
  // its compression and its largest row group's rows.
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  arrow::Compression::type compression() const { return compression_; }
  int64_t row_group_rows() const { return row_group_rows_; }

 private:
  // The slices of row group `group_` of input `input_`, every column or
  // the key's alone (parquet_key_only.cpp); throws naming `where` where
  // they cannot be decoded.
  std::unique_ptr<arrow::RecordBatchReader> open_slices(const std::string& where);
  // The key's field index at each level of open_slices()'s batches.
  const std::vector<int>& read_key_path() const {
    return key_leaf_ < 0 ? key_path_ : key_only_path_;
  }

  struct Input {
    std::unique_ptr<parquet::arrow::FileReader> reader;
    uint64_t rows = 0;
    uint64_t bytes = 0;
  };
  std::vector<std::string> paths_;
  std::vector<std::string> column_;
  std::vector<Input> inputs_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int> key_path_;  // the key's field index at each level
  ColumnKind kind_ = ColumnKind::kText;
  std::shared_ptr<arrow::DataType> key_type_;  // the key column's type
  int key_leaf_ = -1;  // read_key_only(): the key's Parquet column, read alone
  std::vector<int> key_only_path_;
  uint64_t total_rows_ = 0;
  uint64_t total_bytes_ = 0;
  arrow::Compression::type compression_ = arrow::Compression::UNCOMPRESSED;
  int64_t row_group_rows_ = 0;
  // The file bytes of the inputs up to row `row` of input input_.
  uint64_t bytes_to(uint64_t row) const;

  // Where next() stands: the slices of row group `group_` of input
  // `input_` come from `slices_` (null between row groups).
  size_t input_ = 0;
  uint64_t bytes_before_ = 0;  // of the inputs before `input_`
  int group_ = 0;
  uint64_t first_row_ = 0;     // of the next slice, in its file
  std::unique_ptr<arrow::RecordBatchReader> slices_;
  uint64_t group_rows_ = 0;    // the footer's rows of row group `group_`
  uint64_t group_read_ = 0;    // its rows read so far

  // Opens the next row group with rows into slices_; false after the last.
  bool open_group();
  // The next slice of the open row group; null at its end, which must be
  // where the footer says.
  std::shared_ptr<arrow::RecordBatch> read_slice(const std::string& where);
};

// The pool every Arrow buffer of the module comes from (parquet_memory.cpp).
arrow::MemoryPool* rows_pool();

// ParquetLibrary::file_rows (parquet_reader.cpp).
uint64_t arrow_file_rows(const std::string& path, uint64_t& bytes, FileOpener& opener);

// The rows of `rows` whose keep[i] is nonzero, in order; `rows` itself
// where every row is kept (parquet_writer.cpp).
std::shared_ptr<arrow::RecordBatch> kept_rows(const std::shared_ptr<arrow::RecordBatch>& rows,
                                              const uint8_t* keep);

// `schema` with each string or binary view type, at any depth, replaced by
// its large string or binary type (parquet_writer.cpp).
std::shared_ptr<arrow::Schema> without_views(const arrow::Schema& schema);

// `table` with its columns cast to `schema`'s types (the same names), each
// column's chunks kept; `table` itself where they are already.
std::shared_ptr<arrow::Table> cast_table(const std::shared_ptr<arrow::Table>& table,
                                         const arrow::Schema& schema);

// ParquetLibrary::open_writer (parquet_writer.cpp).
std::unique_ptr<ParquetWriter> open_arrow_writer(const ArrowReader& like,
                                                 const WriteOptions& options, ByteSink& sink,
                                                 const ParquetContinuation* from);

// "FILE: WHAT (Arrow's words)", as an Error of `kind`, for a status that is
// not OK.
[[noreturn]] void throw_status(const std::string& where, const std::string& what,
                               const arrow::Status& status);

}  // namespace gdedup::columnar
