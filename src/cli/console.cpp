#include "cli/console.h"

#include <unistd.h>

#include <cerrno>

#include "gdedup/frontend/path_text.h"

namespace gdedup::cli {
namespace {

// Straight to fd 2: stderr is unbuffered anyway, and one write(2) per line
// keeps lines whole when several processes share the terminal. A stderr
// that fails has no one left to tell.
void write_stderr(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      return;
    }
  }
}

}  // namespace

Console& Console::get() {
  static Console console;
  return console;
}

std::string one_line(const std::string& text) {
  std::string line = fs::printable(text);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

void Console::info(const std::string& message) {
  if (!quiet_) write_line("gdedup: " + one_line(message));
}

void Console::warn(const std::string& message) {
  write_line("gdedup: warning: " + one_line(message));
}

void Console::error(const std::string& message) { write_line("gdedup: " + one_line(message)); }

void Console::write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  erase_locked();
  write_stderr(line + "\n");
}

void Console::status(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string text = "\r" + line;
  if (line.size() < status_width_) text.append(status_width_ - line.size(), ' ');
  write_stderr(text);
  status_width_ = line.size();
}

void Console::clear_status() {
  std::lock_guard<std::mutex> lock(mutex_);
  erase_locked();
}

void Console::erase_locked() {
  if (status_width_ == 0) return;
  write_stderr("\r" + std::string(status_width_, ' ') + "\r");
  status_width_ = 0;
}

}  // namespace gdedup::cli
