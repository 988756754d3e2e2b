#include "cli/interrupt.h"

#include <signal.h>

#include <cerrno>
#include <string>

#include "gdedup/error.h"
#include "io/sys.h"

namespace gdedup::cli {
namespace {

// A handler may only touch lock-free atomics: anything else could deadlock
// against the thread it interrupted.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free,
              "the stop flag is set from a signal handler and must be lock-free");

extern "C" void on_stop_signal(int) { g_stop.store(true, std::memory_order_relaxed); }

void install(int signal_number, const char* name) {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: reads and writes in progress carry on rather than fail with
  // EINTR. SA_RESETHAND: a second signal kills, for a user who will not wait.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  if (::sigaction(signal_number, &action, nullptr) != 0) {
    throw Error(std::string("cannot install the ") + name + " handler: " +
                io::sys::error_text(errno));
  }
}

}  // namespace

const std::atomic<bool>* stop_on_signals() {
  install(SIGINT, "SIGINT");
  install(SIGTERM, "SIGTERM");
  return &g_stop;
}

}  // namespace gdedup::cli
