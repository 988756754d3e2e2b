#include "gdedup/frontend/job_files.h"

#include <unistd.h>

#include <cerrno>

#include "gdedup/error.h"
#include "gdedup/frontend/path_lock.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"

namespace gdedup {

bool file_exists(const std::string& path) {
  fs::FileStatus status;
  return fs::status_of_path(path, status) == 0;
}

bool writes_in_place(const std::string& path) {
  fs::FileStatus status;
  return path == "-" || (fs::status_of_name(path, status) == 0 && !status.regular());
}

namespace {

// What a path will be once written: an existing file's device and inode
// (through links), or, for a name that does not exist yet, its real
// folder and its last component.
struct Identity {
  bool exists = false;
  fs::FileStatus status;  // device and inode when it exists
  std::string name;
};

Identity identify(const std::string& path, int standard_fd) {
  Identity id;
  const bool found = (path == "-" ? fs::status_of(standard_fd, id.status)
                                  : fs::status_of_path(path, id.status)) == 0;
  if (found) {
    id.exists = true;
    // Devices and pipes (/dev/null twice) are not files two names could damage.
    if (!id.status.regular()) id.name = "\n";
    return id;
  }
  const std::string folder = fs::containing_folder(path);
  const std::string real = fs::real_path(folder);
  const size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  id.name = (real.empty() ? folder : real) + "/" + base;
  return id;
}

bool same(const Identity& a, const Identity& b) {
  if (a.exists != b.exists) return false;
  if (a.exists) return a.name.empty() && b.name.empty() && a.status.same_file(b.status);
  return a.name == b.name;
}

std::string spelled(const std::string& path, const char* stream) {
  return path == "-" ? stream : path;
}

[[noreturn]] void cannot_write(const WrittenFile& file, const std::string& why) {
  throw Error("cannot write " + std::string(file.what) + " " + fs::printable(file.path) + ": " +
                  why + ".",
              ErrorKind::io);
}

}  // namespace

void check_written_files(const std::vector<WrittenFile>& written,
                         const std::vector<std::string>& read) {
  std::vector<Identity> inputs;
  for (const std::string& path : read) inputs.push_back(identify(path, STDIN_FILENO));
  for (size_t i = 0; i < written.size(); ++i) {
    const WrittenFile& w = written[i];
    const Identity id = identify(w.path, STDOUT_FILENO);
    for (size_t j = 0; j < read.size(); ++j) {
      if (!same(id, inputs[j])) continue;
      throw UsageError(std::string(w.what) + " " + spelled(w.path, "standard output") +
                       " is the same file as input " + spelled(read[j], "standard input") +
                       "; writing it would destroy the input before it is read (nothing was "
                       "done)");
    }
    for (const WrittenFile& owner : written) {
      if (!owner.locked || owner.path == "-" ||
          !same(id, identify(fs::lock_file_for(owner.path), STDOUT_FILENO))) {
        continue;
      }
      throw UsageError(std::string(w.what) + " " + fs::printable(w.path) +
                       " is the lock file of the " + owner.what + " " +
                       fs::printable(owner.path) + ", which the job holds and deletes when "
                       "it ends; give it another name (nothing was done)");
    }
    for (size_t j = 0; j < i; ++j) {
      if (!same(id, identify(written[j].path, STDOUT_FILENO))) continue;
      throw UsageError(std::string(w.what) + " " + fs::printable(w.path) +
                       " is the same file as the " + written[j].what + " " +
                       fs::printable(written[j].path) +
                       "; a job writes each of them whole, so give them different names "
                       "(nothing was done)");
    }
  }
}

void check_writable(const WrittenFile& file) {
  const std::string& path = file.path;
  if (path == "-") return;
  if (!path.empty() && path.back() == '/') {
    cannot_write(file, "the name ends with '/', so it names a folder; give a file name");
  }
  fs::FileStatus status, name_status;
  const bool exists = fs::status_of_path(path, status) == 0;
  if (exists && status.directory()) cannot_write(file, "it is a folder");
  const bool is_link = fs::status_of_name(path, name_status) == 0 &&
                       name_status.type == fs::FileStatus::Type::kLink;
  if (is_link && !fs::trusted_link(path)) {
    cannot_write(file, "it is a symbolic link that belongs to another user, and gdedup "
                       "follows no link someone else may have planted; remove it, or name "
                       "the file it points to");
  }
  if (is_link && !file.in_place) {
    cannot_write(file, "it is a symbolic link, and it is saved by writing a new file and "
                       "renaming it over the name, which would replace the link; name the "
                       "file the link points to");
  }
  if (exists && !status.regular() && !file.in_place) {
    cannot_write(file, "it is not a regular file, and it is saved by writing a new file and "
                       "renaming it over the old one");
  }
  if (exists && file.in_place) {
    if (const int err = fs::may_write(path)) cannot_write(file, fs::error_text(err));
    // A regular output is still replaced, through a temporary file beside it
    // (io/output_file.h): its folder must take one.
    if (is_link || !status.regular()) return;
  }
  const std::string folder = fs::containing_folder(path);
  fs::FileStatus dir;
  if (const int err = fs::status_of_path(folder, dir)) {
    cannot_write(file, "folder " + folder + ": " + fs::error_text(err));
  }
  if (!dir.directory()) cannot_write(file, folder + " is not a folder");
  if (const int err = fs::may_write(folder)) {
    cannot_write(file, "folder " + folder + ": " + fs::error_text(err));
  }
}

}  // namespace gdedup
