// Max-heap of vertices keyed by int64 gain, with O(log n) update/remove by vertex: the FM
// priority queue. Gains are byte counts (unbounded), so gain buckets do not fit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topocoll::mapping::detail {

class IndexedMaxHeap {
 public:
  // Makes vertices 0..n-1 addressable. The heap must be empty.
  void prepare(int n) {
    if (static_cast<int>(pos_.size()) < n) pos_.resize(static_cast<size_t>(n), -1);
  }
  bool empty() const { return items_.empty(); }
  int size() const { return static_cast<int>(items_.size()); }
  bool contains(int32_t v) const { return pos_[v] >= 0; }
  int32_t top() const { return items_[0].v; }
  int64_t topKey() const { return items_[0].key; }

  // Bulk load: append without ordering, then heapify() once (O(n) instead of O(n log n)).
  void append(int32_t v, int64_t key) {
    pos_[v] = static_cast<int32_t>(items_.size());
    items_.push_back({key, v});
  }
  void heapify() {
    for (int i = size() / 2 - 1; i >= 0; --i) siftDown(i);
  }

  void insert(int32_t v, int64_t key) {
    append(v, key);
    siftUp(size() - 1);
  }
  void update(int32_t v, int64_t key) {
    const int i = pos_[v];
    const int64_t old = items_[i].key;
    items_[i].key = key;
    if (key > old) siftUp(i);
    else if (key < old) siftDown(i);
  }
  void remove(int32_t v) {
    const int i = pos_[v];
    pos_[v] = -1;
    const Item last = items_.back();
    items_.pop_back();
    if (i == size()) return;
    const int64_t old = items_[i].key;
    place(i, last);
    if (last.key > old) siftUp(i);
    else siftDown(i);
  }
  int32_t pop() {
    const int32_t v = items_[0].v;
    remove(v);
    return v;
  }
  // Empties the heap in O(size), leaving every vertex absent.
  void clear() {
    for (const Item& it : items_) pos_[it.v] = -1;
    items_.clear();
  }

 private:
  struct Item {
    int64_t key;
    int32_t v;
  };
  void place(int i, const Item& it) {
    items_[i] = it;
    pos_[it.v] = i;
  }
  void siftUp(int i) {
    const Item it = items_[i];
    while (i > 0) {
      const int parent = (i - 1) / 2;
      if (items_[parent].key >= it.key) break;
      place(i, items_[parent]);
      i = parent;
    }
    place(i, it);
  }
  void siftDown(int i) {
    const Item it = items_[i];
    const int n = size();
    for (;;) {
      int child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && items_[child + 1].key > items_[child].key) ++child;
      if (items_[child].key <= it.key) break;
      place(i, items_[child]);
      i = child;
    }
    place(i, it);
  }

  std::vector<Item> items_;
  std::vector<int32_t> pos_;
};

}  // namespace topocoll::mapping::detail
