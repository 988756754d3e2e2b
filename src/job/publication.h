// What a job's files hold once it has begun to put its results in place
// (Job::published: its output, then its filter or set file, then its
// statistics). A failure after its output took its place must say so, and
// what to do: the same command again is right while the filter file lacks
// the job's keys, and wrong once it holds them (every record would be
// taken as seen).
#pragma once

#include <exception>

#include "job/context.h"

namespace gdedup::job {

// `failure` with what the job's files now hold added, where it is an Error
// that came after the job's output had taken its place; any other failure,
// or one before that, as it is.
std::exception_ptr with_what_is_published(const Job& job, const std::exception_ptr& failure);

}  // namespace gdedup::job
