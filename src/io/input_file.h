// Questions about paths that the command line asks before any work starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gdedup::io {

// Size in bytes of the file at `path` (compressed size for .gz/.zst), or
// nullopt for "-" and for pipes and devices, whose size is unknown. Throws
// gdedup::Error naming the path when it does not exist or is a directory.
std::optional<uint64_t> input_size(const std::string& path);

// Throws gdedup::Error, worded as open_input() would, unless `path` can be
// opened for reading: lets a caller check every input before the first.
void check_readable(const std::string& path);

// True when `input` and `output` name the same regular file (same device and
// inode, whatever the spelling or links), so writing one would destroy the
// other. "-" stands for standard input (first) and standard output (second).
// A missing output is not the same file; devices and terminals never count:
// stdin and stdout on one terminal are fine.
bool same_file(const std::string& input, const std::string& output);

}  // namespace gdedup::io
