#include "mapping/remap/machine_tree.h"

#include <map>
#include <stdexcept>
#include <string>

namespace topocoll::mapping {

namespace {

// The subtree of `nodes`, which share their modules at the levels above `level`.
PartTree subtree(const std::vector<int>& nodes, int level, const std::vector<int>& node_sizes,
                 const std::vector<std::vector<int>>& module_of, const std::vector<double>& bandwidth) {
  if (nodes.size() == 1) return PartTree::leaf(nodes[0], node_sizes[nodes[0]]);
  const int levels = static_cast<int>(module_of.size());
  // Descend while every node is in the same module of the next level.
  for (; level + 1 < levels; ++level) {
    std::map<int, std::vector<int>> below;  // module of level + 1 -> nodes, in module order
    for (int q : nodes) below[module_of[level + 1][q]].push_back(q);
    if (below.size() == 1) continue;
    std::vector<PartTree> children;
    for (auto& [module, members] : below) children.push_back(subtree(members, level + 1, node_sizes, module_of, bandwidth));
    return PartTree::group(std::move(children), bandwidth[level]);
  }
  // Several nodes inside one module of the narrowest level: joined by its links.
  std::vector<PartTree> leaves;
  for (int q : nodes) leaves.push_back(PartTree::leaf(q, node_sizes[q]));
  return PartTree::group(std::move(leaves), bandwidth[levels - 1]);
}

}  // namespace

PartTree machineTree(const std::vector<int>& node_sizes, const std::vector<std::vector<int>>& module_of,
                     const std::vector<double>& bandwidth) {
  const char* fn = "machineTree: ";
  const int h = static_cast<int>(node_sizes.size());
  if (module_of.empty() || module_of.size() != bandwidth.size())
    throw std::invalid_argument(std::string(fn) + std::to_string(module_of.size()) + " levels of modules but " +
                                std::to_string(bandwidth.size()) + " bandwidths (need the same number, at least 1)");
  for (size_t l = 0; l < module_of.size(); ++l) {
    if (static_cast<int>(module_of[l].size()) != h)
      throw std::invalid_argument(std::string(fn) + "level " + std::to_string(l) + " names the modules of " +
                                  std::to_string(module_of[l].size()) + " nodes, not " + std::to_string(h));
    if (!(bandwidth[l] > 0)) throw std::invalid_argument(std::string(fn) + "level " + std::to_string(l) + " has bandwidth <= 0");
  }
  if (h == 0) throw std::invalid_argument(std::string(fn) + "no nodes");
  std::vector<int> all(static_cast<size_t>(h));
  for (int q = 0; q < h; ++q) all[q] = q;
  // Level 0 is the widest module: one for the communicator (it holds every rank), so the root
  // splits at the first level where the nodes differ.
  std::map<int, std::vector<int>> top;
  for (int q : all) top[module_of[0][q]].push_back(q);
  if (top.size() == 1) return subtree(all, 0, node_sizes, module_of, bandwidth);
  std::vector<PartTree> children;
  for (auto& [module, members] : top) children.push_back(subtree(members, 0, node_sizes, module_of, bandwidth));
  return PartTree::group(std::move(children), bandwidth[0]);
}

}  // namespace topocoll::mapping
