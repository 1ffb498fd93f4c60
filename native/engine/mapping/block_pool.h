// Recycles large buffers within one partitioning run. Each recursion level allocates subgraphs
// of about the input's size; handing that memory back to the OS and faulting it in again cost
// more than the partitioning work itself (the first touch of every page).
// Thread-safe: the two halves of the recursion may run on different threads.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

namespace topocoll::mapping::detail {

class BlockPool {
 public:
  BlockPool() = default;
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool();

  // At least `bytes` bytes, uninitialised; `capacity` receives the usable size.
  void* take(size_t bytes, size_t& capacity);
  void give(void* block, size_t capacity);

  // Blocks smaller than this are not worth pooling; malloc serves them well.
  static constexpr size_t kMinPooledBytes = size_t{1} << 16;

 private:
  std::mutex mutex_;
  std::multimap<size_t, void*> free_;  // capacity -> block
};

}  // namespace topocoll::mapping::detail
