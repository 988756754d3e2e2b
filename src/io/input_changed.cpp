#include "io/input_changed.h"

namespace gdedup::io {

Error input_changed_error(const std::string& name, uint64_t was, uint64_t now,
                          const std::string& progress) {
  const std::string what = now == was
                               ? "was modified while it was being read (same size, " +
                                     std::to_string(now) + " bytes, but written to)"
                               : "changed size while it was being read: " + std::to_string(was) +
                                     " bytes when opened, " + std::to_string(now) + " now";
  return Error("input " + name + " " + what + ", " + progress +
                   "; the output may lack records of it or hold some of another version of it. "
                   "Run the job again once nothing writes to the file.",
               ErrorKind::input_changed);
}

}  // namespace gdedup::io
