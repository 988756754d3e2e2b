// The writer of parquet_table.h: Arrow's Parquet writer, in segments
// (parquet_segments.h), on an output stream that hands its bytes to the
// job's ByteSink, each row group's kept rows taken by Arrow's filter kernel.
#include <arrow/compute/api_vector.h>
#include <arrow/compute/cast.h>
#include <arrow/compute/initialize.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/reader.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>

#include <mutex>

#include "columnar/parquet_arrow.h"
#include "columnar/parquet_segments.h"
#include "gdedup/error.h"

namespace gdedup::columnar {
namespace {

void initialize_compute() {
  static std::once_flag once;
  std::call_once(once, [] {
    const arrow::Status status = arrow::compute::Initialize();
    if (!status.ok()) throw_status("Arrow", "its compute functions cannot start", status);
  });
}

// The kept rows as slices of the table, one a run of rows kept together:
// for the types Arrow's filter kernel has no kernel for (string views).
std::shared_ptr<arrow::Table> kept_by_slices(const arrow::Table& table, const uint8_t* keep,
                                             size_t rows) {
  std::vector<std::shared_ptr<arrow::Table>> runs;
  for (size_t i = 0; i < rows;) {
    if (!keep[i]) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < rows && keep[end]) ++end;
    runs.push_back(table.Slice(static_cast<int64_t>(i), static_cast<int64_t>(end - i)));
    i = end;
  }
  if (runs.empty()) return table.Slice(0, 0);
  auto joined = arrow::ConcatenateTables(runs);
  if (!joined.ok()) throw_status("the output", "cannot take the kept rows", joined.status());
  return *joined;
}

std::shared_ptr<arrow::DataType> type_without_views(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::STRING_VIEW: return arrow::large_utf8();
    case arrow::Type::BINARY_VIEW: return arrow::large_binary();
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& field : type->fields()) {
        fields.push_back(field->WithType(type_without_views(field->type())));
      }
      return arrow::struct_(fields);
    }
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListType&>(*type);
      return arrow::list(list.value_field()->WithType(type_without_views(list.value_type())));
    }
    case arrow::Type::LARGE_LIST: {
      const auto& list = static_cast<const arrow::LargeListType&>(*type);
      return arrow::large_list(
          list.value_field()->WithType(type_without_views(list.value_type())));
    }
    default: return type;  // others (maps, fixed-size lists) of views travel as they are
  }
}

}  // namespace

std::shared_ptr<arrow::Schema> without_views(const arrow::Schema& schema) {
  arrow::FieldVector fields;
  for (const auto& field : schema.fields()) {
    fields.push_back(field->WithType(type_without_views(field->type())));
  }
  return arrow::schema(fields, schema.metadata());
}

std::shared_ptr<arrow::Table> cast_table(const std::shared_ptr<arrow::Table>& table,
                                         const arrow::Schema& schema) {
  if (table->schema()->Equals(schema, /*check_metadata=*/false)) return table;
  initialize_compute();
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (int i = 0; i < table->num_columns(); ++i) {
    const std::shared_ptr<arrow::ChunkedArray>& column = table->column(i);
    const std::shared_ptr<arrow::DataType>& type = schema.field(i)->type();
    if (column->type()->Equals(*type)) {
      columns.push_back(column);
      continue;
    }
    auto cast = arrow::compute::Cast(column, type);
    if (!cast.ok()) throw_status("the kept rows", "cannot be cast", cast.status());
    columns.push_back(cast->chunked_array());
  }
  return arrow::Table::Make(arrow::schema(schema.fields(), table->schema()->metadata()), columns,
                            table->num_rows());
}

std::shared_ptr<arrow::Table> kept_rows(const RowGroup& group, const uint8_t* keep) {
  initialize_compute();
  const size_t rows = group.rows();
  arrow::BooleanBuilder mask;
  const arrow::Status appended = mask.AppendValues(keep, static_cast<int64_t>(rows));
  if (!appended.ok()) throw_status("the output", "cannot be written", appended);
  std::shared_ptr<arrow::Array> mask_array;
  if (const arrow::Status status = mask.Finish(&mask_array); !status.ok()) {
    throw_status("the output", "cannot be written", status);
  }
  // Row groups come from this module's reader: the only kind there is.
  const std::shared_ptr<arrow::Table>& all = static_cast<const ArrowRows&>(group.data()).table;
  auto kept = arrow::compute::Filter(all, mask_array);
  if (kept.ok()) return kept->table();
  if (kept.status().IsNotImplemented()) return kept_by_slices(*all, keep, rows);
  throw_status("the output", "cannot take the kept rows", kept.status());
}

namespace {

std::shared_ptr<parquet::WriterProperties> writer_properties(const ArrowReader& like,
                                                             int64_t row_group_rows) {
  parquet::WriterProperties::Builder properties;
  properties.compression(like.compression());
  properties.max_row_group_length(row_group_rows);
  return properties.build();
}

// The Arrow schema rides along, so that types Parquet has no word for
// (large strings, time zones) read back as they were.
std::shared_ptr<parquet::ArrowWriterProperties> arrow_writer_properties() {
  parquet::ArrowWriterProperties::Builder arrow_properties;
  arrow_properties.store_schema();
  return arrow_properties.build();
}

class ArrowWriter final : public ParquetWriter {
 public:
  ArrowWriter(const ArrowReader& like, ByteSink& sink, const ParquetContinuation* from)
      : row_group_rows_((initialize_compute(), std::max<int64_t>(like.row_group_rows(), 1))),
        schema_(like.schema()),
        file_(sink, like.schema(),
              writer_properties(like, row_group_rows_), arrow_writer_properties(), from) {}

  void write(const RowGroup& group, const uint8_t* keep) override {
    write_table(*kept_rows(group, keep));
  }

  // The table the packing rank took by kept_rows(), whole: IPC keeps its
  // columns' chunks (which the Parquet writer's pages follow), so its
  // bytes are those write() gives.
  void write_packed(const char* data, size_t size) override {
    const auto bytes = std::make_shared<arrow::Buffer>(reinterpret_cast<const uint8_t*>(data),
                                                       static_cast<int64_t>(size));
    arrow::io::BufferReader input(bytes);
    auto reader = arrow::ipc::RecordBatchStreamReader::Open(&input);
    if (!reader.ok()) throw_status("the kept rows", "cannot be unpacked", reader.status());
    auto table = (*reader)->ToTable();
    if (!table.ok()) throw_status("the kept rows", "cannot be unpacked", table.status());
    // View columns travel as large strings (ArrowReader::pack).
    write_table(*cast_table(*table, *schema_));
  }

  std::string footer_so_far() override { return file_.footer_so_far(); }
  void close() override { file_.close(); }

 private:
  // One segment of row groups, unless no row is kept.
  void write_table(const arrow::Table& table) {
    if (table.num_rows() == 0) return;
    file_.write(table, row_group_rows_);
  }

  int64_t row_group_rows_;
  std::shared_ptr<arrow::Schema> schema_;  // the input's: the written tables'
  SegmentedFile file_;
};

}  // namespace

std::unique_ptr<ParquetWriter> open_arrow_writer(const ArrowReader& like, ByteSink& sink,
                                                 const ParquetContinuation* from) {
  return std::make_unique<ArrowWriter>(like, sink, from);
}

}  // namespace gdedup::columnar
