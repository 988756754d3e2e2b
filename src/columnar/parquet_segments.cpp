#include "columnar/parquet_segments.h"

#include <arrow/io/interfaces.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>
#include <parquet/file_writer.h>
#include <parquet/metadata.h>

#include <exception>

#include "gdedup/error.h"

namespace gdedup::columnar {

// An append-only stream (Parquet's writer never seeks back) to the job's
// ByteSink, which can also drop bytes the file must not hold: a continuing
// segment's "PAR1", which the file already has; and a segment's footer,
// kept aside.
class SinkStream final : public arrow::io::OutputStream {
 public:
  enum class Mode { kWrite, kCapture };

  SinkStream(ByteSink& sink, int64_t position) : sink_(sink), position_(position) {}

  // The sink's failure (gdedup::Error: a full disk, a closed pipe) goes
  // back through Arrow as a status and is thrown again, unchanged, by
  // rethrow_failure(), so that the job reports it as it would for text.
  arrow::Status Write(const void* data, int64_t size) override {
    if (abandoned_) return arrow::Status::IOError("the output was abandoned");
    const char* bytes = static_cast<const char*>(data);
    if (mode_ == Mode::kCapture) {
      captured_.append(bytes, static_cast<size_t>(size));
      position_ += size;
      return arrow::Status::OK();
    }
    const int64_t skipped = std::min(size, skip_);
    skip_ -= skipped;
    position_ += skipped;
    if (skipped > 0 && skip_ == 0) position_ = std::exchange(resume_at_, 0);
    if (size == skipped) return arrow::Status::OK();
    try {
      sink_.write(bytes + skipped, static_cast<size_t>(size - skipped));
    } catch (...) {
      failure_ = std::current_exception();
      return arrow::Status::IOError("the output could not be written");
    }
    position_ += size - skipped;
    return arrow::Status::OK();
  }
  // What Arrow's writer writes from now on (its destructor's attempt at a
  // footer, after a failure) goes nowhere.
  void abandon() { abandoned_ = true; }
  void rethrow_failure() const {
    if (failure_) std::rethrow_exception(failure_);
  }
  void set_mode(Mode mode) { mode_ = mode; }
  // A new segment's writer: it refuses a stream that does not start at 0,
  // so the position is 0 until its "PAR1" (which the file has) is dropped,
  // and where the file ends from then on.
  void start_segment() {
    resume_at_ = std::exchange(position_, 0);
    skip_ = static_cast<int64_t>(kParquetMagic.size());
  }
  // What came while capturing, less its last `footer` bytes, goes to the
  // sink: the pages Arrow still held (a dictionary-encoded column's, which
  // follow its dictionary page, so at most the last column chunk) and the
  // page index, both written at its close. The footer is returned, and the
  // position is again where it starts.
  std::string take_footer(size_t footer) {
    std::string captured = std::exchange(captured_, std::string());
    const size_t body = captured.size() - footer;
    if (body > 0) {
      try {
        sink_.write(captured.data(), body);
      } catch (...) {
        failure_ = std::current_exception();
        throw;
      }
    }
    position_ -= static_cast<int64_t>(footer);
    return captured.substr(body);
  }
  const std::string& captured() const { return captured_; }

  arrow::Status Flush() override { return arrow::Status::OK(); }
  arrow::Status Close() override { return arrow::Status::OK(); }
  bool closed() const override { return false; }
  arrow::Result<int64_t> Tell() const override { return position_; }

