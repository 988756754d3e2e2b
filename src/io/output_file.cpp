#include "gdedup/output_file.h"

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "fs/file_ops.h"
#include "fs/live_temporaries.h"
#include "gdedup/error.h"

namespace gdedup::io {
namespace {

// Mode 0666 less the umask, as open(2) gives a created file.
constexpr uint32_t kNewFileMode = 0666;

[[noreturn]] void cannot_create(const std::string& what, const std::string& path,
                                const std::string& reason) {
  throw Error("cannot create " + what + " " + path + ": " + reason + ".", ErrorKind::io);
}

[[noreturn]] void cannot_resume(const std::string& temporary, const std::string& path,
                                const std::string& reason) {
  throw Error("cannot resume output " + path + ": its temporary file " + temporary +
                  ", named by the checkpoint, " + reason,
              ErrorKind::resume_mismatch);
}

// A new temporary file beside `target`, in the registry of live temporaries
// (`live_slot`), with the permission bits of the file it will replace, so
// that replacing it changes its contents only, as writing it in place did.
fs::File new_temporary(const std::string& target, const std::string& what,
                       const std::string& path, int& live_slot) {
  fs::File temp;
  if (const int err = fs::create_temp_beside(target, temp, live_slot, kNewFileMode)) {
    cannot_create(what, path, "creating a temporary file beside it in folder " +
                            fs::containing_folder(target) + " failed: " + fs::error_text(err));
  }
  fs::FileStatus replaced;
  int err = 0;
  if (fs::status_of_path(target, replaced) == 0 &&
      (err = fs::set_permissions(temp.fd(), replaced.permissions)) != 0) {
    fs::unlink_file(temp.name());
    fs::forget_temporary(live_slot);
    cannot_create(what, path, "setting the permissions of " + temp.name() + " failed: " +
                            fs::error_text(err));
  }
  return temp;
}

// The first `bytes` of `from` (fewer if it is shorter) appended to `to`.
// 0 or an errno.
int copy_prefix(int from, fs::File& to, uint64_t bytes) {
  std::vector<char> chunk(size_t{1} << 20);
  for (uint64_t at = 0; at < bytes;) {
    const uint64_t want = std::min<uint64_t>(chunk.size(), bytes - at);
    const int64_t got = fs::read_at(from, chunk.data(), want, at);
    if (got < 0) return errno;
    if (got == 0) break;
    if (const int err = to.write_all(chunk.data(), static_cast<size_t>(got))) return err;
    at += static_cast<uint64_t>(got);
  }
  return 0;
}

}  // namespace

std::string replaced_file(const std::string& path) {
  if (path == "-") return "";
  fs::FileStatus status;
  if (fs::is_symbolic_link(path)) {
    if (!fs::trusted_link(path)) return "";
    const std::string real = fs::real_path(path);
    if (real.empty() || fs::status_of_path(real, status) != 0) return "";
    return status.regular() ? real : "";
  }
  if (fs::status_of_path(path, status) != 0) return path;  // a new file
  return status.regular() ? path : "";
}

OutputFile::OutputFile(std::string what, std::string path, std::string target,
                       std::string temporary, OutputWriter writer)
    : what_(std::move(what)),
      path_(std::move(path)),
      target_(std::move(target)),
      temporary_(std::move(temporary)),
      writer_(std::move(writer)) {}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : what_(std::move(other.what_)),
      path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      temporary_(std::exchange(other.temporary_, "")),
      writer_(std::move(other.writer_)),
      live_slot_(std::exchange(other.live_slot_, -1)),
      kept_(other.kept_),
      committed_(other.committed_),
      temporary_discarded_(other.temporary_discarded_) {}

OutputFile OutputFile::create(const std::string& path, size_t buffer, const std::string& what) {
  const std::string target = replaced_file(path);
  if (target.empty()) {
    return OutputFile(what, path, "", "", OutputWriter::create(path, buffer, what));
  }
  int live_slot = -1;
  fs::File temp = new_temporary(target, what, path, live_slot);
  const std::string name = temp.name();
  OutputFile out(what, path, target, name, OutputWriter(temp.release(), name, true, 0, buffer));
  out.live_slot_ = live_slot;
  return out;
}

OutputFile OutputFile::resume_renamed(const std::string& path, const std::string& temporary,
                                      const OutputPrefix& prefix, size_t buffer) {
  const std::string missing =
      "is missing: it was removed, or renamed over " + path + " by a run that was stopped "
      "before it removed the checkpoint";
  const std::string target = replaced_file(path);
  fs::File renamed;
  if (target.empty() || fs::open_for_reading(target, renamed) != 0) {
    cannot_resume(temporary, path, missing + "; delete the checkpoint and run the job again "
                                             "from its start.");
  }
  int live_slot = -1;
  fs::File copy = new_temporary(target, "output", path, live_slot);
  const std::string name = copy.name();
  try {
    if (const int err = copy_prefix(renamed.fd(), copy, prefix.bytes)) {
      throw Error("copying " + target + " into " + name + " failed: " + fs::error_text(err),
                  ErrorKind::io);
    }
    OutputFile out("output", path, target, name,
                   OutputWriter::continue_file(copy.release(), name, prefix, buffer));
    out.live_slot_ = live_slot;
    return out;
  } catch (const Error& e) {
    fs::unlink_file(name);
    fs::forget_temporary(live_slot);
    cannot_resume(temporary, path, missing + ", and " + path + " does not continue from it (" +
                                       e.what() + "); delete the checkpoint and run the job "
                                       "again from its start.");
  }
}

OutputFile OutputFile::resume(const std::string& path, const std::string& temporary,
                              const OutputPrefix& prefix, size_t buffer) {
  fs::File file;
  if (const int err = fs::open_own_file(temporary, file)) {
    if (err == ENOENT) return resume_renamed(path, temporary, prefix, buffer);
    if (err == ELOOP) {
      cannot_resume(temporary, path, "is a symbolic link, which gdedup never follows; it is "
                                     "not the file the interrupted run wrote.");
    }
    cannot_resume(temporary, path, "cannot be opened: " + fs::error_text(err) + ".");
  }
  fs::FileStatus status;
  if (const int err = fs::status_of(file.fd(), status)) {
    cannot_resume(temporary, path, "cannot be read: " + fs::error_text(err) + ".");
  }
  if (!status.regular()) {
    cannot_resume(temporary, path, "is not a regular file, so not the file the interrupted "
                                   "run wrote.");
  }
  if (status.owner != fs::current_user()) {
    cannot_resume(temporary, path, "belongs to user " + std::to_string(status.owner) +
                                       ", not to the user running the job (" +
                                       std::to_string(fs::current_user()) + "), so it is not "
                                       "the file the interrupted run wrote.");
  }
  OutputWriter writer = OutputWriter::continue_file(file.release(), temporary, prefix, buffer);
  std::string target = replaced_file(path);
  if (target.empty()) target = path;  // replaced meanwhile by a device: the rename says so
  OutputFile out("output", path, target, temporary, std::move(writer));
  out.kept_ = true;
  return out;
}

OutputFile::~OutputFile() {
  if (temporary_.empty() || committed_ || kept_ || temporary_discarded_) return;
  fs::unlink_file(temporary_);
  fs::forget_temporary(live_slot_);
}

void OutputFile::keep_for_resume() {
  kept_ = true;
  fs::forget_temporary(std::exchange(live_slot_, -1));
}

void OutputFile::discard() {
  if (in_place() || committed_) return;
  fs::unlink_file(temporary_);
  fs::forget_temporary(std::exchange(live_slot_, -1));
  kept_ = false;
  temporary_discarded_ = true;
}

void OutputFile::close() {
  if (!in_place()) writer_.sync();
  writer_.close();
}

void OutputFile::commit() {
  if (in_place()) return;
  if (const int err = fs::rename_file(temporary_, target_)) {
    throw Error("cannot complete " + what_ + " " + path_ + ": renaming " + temporary_ +
                    " over it failed: " + fs::error_text(err) + ".",
                ErrorKind::io);
  }
  committed_ = true;
  fs::forget_temporary(std::exchange(live_slot_, -1));
  if (const int err = fs::sync_folder(target_)) {
    throw Error(what_ + " " + path_ + " was written, but syncing its folder " +
                    fs::containing_folder(target_) +
                    " failed, so it may not survive a crash: " + fs::error_text(err) + ".",
                ErrorKind::io);
  }
}

}  // namespace gdedup::io
