// The files under a folder, found the way `find DIR -type f` finds them:
// what a front end reads when it is given a folder (the gdedup command's
// --recursive). Part of the OS layer (src/fs): errors are errnos, left to
// the caller to put into words (error_text(), gdedup/frontend/paths.h).
#pragma once

#include <string>
#include <vector>

namespace gdedup::fs {

struct FolderFiles {
  // Regular files, as FOLDER/.../NAME, in byte order of those paths.
  std::vector<std::string> files;
  // Entries that could not be read (a folder that cannot be opened, a file
  // that cannot be opened for reading or whose type cannot be learnt),
  // named the same way, each with its errno, in the order met.
  struct Unreadable {
    std::string path;
    int error = 0;
  };
  std::vector<Unreadable> unreadable;
};

// Walks `folder` through folder descriptors (openat, fdopendir, fstatat), so
// that no path length limit applies: a file deeper than PATH_MAX is found,
// and fs::open_for_reading opens it. Links met inside are not followed
// (neither linked files nor linked folders are listed); other special files
// (pipes, sockets, devices) are left out. Returns 0, or the errno of
// `folder` itself when it cannot be opened as a folder; a tree deeper than
// the descriptors the process may open gives EMFILE for the folder where
// that happened, listed as unreadable, and one deeper than 10,000 levels
// ENAMETOOLONG.
int list_folder_files(const std::string& folder, FolderFiles& out);

}  // namespace gdedup::fs
