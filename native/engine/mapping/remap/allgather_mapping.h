// Rank mappings for the remapped allgathers (seed 004): the information graph of the base
// algorithm (bruck, recursive_doubling, ...) is partitioned into parts of the sizes of the nodes
// the communicator spans, and part u is placed on node u (mapping/rank_mapping.h).
//
// The mapping is a deterministic function of (base algorithm, p, node of every rank), so every
// rank computes the same pi without communicating. The engine computes it once per communicator
// and base algorithm (RankMappingCache, owned by the communicator's ShadowComm); tools that build
// schedules without a cache get the same pi computed on the spot.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mapping/graph.h"
#include "mapping/part_tree.h"
#include "mapping/rank_mapping.h"

namespace topocoll {
class Hierarchy;  // hierarchy/hierarchy.h
}

namespace topocoll::mapping {

// The node of every rank slot as the hierarchy numbers nodes: what the mappings below take.
// All 0 without a hierarchy, or with one of another size.
std::vector<int> nodeOfSlot(const Hierarchy* hierarchy, int p);

// The information graph of allgather algorithm `base` on p ranks, `block_bytes` per block:
// closed forms for bruck and for recursive doubling on powers of two (O(n log n)), otherwise
// built from the registered schedules of all ranks. Throws std::invalid_argument for an
// algorithm without a builder.
Graph allgatherInformationGraph(const std::string& base, int p, int64_t block_bytes);

// pi for running `base` on ranks whose nodes are node_of_slot (ids 0..h-1, as the hierarchy
// numbers them). With a machine tree (leaf q = node q) it minimises seed 004's F over the
// tree's levels, else the cut between nodes; never worse than the identity (rank_mapping.h).
RankMapping allgatherRankMapping(const std::string& base, const std::vector<int>& node_of_slot, const PartTree* machine = nullptr);

// The mappings of one communicator, computed at first use per base algorithm.
class RankMappingCache {
 public:
  explicit RankMappingCache(std::vector<int> node_of_slot, std::unique_ptr<PartTree> machine = nullptr)
      : node_of_slot_(std::move(node_of_slot)), machine_(std::move(machine)) {}
  const RankMapping& allgather(const std::string& base);
  // The same for remapped allgather `algorithm` (a registry index) whose base is `base`, found
  // without a string lookup: the engine asks on every call.
  const RankMapping& allgatherFor(int algorithm, const char* base);
  const std::vector<int>& nodeOfSlot() const { return node_of_slot_; }
  // The levels above the nodes (from the topology file), or null: the cut between nodes.
  const PartTree* machine() const { return machine_.get(); }

 private:
  std::vector<int> node_of_slot_;
  std::unique_ptr<PartTree> machine_;
  std::map<std::string, RankMapping> allgather_;  // nodes are stable: by_algorithm_ points into them
  std::vector<const RankMapping*> by_algorithm_;
};

}  // namespace topocoll::mapping
