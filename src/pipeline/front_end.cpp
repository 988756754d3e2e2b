#include "pipeline/front_end.h"

#include "gdedup/checkpoint.h"
#include "gdedup/frontend/paths.h"
#include "pipeline/parallel_front_end.h"
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
  if (options.read_threads <= 1 || options.format == InputFormat::kU64 ||
      resumes_inside_a_stream(options)) {
    return make_sequential_front_end(options, hashing, backend);
  }
  return make_parallel_front_end(options, hashing, backend);
}

}  // namespace gdedup::pipeline
