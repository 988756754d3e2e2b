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

struct FileContents {
  const char* magic;  // 8 bytes
  uint32_t version;
  const uint32_t* words;  // the bit array of `params`
  FilterParams params;
  FilterCounters counters;
  std::string trailer;  // bytes after the bit array; "" for none
  // Writes what follows the trailer (a checkpoint's later layers) at
  // `offset`, where the file ends so far; empty for nothing.
  std::function<void(fs::Replacement& out, uint64_t offset)> write_more;
  // Writes the kind's own header fields (after the filter fields, before
  // the header checksum); empty for none.
  std::function<void(unsigned char* header)> add_fields;
};

// Replaces `path` with `contents`. Failures throw Error worded
// "`failure`: reason" (fs::Replacement), e.g. "cannot save filter to F: ...".
void write_file(const std::string& path, const std::string& failure,
                const FileContents& contents);

}  // namespace gdedup::format
