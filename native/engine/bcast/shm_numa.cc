// Seed 001's bcast with limited concurrency and NUMA placement. Small messages: binomial tree
// over all ranks. Otherwise the node leaders (the root leads its node) run scatter_allgather
// among themselves, then each leader copies the message into its node's shared segments, one
// per NUMA node, read by groups of at most k ranks in turn (shm/node_bcast.h), pipelined with
// the copy-in. k = TOPOCOLL_BCAST_CONCURRENCY, by default the ranks of a NUMA node (at most 4,
// the seed's 4 readers per memory controller).
#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../shm/node_bcast.h"

namespace topocoll {
namespace {

constexpr int64_t kSmallBytes = 12288;  // MPICH's short-message bcast bound
constexpr int kDefaultMaxConcurrency = 4;

int defaultConcurrency(const Hierarchy& h, int node) {
  int most = 1;
  for (int numa : h.numaNodes(node)) {
    int n = 0;
    for (int r : h.members(node)) n += h.place(r).numa == numa;
    most = std::max(most, n);
  }
  return std::min(most, kDefaultMaxConcurrency);
}

}  // namespace

Schedule buildShmNumaBcast(const BuildParams& bp) {
  Schedule s;
  if (bp.p == 1 || bp.count == 0) return s;
  Hierarchy storage;
  const Hierarchy& h = hierarchyOf(bp, &storage);
  BuildParams sub = withoutShm(bp);
  if (bp.count * std::max<int64_t>(bp.element_bytes, 1) < kSmallBytes || bp.shm_elements == 0) {
    appendSubsetBcast(&s, {"binomial", "scatter_allgather"}, sub, everyRank(bp.p));
    if (bp.shm_elements == 0 && bp.count * std::max<int64_t>(bp.element_bytes, 1) >= kSmallBytes) addNote(&s, "no shared memory: binomial");
    return s;
  }
  s.shm = ShmUse::Data;
  const int node = h.nodeOf(bp.rank);
  const std::vector<int> leaders = nodeLeaders(h, bp.root);
  const int leader = leaders[node];
  if (h.nodeCount() > 1 && bp.rank == leader) {
    sub.p = h.nodeCount();
    sub.rank = node;
    sub.root = h.nodeOf(bp.root);
    appendSubsetBcast(&s, {"scatter_allgather", "binomial"}, sub, leaders);
  }
  NodeBcastPlan plan;
  plan.source = leader;
  const std::vector<int> numa = h.numaNodes(node);
  for (int r : h.members(node)) {
    if (r == leader) continue;
    plan.readers.push_back(r);
    plan.reader_part.push_back(indexIn(numa, h.place(r).numa));
  }
  plan.data = span(BufferId::Recv, 0, bp.count);
  plan.capacity = bp.shm_elements;
  plan.parts = static_cast<int>(numa.size());
  plan.concurrency = bp.bcast_concurrency > 0 ? bp.bcast_concurrency : defaultConcurrency(h, node);
  plan.min_segments = std::max(pipelineSegments(bp.count * std::max<int64_t>(bp.element_bytes, 1)), plan.parts);
  if (!nodeBcastFits(plan)) {
    // An element too large for the data area: the node falls back to a binomial tree.
    sub.p = static_cast<int>(h.members(node).size());
    sub.rank = indexIn(h.members(node), bp.rank);
    sub.root = indexIn(h.members(node), leader);
    appendSubsetBcast(&s, {"binomial", "scatter_allgather"}, sub, h.members(node));
    addNote(&s, "elements too large for the shared data area: binomial inside the node");
    return s;
  }
  appendNodeBcast(&s, bp.rank, plan);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Bcast, "shm_numa", buildShmNumaBcast);

}  // namespace topocoll
