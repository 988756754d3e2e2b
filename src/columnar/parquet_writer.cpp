// The writer of parquet_table.h: Arrow's Parquet writer, in segments of
// one input row group each (parquet_segments.h), on an output stream that
// hands its bytes to the job's ByteSink, each slice's kept rows taken by
// Arrow's filter kernel and held until they make a call of fixed length.
// An output row group is buffered by Arrow's writer, encoded and
// compressed, until the next one begins or its segment ends.
#include <arrow/compute/api_vector.h>
#include <arrow/compute/cast.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/initialize.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/reader.h>
#include <arrow/util/compression.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>

#include <algorithm>
#include <deque>
#include <limits>
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

// Rows go to Arrow's writer in calls of this many (the last of an output
// row group: what is left), whatever the slices were: its column writers
// cut pages and give up dictionaries at points that depend on the calls'
// lengths, so fixed calls make the output's bytes independent of slicing.
// A multiple of Arrow's write batch (1,024 rows).
constexpr int64_t kFeedRows = int64_t{1} << 16;

// The kept rows as slices of `rows`, one a run of rows kept together, for
// the types Arrow's filter kernel has no kernel for (string views).
std::shared_ptr<arrow::RecordBatch> kept_by_runs(const arrow::RecordBatch& rows,
                                                 const uint8_t* keep) {
  const size_t n = static_cast<size_t>(rows.num_rows());
  std::vector<std::shared_ptr<arrow::RecordBatch>> runs;
  for (size_t i = 0; i < n;) {
    if (!keep[i]) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < n && keep[end]) ++end;
    runs.push_back(rows.Slice(static_cast<int64_t>(i), static_cast<int64_t>(end - i)));
    i = end;
  }
  if (runs.empty()) return rows.Slice(0, 0);
  auto joined = arrow::ConcatenateRecordBatches(runs, rows_pool());
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

std::shared_ptr<arrow::RecordBatch> kept_rows(const std::shared_ptr<arrow::RecordBatch>& rows,
                                              const uint8_t* keep) {
  const int64_t n = rows->num_rows();
  const int64_t kept_count = std::count_if(keep, keep + n, [](uint8_t k) { return k != 0; });
  if (kept_count == n) return rows;  // no copy: a slice of new keys
  if (kept_count == 0) return rows->Slice(0, 0);
  arrow::BooleanBuilder mask(rows_pool());
  const arrow::Status appended = mask.AppendValues(keep, n);
  if (!appended.ok()) throw_status("the output", "cannot be written", appended);
  std::shared_ptr<arrow::Array> mask_array;
  if (const arrow::Status status = mask.Finish(&mask_array); !status.ok()) {
    throw_status("the output", "cannot be written", status);
  }
  arrow::compute::ExecContext context(rows_pool());
  auto kept = arrow::compute::Filter(rows, mask_array, arrow::compute::FilterOptions::Defaults(),
                                     &context);
  if (kept.ok()) return kept->record_batch();
  if (kept.status().IsNotImplemented()) return kept_by_runs(*rows, keep);
  throw_status("the output", "cannot take the kept rows", kept.status());
}

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

namespace {

// The codec of kParquetCodecNames' `name`; Arrow's own names differ for
// lz4 (its "lz4" is the frame format, which Parquet has not: Parquet's
// LZ4_RAW is Arrow's LZ4).
arrow::Compression::type codec_of(const WriteOptions& options, const ArrowReader& like) {
  if (options.compression.empty()) return like.compression();
  using arrow::Compression;
  static const std::pair<const char*, Compression::type> codecs[] = {
      {"uncompressed", Compression::UNCOMPRESSED}, {"snappy", Compression::SNAPPY},
      {"gzip", Compression::GZIP}, {"brotli", Compression::BROTLI},
      {"zstd", Compression::ZSTD}, {"lz4", Compression::LZ4}};
  for (const auto& [name, codec] : codecs) {
    if (options.compression != name) continue;
    if (arrow::util::Codec::IsAvailable(codec)) return codec;
    break;
  }
  throw Error("the output cannot be compressed with " + options.compression +
                  ": this build's Arrow has no such codec (Parquet's codecs: " +
                  parquet_codec_list() + ").",
              ErrorKind::invalid_argument);
}

class ArrowWriter final : public ParquetWriter {
 public:
  ArrowWriter(const ArrowReader& like, const WriteOptions& options, ByteSink& sink,
              const ParquetContinuation* from)
      : group_limit_(options.row_group_rows == 0
                         ? std::numeric_limits<int64_t>::max()
                         : static_cast<int64_t>(std::min<uint64_t>(
                               options.row_group_rows, std::numeric_limits<int64_t>::max()))),
        schema_(like.schema()),
        file_(sink, like.schema(), (initialize_compute(), writer_properties(like, options)),
              arrow_writer_properties(), from) {}

  void write(const RowGroup& slice, const uint8_t* keep, bool ends_group) override {
    // Slices come from this module's reader: the only kind there is.
    append(kept_rows(static_cast<const ArrowRows&>(slice.data()).rows, keep), ends_group);
  }

