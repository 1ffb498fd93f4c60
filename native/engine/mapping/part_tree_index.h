// A PartTree flattened into arrays: stable node ids (used to seed each bisection, so results do
// not depend on thread scheduling), subtree sizes per child range, and lowest common ancestors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/part_tree.h"

namespace topocoll::mapping::detail {

class PartTreeIndex {
 public:
  struct Node {
    int part = -1;          // leaf: part id
    int first_child = 0;    // into children()
    int child_count = 0;
    int parent = -1;
    int depth = 0;
    int prefix_offset = 0;  // into prefix_: child_count + 1 running sums of child sizes
    double bandwidth = 1.0;
  };

  // The tree must be valid (validatePartTree).
  explicit PartTreeIndex(const PartTree& tree);

  const Node& node(int id) const { return nodes_[id]; }
  int child(int id, int i) const { return children_[nodes_[id].first_child + i]; }
  // Total size of children [lo, hi) of node id.
  int64_t rangeSize(int id, int lo, int hi) const {
    const int64_t* p = &prefix_[nodes_[id].prefix_offset];
    return p[hi] - p[lo];
  }
  int64_t subtreeSize(int id) const { return subtree_size_[id]; }
  int leafOfPart(int part) const { return leaf_of_part_[part]; }
  // The node where parts p and q meet (seed 004's z(p, q)).
  int meetingNode(int p, int q) const;

 private:
  int add(const PartTree& t, int parent, int depth);

  std::vector<Node> nodes_;
  std::vector<int> children_;
  std::vector<int64_t> prefix_;
  std::vector<int64_t> subtree_size_;
  std::vector<int> leaf_of_part_;
};

}  // namespace topocoll::mapping::detail
