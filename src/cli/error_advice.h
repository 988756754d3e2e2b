// The command line's advice on a library error: the library says what went
// wrong in its own terms and gives the kind (gdedup/error.h); which flag to
// change is the command line's to say, and only a flag of the command that
// failed (tests/cli_error_advice_test.cpp checks each against its --help).
#pragma once

#include <string>

#include "gdedup/error.h"
#include "gdedup/job.h"

namespace gdedup::cli {

// The command that failed, and what it held its keys in: the flags that
// size a Bloom filter (--fpr, --memory) are dedup's and build's, refused in
// exact mode, which --max-memory caps instead; query takes a filter or set
// as its file holds it; merge has --max-memory and --ignore-key-rules only.
struct AdviceFor {
  enum class Command { kDedup, kBuild, kQuery, kMerge, kPlan, kOther };
  Command command = Command::kOther;
  bool exact = false;  // a job with --exact: a set, not a filter

  // A job of `kind`.
  static AdviceFor job(JobKind kind, bool exact);
  // The command named `name` (dedup, build, query, merge, plan, ...).
  static AdviceFor named(const std::string& name);
  bool is_job() const {
    return command == Command::kDedup || command == Command::kBuild ||
           command == Command::kQuery;
  }
  // dedup and build: the jobs that make a filter or set, and size it.
  bool sizes() const { return command == Command::kDedup || command == Command::kBuild; }
};

// The flags that help with errors of `kind`, as a clause to end a message
// with; empty when no flag of the command helps.
std::string flag_advice(ErrorKind kind, AdviceFor job);

// e.what() with flag_advice(e.kind(), job) added: the line to show the user.
std::string with_advice(const Error& e, AdviceFor job);

// What a failure with no Error of its own (std::bad_alloc, a thread the
// system refused) adds: the flags of the command that need less memory.
std::string memory_advice(AdviceFor job);

}  // namespace gdedup::cli
