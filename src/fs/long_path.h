// Paths of any length. open(2) and stat(2) refuse a path of PATH_MAX (4,096)
// bytes or more with ENAMETOOLONG, yet a tree may be deeper than that (its
// files are found by a walk through folder descriptors, folder_walk.h). A
// path that long is reached one folder at a time with openat(2), each
// component looked up as the kernel would (links followed), so that every
// file a walk finds can also be read.
#pragma once

#include <sys/stat.h>

#include <string>

namespace gdedup::fs {

// open(2) of `path`, whatever its length: a descriptor, or -1 with errno set.
int open_any_length(const std::string& path, int flags, mode_t mode = 0);

// stat(2) (`follow`) or lstat(2) of `path`, whatever its length: 0 or an
// errno.
int stat_any_length(const std::string& path, struct stat& st, bool follow);

}  // namespace gdedup::fs
