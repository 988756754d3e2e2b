// Python on the library's job layer (gdedup/job.h): the sizing arguments of
// a new Filter as a JobSizing, and gdedup._core._run, which runs a JobSpec
// made from gdedup.run's arguments (python/gdedup/_run.py).
#pragma once

#include <cstdint>
#include <optional>

#include <nanobind/nanobind.h>

#include "gdedup/job.h"
#include "py_events.h"

namespace gdedup::python {

// capacity=, fpr=, memory=, block_bits= and allow_high_fpr= of a new
// Filter as the library takes them, the values given noted in `events` for
// its messages, and checked as a job's (check_job_sizing): UsageError for a
// value that can never work, as the command refuses it.
JobSizing job_sizing(std::optional<uint64_t> capacity, std::optional<double> fpr,
                     std::optional<uint64_t> memory, std::optional<uint32_t> block_bits,
                     bool allow_high_fpr, PyEvents& events);

void bind_run(nb::module_& m);

}  // namespace gdedup::python
