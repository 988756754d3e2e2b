// The writer of parquet_table.h: Arrow's Parquet writer on an output stream
// that hands its bytes to the job's ByteSink, each slice's kept rows taken
// by Arrow's filter kernel and held until they make a call of fixed length.
// An output row group is buffered by Arrow's writer, encoded and
// compressed, until the next one begins or the file closes.
#include <arrow/compute/api_vector.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/initialize.h>
#include <arrow/io/interfaces.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>

#include <arrow/util/compression.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>

#include "columnar/parquet_arrow.h"
#include "gdedup/error.h"

namespace gdedup::columnar {
namespace {

// An append-only stream: Parquet's writer never seeks back.
class SinkStream final : public arrow::io::OutputStream {
 public:
  explicit SinkStream(ByteSink& sink) : sink_(sink) {}

  // The sink's failure (gdedup::Error: a full disk, a closed pipe) goes
  // back through Arrow as a status and is thrown again, unchanged, by
  // rethrow_failure(), so that the job reports it as it would for text.
  arrow::Status Write(const void* data, int64_t size) override {
    if (abandoned_) return arrow::Status::IOError("the output was abandoned");
    try {
      sink_.write(static_cast<const char*>(data), static_cast<size_t>(size));
    } catch (...) {
      failure_ = std::current_exception();
      return arrow::Status::IOError("the output could not be written");
    }
    position_ += size;
    return arrow::Status::OK();
  }
  // What Arrow's writer writes from now on (its destructor's attempt at a
  // footer, after a failure) goes nowhere.
  void abandon() { abandoned_ = true; }
  void rethrow_failure() const {
    if (failure_) std::rethrow_exception(failure_);
  }
  arrow::Status Flush() override { return arrow::Status::OK(); }
  arrow::Status Close() override {
    closed_ = true;
    return arrow::Status::OK();
  }
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }

 private:
  ByteSink& sink_;
  int64_t position_ = 0;
  bool closed_ = false;
  bool abandoned_ = false;
  std::exception_ptr failure_;
};

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

// The rows of `rows` whose keep[i] is nonzero, in order.
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
  ArrowWriter(const ArrowReader& like, const WriteOptions& options, ByteSink& sink)
      : stream_(sink),
        group_limit_(options.row_group_rows == 0
                         ? std::numeric_limits<int64_t>::max()
                         : static_cast<int64_t>(std::min<uint64_t>(
                               options.row_group_rows, std::numeric_limits<int64_t>::max()))) {
    initialize_compute();
    parquet::WriterProperties::Builder properties;
    properties.memory_pool(rows_pool());
    properties.compression(codec_of(options, like));
    // Row groups end where write() says; Arrow's writer never ends one.
    properties.max_row_group_length(std::numeric_limits<int64_t>::max());
    // The Arrow schema rides along, so that types Parquet has no word for
    // (large strings, time zones) read back as they were. The columns of a
    // call encode at once on Arrow's thread pool.
    parquet::ArrowWriterProperties::Builder arrow_properties;
    arrow_properties.store_schema();
    arrow_properties.set_use_threads(true);
    std::shared_ptr<arrow::io::OutputStream> stream(&stream_, [](auto*) {});
    auto opened = parquet::arrow::FileWriter::Open(*like.schema(), rows_pool(),
                                                   stream, properties.build(),
                                                   arrow_properties.build());
    if (!opened.ok()) throw_status("the output", "cannot be written as Parquet", opened.status());
    writer_ = std::move(*opened);
  }

  ~ArrowWriter() override {
    stream_.abandon();
    writer_.reset();
  }

  void write(const RowGroup& slice, const uint8_t* keep, bool ends_group) override {
    // Slices come from this module's reader: the only kind there is.
    const auto& rows = static_cast<const ArrowRows&>(slice.data()).rows;
    std::shared_ptr<arrow::RecordBatch> kept = kept_rows(rows, keep);
    if (kept->num_rows() > 0) {
      pending_rows_ += kept->num_rows();
      pending_.push_back(std::move(kept));
    }
    feed(ends_group);
    if (ends_group) group_rows_ = -1;
  }

  void close() override {
    const arrow::Status status = writer_->Close();
    stream_.rethrow_failure();
    if (!status.ok()) throw_status("the output", "cannot be written as Parquet", status);
  }

 private:
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
    arrow::Status status;
    if (group_rows_ == 0) status = writer_->NewBufferedRowGroup();  // ends the one before
    if (status.ok()) status = writer_->WriteRecordBatch(*rows);
    stream_.rethrow_failure();
    if (!status.ok()) throw_status("the output", "cannot be written as Parquet", status);
    group_rows_ += rows->num_rows();
  }

  SinkStream stream_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;
  const int64_t group_limit_;  // rows an output row group at most
  // Rows of the open output row group written; -1: none is open.
  int64_t group_rows_ = -1;
  // Kept rows of the input row group not yet written, in order.
  std::deque<std::shared_ptr<arrow::RecordBatch>> pending_;
  int64_t pending_rows_ = 0;
};

}  // namespace

std::unique_ptr<ParquetWriter> open_arrow_writer(const ArrowReader& like,
                                                 const WriteOptions& options, ByteSink& sink) {
  return std::make_unique<ArrowWriter>(like, options, sink);
}

}  // namespace gdedup::columnar
