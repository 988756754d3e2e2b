#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <string>

#include "cli/flags.h"
#include "gdedup/error.h"
#include "gdedup/frontend/live_temporaries.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::cli {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// What a signal does now. kEnding: a handler is ending the process, and
// the line it writes says what the files hold then, so nothing may change
// them any more; kPublishing: the job is putting its results in place,
// and a signal waits until it has (publishing_begins).
enum Phase : int { kRunning, kEnding, kPublishing };

// A handler may only touch lock-free atomics: anything else could deadlock
// against the thread it interrupted.
std::atomic<bool> g_stop{false};
std::atomic<int> g_first_signal{0};
std::atomic<int> g_sender{0};  // the process that sent the first signal; 0: unknown
std::atomic<int> g_phase{kRunning};
std::atomic<bool> g_told_waiting{false};
// Set by end_on_signals: what a signal leaves, for the line it ends with.
std::atomic<const char*> g_aftermath{nullptr};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free &&
                  std::atomic<const char*>::is_always_lock_free,
              "signal handlers may only use lock-free atomics");

// Made before any handler is installed; the handler only reads it.
const std::string kSecondSignal =
    "a second signal ended the run at once, without a new checkpoint; the last checkpoint "
    "written, if any, is intact: the same command plus " + flag::kResume + " continues from it";

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

// The process that sent a signal (kill(2), sigqueue(3)); 0 when none did
// (the terminal's Ctrl-C, raise(3)).
int sender_of(const siginfo_t* info) {
  if (info == nullptr || (info->si_code != SI_USER && info->si_code != SI_QUEUE)) return 0;
  return static_cast<int>(info->si_pid);
}

// Async-signal-safe: "SIGTERM", then " from process N" for a known sender.
void append_signal(char* buf, size_t size, size_t* used, int sig, int sender) {
  append(buf, size, used, signal_name(sig));
  if (sender <= 0) return;
  char digits[16];
  size_t n = 0;
  for (unsigned v = static_cast<unsigned>(sender); v != 0 && n < sizeof digits; v /= 10) {
    digits[n++] = static_cast<char>('0' + v % 10);
  }
  char number[sizeof digits + 1];
  for (size_t i = 0; i < n; ++i) number[i] = digits[n - 1 - i];
  number[n] = '\0';
  append(buf, size, used, " from process ");
  append(buf, size, used, number);
}

// Async-signal-safe: one write(2) of "gdedup: " + parts..., and a newline.
void write_line(int sig, int sender, const char* before, const char* after) {
  char line[1024];
  size_t used = 0;
  append(line, sizeof line, &used, "gdedup: ");
  append(line, sizeof line, &used, before);
  append_signal(line, sizeof line, &used, sig, sender);
  append(line, sizeof line, &used, after);
  line[used++] = '\n';
  // Nothing more can be done about a stderr that is gone (SIGHUP).
  [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, line, used);
}

// The aftermath of a process that ends without a line.
constexpr const char* kQuiet = "";

// Async-signal-safe: one write(2) of the line (none for kQuiet), then death
// by `sig` itself, so that a shell sees what ended the process (and a loop
// around it stops).
[[noreturn]] void end_now(int sig, int sender, const char* aftermath) {
  if (aftermath != kQuiet) {
    char after[1024] = "; ";
    size_t used = 2;
    append(after, sizeof after, &used, aftermath);
    after[used] = '\0';
    write_line(sig, sender, "interrupted by ", after);
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

// Ends the process with `aftermath` unless the job has begun to publish
// (then the signal waits: the caller returns) or another signal is
// already ending it.
void end_unless_publishing(int sig, int sender, const char* aftermath) {
  int running = kRunning;
  if (g_phase.compare_exchange_strong(running, kEnding)) end_now(sig, sender, aftermath);
}

extern "C" void on_stop_signal(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  int none = 0;
  const bool first = g_first_signal.compare_exchange_strong(none, sig);
  const int sender = sender_of(info);
  if (first) g_sender.store(sender);
  const char* aftermath = g_aftermath.load();
  if (aftermath == nullptr && !first) aftermath = kSecondSignal.c_str();
  if (aftermath != nullptr) end_unless_publishing(sig, sender, aftermath);
  if (g_phase.load() == kPublishing) {
    // Once: a user whose Ctrl-C seems to do nothing learns why.
    if (!g_told_waiting.exchange(true)) {
      write_line(sig, sender, "", " noted; the job has done its work and ends once its "
                                  "results are in place");
    }
  } else {
    g_stop.store(true, std::memory_order_relaxed);
  }
  errno = saved_errno;
}

}  // namespace

void catch_stop_signals() {
  for (const int sig : kStopSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_sigaction = on_stop_signal;
    // While one stop signal is handled the others wait, so that the first
    // one is the one reported.
    sigemptyset(&action.sa_mask);
    for (const int other : kStopSignals) sigaddset(&action.sa_mask, other);
    // SA_RESTART: reads and writes in progress carry on rather than fail
    // with EINTR; the run looks at the flag between batches.
    action.sa_flags = SA_RESTART | SA_SIGINFO;
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
  if (sig != 0) end_unless_publishing(sig, g_sender.load(), texts.back().c_str());
}

// A signal noted before is the one the run stopped at a checkpoint for:
// only later ones end the process. A job that failed while it put its
// results in place puts no more: a signal ends it at once again.
void end_quietly_on_signals() {
  g_aftermath.store(kQuiet);
  int publishing = kPublishing;
  g_phase.compare_exchange_strong(publishing, kRunning);
}

void publishing_begins() {
  int running = kRunning;
  if (g_phase.compare_exchange_strong(running, kPublishing) || running == kPublishing) return;
  // A handler on another thread is ending the process, with a line that
  // says the job did not finish: it stays true only if nothing more is
  // done, so this thread waits for the end.
  for (;;) ::pause();
}

std::string noted_signal() {
  const int sig = g_first_signal.load();
  if (sig == 0) return "";
  std::string text = signal_name(sig);
  if (const int sender = g_sender.load(); sender > 0) {
    text += " from process " + std::to_string(sender);
  }
  return text;
}

}  // namespace gdedup::cli
