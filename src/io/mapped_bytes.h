// Bytes of a plain regular file mapped into memory, which record batches
// point into instead of holding a copy (RecordReader's zero-copy reading):
// the copy out of the page cache is the largest single cost of reading a
// plain file (bench/RESULTS.md). Shared by the batches that point into it;
// the last one to let go unmaps it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "gdedup/error.h"

#include "gdedup/frontend/mapping_guard.h"

namespace gdedup::io {

// Files smaller than this are read, not mapped: a mapping costs two system
// calls and a batch of its own (a mapped batch holds one input's records).
// PipelineOptions::min_mapped_bytes has the same default.
inline constexpr uint64_t kDefaultMinMappedBytes = uint64_t{1} << 20;

class MappedBytes {
 public:
  // Bytes [offset, offset + size) of the file open at `fd` (size > 0), or
  // null when the OS refuses the mapping or no guard is free: the caller
  // then reads the file as before.
  static std::shared_ptr<MappedBytes> map(int fd, uint64_t offset, uint64_t size);
  ~MappedBytes();
  MappedBytes(const MappedBytes&) = delete;
  MappedBytes& operator=(const MappedBytes&) = delete;

  const char* data() const { return data_; }
  uint64_t size() const { return size_; }
  // The offset in the file where the mapped bytes end: the least size the
  // file had when they were mapped.
  uint64_t file_end() const { return file_end_; }
  // True once part of the file was found truncated away (its bytes read as
  // zeros since): whatever was read of it since it was mapped is suspect.
  bool cut() const { return guard_.cut(); }
  // The bytes before `p` are no longer needed by whoever holds them: their
  // pages leave this process (a whole file stays out of its resident memory
  // as it is read). Any thread; out-of-order calls only cost a page fault.
  void done_before(const char* p);

 private:
  MappedBytes(const char* region, uint64_t region_bytes, uint64_t lead, uint64_t file_end);

  const char* region_;  // page-aligned start of the mapping
  uint64_t region_bytes_;
  const char* data_;  // region_ + the offset's distance from its page start
  uint64_t size_;
  uint64_t file_end_;  // the file's offset of the mapped bytes' end
  fs::MappingGuard guard_;
  std::atomic<uint64_t> dropped_{0};  // region bytes given back so far
};

// The error for a mapping found cut (MappedBytes::cut) of a file whose
// size and time have not changed: a page could not be read (a failing
// device), or the file was cut short and written back meanwhile. A file
// that did change says so instead (input_changed_error).
Error unreadable_mapping_error(const std::string& name, uint64_t offset);

// The error for a batch of records whose mapped file (`name`, mapped as
// `mapped`) was found cut short after they were read (RecordBatch::cut):
// their bytes were hashed or written from the zeros left in its place.
Error cut_while_used_error(const std::string& name, const MappedBytes& mapped);

}  // namespace gdedup::io
