#include "io/output_file.h"

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

// Gives `temp` the permission bits of `target`, the file it will replace
// (none to take when there is none yet), so that replacing it changes its
// contents only, as writing it in place did. 0 or an errno.
int take_permissions(const std::string& target, fs::File& temp) {
  fs::FileStatus replaced;
  if (fs::status_of_path(target, replaced) != 0) return 0;
  return fs::set_permissions(temp.fd(), replaced.permissions);
}

// A new temporary file beside `target`, in the registry of live temporaries
// (`live_slot`), with the permission bits of the file it will replace.
fs::File new_temporary(const std::string& target, const std::string& what,
                       const std::string& path, int& live_slot) {
  fs::File temp;
  if (const int err = fs::create_temp_beside(target, temp, live_slot, kNewFileMode)) {
    cannot_create(what, path, "creating a temporary file beside it in folder " +
                            fs::containing_folder(target) + " failed: " + fs::error_text(err));
  }
  if (const int err = take_permissions(target, temp)) {
    fs::unlink_file(temp.name());
    fs::forget_temporary(live_slot);
    cannot_create(what, path, "setting the permissions of " + temp.name() + " failed: " +
                            fs::error_text(err));
  }
  return temp;
}

// Bytes [from, to) of the file `renamed` appended to `to`, which holds
// `from` bytes. Throws Error saying what failed.
void copy_range(const std::string& renamed, fs::File& to, uint64_t from, uint64_t end) {
  fs::File source;
  if (renamed.empty() || fs::open_for_reading(renamed, source) != 0) {
    throw Error("it cannot be read", ErrorKind::io);
  }
  if (const int err = fs::seek(to.fd(), from)) {
    throw Error("seeking in " + to.name() + " failed: " + fs::error_text(err), ErrorKind::io);
  }
  std::vector<char> chunk(size_t{1} << 20);
  for (uint64_t at = from; at < end;) {
    const uint64_t want = std::min<uint64_t>(chunk.size(), end - at);
    const int64_t got = fs::read_at(source.fd(), chunk.data(), want, at);
    if (got < 0) throw Error("reading it failed: " + fs::error_text(errno), ErrorKind::io);
    if (got == 0) {
      throw Error("it holds " + std::to_string(at) + " bytes, fewer than the " +
                      std::to_string(end) + " the checkpoint recorded",
                  ErrorKind::io);
    }
    if (const int err = to.write_all(chunk.data(), static_cast<size_t>(got))) {
      throw Error("copying it into " + to.name() + " failed: " + fs::error_text(err),
                  ErrorKind::io);
    }
    at += static_cast<uint64_t>(got);
  }
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

OutputFile OutputFile::resume(const std::string& path, const std::string& temporary,
                              const OutputPrefix& prefix, size_t buffer) {
  // A run stopped after it renamed the file over `path`, before it removed
  // its checkpoint, left it missing: it is made again at the name the
  // checkpoint holds (so that a resume stopped in turn leaves no file the
  // checkpoint does not name), from the first bytes of `path`.
  fs::File file;
  int live_slot = -1;
  int err = fs::open_own_file(temporary, file);
  const bool made = err == ENOENT;
  std::string target = replaced_file(path);
  if (made && (err = fs::create_temp_named(temporary, file, live_slot, kNewFileMode)) == 0) {
    err = take_permissions(target, file);
  }
  const std::string missing =
      "is missing: it was removed, or renamed over " + path + " by a run that was stopped "
      "before it removed the checkpoint";
  const std::string start_again = "; delete the checkpoint and run the job again from its start.";
  auto forget_made = [&] {
    if (!made) return;
    fs::unlink_file(temporary);
    fs::forget_temporary(std::exchange(live_slot, -1));
  };
  if (err == ELOOP) {
    cannot_resume(temporary, path, "is a symbolic link, which gdedup never follows; it is "
                                   "not the file the interrupted run wrote.");
  }
  if (err != 0) {
    if (made && file.is_open()) forget_made();
    cannot_resume(temporary, path, made ? missing + ", and making it again failed: " +
                                              fs::error_text(err) + start_again
                                        : "cannot be opened: " + fs::error_text(err) + ".");
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
  // Shorter than the checkpoint's offset: made just now, or by a resume
  // stopped while it copied. The checksum below tells whether `path`
  // continues it; if not, a file that was there is cut back as it was.
  const uint64_t held = status.size;
  bool extended = false;
  if (held < prefix.bytes) {
    try {
      copy_range(target, file, held, prefix.bytes);
      extended = true;
    } catch (const Error& e) {
      if (made) {
        forget_made();
        cannot_resume(temporary, path, missing + ", and " + path + " does not continue from "
                                           "it (" + e.what() + ")" + start_again);
      }
      file.truncate(held);
    }
  }
  try {
    OutputWriter writer = OutputWriter::continue_file(file.release(), temporary, prefix, buffer);
    if (target.empty()) target = path;  // replaced meanwhile by a device: the rename says so
    OutputFile out("output", path, target, temporary, std::move(writer));
    // The checkpoint names the file: it outlives a failure, for a resume.
    fs::forget_temporary(live_slot);
    out.kept_ = true;
    return out;
  } catch (const Error& e) {
    if (made) {
      forget_made();
      cannot_resume(temporary, path, missing + ", and " + path + " does not continue from it (" +
                                         e.what() + ")" + start_again);
    }
    if (!extended) throw;
    // As it was, refused as it was.
    fs::File again;
    if (fs::open_own_file(temporary, again) == 0) again.truncate(held);
    OutputWriter::continue_file(again.release(), temporary, prefix, buffer);
    throw;
  }
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
