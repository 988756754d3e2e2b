// SIGINT, SIGTERM and SIGHUP (a dropped ssh session): a run never dies of
// them in silence. main() catches them before anything else, noting a
// signal until the command says how it stops:
//   - a checkpointed run takes stop_flag() for PipelineOptions::stop: it
//     finishes its batch, writes a checkpoint and exits with
//     kExitInterrupted (job.h); a second signal ends it at once;
//   - every other command calls end_on_signals(): a signal then ends the
//     process at once with one line on stderr saying what it leaves, and the
//     status of death by that signal (128 + its number in a shell);
//   - once a job has read all its input and begins to put its results in
//     place (publishing_begins: the output's rename, then the filter file
//     and the statistics), a signal waits: the job completes, or fails,
//     and then says so and that the signal came (noted_signal).
// A signal ignored when the process started (nohup, a background job of a
// non-interactive shell) stays ignored.
#pragma once

#include <atomic>
#include <string>

namespace gdedup::cli {

// Installs the handlers; call first thing in main(). Throws Error if
// sigaction fails.
void catch_stop_signals();

// The flag the handlers set (already set if a signal came before this call).
const std::atomic<bool>* stop_flag();

// From now on a signal ends the process after writing "gdedup: interrupted
// by SIGTERM; " + `aftermath` (its paths escaped, fs::printable) to stderr,
// and removing the job's temporary and lock files; a signal that came before
// this call does so now.
void end_on_signals(const std::string& aftermath);

// From now on a signal ends the process at once, without a line: for a
// process whose outcome another has already reported (the ranks of an MPI
// job that failed its checks, which mpirun then stops; a rank stopped at a
// checkpoint, whose signal was noted before this call). Its temporary and
// lock files are removed all the same.
void end_quietly_on_signals();

// From now on a signal is noted, not acted on (a line on stderr says so at
// once): the job has done its work, and stopping it part way through
// putting its results in place would leave some of its files new and
// others old. If a signal is already ending the process, waits for that
// end instead, so that its line stays true.
void publishing_begins();

// The first stop signal this process got, as a message names it
// ("SIGTERM from process 4242", the sender where known); "" for none.
std::string noted_signal();

}  // namespace gdedup::cli
