#include "mapping/rank_mapping.h"

#include <stdexcept>
#include <string>

#include "mapping/mapping_cost.h"
#include "mapping/part_tree_index.h"

namespace topocoll::mapping {

namespace {

[[noreturn]] void fail(const char* fn, const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); }

}  // namespace

std::vector<int> slotsPerNode(const std::vector<int>& node_of_slot) {
  std::vector<int> slots;
  for (size_t r = 0; r < node_of_slot.size(); ++r) {
    const int u = node_of_slot[r];
    if (u < 0) fail("slotsPerNode", "slot " + std::to_string(r) + " is on node " + std::to_string(u) + " (must be >= 0)");
    if (static_cast<size_t>(u) >= slots.size()) slots.resize(static_cast<size_t>(u) + 1, 0);
    ++slots[u];
  }
  return slots;
}

RankMapping rankMappingFromParts(const std::vector<int>& part, const std::vector<int>& node_of_slot) {
  const char* fn = "rankMappingFromParts";
  const int n = static_cast<int>(part.size());
  if (node_of_slot.size() != part.size())
    fail(fn, std::to_string(part.size()) + " vertices but " + std::to_string(node_of_slot.size()) + " slots");
  const std::vector<int> slots = slotsPerNode(node_of_slot);
  const int h = static_cast<int>(slots.size());
  std::vector<int> load(slots.size(), 0);
  for (int v = 0; v < n; ++v) {
    if (part[v] < 0 || part[v] >= h)
      fail(fn, "vertex " + std::to_string(v) + " is in part " + std::to_string(part[v]) + " but nodes are 0.." + std::to_string(h - 1));
    ++load[part[v]];
  }
  for (int u = 0; u < h; ++u)
    if (load[u] != slots[u])
      fail(fn, "part " + std::to_string(u) + " has " + std::to_string(load[u]) + " vertices but node " + std::to_string(u) +
                   " has " + std::to_string(slots[u]) + " slots");

  RankMapping m;
  m.pi.assign(static_cast<size_t>(n), -1);
  m.pi_inv.assign(static_cast<size_t>(n), -1);
  for (int v = 0; v < n; ++v)
    if (node_of_slot[v] == part[v]) m.pi[v] = m.pi_inv[v] = v;  // already on its node: stay
  // Free slots of each node, in rank order, handed to the node's remaining vertices in order.
  std::vector<int> first(static_cast<size_t>(h) + 1, 0);
  for (int r = 0; r < n; ++r)
    if (m.pi_inv[r] < 0) ++first[node_of_slot[r] + 1];
  for (int u = 0; u < h; ++u) first[u + 1] += first[u];
  std::vector<int> free_slots(static_cast<size_t>(first[h]));
  std::vector<int> next(first.begin(), first.end() - 1);
  for (int r = 0; r < n; ++r)
    if (m.pi_inv[r] < 0) free_slots[next[node_of_slot[r]]++] = r;
  std::vector<int> taken(first.begin(), first.end() - 1);
  for (int v = 0; v < n; ++v) {
    if (m.pi[v] >= 0) continue;
    const int r = free_slots[taken[part[v]]++];
    m.pi[v] = r;
    m.pi_inv[r] = v;
  }
  return m;
}

RankMapping computeRankMapping(const Graph& g, const std::vector<int>& node_of_slot, const PartitionOptions& options) {
  const char* fn = "computeRankMapping";
  if (node_of_slot.size() != static_cast<size_t>(g.n))
    fail(fn, "the graph has " + std::to_string(g.n) + " vertices but node_of_slot has " + std::to_string(node_of_slot.size()) + " slots");
  const std::vector<int> sizes = slotsPerNode(node_of_slot);
  std::vector<int> part = partitionGraph(g, sizes, options);
  // Never worse than leaving every rank where it is.
  if (cutWeight(g, node_of_slot) <= cutWeight(g, part)) part = node_of_slot;
  return rankMappingFromParts(part, node_of_slot);
}

RankMapping computeRankMapping(const Graph& g, const std::vector<int>& node_of_slot, const PartTree& machine,
                               const PartitionOptions& options) {
  const char* fn = "computeRankMapping";
  if (node_of_slot.size() != static_cast<size_t>(g.n))
    fail(fn, "the graph has " + std::to_string(g.n) + " vertices but node_of_slot has " + std::to_string(node_of_slot.size()) + " slots");
  const std::vector<int> sizes = slotsPerNode(node_of_slot);
  const int h = validatePartTree(machine);
  if (h != static_cast<int>(sizes.size()))
    fail(fn, "the machine tree has " + std::to_string(h) + " nodes but node_of_slot names " + std::to_string(sizes.size()));
  const detail::PartTreeIndex index(machine);
  for (int u = 0; u < h; ++u)
    if (index.subtreeSize(index.leafOfPart(u)) != sizes[u])
      fail(fn, "node " + std::to_string(u) + " has size " + std::to_string(index.subtreeSize(index.leafOfPart(u))) +
                   " in the machine tree but " + std::to_string(sizes[u]) + " slots in node_of_slot");
  std::vector<int> part = partitionHierarchical(g, machine, options);
  if (hierarchicalCost(g, node_of_slot, machine) <= hierarchicalCost(g, part, machine)) part = node_of_slot;
  return rankMappingFromParts(part, node_of_slot);
}

}  // namespace topocoll::mapping
