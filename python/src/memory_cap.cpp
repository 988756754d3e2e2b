#include "memory_cap.h"

#include "gdedup/error.h"

namespace gdedup::python {

uint64_t memory_cap(std::optional<uint64_t> max_memory) {
  if (!max_memory) return 0;
  if (*max_memory == 0) {
    throw UsageError("max_memory=0 holds no filter or set; give the most bytes it may take, "
                     "or None for no cap");
  }
  return *max_memory;
}

}  // namespace gdedup::python
