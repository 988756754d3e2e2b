#include "cli/error_advice.h"

#include "cli/flags.h"

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

// "plan a smaller filter (--fpr, --capacity or --memory)"
std::string smaller_filter() {
  return "plan a smaller filter (" + flag::kFpr + ", " + flag::kCapacity + " or " +
         flag::kMemory + ")";
}

// "use --backend cpu"
std::string use_cpu() { return "use " + flag::kBackend + " cpu"; }

// "--batch (under --mpi: more ranks)"
std::string batch_or_ranks() { return flag::kBatch + " (under " + flag::kMpi + ": more ranks)"; }

// How a job's set or a merge stays below the memory there is.
std::string cap_clause(AdviceFor job) {
  if (job.command == AdviceFor::Command::kMerge) {
    return flag::kMaxMemory + " caps the merged set or filter below the memory there is (the "
                              "merge then ends with exit status 4 and writes nothing)";
  }
  return flag::kMaxMemory + " caps the set below the memory there is (the job then ends with "
                            "exit status 4 at the cap)";
}

}  // namespace

std::string flag_advice(ErrorKind kind, AdviceFor job) {
  const bool set_job = job.is_job() && job.exact;
  const bool filter_sizing = job.sizes() && !job.exact;
  switch (kind) {
    case ErrorKind::out_of_memory:
      if (set_job || job.command == AdviceFor::Command::kMerge) return cap_clause(job);
      if (filter_sizing) {
        return smaller_filter() + ", or cap a growing one with " + flag::kMaxMemory;
      }
      return "";
    case ErrorKind::decoder_memory: {
      // The filter or set takes the memory the decoder did not get.
      const std::string limit =
          "raise the memory limit that left the decoder too little (ulimit -v, a container's)";
      if (set_job) return limit + ", or cap the set lower with " + flag::kMaxMemory;
      if (filter_sizing) return limit + ", or " + smaller_filter();
      return limit;
    }
    case ErrorKind::thread_limit:
      return job.is_job() ? "give fewer " + flag::kThreads + " or " + flag::kFilterThreads +
                                ", or allow more memory"
                          : "";
    case ErrorKind::plan_infeasible:
      return job.sizes() || job.command == AdviceFor::Command::kPlan
                 ? "raise " + flag::kFpr + " or lower " + flag::kCapacity
                 : "";
    case ErrorKind::device_memory:
      if (set_job) {
        return use_cpu() + " to hold the set in host memory, or " + flag::kMaxMemory +
               " to cap it below the device's memory (the job then ends with exit status 4 "
               "at the cap)";
      }
      if (filter_sizing) return use_cpu() + " or a smaller " + flag::kCapacity + "/" + flag::kFpr;
      return job.is_job() ? use_cpu() + " to hold the filter in host memory" : "";
    case ErrorKind::no_device:
      return job.is_job() ? use_cpu() + " to run without a GPU" : "";
    case ErrorKind::set_full:
      return set_job || job.command == AdviceFor::Command::kMerge
                 ? "a larger " + flag::kMaxMemory + " lets the set hold more keys"
                 : "";
    case ErrorKind::record_too_long:
      return job.is_job() ? flag::kMaxRecordLength + " sets the record length limit" : "";
    case ErrorKind::is_checkpoint:
      return std::string("'gdedup info' on that file describes it, and the job that wrote it "
                         "continues from it") +
             (job.sizes() ? " with its command plus " + flag::kResume : "");
    case ErrorKind::other_mode:
      // A job was given a file of the other mode; a merge, sets and Bloom
      // filters together.
      if (job.is_job()) {
        return (job.exact ? "leave out " : "give ") + flag::kExact + " to use it";
      }
      return job.command == AdviceFor::Command::kMerge
                 ? "a set of the Bloom filter's keys is built from its inputs, with gdedup build " +
                       flag::kExact
                 : "";
    case ErrorKind::key_rules_mismatch:
      return job.is_job() || job.command == AdviceFor::Command::kMerge
                 ? "add " + flag::kIgnoreKeyRules + " to go on anyway"
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
    return flag::kMaxMemory + " caps the set (the job then ends with exit status 4 at the cap), "
                              "and a smaller " +
           (job.sizes() ? flag::kCapacity + " or " : "") + batch_or_ranks() + " needs less";
  }
  if (job.sizes()) {
    return "a smaller " + flag::kMemory + " or " + flag::kCapacity + ", or a smaller " +
           batch_or_ranks() + ", needs less";
  }
  if (job.is_job()) return "a smaller " + batch_or_ranks() + " needs less";
  if (job.command == AdviceFor::Command::kMerge) return cap_clause(job);
  return "";
}

}  // namespace gdedup::cli
