// The FM priority queue for small graphs: keys in a plain array, the maximum found by a scan.
// Updates are O(1) and a scan over a few dozen vertices is cheaper than heap upkeep on every
// neighbour of every move; the recursion runs tens of thousands of such tiny bisections.
// Same interface as IndexedMaxHeap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace topocoll::mapping::detail {

class ScanMaxQueue {
 public:
  // Vertices 0..n-1 of the current graph. The queue must be empty.
  void prepare(int n) {
    if (static_cast<int>(keys_.size()) < n) {
      keys_.resize(static_cast<size_t>(n), kAbsent);
      member_.resize(static_cast<size_t>(n), 0);
    }
    n_ = n;
  }
  bool empty() const { return count_ == 0; }
  int size() const { return count_; }
  bool contains(int32_t v) const { return member_[v] != 0; }
  int32_t top() const {
    findTop();
    return top_;
  }
  int64_t topKey() const {
    findTop();
    return keys_[top_];
  }

  void append(int32_t v, int64_t key) { insert(v, key); }
  void heapify() {}
  void insert(int32_t v, int64_t key) {
    member_[v] = 1;
    keys_[v] = key;
    ++count_;
    if (top_valid_ && key > keys_[top_]) top_ = v;
  }
  void update(int32_t v, int64_t key) {
    const int64_t old = keys_[v];
    keys_[v] = key;
    if (!top_valid_) return;
    if (key > keys_[top_]) top_ = v;
    else if (v == top_ && key < old) top_valid_ = false;
  }
  void remove(int32_t v) {
    member_[v] = 0;
    keys_[v] = kAbsent;
    --count_;
    if (v == top_) top_valid_ = false;
  }
  int32_t pop() {
    const int32_t v = top();
    remove(v);
    return v;
  }
  void clear() {
    for (int v = 0; v < n_; ++v) {
      member_[v] = 0;
      keys_[v] = kAbsent;
    }
    count_ = 0;
    top_valid_ = false;
  }

 private:
  // Absent vertices hold the smallest key, so the scan is a branch-free argmax (first maximum
  // in vertex order). Real keys are gains, far above it.
  static constexpr int64_t kAbsent = std::numeric_limits<int64_t>::min();

  void findTop() const {
    if (top_valid_) return;
    int32_t best = 0;
    int64_t best_key = keys_[0];
    for (int v = 1; v < n_; ++v) {
      const bool higher = keys_[v] > best_key;
      best = higher ? v : best;
      best_key = higher ? keys_[v] : best_key;
    }
    top_ = best;
    top_valid_ = true;
  }

  std::vector<int64_t> keys_;
  std::vector<uint8_t> member_;
  int n_ = 0;
  int count_ = 0;
  mutable int32_t top_ = -1;
  mutable bool top_valid_ = false;
};

}  // namespace topocoll::mapping::detail
