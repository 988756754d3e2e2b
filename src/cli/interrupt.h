// SIGINT and SIGTERM for checkpointed runs: instead of dying, the run
// finishes its batch, writes a checkpoint and exits with kExitInterrupted.
#pragma once

#include <atomic>

namespace gdedup::cli {

// Installs the handlers and returns the flag they set, for
// PipelineOptions::stop. A second signal ends the process at once (the
// handler resets itself): the last checkpoint on disk stays valid, since
// checkpoints are replaced by rename. Throws Error if sigaction fails.
const std::atomic<bool>* stop_on_signals();

}  // namespace gdedup::cli
