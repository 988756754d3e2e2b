// gdedup-faults: the gdedup command built with this file, for tests only.
// With GDEDUP_FAIL_REPLACEMENT=N:PATH in its environment, the Nth write of
// file PATH fails (failing_replacement.h), so tests/cli_checkpoint_test.cpp
// and tests/hostile can drive a failing checkpoint write through the command.
// With GDEDUP_KILL_AT=OP:N:PREFIX (OP one of create, write, sync, truncate,
// rename, sync-folder, unlink) the process sends itself SIGKILL just before
// the Nth such call on a file whose name starts with PREFIX: a crash at a
// point of the test's choosing, the same every run. The shipped command and
// the library have no such hook.
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "failing_replacement.h"
#include "fs/file_ops.h"

namespace {

std::unique_ptr<gdedup::test::FailingReplacement> install_from_environment() {
  const char* spec = std::getenv("GDEDUP_FAIL_REPLACEMENT");
  if (spec == nullptr) return nullptr;
  const std::string text = spec;
  const size_t colon = text.find(':');
  if (colon == std::string::npos) std::abort();  // a broken test, not a user error
  return std::make_unique<gdedup::test::FailingReplacement>(
      text.substr(colon + 1), std::strtoull(text.c_str(), nullptr, 10));
}

class KillAt : public gdedup::fs::Observer {
 public:
  KillAt(gdedup::fs::Op op, uint64_t nth, std::string prefix)
      : op_(op), nth_(nth), prefix_(std::move(prefix)),
        previous_(gdedup::fs::set_observer(this)) {}

  int before(gdedup::fs::Op op, const std::string& name, size_t& bytes) override {
    if (op == op_ && name.compare(0, prefix_.size(), prefix_) == 0 &&
        seen_.fetch_add(1) + 1 == nth_) {
      raise(SIGKILL);
    }
    return previous_ != nullptr ? previous_->before(op, name, bytes) : 0;
  }

 private:
  gdedup::fs::Op op_;
  uint64_t nth_;
  std::string prefix_;
  gdedup::fs::Observer* previous_;
  std::atomic<uint64_t> seen_{0};
};

std::unique_ptr<KillAt> kill_from_environment() {
  using gdedup::fs::Op;
  const char* spec = std::getenv("GDEDUP_KILL_AT");
  if (spec == nullptr) return nullptr;
  const std::string text = spec;
  const size_t first = text.find(':');
  const size_t second = text.find(':', first + 1);
  if (first == std::string::npos || second == std::string::npos) std::abort();
  const std::string name = text.substr(0, first);
  const char* names[] = {"create", "write", "sync", "truncate", "rename", "sync-folder", "unlink"};
  const Op ops[] = {Op::kCreate,   Op::kWrite,      Op::kSync,  Op::kTruncate,
                    Op::kRename,   Op::kSyncFolder, Op::kUnlink};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
    if (name == names[i]) {
      return std::make_unique<KillAt>(
          ops[i], std::strtoull(text.c_str() + first + 1, nullptr, 10), text.substr(second + 1));
    }
  }
  std::abort();
}

// Installed before main runs; fs::set_observer's variable is constant-initialized.
const auto g_fault = install_from_environment();
const auto g_kill = kill_from_environment();

}  // namespace
