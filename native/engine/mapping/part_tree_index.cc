#include "mapping/part_tree_index.h"

namespace topocoll::mapping::detail {

PartTreeIndex::PartTreeIndex(const PartTree& tree) {
  add(tree, -1, 0);
  for (Node& n : nodes_) {
    n.prefix_offset = static_cast<int>(prefix_.size());
    int64_t running = 0;
    prefix_.push_back(0);
    for (int i = 0; i < n.child_count; ++i) {
      running += subtree_size_[children_[n.first_child + i]];
      prefix_.push_back(running);
    }
  }
}

int PartTreeIndex::add(const PartTree& t, int parent, int depth) {
  const int id = static_cast<int>(nodes_.size());
  Node n;
  n.part = t.isLeaf() ? t.part : -1;
  n.parent = parent;
  n.depth = depth;
  n.bandwidth = t.bandwidth;
  n.child_count = static_cast<int>(t.children.size());
  n.first_child = static_cast<int>(children_.size());
  nodes_.push_back(n);
  subtree_size_.push_back(t.isLeaf() ? t.size : 0);
  // Reserve this node's child slots first, so its children are contiguous.
  children_.resize(children_.size() + t.children.size(), -1);
  if (t.isLeaf()) {
    if (static_cast<int>(leaf_of_part_.size()) <= t.part) leaf_of_part_.resize(static_cast<size_t>(t.part) + 1, -1);
    leaf_of_part_[t.part] = id;
  }
  int64_t total = 0;
  for (size_t i = 0; i < t.children.size(); ++i) {
    const int c = add(t.children[i], id, depth + 1);
    children_[n.first_child + i] = c;
    total += subtree_size_[c];
  }
  if (!t.isLeaf()) subtree_size_[id] = total;
  return id;
}

int PartTreeIndex::meetingNode(int p, int q) const {
  int a = leaf_of_part_[p], b = leaf_of_part_[q];
  while (nodes_[a].depth > nodes_[b].depth) a = nodes_[a].parent;
  while (nodes_[b].depth > nodes_[a].depth) b = nodes_[b].parent;
  while (a != b) {
    a = nodes_[a].parent;
    b = nodes_[b].parent;
  }
  return a;
}

}  // namespace topocoll::mapping::detail
