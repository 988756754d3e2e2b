// The checks and choices that dedup, build and query make alike before any
// work, in one process (run_job.cpp) or as the ranks of an MPI job
// (rank_job.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/filter_file.h"
#include "gdedup/key_rules.h"
#include "job/context.h"

namespace gdedup::job {

// The key rules of this job's keys, as a filter file records them.
KeyRules job_key_rules(const JobSpec& spec);

// Refuses (UsageError) a filter file whose `rules` (of file `version`) name
// other key rules than `mine`, unless ignore_key_rules; notes a file that
// records none.
void check_key_rules(const Job& job, const FilterRules& rules, uint32_t version,
                     const KeyRules& mine);

// The file whose lock keeps two jobs from writing one output at once: the
// output file, or the manifest of output_parts, whose folder is created
// now so that the lock can be taken; "" for none.
std::string output_to_lock(const Job& job);

// The files the job writes: distinct from the inputs and from each other
// (usage errors first), then each one writable; output_parts as
// check_parts_options (pipeline/parts_run.h) checks it; the checkpoint
// options as check_checkpoint_options.
void check_files(const Job& job);

// Throws Error of kind set_full, "`what` takes ...", when a set (or a
// rank's part of one) of `bytes` is past max_memory: one loaded from a
// file.
void check_set_cap(const Job& job, uint64_t bytes, const std::string& what);

// The checks made before the inputs are resolved: the whole spec
// (check_job_spec), then on a Bloom filter its growth (growth_chosen).
void check_target_options(const Job& job);

}  // namespace gdedup::job
