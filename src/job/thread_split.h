// How a job's threads are shared between the front end (JobSpec::threads: workers
// that read, decompress, split and fingerprint) and the CPU backend
// (JobSpec::filter_threads), when one or both are left to their defaults.
#pragma once

#include "gdedup/job.h"

namespace gdedup::job {

struct ThreadSplit {
  unsigned read = 1;    // PipelineOptions::read_threads
  unsigned filter = 1;  // BackendOptions::threads (the CPU backend's)
};

// `read` and `filter` as given, 0 where not given, on `hardware` threads.
// Neither given: the filter a third of the threads (at least 1) and the
// front end the rest: on URLs the front end costs about two thirds of the
// CPU time (bench/RESULTS.md). One given: the other takes what it leaves,
// at least 1. On two threads that is one front-end worker: the sequential
// front end, whose reading and hashing threads already share both cores
// with the filter.
ThreadSplit split_threads(unsigned read, unsigned filter, unsigned hardware);

// The same on this machine's hardware threads.
ThreadSplit split_threads(unsigned read, unsigned filter);

// The threads of a job's spec, every target's (a filter's backend, a set)
// alike: in one process split_threads of JobSpec::threads and
// filter_threads; on the ranks of an MPI job (`on_ranks`), where each rank
// reads with one thread and the machine's cores are shared by its ranks,
// one thread for the target unless filter_threads is given.
ThreadSplit job_threads(const JobSpec& spec, bool on_ranks);

}  // namespace gdedup::job
