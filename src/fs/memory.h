// Memory straight from the OS (mmap(2)): zeroed pages that take no memory
// until first touched, so a filter of many GiB costs only what it uses; and
// files mapped read-only, whose pages all their readers share.
#pragma once

#include <cstddef>

namespace gdedup::fs {

// `bytes` of zeroed, readable and writable memory; nullptr with errno set
// when the OS refuses.
void* map_zeroed(size_t bytes);
// The first `bytes` of the file open at `fd`, mapped read-only and shared
// (PROT_READ, MAP_SHARED); nullptr with errno set when the OS refuses.
const void* map_file_read_only(int fd, size_t bytes);
// Returns [p, p + bytes) to the OS; p and bytes page-aligned.
void unmap(void* p, size_t bytes);
// Asks for transparent huge pages on [p, p + bytes): a hint, never an error.
void advise_huge_pages(void* p, size_t bytes);

}  // namespace gdedup::fs
