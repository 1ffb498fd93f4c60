#include "mapping/rank_mapping.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "mapping/mapping_cost.h"
#include "mapping/part_tree_index.h"

namespace topocoll::mapping {

namespace {

[[noreturn]] void fail(const char* fn, const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); }

// Two simple placements every mapping must beat, each a valid part vector for `sizes`: nodes
// filled in order with consecutive vertices (blocked), and vertices dealt to the nodes in turn,
// skipping full ones (cyclic). The partitioner finds these structures in most algorithm graphs
// but is a heuristic; keeping the cheapest candidate makes "never worse" a guarantee. O(n + h).
std::vector<int> blockedPlacement(const std::vector<int>& sizes, int n) {
  std::vector<int> part;
  part.reserve(static_cast<size_t>(n));
  for (size_t u = 0; u < sizes.size(); ++u) part.insert(part.end(), static_cast<size_t>(sizes[u]), static_cast<int>(u));
  return part;
}

std::vector<int> cyclicPlacement(const std::vector<int>& sizes, int n) {
  const int h = static_cast<int>(sizes.size());
  std::vector<int> part(static_cast<size_t>(n), 0), left(sizes), next(static_cast<size_t>(h));
  // Circular list of the nodes with room left; `prev` is the node before `at`.
  int first = -1, last = -1;
  for (int u = 0; u < h; ++u) {
    if (sizes[u] <= 0) continue;
    if (first < 0) first = u;
    else next[last] = u;
    last = u;
  }
  if (first < 0) return part;
  next[last] = first;
  int at = first, prev = last;
  for (int v = 0; v < n; ++v) {
    part[v] = at;
    if (--left[at] == 0) {
      if (next[at] == at) break;  // the last node with room: v was the last vertex
      next[prev] = next[at];
      at = next[at];
    } else {
      prev = at;
      at = next[at];
    }
  }
  return part;
}

// The cheapest of the partition and the simple placements; ties keep the current placement
// (node_of_slot), then the earlier candidate.
template <typename Cost>
std::vector<int> cheapest(std::vector<int> partition, const std::vector<int>& node_of_slot, const std::vector<int>& sizes, Cost cost) {
  const int n = static_cast<int>(node_of_slot.size());
  std::vector<int> best = node_of_slot;
  auto best_cost = cost(best);
  for (std::vector<int> candidate : {std::move(partition), blockedPlacement(sizes, n), cyclicPlacement(sizes, n)}) {
    const auto c = cost(candidate);
    if (c < best_cost) best_cost = c, best = std::move(candidate);
  }
  return best;
}

// On one link level the cut does not depend on which node a part goes to, but the data that
// moves before the algorithm does (bruck_exch's swap: every vertex off its own node): parts are
// relabelled among nodes of equal size to keep as many vertices on their own node as possible.
// Greedy on the (part, node) overlaps, largest first. O(n log n).
std::vector<int> relabelForOverlap(const std::vector<int>& part, const std::vector<int>& node_of_slot, const std::vector<int>& sizes) {
  const int n = static_cast<int>(part.size()), h = static_cast<int>(sizes.size());
  std::vector<int64_t> pairs(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) pairs[v] = static_cast<int64_t>(part[v]) * h + node_of_slot[v];
  std::sort(pairs.begin(), pairs.end());
  struct Overlap {
    int count, part, node;
  };
  std::vector<Overlap> overlaps;
  for (size_t i = 0; i < pairs.size();) {
    size_t j = i;
    while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
    overlaps.push_back({static_cast<int>(j - i), static_cast<int>(pairs[i] / h), static_cast<int>(pairs[i] % h)});
    i = j;
  }
  std::stable_sort(overlaps.begin(), overlaps.end(), [](const Overlap& a, const Overlap& b) { return a.count > b.count; });
  std::vector<int> node_of_part(static_cast<size_t>(h), -1);
  std::vector<char> taken(static_cast<size_t>(h), 0);
  for (const Overlap& o : overlaps) {
    if (node_of_part[o.part] >= 0 || taken[o.node] || sizes[o.part] != sizes[o.node]) continue;
    node_of_part[o.part] = o.node;
    taken[o.node] = 1;
  }
  // The rest in order, each to the first free node of its size (the identity when all are free).
  std::map<int, std::vector<int>> free_by_size;
  for (int q = h - 1; q >= 0; --q)
    if (!taken[q]) free_by_size[sizes[q]].push_back(q);
  for (int u = 0; u < h; ++u) {
    if (node_of_part[u] >= 0) continue;
    std::vector<int>& free = free_by_size[sizes[u]];
    node_of_part[u] = free.back();
    free.pop_back();
  }
  std::vector<int> relabelled(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) relabelled[v] = node_of_part[part[v]];
  return relabelled;
}

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
  // Never worse than leaving every rank where it is, nor than the blocked and cyclic placements.
  const std::vector<int> part =
      cheapest(partitionGraph(g, sizes, options), node_of_slot, sizes, [&](const std::vector<int>& x) { return cutWeight(g, x); });
  return rankMappingFromParts(relabelForOverlap(part, node_of_slot, sizes), node_of_slot);
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
  const std::vector<int> part = cheapest(partitionHierarchical(g, machine, options), node_of_slot, sizes,
                                         [&](const std::vector<int>& x) { return hierarchicalCost(g, x, machine); });
  return rankMappingFromParts(part, node_of_slot);
}

}  // namespace topocoll::mapping
