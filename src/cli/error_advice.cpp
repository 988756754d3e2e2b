#include "cli/error_advice.h"

namespace gdedup::cli {

std::string flag_advice(ErrorKind kind, AdviceFor job) {
  const bool exact = job == AdviceFor::kExactSet;
  switch (kind) {
    case ErrorKind::out_of_memory:
      if (exact) {
        return "--max-memory caps the set below the memory there is (the job then ends with "
               "exit status 4 at the cap)";
      }
      return "plan a smaller filter (--fpr, --capacity or --memory), or cap a growing one "
             "with --max-memory";
    case ErrorKind::decoder_memory:
      // The filter or set takes the memory the decoder did not get.
      return std::string("raise the memory limit that left the decoder too little (ulimit -v, "
                         "a container's), or ") +
             (exact ? "cap the set lower with --max-memory"
                    : "plan a smaller filter (--fpr, --capacity or --memory)");
    case ErrorKind::thread_limit:
      return "give fewer --threads or --filter-threads, or allow more memory";
    case ErrorKind::plan_infeasible:
      return "raise --fpr or lower --capacity";
    case ErrorKind::device_memory:
      if (exact) {
        return "use --backend cpu to hold the set in host memory, or --max-memory to cap it "
               "below the device's memory (the job then ends with exit status 4 at the cap)";
      }
      return "use --backend cpu or a smaller --capacity/--fpr";
    case ErrorKind::no_device:
      return "use --backend cpu to run without a GPU";
    case ErrorKind::set_full:
      return "a larger --max-memory lets the set hold more keys";
    case ErrorKind::record_too_long:
      return "--max-record-length sets the record length limit";
    case ErrorKind::is_checkpoint:
      return "'gdedup info' on that file describes it, and the job that wrote it continues "
             "with its command plus --resume";
    case ErrorKind::key_rules_mismatch:
      return "add --ignore-key-rules to go on anyway";
    case ErrorKind::failure:
    case ErrorKind::invalid_argument:
    case ErrorKind::io:
    case ErrorKind::damaged:
    case ErrorKind::broken_pipe:
    case ErrorKind::unsupported_format:
    case ErrorKind::input_changed:
    case ErrorKind::resume_mismatch:
    case ErrorKind::filter_overfull:
      break;
  }
  return "";
}

std::string with_advice(const Error& e, AdviceFor job) {
  std::string text = e.what();
  const std::string advice = flag_advice(e.kind(), job);
  if (advice.empty()) return text;
  // The last sentence (the library's, or what the files now hold) may end
  // with a period; the advice continues it.
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text + "; " + advice;
}

}  // namespace gdedup::cli
