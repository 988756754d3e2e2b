#include "cli/error_advice.h"

namespace gdedup::cli {

AdviceFor AdviceFor::job(JobKind kind, bool exact) {
  AdviceFor advice;
  advice.command = kind == JobKind::kDedup   ? Command::kDedup
                   : kind == JobKind::kBuild ? Command::kBuild
                                             : Command::kQuery;
  advice.exact = exact;
  return advice;
}

AdviceFor AdviceFor::named(const std::string& name) {
  AdviceFor advice;
  if (name == "dedup") advice.command = Command::kDedup;
  if (name == "build") advice.command = Command::kBuild;
  if (name == "query") advice.command = Command::kQuery;
  if (name == "merge") advice.command = Command::kMerge;
  if (name == "plan") advice.command = Command::kPlan;
  return advice;
}

namespace {

// How a job's set or a merge stays below the memory there is.
std::string cap_clause(AdviceFor job) {
  if (job.command == AdviceFor::Command::kMerge) {
    return "--max-memory caps the merged set or filter below the memory there is (the merge "
           "then ends with exit status 4 and writes nothing)";
  }
  return "--max-memory caps the set below the memory there is (the job then ends with exit "
         "status 4 at the cap)";
}

}  // namespace

std::string flag_advice(ErrorKind kind, AdviceFor job) {
  const bool set_job = job.is_job() && job.exact;
  const bool filter_sizing = job.sizes() && !job.exact;
  switch (kind) {
    case ErrorKind::out_of_memory:
      if (set_job || job.command == AdviceFor::Command::kMerge) return cap_clause(job);
      if (filter_sizing) {
        return "plan a smaller filter (--fpr, --capacity or --memory), or cap a growing one "
               "with --max-memory";
      }
      return "";
    case ErrorKind::decoder_memory: {
      // The filter or set takes the memory the decoder did not get.
      const std::string limit =
          "raise the memory limit that left the decoder too little (ulimit -v, a container's)";
      if (set_job) return limit + ", or cap the set lower with --max-memory";
      if (filter_sizing) return limit + ", or plan a smaller filter (--fpr, --capacity or --memory)";
      return limit;
    }
    case ErrorKind::thread_limit:
      return job.is_job() ? "give fewer --threads or --filter-threads, or allow more memory" : "";
    case ErrorKind::plan_infeasible:
      return job.sizes() || job.command == AdviceFor::Command::kPlan
                 ? "raise --fpr or lower --capacity"
                 : "";
    case ErrorKind::device_memory:
      if (set_job) {
        return "use --backend cpu to hold the set in host memory, or --max-memory to cap it "
               "below the device's memory (the job then ends with exit status 4 at the cap)";
      }
      if (filter_sizing) return "use --backend cpu or a smaller --capacity/--fpr";
      return job.is_job() ? "use --backend cpu to hold the filter in host memory" : "";
    case ErrorKind::no_device:
      return job.is_job() ? "use --backend cpu to run without a GPU" : "";
    case ErrorKind::set_full:
      return set_job || job.command == AdviceFor::Command::kMerge
                 ? "a larger --max-memory lets the set hold more keys"
                 : "";
    case ErrorKind::record_too_long:
      return job.is_job() ? "--max-record-length sets the record length limit" : "";
    case ErrorKind::is_checkpoint:
      return std::string("'gdedup info' on that file describes it, and the job that wrote it "
                         "continues from it") +
             (job.sizes() ? " with its command plus --resume" : "");
    case ErrorKind::other_mode:
      // A job was given a file of the other mode; a merge, sets and Bloom
      // filters together.
      if (job.is_job()) return job.exact ? "leave out --exact to use it" : "give --exact to use it";
      return job.command == AdviceFor::Command::kMerge
                 ? "a set of the Bloom filter's keys is built from its inputs, with gdedup build "
                   "--exact"
                 : "";
    case ErrorKind::key_rules_mismatch:
      return job.is_job() || job.command == AdviceFor::Command::kMerge
                 ? "add --ignore-key-rules to go on anyway"
                 : "";
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

std::string memory_advice(AdviceFor job) {
  if (job.is_job() && job.exact) {
    return "--max-memory caps the set (the job then ends with exit status 4 at the cap), and a "
           "smaller " + std::string(job.sizes() ? "--capacity or " : "") +
           "--batch (under --mpi: more ranks) needs less";
  }
  if (job.sizes()) {
    return "a smaller --memory or --capacity, or a smaller --batch (under --mpi: more ranks), "
           "needs less";
  }
  if (job.is_job()) return "a smaller --batch (under --mpi: more ranks) needs less";
  if (job.command == AdviceFor::Command::kMerge) return cap_clause(job);
  return "";
}

}  // namespace gdedup::cli
