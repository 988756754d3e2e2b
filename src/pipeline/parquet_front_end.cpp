#include "pipeline/parquet_front_end.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "columnar/parquet_table.h"
#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "pipeline/batch_queue.h"
#include "pipeline/handed_out.h"
#include "pipeline/key_lines_output.h"

namespace gdedup::pipeline {
namespace {

// One slice being decoded, one answered, one written.
constexpr int kBatchesInFlight = 3;

// The most rows of a slice, whatever batch_records says: Arrow's reader
// builds a slice's columns in buffers that grow by doubling, so three
// slices of 262,144 rows (the default batch) took about 70 MiB more at the
// peak of the 10M-row bench than three of 131,072, for no less CPU time
// (bench/RESULTS.md).
constexpr uint64_t kMostSliceRows = uint64_t{1} << 17;

// What Parquet input cannot do yet is refused before anything is read.
void refuse_unsupported(const PipelineOptions& options) {
  const OptionNames& names = options.option_names();
  const std::string what = "Parquet input (" + options.inputs.front() + ")";
  if (options.format != InputFormat::kText) {
    throw UsageError(what + " has no fingerprints to read: leave out " +
                     names.name(JobOption::kInputFormat) + ".");
  }
  if (options.keys.key.kind != keys::KeySpec::Kind::kColumn) {
    throw UsageError(what + " is keyed by one of its columns: give " +
                     names.with(JobOption::kKey, "column:NAME") + ".");
  }
  // A checkpoint does not record the output's format, so a resume could
  // not tell lines from rows.
  if (options.output_format == OutputFormat::kLines &&
      (!options.checkpoint.empty() || options.resume != nullptr)) {
    throw UsageError(what + " cannot be checkpointed yet with its keys written as lines: "
                     "leave out " + names.name(JobOption::kCheckpoint) + ", or write rows.");
  }
  for (const std::string& path : options.inputs) {
    if (path == "-") {
      throw UsageError(what + " cannot be read with standard input in the same job: a "
                       "Parquet file is read from its end, so give it as a file.");
    }
    if (!is_parquet_input(path)) {
      throw UsageError(path + " is not a Parquet file, but the job's other input " +
                       options.inputs.front() + " is: a job reads Parquet files or "
                       "records, not both.");
    }
  }
}

class ParquetFrontEnd final : public FrontEnd {
 public:
  ParquetFrontEnd(const PipelineOptions& options, const KeyHashing& hashing,
                  const Backend* backend)
      : reader_(open_parquet_input(
            options, columnar::ReadOptions{std::min(options.batch_records, kMostSliceRows)})),
        hasher_(parquet_key_options(options), hashing),
        backend_(backend) {}
  ~ParquetFrontEnd() override { stop(); }

  const columnar::ParquetReader* parquet() const override { return reader_.get(); }

  // A Parquet job resumes at a row group (docs/CHECKPOINT.md, "Parquet
  // input"): the position's input_offset counts the row groups of its input
  // read before it.
  void skip_to(const StreamPoint& target) override {
    reader_->seek(target.input_index, target.input_offset);
    records_ = target.records;
  }

  void start() override {
    for (int i = 0; i < kBatchesInFlight; ++i) free_.push(std::make_unique<WorkBatch>(backend_));
    thread_ = std::thread([&] { read_all(); });
  }

  WorkBatch* next() override { return handed_out_.hand_out(full_.pop()); }

  void recycle(WorkBatch* batch) override {
    if (std::unique_ptr<WorkBatch> taken = handed_out_.take_back(batch)) {
      taken->rows.reset();  // the slice's memory goes now
      free_.push(std::move(taken));
    }
  }

