#include "pipeline/front_end.h"

#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"
#include "gdedup/option_names.h"
#include "pipeline/parallel_front_end.h"
#include "pipeline/parquet_front_end.h"
#include "pipeline/sequential_front_end.h"

namespace gdedup::pipeline {
namespace {

// A resume inside standard input or a pipe: nothing identifies such a
// stream, so only the sequential front end's recount of every record and
// offset up to the position checks that it is the same stream.
bool resumes_inside_a_stream(const PipelineOptions& options) {
  if (options.resume == nullptr) return false;
  const StreamPoint& at = options.resume->position;
  if (at.input_index >= options.inputs.size() || at.input_offset == 0) return false;
  const std::string& path = options.inputs[at.input_index];
  fs::FileStatus status;
  return path == "-" || fs::status_of_path(path, status) != 0 || !status.regular();
}

}  // namespace

// Fingerprint input stays sequential: it needs no splitting or hashing, so a
// single thread reads it faster than the filter stage takes it.
std::unique_ptr<FrontEnd> make_front_end(const PipelineOptions& options,
                                         const KeyHashing& hashing, const Backend* backend) {
  // The first input decides; a later one of the other kind is refused
  // (make_parquet_front_end, io::open_input).
  if (!options.inputs.empty() && is_parquet_input(options.inputs.front())) {
    return make_parquet_front_end(options, hashing, backend);
  }
  if (options.keys.key.kind == keys::KeySpec::Kind::kColumn) {
    const std::string& first = options.inputs.empty() ? "-" : options.inputs.front();
    const std::string what = "the key " + options.keys.key_text() + " is a column of Parquet input";
    if (first == "-") {
      throw UsageError(what + ", which is read from its end, so not from standard input or a "
                       "pipe: give the Parquet file's path.");
    }
    throw UsageError(what + ", but " + first +
                     " is not a Parquet file; a column key reads only Parquet files.");
  }
  const OptionNames& names = options.option_names();
  const std::string& first = options.inputs.empty() ? "-" : options.inputs.front();
  const std::string not_parquet =
      (first == "-" ? std::string("standard input") : first) + " is not a Parquet file";
  if (options.output_format != OutputFormat::kInput) {
    throw UsageError(names.with(JobOption::kOutputFormat,
                                output_format_name(options.output_format)) +
                     " chooses what a job of Parquet input writes, but " + not_parquet +
                     ": a job of records writes the records it keeps as they were read; leave "
                     "out " + names.name(JobOption::kOutputFormat) + ".");
  }
  for (const auto& [option, given] :
       {std::pair{JobOption::kParquetCompression, !options.parquet_compression.empty()},
        std::pair{JobOption::kRowGroupRows, options.row_group_rows != 0}}) {
    if (!given) continue;
    throw UsageError(names.name(option) + " shapes Parquet output, but " + not_parquet +
                     ": leave " + names.name(option) + " out.");
  }
  if (options.read_threads <= 1 || options.format == InputFormat::kU64 ||
      resumes_inside_a_stream(options)) {
    return make_sequential_front_end(options, hashing, backend);
  }
  return make_parallel_front_end(options, hashing, backend);
}

}  // namespace gdedup::pipeline
