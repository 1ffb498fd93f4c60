#include "mapping/block_pool.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace topocoll::mapping::detail {

BlockPool::~BlockPool() {
  for (auto& [capacity, block] : free_) std::free(block);
}

void* BlockPool::take(size_t bytes, size_t& capacity) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Smallest free block that fits, unless it is so large that taking it would strand memory
    // a bigger request will want.
    auto it = free_.lower_bound(bytes);
    if (it != free_.end() && it->first / 4 <= bytes) {
      capacity = it->first;
      void* block = it->second;
      free_.erase(it);
      return block;
    }
  }
  // Large blocks are 2 MiB-aligned and asked for transparent huge pages: first touch of fresh
  // memory dominated a cold partitioning run, and a huge page faults in 512 pages at once.
  constexpr size_t kHugePage = size_t{1} << 21;
  const bool huge = bytes >= 2 * kHugePage;
  if (huge) bytes = (bytes + kHugePage - 1) & ~(kHugePage - 1);
  void* block = huge ? std::aligned_alloc(kHugePage, bytes) : std::malloc(bytes);
  if (!block) throw std::bad_alloc();
  if (huge) madvise(block, bytes, MADV_HUGEPAGE);  // advisory: failure only costs speed
  capacity = bytes;
  return block;
}

void BlockPool::give(void* block, size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.emplace(capacity, block);
}

}  // namespace topocoll::mapping::detail
