// The rules of options that a JobSpec cannot tell were given (gdedup/job.h):
// each front end calls them for the options it was given.
#include "gdedup/error.h"
#include "gdedup/job.h"

namespace gdedup {

void check_given_key_option(JobOption option, InputFormat format, const OptionNames& names) {
  if (format != InputFormat::kU64) return;
  throw UsageError(names.name(option) + " has no effect with " +
                   names.given(JobOption::kInputFormat) + ", whose records are fingerprints "
                   "used as they are; drop " + names.name(option));
}

void check_given_device(const std::string& backend, const OptionNames& names) {
  if (backend != "cpu") return;
  throw UsageError(names.given(JobOption::kDevice) + " has no effect with " +
                   names.given(JobOption::kBackend) + ": it chooses the GPU backend's device; "
                   "drop " + names.name(JobOption::kDevice));
}

}  // namespace gdedup
