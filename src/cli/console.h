// Everything the command writes to stderr: one-line messages prefixed with
// "gdedup: ", and the progress line they must not collide with. Callbacks
// from the pipeline's filter thread write here too, hence the lock.
#pragma once

#include <mutex>
#include <string>

namespace gdedup::cli {

class Console {
 public:
  static Console& get();

  // -q: informational lines (plan, backend, summary) are dropped; warnings
  // and errors are not.
  void set_quiet(bool quiet) { quiet_ = quiet; }
  bool quiet() const { return quiet_; }

  void info(const std::string& message);
  void warn(const std::string& message);   // "gdedup: warning: ..."
  void error(const std::string& message);  // "gdedup: ...", always one line

  // Redraws the progress line in place ('\r'), padding over a longer
  // previous one so no escape sequences are needed.
  void status(const std::string& line);
  // Erases the progress line, if one is shown.
  void clear_status();

 private:
  void write_line(const std::string& line);
  void erase_locked();

  std::mutex mutex_;
  bool quiet_ = false;
  size_t status_width_ = 0;  // columns of the progress line on screen, 0 if none
};

// `text` with every byte that does not print escaped (fs::printable): a
// message names paths and may quote input bytes, and must stay one line
// that cannot rewrite the terminal. Paths are escaped where they enter a
// message; this catches the rest.
std::string one_line(const std::string& text);

}  // namespace gdedup::cli
