// The shape of the target machine as the partitioner sees it: a tree whose leaves are parts
// (one per node: a part's size is the node's slot count) and whose inner nodes group parts
// that share a cheaper link level (e.g. nodes of a rack). Seed 004's z(p, q) is the lowest
// common ancestor of two parts, and its `bandwidth` is b_z.
//
// Errors: validation throws std::invalid_argument naming the offending node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topocoll::mapping {

struct PartTree {
  int part = -1;            // leaf: the part id (0..h-1) it stands for; inner node: -1
  int size = 0;             // leaf: vertices (ranks) the part must receive, >= 0
  double bandwidth = 1.0;   // inner node: bandwidth of the links joining its children, > 0
  std::vector<PartTree> children;  // empty for a leaf

  bool isLeaf() const { return children.empty(); }

  static PartTree leaf(int part, int size);
  static PartTree group(std::vector<PartTree> children, double bandwidth = 1.0);
  // One level: parts 0..h-1 with the given sizes, all joined by links of `bandwidth`.
  static PartTree flat(const std::vector<int>& sizes, double bandwidth = 1.0);
  // Two levels: part u in group group_of_part[u]; groups joined by `outer_bandwidth`, parts
  // within a group by `inner_bandwidth`. Groups are ordered by id, parts within one by id.
  static PartTree grouped(const std::vector<int>& sizes, const std::vector<int>& group_of_part,
                          double outer_bandwidth, double inner_bandwidth);
};

// Checks the tree: every leaf has part >= 0 and size >= 0, part ids are exactly 0..h-1 once
// each, inner nodes have part -1 and bandwidth > 0. Returns h (the number of parts).
int validatePartTree(const PartTree& tree);

}  // namespace topocoll::mapping
