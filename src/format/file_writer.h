// Writing either kind of gdedup file (docs/FORMAT.md): through one
// fs::Replacement (a unique temporary file, fsync, rename over the target,
// fsync of its folder), a zero header page, the bit array, the trailer,
// whatever the kind writes after it, then the header. The header goes last:
// until then the first page is zeros, so a file cut short by a crash has no
// magic and is never taken for one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "fs/replacement.h"
#include "gdedup/filter.h"

namespace gdedup::format {

// Copies bytes [offset, offset + length) of a bit array that no one process
// holds whole (the ranks of an MPI job) into `into`; called in order of
// offset, at most 64 MiB at a time.
using BitReader = std::function<void(uint64_t offset, uint64_t length, unsigned char* into)>;

// Appends the `size`-byte bit array at `bytes`, or when that is null the one
// `read` gives, to `out`, and returns its XXH3-64.
uint64_t write_bit_array(fs::Replacement& out, const unsigned char* bytes, uint64_t size,
                         const BitReader& read);

struct FileContents {
  const char* magic;  // 8 bytes
  uint32_t version;
  const uint32_t* words;  // the bit array of `params`; null: `read` gives it
  FilterParams params;
  FilterCounters counters;
  std::string trailer;  // bytes after the bit array; "" for none
  // Writes what follows the trailer (a checkpoint's later layers) at
  // `offset`, where the file ends so far; empty for nothing.
  std::function<void(fs::Replacement& out, uint64_t offset)> write_more;
  // Writes the kind's own header fields (after the filter fields, before
  // the header checksum); empty for none.
  std::function<void(unsigned char* header)> add_fields;
  BitReader read = nullptr;
};

// Replaces `path` with `contents`. Failures throw Error worded
// "`failure`: reason" (fs::Replacement), e.g. "cannot save filter to F: ...".
void write_file(const std::string& path, const std::string& failure,
                const FileContents& contents);

}  // namespace gdedup::format
