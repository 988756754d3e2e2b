// How a job's threads are shared between the front end (JobSpec::threads: workers
// that read, decompress, split and fingerprint) and the CPU backend
// (JobSpec::filter_threads), when one or both are left to their defaults.
#pragma once

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

}  // namespace gdedup::job
