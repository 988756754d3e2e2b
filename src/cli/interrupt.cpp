#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <string>

#include "gdedup/error.h"
#include "gdedup/live_temporaries.h"
#include "gdedup/path_text.h"
#include "gdedup/paths.h"

namespace gdedup::cli {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// A handler may only touch lock-free atomics: anything else could deadlock
// against the thread it interrupted.
std::atomic<bool> g_stop{false};
std::atomic<int> g_first_signal{0};
// Set by end_on_signals: what a signal leaves, for the line it ends with.
std::atomic<const char*> g_aftermath{nullptr};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free &&
                  std::atomic<const char*>::is_always_lock_free,
              "signal handlers may only use lock-free atomics");

constexpr const char* kSecondSignal =
    "a second signal ended the run at once, without a new checkpoint; the last checkpoint "
    "written, if any, is intact: the same command plus --resume continues from it";

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

// Appends `text` to buf[0, *used), keeping room for the newline.
void append(char* buf, size_t size, size_t* used, const char* text) {
  const size_t n = std::min(std::strlen(text), size - 1 - *used);
  std::memcpy(buf + *used, text, n);
  *used += n;
}

// The aftermath of a process that ends without a line.
constexpr const char* kQuiet = "";

// Async-signal-safe: one write(2) of the line (none for kQuiet), then death
// by `sig` itself, so that a shell sees what ended the process (and a loop
// around it stops).
[[noreturn]] void end_now(int sig, const char* aftermath) {
  if (aftermath != kQuiet) {
    char line[1024];
    size_t used = 0;
    append(line, sizeof line, &used, "gdedup: interrupted by ");
    append(line, sizeof line, &used, signal_name(sig));
    append(line, sizeof line, &used, "; ");
    append(line, sizeof line, &used, aftermath);
    line[used++] = '\n';
    // Nothing more can be done about a stderr that is gone (SIGHUP).
    [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, line, used);
  }
  // A save in progress leaves no temporary file (the file it would have
  // replaced is untouched), and the job's lock files go too.
  fs::remove_live_temporaries();
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);
}

extern "C" void on_stop_signal(int sig) {
  const int saved_errno = errno;
  int none = 0;
  const bool first = g_first_signal.compare_exchange_strong(none, sig);
  const char* aftermath = g_aftermath.load();
  if (aftermath == nullptr && !first) aftermath = kSecondSignal;
  if (aftermath != nullptr) end_now(sig, aftermath);
  g_stop.store(true, std::memory_order_relaxed);
  errno = saved_errno;
}

}  // namespace

void catch_stop_signals() {
  for (const int sig : kStopSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    // While one stop signal is handled the others wait, so that the first
    // one is the one reported.
    sigemptyset(&action.sa_mask);
    for (const int other : kStopSignals) sigaddset(&action.sa_mask, other);
    // SA_RESTART: reads and writes in progress carry on rather than fail
    // with EINTR; the run looks at the flag between batches.
    action.sa_flags = SA_RESTART;
    if (::sigaction(sig, &action, nullptr) != 0) {
      throw Error(std::string("cannot install the ") + signal_name(sig) +
                  " handler: " + fs::error_text(errno));
    }
  }
}

const std::atomic<bool>* stop_flag() { return &g_stop; }

void end_on_signals(const std::string& aftermath) {
  // The handler may read a text at any moment: texts are never freed.
  static std::mutex mutex;
  static std::list<std::string> texts;
  std::lock_guard<std::mutex> lock(mutex);
  // Written raw from the handler: the paths it names are escaped here.
  texts.push_back(fs::printable(aftermath));
  g_aftermath.store(texts.back().c_str());
  // A signal that came before the store above was only noted: act on it.
  const int sig = g_first_signal.load();
  if (sig != 0) end_now(sig, texts.back().c_str());
}

// A signal noted before is the one the run stopped at a checkpoint for:
// only later ones end the process.
void end_quietly_on_signals() { g_aftermath.store(kQuiet); }

}  // namespace gdedup::cli
