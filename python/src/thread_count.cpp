#include "thread_count.h"

#include <string>

#include "gdedup/error.h"
#include "gdedup/job.h"

namespace gdedup::python {

unsigned thread_count(std::optional<unsigned> threads, const char* name) {
  if (!threads) return 0;
  if (*threads == 0 || *threads > kMaxJobThreads) {
    throw UsageError(std::string(name) + "=" + std::to_string(*threads) + ": give 1 to " +
                     std::to_string(kMaxJobThreads) + " threads, or None for the default");
  }
  return *threads;
}

}  // namespace gdedup::python
