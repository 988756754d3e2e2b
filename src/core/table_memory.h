// Memory for the exact set's tables (exact_set.h): zeroed, on a cache
// line's boundary, in huge pages where the system gives them.
//
// A KeySet's 256 shards each hold a table of 1 KiB to a few MiB: below a
// huge page (2 MiB) each, so that each mapped alone would be 4 KiB pages,
// and a lookup into a set of hundreds of MiB would miss the TLB on almost
// every key (its fetch of the bucket ahead cannot retire before the page
// walk: bench/RESULTS.md). So tables below a huge page are cut from 2 MiB
// chunks in huge pages, shared by every table of the process (a buddy
// allocator: a block is a power of two on its own size's boundary, and a
// freed block joins its free twin); a chunk wholly free goes back to the
// system. Tables of a huge page or more are mapped alone.
#pragma once

#include <cstdint>

namespace gdedup::detail {

// `bytes` zeroed bytes, a power of two from 1 KiB, on a boundary of
// min(bytes, 2 MiB); nullptr when the system refuses them. Pages are
// mapped lazily: none is touched before it is written.
void* table_memory(uint64_t bytes);
// Gives back what table_memory(bytes) gave.
void free_table_memory(void* memory, uint64_t bytes);

}  // namespace gdedup::detail
