// Zeroed, page-aligned host memory for bit arrays. Arrays of 2 MiB and more
// are aligned to 2 MiB and advised to use transparent huge pages: a random
// probe then misses the TLB far less often (one 2 MiB entry covers what 512
// 4 KiB entries would).
#pragma once

#include <cstddef>

namespace gdedup::detail {

// Throws Error with the size when the memory cannot be had.
void* allocate_zeroed(size_t bytes);
void release(void* p, size_t bytes) noexcept;

}  // namespace gdedup::detail
