#include "job/input_list.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "fs/file_ops.h"
#include "fs/folder_walk.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::job {
namespace {

// How the inputs are named in messages, in the front end's words.
struct Names {
  const JobInputs& o;
  JobEvents& events;
  std::string operator()(JobOption option) const { return events.name(option); }
  // The list and its path, as the front end names them.
  std::string list() const {
    return o.files_from == "-" ? events.with(JobOption::kFilesFrom, "- (standard input)")
                               : events.with(JobOption::kFilesFrom, fs::printable(o.files_from));
  }
};

[[noreturn]] void cannot_read_list(const Names& n, int err) {
  throw Error("cannot read the list of inputs " + n.list() + ": " + fs::error_text(err) + ".",
              ErrorKind::io);
}

std::string read_list(const Names& n) {
  const JobInputs& o = n.o;
  std::string text;
  if (o.files_from == "-") {
    // A closed standard input fails here (EBADF), rather than read as an
    // empty list.
    if (const int err = fs::read_to_end(STDIN_FILENO, text)) cannot_read_list(n, err);
    return text;
  }
  fs::FileStatus status;
  if (const int err = fs::status_of_path(o.files_from, status)) cannot_read_list(n, err);
  if (status.directory()) {
    throw UsageError(n.list() + " is a folder; give a file that lists one input path per "
                     "line (or per NUL with " + n(JobOption::kNullList) + "), or the folder "
                     "itself as an input with " + n(JobOption::kRecursive));
  }
  fs::File list;
  int err = fs::open_for_reading(o.files_from, list);
  if (err == 0) err = fs::read_to_end(list.fd(), text);
  if (err != 0) cannot_read_list(n, err);
  return text;
}

// The list's paths in order; empty entries (a final separator, blank lines)
// name nothing.
std::vector<std::string> listed_paths(const Names& n) {
  const JobInputs& o = n.o;
  const std::string text = read_list(n);
  const char separator = o.null_list ? '\0' : '\n';
  if (!o.null_list && text.find('\0') != std::string::npos) {
    throw UsageError(n.list() + " holds NUL bytes, so its paths are not one per line; "
                     "give " + n(JobOption::kNullList) +
                     " for a NUL-separated list (find -print0)");
  }
  std::vector<std::string> paths;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) paths.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (paths.empty()) {
    throw UsageError(n.list() + " names no input: it holds no path" +
                     (o.null_list ? " (NUL-separated, " + n(JobOption::kNullList) + ")" : "") +
                     "; give a list with one path per " + (o.null_list ? "NUL" : "line"));
  }
  return paths;
}

// The regular files under `folder`, in byte order of their paths; links
// and special files met inside are left out. The folder, or an entry under
// it, that cannot be read is an error naming it, or with skip_missing a
// warning, and left out.
void add_folder(const std::string& folder, const Names& n, ResolvedInputs& out) {
  const std::string recursive = n(JobOption::kRecursive);
  const std::string skip_missing = n(JobOption::kSkipMissing);
  fs::FolderFiles found;
  if (const int err = fs::list_folder_files(folder, found)) {
    found.unreadable.push_back({folder, err});
  }
  for (const fs::FolderFiles::Unreadable& entry : found.unreadable) {
    const std::string where = entry.path == folder
                                  ? "folder " + fs::printable(folder) + " (input, " +
                                        recursive + ")"
                                  : fs::printable(entry.path) + " (under input " +
                                        fs::printable(folder) + ", " + recursive + ")";
    const std::string problem = "cannot read " + where + ": " + fs::error_text(entry.error);
    if (!n.o.skip_missing) {
      throw Error(problem + "; give " + skip_missing + " to leave out what cannot be read.");
    }
    n.events.warn(problem + "; left out (" + skip_missing + ")");
    out.skipped.push_back(entry.path);
  }
  out.paths.insert(out.paths.end(), found.files.begin(), found.files.end());
}

bool missing(int err) { return err == ENOENT || err == ENOTDIR; }

}  // namespace

ResolvedInputs resolve_inputs(const JobInputs& options, JobEvents& events) {
  const Names n{options, events};
  const std::vector<std::string>& named = options.paths;
  const bool stdin_is_list = options.files_from == "-";
  auto refuse_stdin_twice = [&n] {
    throw UsageError("standard input is the list of inputs (" + n(JobOption::kFilesFrom) +
                     " -), so it cannot also be an input ('-')");
  };
  // Before the list is read: standard input named twice is a mistake
  // whatever it holds.
  if (stdin_is_list && std::find(named.begin(), named.end(), "-") != named.end()) {
    refuse_stdin_twice();
  }
  std::vector<std::string> given = named;
  if (!options.files_from.empty()) {
    const std::vector<std::string> listed = listed_paths(n);
    given.insert(given.end(), listed.begin(), listed.end());
  } else if (given.empty()) {
    given.push_back("-");
  }
  ResolvedInputs inputs;
  for (const std::string& path : given) {
    if (path == "-") {
      if (stdin_is_list) refuse_stdin_twice();
      inputs.paths.push_back(path);
      continue;
    }
    fs::FileStatus status;
    const int err = fs::status_of_path(path, status);
    if (missing(err) && options.skip_missing) {
      events.warn("input " + fs::printable(path) + " does not exist; left out (" +
                  n(JobOption::kSkipMissing) + ")");
      inputs.skipped.push_back(path);
      continue;
    }
    // Other failures are reported when the input is checked, as opening it would.
    if (err == 0 && status.directory()) {
      if (!options.recursive) {
        throw Error("input " + fs::printable(path) + " is a folder; give " +
                    n(JobOption::kRecursive) + " to read the files under it, or name the files");
      }
      add_folder(path, n, inputs);
      continue;
    }
    inputs.paths.push_back(path);
  }
  if (inputs.paths.empty()) {
    throw Error(inputs.skipped.empty()
                    ? "no input to read: the folders named hold no regular file"
                    : "no input to read: the " + counted(inputs.skipped.size(), "input") +
                          " named " + (inputs.skipped.size() == 1 ? "is" : "are all") +
                          " missing");
  }
  return inputs;
}

}  // namespace gdedup::job
