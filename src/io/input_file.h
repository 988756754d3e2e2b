// Questions about a job's inputs that a front end asks before any work
// starts (run_pipeline opens them itself): whether each can be read, so that
// a typo in the last one costs nothing, how large they are, and whether one
// is the file an output would overwrite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gdedup/error.h"
#include <vector>

namespace gdedup::io {

// Size in bytes of the file at `path` (compressed size for compressed
// files), or nullopt for pipes and devices, whose size is unknown. "-" is
// standard input: its size is known when it is redirected from a regular
// file (the bytes from its current offset), as for /dev/stdin. Throws
// gdedup::Error naming the path when it does not exist, is a directory or
// cannot be read.
std::optional<uint64_t> input_size(const std::string& path);

// The sizes of `inputs` summed, as input_size() gives them; 0 when one is
// unknown (a pipe). What a progress line measures its percentage against.
uint64_t total_input_size(const std::vector<std::string>& inputs);

// The failure to open input `path` for `err` (an errno value), worded
// alike wherever an input is opened: "cannot open input PATH: REASON."
// (ErrorKind::io; the path's unprintable bytes escaped).
Error cannot_open_input(const std::string& path, int err);

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
