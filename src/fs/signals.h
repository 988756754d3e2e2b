// Signal dispositions the library relies on.
#pragma once

namespace gdedup::fs {

// Ignores SIGPIPE for the whole process: a write to a closed pipe then fails
// with EPIPE, which the writer reports, instead of killing the process.
void ignore_broken_pipe_signal();

}  // namespace gdedup::fs
