// Hierarchical bcast (MPICH's SMP-aware bcast, Open MPI's han): binomial (short messages) or
// scatter_allgather among the node leaders (the root leads its node), then inside each node
// the leader copies the message once into shared memory and every other rank reads it, all at
// once (no concurrency limit, no NUMA placement: the baseline seed 001 improves on), pipelined
// in segments for long messages.
#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../shm/node_bcast.h"

namespace topocoll {
namespace {

constexpr int64_t kShortBytes = 12288;  // MPICH's short-message bcast bound

}  // namespace

Schedule buildHierarchicalBcast(const BuildParams& bp) {
  Schedule s;
  if (bp.p == 1 || bp.count == 0) return s;
  Hierarchy storage;
  const Hierarchy& h = hierarchyOf(bp, &storage);
  const int64_t bytes = bp.count * std::max<int64_t>(bp.element_bytes, 1);
  BuildParams sub = withoutShm(bp);
  const int node = h.nodeOf(bp.rank);
  const std::vector<int> leaders = nodeLeaders(h, bp.root);
  const int leader = leaders[node];
  const std::vector<int>& members = h.members(node);
  s.shm = ShmUse::Data;
  if (h.nodeCount() > 1 && bp.rank == leader) {
    sub.p = h.nodeCount();
    sub.rank = node;
    sub.root = h.nodeOf(bp.root);
    if (bytes < kShortBytes) appendSubsetBcast(&s, {"binomial", "scatter_allgather"}, sub, leaders);
    else appendSubsetBcast(&s, {"scatter_allgather", "binomial"}, sub, leaders);
  }
  NodeBcastPlan plan;
  plan.source = leader;
  for (int r : members) {
    if (r == leader) continue;
    plan.readers.push_back(r);
    plan.reader_part.push_back(0);
  }
  plan.data = span(BufferId::Recv, 0, bp.count);
  plan.capacity = bp.shm_elements;
  plan.min_segments = pipelineSegments(bytes);
  if (!nodeBcastFits(plan)) {
    // No shared memory for these elements: a binomial tree inside the node.
    sub.p = static_cast<int>(members.size());
    sub.rank = indexIn(members, bp.rank);
    sub.root = indexIn(members, leader);
    appendSubsetBcast(&s, {"binomial", "scatter_allgather"}, sub, members);
    addNote(&s, "no room in the shared data area: binomial inside the node");
    return s;
  }
  appendNodeBcast(&s, bp.rank, plan);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Bcast, "hierarchical", buildHierarchicalBcast);

}  // namespace topocoll
