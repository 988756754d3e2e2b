#include "io/input_file.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdedup/error.h"
#include "io/fd_source.h"
#include "io/random_access.h"
#include "io/sys.h"

namespace gdedup::io {

namespace {

bool stat_of(const std::string& path, int std_fd, struct stat& st) {
  if (path == "-") return ::fstat(std_fd, &st) == 0;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::optional<uint64_t> input_size(const std::string& path) {
  const std::unique_ptr<RandomAccessInput> input = RandomAccessInput::open(path);
  if (!input) return std::nullopt;
  return input->size();
}

void check_readable(const std::string& path) {
  if (path == "-") return;
  FdSource::open(path);  // throws the same message a real open would
}

bool same_file(const std::string& input, const std::string& output) {
  struct stat in {}, out {};
  if (!stat_of(input, STDIN_FILENO, in) || !stat_of(output, STDOUT_FILENO, out)) {
    return false;
  }
  return S_ISREG(in.st_mode) && S_ISREG(out.st_mode) && in.st_dev == out.st_dev &&
         in.st_ino == out.st_ino;
}

}  // namespace gdedup::io