  // The rows a rank took by kept_rows() from one row group: fed as write()
  // feeds that row group's slices, so the bytes are those write() gives.
  void write_packed(const char* data, size_t size) override {
    const auto bytes = std::make_shared<arrow::Buffer>(reinterpret_cast<const uint8_t*>(data),
                                                       static_cast<int64_t>(size));
    arrow::io::BufferReader input(bytes);
    auto reader = arrow::ipc::RecordBatchStreamReader::Open(&input);
    if (!reader.ok()) throw_status("the kept rows", "cannot be unpacked", reader.status());
    auto table = (*reader)->ToTable();
    if (!table.ok()) throw_status("the kept rows", "cannot be unpacked", table.status());
    // View columns travel as large strings (ArrowReader::pack).
    auto combined = cast_table(*table, *schema_)->CombineChunksToBatch(rows_pool());
    if (!combined.ok()) throw_status("the kept rows", "cannot be unpacked", combined.status());
    append(*combined, true);
  }

  std::string footer_so_far() override { return file_.footer_so_far(); }
  void close() override { file_.close(); }

 private:
  static std::shared_ptr<parquet::WriterProperties> writer_properties(
      const ArrowReader& like, const WriteOptions& options) {
    parquet::WriterProperties::Builder properties;
    properties.memory_pool(rows_pool());
    properties.compression(codec_of(options, like));
    // Row groups end where write() says; Arrow's writer never ends one.
    properties.max_row_group_length(std::numeric_limits<int64_t>::max());
    return properties.build();
  }

  // The Arrow schema rides along, so that types Parquet has no word for
  // (large strings, time zones) read back as they were. The columns of a
  // call encode at once on Arrow's thread pool.
  static std::shared_ptr<parquet::ArrowWriterProperties> arrow_writer_properties() {
    parquet::ArrowWriterProperties::Builder arrow_properties;
    arrow_properties.store_schema();
    arrow_properties.set_use_threads(true);
    return arrow_properties.build();
  }

  // Kept rows of the open input row group; `ends_group`: its last.
  void append(std::shared_ptr<arrow::RecordBatch> kept, bool ends_group) {
    if (kept->num_rows() > 0) {
      pending_rows_ += kept->num_rows();
      pending_.push_back(std::move(kept));
    }
    feed(ends_group);
    if (!ends_group) return;
    group_rows_ = -1;
    // Every run ends its segments here, checkpointed or not, so that all
    // runs write the same bytes (parquet_segments.h).
    file_.end_segment();
  }

  // Writes the pending rows in calls of kFeedRows, or fewer where the
  // output row group's limit comes first; `all`: the rest too (the input
  // row group ended).
  void feed(bool all) {
    while (pending_rows_ > 0) {
      if (group_rows_ < 0) group_rows_ = 0;  // a new output row group
      const int64_t call = std::min(kFeedRows, group_limit_ - group_rows_);
      if (pending_rows_ < call && !all) return;
      write_call(take(std::min(call, pending_rows_)));
      if (group_rows_ == group_limit_) group_rows_ = -1;
    }
  }

  // The first `n` pending rows as one batch, without a copy where they lie
  // in one.
  std::shared_ptr<arrow::RecordBatch> take(int64_t n) {
    std::vector<std::shared_ptr<arrow::RecordBatch>> parts;
    for (int64_t taken = 0; taken < n;) {
      std::shared_ptr<arrow::RecordBatch>& front = pending_.front();
      const int64_t part = std::min(n - taken, front->num_rows());
      parts.push_back(front->Slice(0, part));
      if (part == front->num_rows()) {
        pending_.pop_front();
      } else {
        front = front->Slice(part);
      }
      taken += part;
    }
    pending_rows_ -= n;
    if (parts.size() == 1) return parts.front();
    auto joined = arrow::ConcatenateRecordBatches(parts, rows_pool());
    if (!joined.ok()) throw_status("the output", "cannot take the kept rows", joined.status());
    return *joined;
  }

  void write_call(const std::shared_ptr<arrow::RecordBatch>& rows) {
    parquet::arrow::FileWriter& writer = file_.writer();
    // A new output row group ends the one before.
    if (group_rows_ == 0) file_.check(writer.NewBufferedRowGroup());
    file_.check(writer.WriteRecordBatch(*rows));
    group_rows_ += rows->num_rows();
  }

  const int64_t group_limit_;  // rows an output row group at most
  std::shared_ptr<arrow::Schema> schema_;  // the input's: the written rows'
  SegmentedFile file_;
  // Rows of the open output row group written; -1: none is open.
  int64_t group_rows_ = -1;
  // Kept rows of the input row group not yet written, in order.
  std::deque<std::shared_ptr<arrow::RecordBatch>> pending_;
  int64_t pending_rows_ = 0;
};

}  // namespace

std::unique_ptr<ParquetWriter> open_arrow_writer(const ArrowReader& like,
                                                 const WriteOptions& options, ByteSink& sink,
                                                 const ParquetContinuation* from) {
  return std::make_unique<ArrowWriter>(like, options, sink, from);
}

}  // namespace gdedup::columnar
