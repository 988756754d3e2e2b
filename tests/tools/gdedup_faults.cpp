// gdedup-faults: the gdedup command built with this file, for tests only.
// With GDEDUP_FAIL_REPLACEMENT=N:PATH in its environment, the Nth write of
// file PATH fails (failing_replacement.h), so tests/cli_checkpoint_test.cpp
// and tests/hostile can drive a failing checkpoint write through the command.
// At the Nth file call OP (one of create, write, sync, truncate, rename,
// sync-folder, unlink) on a file whose name starts with PREFIX, just before
// it is made:
//   GDEDUP_KILL_AT=OP:N:PREFIX           the process sends itself SIGKILL (a
//                                        crash at a point of the test's choosing);
//   GDEDUP_SIGNAL_AT=SIG:OP:N:PREFIX     it sends itself SIG (TERM, INT or HUP),
//                                        which its handler takes, and the call
//                                        goes on (a signal between two steps);
//   GDEDUP_FAIL_AT=ERR:OP:N:PREFIX       the call fails with ERR (ENOSPC or EIO),
//                                        as a full or failing disk makes it.
// The same every run. The shipped command and the library have no such hook.
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
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

// At the nth call `op` on a file named from `prefix`: `act`, whose errno
// (0: none) the call then fails with.
class ActAt : public gdedup::fs::Observer {
 public:
  ActAt(gdedup::fs::Op op, uint64_t nth, std::string prefix, std::function<int()> act)
      : op_(op), nth_(nth), prefix_(std::move(prefix)), act_(std::move(act)),
        previous_(gdedup::fs::set_observer(this)) {}

  int before(gdedup::fs::Op op, const std::string& name, size_t& bytes) override {
    if (op == op_ && name.compare(0, prefix_.size(), prefix_) == 0 &&
        seen_.fetch_add(1) + 1 == nth_) {
      if (const int err = act_()) return err;
    }
    return previous_ != nullptr ? previous_->before(op, name, bytes) : 0;
  }

 private:
  gdedup::fs::Op op_;
  uint64_t nth_;
  std::string prefix_;
  std::function<int()> act_;
  gdedup::fs::Observer* previous_;
  std::atomic<uint64_t> seen_{0};
};

// `names[i]` -> `values[i]`; a name not listed is a broken test.
template <class T, size_t N>
T lookup(const std::string& name, const char* const (&names)[N], const T (&values)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return values[i];
  }
  std::abort();
}

// "OP:N:PREFIX" (after any leading field) installed with `act`.
std::unique_ptr<ActAt> act_at(const std::string& text, std::function<int()> act) {
  using gdedup::fs::Op;
  const size_t first = text.find(':');
  const size_t second = text.find(':', first + 1);
  if (first == std::string::npos || second == std::string::npos) std::abort();
  const char* const names[] = {"create", "write",  "sync",       "truncate",
                               "rename", "sync-folder", "unlink"};
  const Op ops[] = {Op::kCreate, Op::kWrite, Op::kSync, Op::kTruncate,
                    Op::kRename, Op::kSyncFolder, Op::kUnlink};
  return std::make_unique<ActAt>(lookup(text.substr(0, first), names, ops),
                                 std::strtoull(text.c_str() + first + 1, nullptr, 10),
                                 text.substr(second + 1), std::move(act));
}

// The first field of `text` (before its colon), and the rest after it.
std::string head(const std::string& text) { return text.substr(0, text.find(':')); }
std::string tail(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) std::abort();
  return text.substr(colon + 1);
}

std::unique_ptr<ActAt> kill_from_environment() {
  const char* spec = std::getenv("GDEDUP_KILL_AT");
  if (spec == nullptr) return nullptr;
  return act_at(spec, [] { return raise(SIGKILL); });
}

std::unique_ptr<ActAt> signal_from_environment() {
  const char* spec = std::getenv("GDEDUP_SIGNAL_AT");
  if (spec == nullptr) return nullptr;
  const char* const names[] = {"TERM", "INT", "HUP"};
  const int signals[] = {SIGTERM, SIGINT, SIGHUP};
  const int sig = lookup(head(spec), names, signals);
  return act_at(tail(spec), [sig] {
    raise(sig);
    return 0;
  });
}

std::unique_ptr<ActAt> failure_from_environment() {
  const char* spec = std::getenv("GDEDUP_FAIL_AT");
  if (spec == nullptr) return nullptr;
  const char* const names[] = {"ENOSPC", "EIO"};
  const int errors[] = {ENOSPC, EIO};
  const int err = lookup(head(spec), names, errors);
  return act_at(tail(spec), [err] { return err; });
}

// Installed before main runs; fs::set_observer's variable is constant-initialized.
const auto g_fault = install_from_environment();
const auto g_kill = kill_from_environment();
const auto g_signal = signal_from_environment();
const auto g_failure = failure_from_environment();

}  // namespace
