// The size of a job's new filter: a Plan (fixed) or a GrowthRule (growing)
// from JobSizing, with the library's record estimate of the inputs
// (pipeline/input_estimate.h) when no capacity is given, each said through
// the job's events.
#pragma once

#include "gdedup/growth.h"
#include "gdedup/planner.h"
#include "job/context.h"

namespace gdedup::job {

// The plan the sizing asks for, estimating the capacity from the inputs
// when needed (saying so). Throws UsageError when it cannot (standard input
// without a capacity or memory).
Plan plan_job(const Job& job);

// The growth of a job's filter: from the capacity, else from the records
// estimated in the inputs, else (standard input) from the smallest first
// layer, saying which.
GrowthRule plan_growth(const Job& job);

// The records an exact job's set takes room for (PipelineOptions::
// expected_records): the estimate of the inputs, said, where the job adds
// keys and no capacity sizes its set; else 0.
uint64_t expected_records_for_set(const Job& job);

// The plan of a job's new fixed filter (plan_job), said with where it will
// be saved, and checked as plan_fixed_filter (gdedup/job.h) checks one.
Plan plan_new_filter(const Job& job);

}  // namespace gdedup::job