 private:
  ByteSink& sink_;
  int64_t position_;
  int64_t skip_ = 0;       // bytes still to drop
  int64_t resume_at_ = 0;  // the position once they are
  Mode mode_ = Mode::kWrite;
  bool abandoned_ = false;
  std::string captured_;
  std::exception_ptr failure_;
};

namespace {

// A file's last bytes: the footer's length (u32, little-endian), "PAR1".
constexpr size_t kTailBytes = 8;

// The bytes of the footer at the end of what Arrow's writer wrote at its
// close: the Thrift bytes, their length and "PAR1". Throws gdedup::Error
// when they do not end so.
size_t footer_length(const std::string& closing) {
  uint64_t stated = 0;
  for (size_t i = 0; i < 4 && closing.size() >= kTailBytes; ++i) {
    stated |= uint64_t{static_cast<unsigned char>(closing[closing.size() - kTailBytes + i])}
              << (8 * i);
  }
  if (closing.size() < kTailBytes ||
      closing.compare(closing.size() - 4, 4, kParquetMagic) != 0 ||
      stated > closing.size() - kTailBytes) {
    throw Error("the output: Arrow's writer did not end it with a footer (" +
                    std::to_string(closing.size()) + " bytes at its close).",
                ErrorKind::failure);
  }
  return stated + kTailBytes;
}

// A footer (Parquet's Thrift FileMetaData) as Arrow holds it. Throws
// gdedup::Error, naming `what`, for bytes that are not one.
std::shared_ptr<parquet::FileMetaData> parse_footer(const std::string& bytes,
                                                    const std::string& what) {
  try {
    return parquet::FileMetaData::Make(bytes.data(), static_cast<int64_t>(bytes.size()));
  } catch (const parquet::ParquetException& e) {
    throw Error(what + " cannot be read (" + e.what() + ").", ErrorKind::damaged);
  }
}

}  // namespace

SegmentedFile::SegmentedFile(ByteSink& sink, std::shared_ptr<arrow::Schema> schema,
                             std::shared_ptr<parquet::WriterProperties> properties,
                             std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties,
                             const ParquetContinuation* from)
    : stream_(std::make_unique<SinkStream>(sink, from ? static_cast<int64_t>(from->offset) : 0)),
      schema_(std::move(schema)),
      properties_(std::move(properties)),
      arrow_properties_(std::move(arrow_properties)) {
  // Its schema is checked against this file's when the next segment's row
  // groups join it.
  if (from) footer_ = parse_footer(from->footer, "the checkpoint's Parquet footer");
}

SegmentedFile::~SegmentedFile() {
  stream_->abandon();
  writer_.reset();
}

void SegmentedFile::check(const arrow::Status& status) const {
  stream_->rethrow_failure();
  if (!status.ok()) throw_status("the output", "cannot be written as Parquet", status);
}

parquet::arrow::FileWriter& SegmentedFile::writer() {
  if (writer_) return *writer_;
  if (footer_) stream_->start_segment();
  std::shared_ptr<arrow::io::OutputStream> stream(stream_.get(), [](auto*) {});
  auto opened = parquet::arrow::FileWriter::Open(*schema_, rows_pool(), stream,
                                                 properties_, arrow_properties_);
  check(opened.status());
  writer_ = std::move(*opened);
  return *writer_;
}

std::string SegmentedFile::footer_so_far() {
  if (writer_) {
    throw Error("the output: a checkpoint came in the middle of an input row group, where the "
                "job cannot resume.", ErrorKind::failure);
  }
  if (!footer_) empty_segment();
  return footer_->SerializeToString();
}

void SegmentedFile::close() {
  end_segment();
  if (!footer_) empty_segment();
  try {
    parquet::WriteFileMetaData(*footer_, stream_.get());
  } catch (const parquet::ParquetException& e) {
    stream_->rethrow_failure();
    throw Error(std::string("the output: cannot be written as Parquet (") + e.what() + ").",
                ErrorKind::io);
  }
  stream_->rethrow_failure();
}

void SegmentedFile::empty_segment() {
  writer();
  end_segment();
}

void SegmentedFile::end_segment() {
  if (!writer_) return;
  stream_->set_mode(SinkStream::Mode::kCapture);
  const arrow::Status closed = writer_->Close();
  stream_->set_mode(SinkStream::Mode::kWrite);
  writer_.reset();
  check(closed);
  std::string footer = stream_->take_footer(footer_length(stream_->captured()));
  footer.resize(footer.size() - kTailBytes);
  std::shared_ptr<parquet::FileMetaData> segment = parse_footer(footer, "the footer Arrow wrote");
  if (!footer_) {
    footer_ = std::move(segment);
    return;
  }
  try {
    footer_->AppendRowGroups(*segment);
  } catch (const parquet::ParquetException& e) {
    throw Error(std::string("the output cannot be continued: the checkpoint's Parquet footer "
                            "does not describe this job's output (") + e.what() + ").",
                ErrorKind::invalid_argument);
  }
}

}  // namespace gdedup::columnar
