// A job in exact mode (JobSpec::exact): the keys seen kept in a KeySet, not
// a Bloom filter. The same steps as run_job's around it (job_steps.h), the
// set's own sizing, files and checkpoints inside.
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/job.h"
#include "job/context.h"

namespace gdedup::job {

JobResult run_exact_job(Job& job);

// Refuses (UsageError) what exact mode does not take: a Bloom filter's
// sizing (a rate, a memory size, block bits), no_grow, fingerprint input,
// a backend other than the CPU and the GPU.
void refuse_for_exact(const Job& job);

// Throws Error of kind set_full, "`what` takes ...", when a set (or a
// rank's part of one) of `bytes` is past --max-memory: one loaded from a
// file.
void check_set_cap(const Job& job, uint64_t bytes, const std::string& what);

}  // namespace gdedup::job
