// The memory pool of the Parquet module's Arrow buffers (parquet_arrow.h).
#include "columnar/parquet_arrow.h"

namespace gdedup::columnar {

arrow::MemoryPool* rows_pool() {
  // Arrow's jemalloc where the library has it: pyarrow's default pool is
  // mimalloc, whose pages freed by another thread than the one that took
  // them (Arrow's decoding and encoding threads, this module's reader and
  // the engine's writer) go back late, and which kept about 60 MiB more
  // at the peak of a 10M-row job (bench/RESULTS.md).
  static arrow::MemoryPool* const pool = [] {
    arrow::MemoryPool* jemalloc = nullptr;
    return arrow::jemalloc_memory_pool(&jemalloc).ok() ? jemalloc
                                                        : arrow::default_memory_pool();
  }();
  return pool;
}

}  // namespace gdedup::columnar
