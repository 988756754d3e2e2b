// The checks and choices that dedup, build and query make alike before any
// work, in one process (job.cpp) or as the ranks of an MPI job
// (mpi_job.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "cli/job.h"
#include "cli/options.h"
#include "gdedup/filter_file.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

Mode mode_for(const JobOptions& o, JobKind kind);

// The key rules of this command's keys, as a filter file records them.
KeyRules command_key_rules(InputFormat format, const KeyOptions& keys, char record_separator);

// Refuses (UsageError) a filter file whose `rules` (of file `version`) name
// other key rules than `mine`, unless --ignore-key-rules; notes a file
// that records none.
void check_key_rules(const JobOptions& o, const FilterRules& rules, uint32_t version,
                     const KeyRules& mine);

// --max-record-length, parsed; records of the u64 format are 8 bytes.
uint64_t max_record_bytes(const std::string& text, InputFormat format);

// --batch, parsed (the default when "").
uint64_t batch_records(const std::string& text);

// --piece-bytes, parsed (the default when "").
uint64_t piece_bytes(const std::string& text);

// The file whose lock keeps two jobs from writing one output at once: the
// output file, or the manifest of --output-parts, whose folder is created
// now so that the lock can be taken; "" for none.
std::string output_to_lock(const JobOptions& o, Mode mode);

// The files the job writes: distinct from the inputs and from each other
// (usage errors first), then each one writable; --output-parts as
// check_parts_options (gdedup/parts_run.h) checks it.
void check_files(const JobOptions& o, Mode mode, bool saves_filter);

}  // namespace gdedup::cli
