#include "cli/standard_output.h"

#include <cerrno>

#include "cli/console.h"
#include "cli/exit_status.h"
#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"
#include "gdedup/frontend/standard_streams.h"

namespace gdedup::cli {
namespace {

std::string cannot_write(int err) {
  return "cannot write to standard output: " + fs::error_text(err) + ".";
}

}  // namespace

void print(const std::string& text) {
  if (const int err = fs::write_standard_output(text)) {
    throw Error(cannot_write(err), err == EPIPE ? ErrorKind::broken_pipe : ErrorKind::io);
  }
}

int close_standard_output(int status) {
  const int err = fs::close_standard_output();
  if (err == 0 || err == EPIPE) return status;
  Console::get().error(cannot_write(err));
  return status == 0 ? kExitRuntime : status;
}

}  // namespace gdedup::cli
