#include "core/table_memory.h"

#include <cstring>
#include <mutex>
#include <set>

#include "fs/memory.h"

namespace gdedup::detail {
namespace {

constexpr unsigned kChunkOrder = 21;  // a huge page: 2 MiB
constexpr uint64_t kChunk = uint64_t{1} << kChunkOrder;
constexpr unsigned kMinOrder = 10;  // the smallest table: 16 buckets of 64 bytes

// `bytes` (a multiple of kChunk) on a chunk's boundary, in huge pages where
// given (the advice is ignored where not): what more is mapped to find the
// boundary goes back at once.
void* map_aligned(uint64_t bytes) {
  void* raw = fs::map_zeroed(bytes + kChunk);
  if (raw == nullptr) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kChunk - 1) & ~(kChunk - 1);
  if (aligned > start) fs::unmap(raw, aligned - start);
  const uintptr_t end = aligned + bytes;
  if (start + bytes + kChunk > end) {
    fs::unmap(reinterpret_cast<void*>(end), start + kChunk - aligned);
  }
  void* p = reinterpret_cast<void*>(aligned);
  fs::advise_huge_pages(p, bytes);
  return p;
}

unsigned order_of(uint64_t bytes) {
  unsigned order = kMinOrder;
  while ((uint64_t{1} << order) < bytes) ++order;
  return order;
}

// The free blocks below a chunk, by order; every free block is zeroed.
class Chunks {
 public:
  void* take(unsigned order) {
    std::lock_guard<std::mutex> lock(mutex_);
    unsigned have = order;
    while (have < kChunkOrder && free_[have].empty()) ++have;
    uintptr_t block;
    if (have == kChunkOrder) {
      void* chunk = map_aligned(kChunk);
      if (chunk == nullptr) return nullptr;
      block = reinterpret_cast<uintptr_t>(chunk);
    } else {
      block = *free_[have].begin();
      free_[have].erase(free_[have].begin());
    }
    // Split down to the size asked: the upper halves stay free.
    while (have > order) {
      --have;
      free_[have].insert(block + (uintptr_t{1} << have));
    }
    return reinterpret_cast<void*>(block);
  }

  void give_back(void* memory, unsigned order) {
    std::lock_guard<std::mutex> lock(mutex_);
    uintptr_t block = reinterpret_cast<uintptr_t>(memory);
    unsigned joined = order;
    // Join free twins (each zeroed already) while there are.
    while (joined < kChunkOrder) {
      const uintptr_t twin = block ^ (uintptr_t{1} << joined);
      auto it = free_[joined].find(twin);
      if (it == free_[joined].end()) break;
      free_[joined].erase(it);
      block &= ~(uintptr_t{1} << joined);
      ++joined;
    }
    if (joined == kChunkOrder) {
      fs::unmap(reinterpret_cast<void*>(block), kChunk);
      return;
    }
    std::memset(memory, 0, uint64_t{1} << order);
    free_[joined].insert(block);
  }

 private:
  std::mutex mutex_;
  std::set<uintptr_t> free_[kChunkOrder];
};

Chunks& chunks() {
  // Never destroyed: tables may outlive static destructors' order.
  static Chunks* const all = new Chunks;
  return *all;
}

}  // namespace

void* table_memory(uint64_t bytes) {
  if (bytes >= kChunk) return map_aligned((bytes + kChunk - 1) & ~(kChunk - 1));
  return chunks().take(order_of(bytes));
}

void free_table_memory(void* memory, uint64_t bytes) {
  if (memory == nullptr) return;
  if (bytes >= kChunk) {
    fs::unmap(memory, (bytes + kChunk - 1) & ~(kChunk - 1));
  } else {
    chunks().give_back(memory, order_of(bytes));
  }
}

}  // namespace gdedup::detail
