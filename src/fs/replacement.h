// Replacing a file whole (filters, checkpoints, --stats): the new contents go
// to a unique temporary file beside the target (fs::create_temp_beside), which
// is fsynced, closed, renamed over the target, and the folder fsynced. A
// crash leaves the old file or the new one, never a mix; two writers never
// share a temporary file; a link at the target is replaced, not followed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fs/file_ops.h"

namespace gdedup::fs {

class Replacement {
 public:
  // Creates the temporary file. Every failure throws gdedup::Error worded
  // "`failure` + ": " + reason", e.g. "cannot save filter to F.gdf: ...".
  Replacement(std::string target, std::string failure);
  Replacement(const Replacement&) = delete;
  Replacement& operator=(const Replacement&) = delete;
  // Removes the temporary file unless commit() put it in place.
  ~Replacement();

  void write(const void* data, size_t size);
  void pwrite(const void* data, size_t size, uint64_t offset);
  // fsync, close, rename over the target, fsync of the folder: in that
  // order, since a rename that reaches the disk before the data would leave
  // a damaged file after a crash.
  void commit();

 private:
  // Throws the error for a failed step, `doing` being e.g. "writing X".
  [[noreturn]] void fail(const std::string& doing, int err) const;

  std::string target_;
  std::string failure_;
  File temp_;
  int live_slot_ = -1;  // in the registry of live temporaries (live_temporaries.h)
  bool committed_ = false;
};

}  // namespace gdedup::fs
