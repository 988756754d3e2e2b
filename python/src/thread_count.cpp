#include "thread_count.h"

#include <string>

#include "gdedup/job.h"
#include "py_events.h"

namespace gdedup::python {

unsigned thread_count(std::optional<unsigned> threads, const char* name) {
  if (!threads) return 0;
  const PyEvents names;
  const bool filter = std::string(name) == "filter_threads";
  check_thread_count(filter ? JobOption::kFilterThreads : JobOption::kThreads, *threads, names);
  return *threads;
}

}  // namespace gdedup::python
