#include "fs/replacement.h"

#include "fs/live_temporaries.h"
#include "gdedup/error.h"
#include "gdedup/frontend/path_text.h"

namespace gdedup::fs {

Replacement::Replacement(std::string target, std::string failure)
    : target_(std::move(target)), failure_(std::move(failure)) {
  if (const int err = create_temp_beside(target_, temp_, live_slot_)) {
    throw Error(failure_ + ": creating a temporary file beside it in folder " +
                    printable(containing_folder(target_)) + " failed: " + error_text(err),
                ErrorKind::io);
  }
}

Replacement::~Replacement() {
  if (committed_) return;
  const std::string name = temp_.name();
  temp_ = File();
  unlink_file(name);
  forget_temporary(live_slot_);
}

void Replacement::fail(const std::string& doing, int err) const {
  throw Error(failure_ + ": " + doing + " failed: " + error_text(err), ErrorKind::io);
}

void Replacement::write(const void* data, size_t size) {
  if (const int err = temp_.write_all(data, size)) fail("writing " + printable(temp_.name()), err);
}

void Replacement::pwrite(const void* data, size_t size, uint64_t offset) {
  if (const int err = temp_.pwrite_all(data, size, offset)) {
    fail("writing " + printable(temp_.name()), err);
  }
}

void Replacement::commit() {
  const std::string name = temp_.name();
  if (const int err = temp_.sync()) fail("syncing " + printable(name) + " to disk", err);
  if (const int err = temp_.close_now()) fail("closing " + printable(name), err);
  if (const int err = rename_file(name, target_)) {
    fail("renaming " + printable(name) + " over it", err);
  }
  forget_temporary(live_slot_);
  committed_ = true;
  if (const int err = sync_folder(target_)) {
    throw Error(failure_ + ": the file was written, but syncing its folder " +
                    printable(containing_folder(target_)) +
                    " failed, so it may not survive a crash: " + error_text(err),
                ErrorKind::io);
  }
}

}  // namespace gdedup::fs
