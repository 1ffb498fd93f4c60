// The partitioner's internal graph forms: a non-owning view (the caller's Graph, a subgraph,
// or a coarse level) and an owning CSR. vwgt == nullptr means unit weights, which every
// subgraph of a rank graph has; it saves a load per vertex and n words per subgraph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "mapping/block_pool.h"

namespace topocoll::mapping::detail {

// An array of trivially copyable T that is not value-initialised: graphs are built into
// upper-bound buffers, and zeroing those cost more than the build. Large buffers come from and
// return to a BlockPool when one is given.
template <typename T>
class RawArray {
 public:
  RawArray() = default;
  RawArray(const RawArray&) = delete;
  RawArray& operator=(const RawArray&) = delete;
  RawArray(RawArray&& o) noexcept { steal(o); }
  RawArray& operator=(RawArray&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~RawArray() { release(); }

  // Room for n elements; previous contents are discarded.
  void allocate(size_t n, BlockPool* pool) {
    if (n > capacity_) {
      release();
      const size_t bytes = (n ? n : 1) * sizeof(T);
      size_t got = bytes;
      if (pool && bytes >= BlockPool::kMinPooledBytes) {
        data_ = static_cast<T*>(pool->take(bytes, got));
        pool_ = pool;
      } else {
        data_ = static_cast<T*>(std::malloc(bytes));
        if (!data_) throw std::bad_alloc();
      }
      capacity_ = got / sizeof(T);
    }
    size_ = n;
  }
  void shrink(size_t n) { size_ = n < size_ ? n : size_; }  // keeps the first n elements
  void release() {
    if (pool_) pool_->give(data_, capacity_ * sizeof(T));
    else std::free(data_);
    data_ = nullptr;
    pool_ = nullptr;
    size_ = capacity_ = 0;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  void steal(RawArray& o) {
    data_ = o.data_;
    pool_ = o.pool_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    o.data_ = nullptr;
    o.pool_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }

  T* data_ = nullptr;
  BlockPool* pool_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

struct GraphView {
  int n = 0;
  const int64_t* xadj = nullptr;
  const int32_t* adjncy = nullptr;
  const int64_t* adjwgt = nullptr;
  const int32_t* vwgt = nullptr;  // nullptr: every vertex weighs 1
  int64_t total_vwgt = 0;
  int32_t max_vwgt = 1;

  int32_t weight(int v) const { return vwgt ? vwgt[v] : 1; }
};

struct OwnedGraph {
  int n = 0;
  RawArray<int64_t> xadj;
  RawArray<int32_t> adjncy;
  RawArray<int64_t> adjwgt;
  RawArray<int32_t> vwgt;  // empty: unit weights
  int64_t total_vwgt = 0;
  int32_t max_vwgt = 1;

  GraphView view() const {
    return {n, xadj.data(), adjncy.data(), adjwgt.data(), vwgt.empty() ? nullptr : vwgt.data(), total_vwgt, max_vwgt};
  }
};

}  // namespace topocoll::mapping::detail
