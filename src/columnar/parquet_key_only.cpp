// The reader's choice of columns (parquet_arrow.h): every column of a row
// group, for the writer, or the key's alone, for a job that writes no
// rows (keys as lines, a build), which then decodes no other column. On
// 10M rows of four columns, the key alone takes about half the decoding.
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/exception.h>

#include "columnar/parquet_arrow.h"
#include "gdedup/error.h"

namespace gdedup::columnar {

void ArrowReader::read_key_only() {
  if (inputs_.empty()) return;
  // The key is a leaf (kind_of takes no nested type): its Parquet column,
  // found down the manifest's fields as key_path_ goes down the schema's.
  // Every input has the first one's schema, so the same column.
  const parquet::arrow::SchemaField* field =
      &inputs_[0].reader->manifest().schema_fields.at(static_cast<size_t>(key_path_[0]));
  for (size_t level = 1; level < key_path_.size(); ++level) {
    field = &field->children.at(static_cast<size_t>(key_path_[level]));
  }
  key_leaf_ = field->column_index;
  // The slices read hold that column alone, each struct above it pruned
  // to the one field on the way down.
  key_only_path_.assign(key_path_.size(), 0);
}

std::unique_ptr<arrow::RecordBatchReader> ArrowReader::open_slices(const std::string& where) {
  parquet::arrow::FileReader& reader = *inputs_[input_].reader;
  try {
    auto opened = key_leaf_ < 0 ? reader.GetRecordBatchReader({group_})
                                : reader.GetRecordBatchReader({group_}, {key_leaf_});
    if (!opened.ok()) throw_status(where, "cannot be decoded", opened.status());
    return std::move(*opened);
  } catch (const parquet::ParquetException& e) {
    throw Error(where + ": cannot be decoded (" + e.what() + ").", ErrorKind::damaged);
  }
}

}  // namespace gdedup::columnar
