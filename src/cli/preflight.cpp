#include "cli/preflight.h"

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

#include "gdedup/error.h"
#include "io/input_file.h"
#include "io/sys.h"

namespace gdedup::cli {

void check_inputs(const std::vector<std::string>& inputs) {
  int stdin_count = 0;
  for (const std::string& path : inputs) {
    if (path == "-") {
      if (++stdin_count > 1) {
        throw UsageError("standard input ('-') is named more than once among the inputs");
      }
      continue;
    }
    io::check_readable(path);
  }
}

void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs,
                        const char* what) {
  for (const std::string& input : inputs) {
    if (io::same_file(input, output)) {
      const std::string in = input == "-" ? "standard input" : input;
      const std::string out = output == "-" ? "standard output" : output;
      throw UsageError(std::string(what) + " " + out + " is the same file as input " + in +
                       "; writing it would destroy the input before it is read (nothing was "
                       "done)");
    }
  }
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

void check_creatable(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    throw Error("cannot create " + path + ": folder " + dir + ": " +
                io::sys::error_text(errno) + ".");
  }
  if (!S_ISDIR(st.st_mode)) {
    throw Error("cannot create " + path + ": " + dir + " is not a folder.");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw Error("cannot create " + path + ": folder " + dir + ": " +
                io::sys::error_text(errno) + ".");
  }
}

}  // namespace gdedup::cli
