#include "job/thread_split.h"

#include <algorithm>
#include <thread>

namespace gdedup::job {

ThreadSplit split_threads(unsigned read, unsigned filter, unsigned hardware) {
  hardware = std::max(1u, hardware);
  const auto rest = [hardware](unsigned taken) { return taken < hardware ? hardware - taken : 1; };
  ThreadSplit split;
  split.filter = filter > 0 ? filter : read > 0 ? rest(read) : std::max(1u, hardware / 3);
  split.read = read > 0 ? read : rest(split.filter);
  return split;
}

ThreadSplit split_threads(unsigned read, unsigned filter) {
  return split_threads(read, filter, std::thread::hardware_concurrency());
}

ThreadSplit job_threads(const JobSpec& spec, bool on_ranks) {
  if (!on_ranks) return split_threads(spec.threads, spec.filter_threads);
  return ThreadSplit{1, spec.filter_threads > 0 ? spec.filter_threads : 1};
}

}  // namespace gdedup::job
