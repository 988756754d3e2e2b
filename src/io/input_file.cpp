#include "io/input_file.h"

#include "gdedup/frontend/path_text.h"

#include <unistd.h>

#include <cerrno>

#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"
#include "io/fd_source.h"
#include "io/random_access.h"

namespace gdedup::io {

namespace {

bool status_of(const std::string& path, int std_fd, fs::FileStatus& status) {
  return (path == "-" ? fs::status_of(std_fd, status) : fs::status_of_path(path, status)) == 0;
}

}  // namespace

std::optional<uint64_t> input_size(const std::string& path) {
  const std::unique_ptr<RandomAccessInput> input = RandomAccessInput::open(path);
  if (!input) return std::nullopt;
  return input->size();
}

uint64_t total_input_size(const std::vector<std::string>& inputs) {
  uint64_t total = 0;
  for (const std::string& path : inputs) {
    const std::optional<uint64_t> size = input_size(path);
    if (!size) return 0;
    total += *size;
  }
  return total;
}

Error cannot_open_input(const std::string& path, int err) {
  return Error("cannot open input " + fs::printable(path) + ": " + fs::error_text(err) + ".",
               ErrorKind::io);
}

void check_readable(const std::string& path) {
  if (path == "-") return;
  FdSource::open(path);  // throws the same message a real open would
}

bool same_file(const std::string& input, const std::string& output) {
  fs::FileStatus in, out;
  if (!status_of(input, STDIN_FILENO, in) || !status_of(output, STDOUT_FILENO, out)) {
    return false;
  }
  return in.regular() && out.regular() && in.same_file(out);
}

}  // namespace gdedup::io
