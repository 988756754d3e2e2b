#include "fs/signals.h"

#include <csignal>

namespace gdedup::fs {

void ignore_broken_pipe_signal() { std::signal(SIGPIPE, SIG_IGN); }

}  // namespace gdedup::fs
