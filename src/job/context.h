// One job as the library runs it: the spec, the input files it resolved to
// and the front end that hears what it says. Every step of src/job takes
// one, so that a message names an option as that front end does.
#pragma once

#include <string>
#include <vector>

#include "gdedup/job.h"

namespace gdedup::job {

struct Job {
  const JobSpec& spec;
  JobEvents& events;
  std::vector<std::string> inputs;  // resolved from spec.inputs, in the order read

  Job(const JobSpec& s, JobEvents& e) : spec(s), events(e) {}
  Mode mode() const { return spec.mode(); }
  std::string name(JobOption option) const { return events.name(option); }
  std::string given(JobOption option) const { return events.given(option); }
};

}  // namespace gdedup::job
