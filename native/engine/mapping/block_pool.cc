#include "mapping/block_pool.h"

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
  void* block = std::malloc(bytes);
  if (!block) throw std::bad_alloc();
  capacity = bytes;
  return block;
}

void BlockPool::give(void* block, size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.emplace(capacity, block);
}

}  // namespace topocoll::mapping::detail