  void stop() override {
    free_.close();
    full_.close();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void read_all() {
    try {
      while (std::optional<std::unique_ptr<WorkBatch>> batch = free_.pop()) {
        if (!read_one(**batch)) break;
        if (!full_.push(Outcome{std::move(*batch), nullptr})) return;
      }
      full_.push(Outcome{nullptr, nullptr});
    } catch (...) {
      full_.push(Outcome{nullptr, std::current_exception()});
    }
  }

  bool read_one(WorkBatch& batch) {
    columnar::RowGroupPlace place;
    std::unique_ptr<columnar::RowGroup> rows = reader_->next(place);
    if (!rows) return false;
    const size_t n = rows->rows();
    batch.missing.assign(rows->nulls().begin(), rows->nulls().end());
    if (hasher_.exact()) {
      batch.keys.resize(n);
      hash_row_keys(*rows, hasher_, nullptr, batch.keys.data());
    } else {
      batch.fingerprints.resize(n);
      hash_row_keys(*rows, hasher_, batch.fingerprints.data(), nullptr);
    }
    records_ += n;
    batch.place = place;
    // A resume starts after a whole row group (docs/CHECKPOINT.md,
    // "Parquet input"): a slice before its row group's last is no place
    // to stop.
    batch.resumable_after = place.ends_group;
    batch.end = StreamPoint{records_, 0, place.input, place.group + (place.ends_group ? 1 : 0)};
    // Parquet's bytes are counted as the files' bytes: a slice's decoded
    // size is Arrow's.
    batch.input_bytes = place.bytes_through;
    batch.raw_bytes_read = place.bytes_through;
    batch.rows = std::move(rows);
    return true;
  }

  std::unique_ptr<columnar::ParquetReader> reader_;
  BatchHasher hasher_;
  const Backend* backend_;
  uint64_t records_ = 0;
  BatchQueue<std::unique_ptr<WorkBatch>> free_;
  BatchQueue<Outcome> full_;
  HandedOut handed_out_;
  std::thread thread_;
};

}  // namespace

bool is_parquet_input(const std::string& path) {
  if (path == "-") return false;
  fs::File file;
  fs::FileStatus status;
  // Never waits for a named pipe's writer; a pipe is not Parquet (which is
  // read from its end) and its reader says what it is.
  if (fs::open_without_waiting(path, file, status) != 0 || !status.regular()) return false;
  char head[4];
  return fs::read_at(file.fd(), head, sizeof head, 0) == sizeof head &&
         std::string_view(head, sizeof head) == columnar::kParquetMagic;
}

std::unique_ptr<columnar::ParquetReader> open_parquet_input(const PipelineOptions& options,
                                                            const columnar::ReadOptions& read) {
  refuse_unsupported(options);
  check_parquet_output(options);
  auto reader = columnar::open_parquet_reader(options.inputs, options.keys.key.path, read);
  // Without rows to write, the other columns are never decoded.
  if (options.mode == Mode::kBuild || options.output_format == OutputFormat::kLines) {
    reader->read_key_only();
  }
  if (!options.keys.normalize.empty() && reader->key_kind() != columnar::ColumnKind::kText) {
    throw UsageError(options.inputs.front() + ": the key column " + options.keys.key_text() +
                     " does not hold strings, so " +
                     options.option_names().name(JobOption::kNormalize) +
                     ", which rewrites text, cannot apply to it.");
  }
  return reader;
}

PipelineOptions parquet_key_options(const PipelineOptions& options) {
  PipelineOptions text = options;
  text.keys.key = keys::KeySpec::whole();
  return text;
}

void hash_row_keys(const columnar::RowGroup& rows, BatchHasher& hasher, uint64_t* fingerprints,
                   Key84* keys) {
  const size_t n = rows.rows();
  if (keys != nullptr) {
    for (size_t i = 0; i < n; ++i) keys[i] = hasher.key(rows.key(i));
  } else {
    for (size_t i = 0; i < n; ++i) fingerprints[i] = hasher.fingerprint(rows.key(i));
  }
}

std::unique_ptr<FrontEnd> make_parquet_front_end(const PipelineOptions& options,
                                                 const KeyHashing& hashing,
                                                 const Backend* backend) {
  return std::make_unique<ParquetFrontEnd>(options, hashing, backend);
}

}  // namespace gdedup::pipeline
