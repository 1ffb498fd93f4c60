// From a partition to a rank permutation (seed 004, step 3): the vertices of part u are placed
// on the slots (physical ranks) of node u.
//
//   pi[v]     = physical rank that runs algorithm vertex v      (node_of_slot[pi[v]] == part[v])
//   pi_inv[r] = algorithm vertex run by physical rank r         (pi[pi_inv[r]] == r)
// Seed 004 writes pi(i) for the new number of branch i, i.e. its pi(i) is our pi_inv[i].
//
// Errors: std::invalid_argument (sizes that do not match, node ids < 0, a part whose size differs
// from its node's slot count), raised before any work.
#pragma once

#include <cstddef>
#include <vector>

#include "mapping/graph.h"
#include "mapping/part_tree.h"
#include "mapping/partitioner.h"

namespace topocoll::mapping {

struct RankMapping {
  std::vector<int> pi;
  std::vector<int> pi_inv;
};

// Slots per node: result[u] = number of r with node_of_slot[r] == u (h = max id + 1).
std::vector<int> slotsPerNode(const std::vector<int>& node_of_slot);

// Part u -> node u. A vertex whose own rank already lies on its node keeps it (pi[v] == v), so a
// placement that is already right moves no data; the others fill the node's free slots in order.
// O(n).
RankMapping rankMappingFromParts(const std::vector<int>& part, const std::vector<int>& node_of_slot);

// Partitions g into parts sized by the nodes' slot counts and maps part u to node u. The result
// is the cheapest (by the cut) of the partition, the current placement (identity; kept on ties),
// nodes filled with consecutive vertices, and vertices dealt to the nodes in turn: never worse
// than any of those simple placements. Parts then go to nodes of their size so that as many
// vertices as possible stay on their own rank's node (the cut is the same; less data moves
// before a remapped algorithm starts). Deterministic.
RankMapping computeRankMapping(const Graph& g, const std::vector<int>& node_of_slot,
                               const PartitionOptions& options = {});

// The same over a machine tree whose leaf part ids are node ids and whose leaf sizes equal the
// nodes' slot counts; the same candidates compared by seed 004's F.
RankMapping computeRankMapping(const Graph& g, const std::vector<int>& node_of_slot, const PartTree& machine,
                               const PartitionOptions& options = {});

}  // namespace topocoll::mapping
