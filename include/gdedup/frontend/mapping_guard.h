// Reading a file through a mapping has one hazard that read(2) has not: when
// another program truncates the file, the first touch of a page past its new
// end raises SIGBUS, which kills the process with no message, leaving its
// temporary files behind. A guarded mapping turns that into an error: the
// signal handler puts a page of zeros where the lost page was, marks the
// mapping cut, and the reading goes on, so its reader can check cut() and
// report the file as changed (io/mapped_bytes.h) before it hands out any
// record read from the zeros.
//
// A SIGBUS outside every guarded mapping goes to the handler that was there
// before the first guard was taken (the default one ends the process).
// Part of the OS layer (src/fs), public for front ends that hold a mapped
// filter file (map_filter_file) long after its load, as the Python package
// does.
#pragma once

#include <cstddef>

namespace gdedup::fs {

class MappingGuard {
 public:
  // How many mappings can be guarded at once.
  static constexpr size_t kSlots = 256;

  // Guards [p, p + bytes); check taken() (false when every slot is in use:
  // the caller then reads the file without a mapping).
  MappingGuard(const void* p, size_t bytes);
  ~MappingGuard();
  MappingGuard(const MappingGuard&) = delete;
  MappingGuard& operator=(const MappingGuard&) = delete;

  bool taken() const { return slot_ != kSlots; }
  // True once a page of the mapping was found gone from its file: it reads
  // as zeros since.
  bool cut() const;

 private:
  size_t slot_ = kSlots;
};

}  // namespace gdedup::fs
