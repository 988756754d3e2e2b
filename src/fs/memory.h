// Memory straight from the OS (mmap(2)): zeroed pages that take no memory
// until first touched, so a filter of many GiB costs only what it uses; and
// files mapped read-only, whose pages all their readers share.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gdedup::fs {

// `bytes` of zeroed, readable and writable memory; nullptr with errno set
// when the OS refuses.
void* map_zeroed(size_t bytes);
// Bytes [offset, offset + bytes) of the file open at `fd`, mapped read-only
// and shared (PROT_READ, MAP_SHARED); `offset` a multiple of page_size().
// nullptr with errno set when the OS refuses.
const void* map_file_read_only(int fd, size_t bytes, uint64_t offset = 0);
// The size mappings are made of.
size_t page_size();
// The machine's memory in bytes (UINT64_MAX when the OS does not say).
uint64_t physical_memory();
// Drops the pages of [p, p + bytes) of a file mapping from this process: a
// later touch maps them again from the page cache (or the file), so this is
// only ever a cost, never a change of what is read. p and bytes
// page-aligned.
void drop_mapped_pages(const void* p, size_t bytes);
// Returns [p, p + bytes) to the OS; p and bytes page-aligned.
void unmap(void* p, size_t bytes);
// Asks for transparent huge pages on [p, p + bytes): a hint, never an error.
void advise_huge_pages(void* p, size_t bytes);

}  // namespace gdedup::fs
