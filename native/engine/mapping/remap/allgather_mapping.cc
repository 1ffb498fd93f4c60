#include "mapping/remap/allgather_mapping.h"

#include <stdexcept>

#include "algorithm_registry.h"
#include "hierarchy/hierarchy.h"
#include "mapping/allgather_graphs.h"
#include "mapping/remap/schedule_graph.h"

namespace topocoll::mapping {

std::vector<int> nodeOfSlot(const Hierarchy* hierarchy, int p) {
  std::vector<int> node(static_cast<size_t>(p), 0);
  if (hierarchy && hierarchy->size() == p)
    for (int r = 0; r < p; ++r) node[r] = hierarchy->nodeOf(r);
  return node;
}

Graph allgatherInformationGraph(const std::string& base, int p, int64_t block_bytes) {
  if (p < 1) throw std::invalid_argument("allgatherInformationGraph: p = " + std::to_string(p) + " (must be >= 1)");
  if (base == "bruck") return buildBruckAllgatherGraph(p, block_bytes);
  if (base == "recursive_doubling" && (p & (p - 1)) == 0) return buildRecursiveDoublingAllgatherGraph(p, block_bytes);
  const int index = algorithmIndex(Collective::Allgather, base);
  if (index < 0) throw std::invalid_argument("allgatherInformationGraph: unknown allgather algorithm \"" + base + "\"");
  BuildParams bp;
  bp.p = p;
  bp.count = 1;
  return buildScheduleGraph(Collective::Allgather, index, bp, block_bytes);
}

RankMapping allgatherRankMapping(const std::string& base, const std::vector<int>& node_of_slot, const PartTree* machine) {
  const int p = static_cast<int>(node_of_slot.size());
  const Graph g = allgatherInformationGraph(base, p, 1);
  return machine ? computeRankMapping(g, node_of_slot, *machine) : computeRankMapping(g, node_of_slot);
}

const RankMapping& RankMappingCache::allgather(const std::string& base) {
  auto it = allgather_.find(base);
  if (it == allgather_.end()) it = allgather_.emplace(base, allgatherRankMapping(base, node_of_slot_, machine_.get())).first;
  return it->second;
}

const RankMapping& RankMappingCache::allgatherFor(int algorithm, const char* base) {
  if (algorithm >= static_cast<int>(by_algorithm_.size())) by_algorithm_.resize(algorithm + 1, nullptr);
  if (!by_algorithm_[algorithm]) by_algorithm_[algorithm] = &allgather(base);
  return *by_algorithm_[algorithm];
}

}  // namespace topocoll::mapping
