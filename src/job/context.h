// One job as the library runs it: the spec, the input files it resolved to
// and the front end that hears what it says. Every step of src/job takes
// one, so that a message names an option as that front end does.
#pragma once

#include <string>
#include <vector>

#include "gdedup/job.h"

namespace gdedup::job {

// How far a job that has read all its input got in putting its results
// in place, in order (job_steps.h, finish_job): what a failure after the
// first of them must tell (job/publication.h).
struct Published {
  bool output = false;    // the run completed: its output holds the job's result
  bool filter = false;    // the filter or set file was saved with the job's keys
  bool overfull = false;  // ... or not, on purpose: it ended far past its plan
  bool stats = false;     // the statistics file was written
};

struct Job {
  const JobSpec& spec;
  JobEvents& events;
  std::vector<std::string> inputs;  // resolved from spec.inputs, in the order read
  Published published;

  Job(const JobSpec& s, JobEvents& e) : spec(s), events(e) {}
  Mode mode() const { return spec.mode(); }
  std::string name(JobOption option) const { return events.name(option); }
  std::string given(JobOption option) const { return events.given(option); }
};

}  // namespace gdedup::job
