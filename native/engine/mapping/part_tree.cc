#include "mapping/part_tree.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace topocoll::mapping {

PartTree PartTree::leaf(int part, int size) {
  PartTree t;
  t.part = part;
  t.size = size;
  return t;
}

PartTree PartTree::group(std::vector<PartTree> children, double bandwidth) {
  PartTree t;
  t.bandwidth = bandwidth;
  t.children = std::move(children);
  return t;
}

PartTree PartTree::flat(const std::vector<int>& sizes, double bandwidth) {
  if (sizes.size() == 1) return leaf(0, sizes[0]);
  std::vector<PartTree> leaves;
  leaves.reserve(sizes.size());
  for (size_t u = 0; u < sizes.size(); ++u) leaves.push_back(leaf(static_cast<int>(u), sizes[u]));
  return group(std::move(leaves), bandwidth);
}

PartTree PartTree::grouped(const std::vector<int>& sizes, const std::vector<int>& group_of_part,
                           double outer_bandwidth, double inner_bandwidth) {
  if (group_of_part.size() != sizes.size())
    throw std::invalid_argument("PartTree::grouped: " + std::to_string(sizes.size()) + " part sizes but " +
                                std::to_string(group_of_part.size()) + " group ids");
  int groups = 0;
  for (size_t u = 0; u < group_of_part.size(); ++u) {
    if (group_of_part[u] < 0)
      throw std::invalid_argument("PartTree::grouped: part " + std::to_string(u) + " has negative group id " +
                                  std::to_string(group_of_part[u]));
    groups = std::max(groups, group_of_part[u] + 1);
  }
  std::vector<std::vector<PartTree>> members(static_cast<size_t>(groups));
  for (size_t u = 0; u < sizes.size(); ++u) members[group_of_part[u]].push_back(leaf(static_cast<int>(u), sizes[u]));
  std::vector<PartTree> children;
  for (auto& m : members) {
    if (m.empty()) continue;  // unused group id
    children.push_back(m.size() == 1 ? std::move(m[0]) : group(std::move(m), inner_bandwidth));
  }
  if (children.size() == 1) return std::move(children[0]);
  return group(std::move(children), outer_bandwidth);
}

namespace {

void collect(const PartTree& t, const std::string& path, std::vector<int>& seen) {
  if (t.isLeaf()) {
    if (t.part < 0) throw std::invalid_argument("PartTree: leaf " + path + " has part id " + std::to_string(t.part) + " (must be >= 0)");
    if (t.size < 0) throw std::invalid_argument("PartTree: leaf " + path + " (part " + std::to_string(t.part) + ") has size " + std::to_string(t.size));
    if (static_cast<size_t>(t.part) >= seen.size()) seen.resize(static_cast<size_t>(t.part) + 1, 0);
    if (seen[t.part]++) throw std::invalid_argument("PartTree: part id " + std::to_string(t.part) + " appears twice");
    return;
  }
  if (t.part != -1)
    throw std::invalid_argument("PartTree: inner node " + path + " has part id " + std::to_string(t.part) + " (inner nodes must have -1)");
  if (!(t.bandwidth > 0) || !std::isfinite(t.bandwidth))
    throw std::invalid_argument("PartTree: inner node " + path + " has bandwidth " + std::to_string(t.bandwidth) + " (must be finite and > 0)");
  for (size_t i = 0; i < t.children.size(); ++i) collect(t.children[i], path + "/" + std::to_string(i), seen);
}

}  // namespace

int validatePartTree(const PartTree& tree) {
  std::vector<int> seen;
  collect(tree, "root", seen);
  for (size_t u = 0; u < seen.size(); ++u)
    if (!seen[u]) throw std::invalid_argument("PartTree: part ids must be 0..h-1, but " + std::to_string(u) + " is missing");
  return static_cast<int>(seen.size());
}

}  // namespace topocoll::mapping
