// A disk that fails one file write, for tests: while a FailingReplacement
// lives, the nth replacement of one file (a checkpoint, a filter file) fails
// at its rename with EIO. The temporary file is then removed and the file
// already in place is untouched, as when a full or failing disk stops the
// write. It is the process's fs::Observer, so the library needs no hook of
// its own: tests/tools/gdedup_faults.cpp installs one in a test-only build
// of the command, and in-process tests construct one directly.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>

#include "fs/file_ops.h"

namespace gdedup::test {

class FailingReplacement : public fs::Observer {
 public:
  // `nth` counts from 1; `target` is the path as the writer names it.
  FailingReplacement(std::string target, uint64_t nth)
      : target_(std::move(target)), nth_(nth), previous_(fs::set_observer(this)) {}
  ~FailingReplacement() override { fs::set_observer(previous_); }
  FailingReplacement(const FailingReplacement&) = delete;
  FailingReplacement& operator=(const FailingReplacement&) = delete;

  // Checkpoints are written on a thread of their own, hence the atomic.
  int before(fs::Op op, const std::string& name, size_t& /*bytes*/) override {
    if (op != fs::Op::kRename || name != target_) return 0;
    return seen_.fetch_add(1) + 1 == nth_ ? EIO : 0;
  }

 private:
  std::string target_;
  uint64_t nth_;
  fs::Observer* previous_;
  std::atomic<uint64_t> seen_{0};
};

}  // namespace gdedup::test
