// What the command prints on standard output itself (info, plan, bench,
// --help, --version; the records of dedup and query go through the job's
// writer), and the check of standard output at the command's end. A write
// or a close that fails is an error of the command, as coreutils' commands
// treat it: a full disk must not leave a short info.json and exit 0. A
// reader that went away (`| head`) is no error, as for the records.
#pragma once

#include <string>

namespace gdedup::cli {

// Writes `text` at once. Throws an Error that says why standard output could
// not be written, of kind broken_pipe when its reader has gone.
void print(const std::string& text);

// Closes standard output, the last thing the command does. A failure that
// only the close reports turns `status` 0 into 1 and is said on stderr;
// other statuses are kept, since the command has already said why it
// failed. Returns the status to exit with.
int close_standard_output(int status);

}  // namespace gdedup::cli
