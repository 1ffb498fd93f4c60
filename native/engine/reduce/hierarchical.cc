// Hierarchical reduce over the node's shared memory (Open MPI's han and xhc, MPICH's
// release_gather): inside a node every rank puts its operand into the node segment and combines
// its own slice of the vector across all of them (shm/node_reduce.h), with a socket level where
// the node's ranks are bound to several sockets; short vectors, and any on nodes of two ranks, are
// combined whole by the node's leader (the root in its node, elsewhere the lowest rank), which
// otherwise copies the node's result out.
// With several nodes the leaders run a reduce of the registry to the root among themselves, or,
// in a build without one, an allreduce. Vectors longer than the data area go through it in
// chunks.
//
// Rank order: a node combines its operands in rank order, and the leaders' algorithms combine the
// nodes' in node order; where the nodes hold runs of consecutive ranks (by-slot placement) that
// is rank order. Otherwise an op that is not commutative runs a flat reduce over all the ranks
// (noted in the schedule), as does a data area too small for one element per rank.
#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../shm/node_reduce.h"

namespace topocoll {
namespace {

constexpr int kReduceSlot = 1;
// Vectors up to this size, and any on a node of two ranks, are combined whole by the leader: one
// flag handoff, and the leader puts nothing. Measured on 2 ranks (docs/benchmarks.md): whole
// 1.5-2x faster than Open MPI's reduce from 4 KiB to 4 MiB, sliced 1.0-1.4x.
constexpr int64_t kWholeBytes = 16384;

// A reduce among `members` (sub: p, rank and root as indices among them) on my operand at
// `operand` (the root: its receive buffer, in place, or its send buffer; another rank: its send
// buffer or the first n elements of scratch), with a reduce of the registry, else an allreduce
// (whose receive buffer, at a rank other than the root, is moved into scratch).
void appendSubsetReduce(Schedule* s, BuildParams sub, const std::vector<int>& members, BlockSpan operand) {
  const int64_t n = sub.count;
  const bool at_root = sub.rank == sub.root;
  sub.in_place = operand.buf != BufferId::Send;
  // A reduce reads a non-root's operand from its send buffer: moved to scratch where it lies
  // there, the reduce's own scratch after it.
  Schedule part;
  if (appendFirstOnSubset(&part, Collective::Reduce, {"binomial", "reduce_scatter_gather"}, sub, members)) {
    if (operand.buf == BufferId::Tmp) appendMoved(s, std::move(part), {{BufferId::Send, BufferId::Tmp, 0}, {BufferId::Tmp, BufferId::Tmp, n}});
    else appendMoved(s, std::move(part), {});
    return;
  }
  // An allreduce writes a receive buffer, which only the root has: elsewhere it is scratch.
  appendFirstOnSubset(&part, Collective::Allreduce, {"recursive_doubling", "reduce_scatter_allgather"}, sub, members);
  addNote(&part, "no reduce algorithm among the leaders in this build: an allreduce");
  if (at_root) appendMoved(s, std::move(part), {});
  else appendMoved(s, std::move(part), {{BufferId::Recv, BufferId::Tmp, 0}, {BufferId::Tmp, BufferId::Tmp, n}});
}

Schedule flatReduce(const BuildParams& bp, BlockSpan operand, const char* why) {
  Schedule s;
  BuildParams sub = bp;
  sub.hierarchy = nullptr;
  sub.shm_elements = 0;
  std::vector<int> all(bp.p);
  for (int r = 0; r < bp.p; ++r) all[r] = r;
  appendSubsetReduce(&s, sub, all, operand);
  addNote(&s, why);
  return s;
}

}  // namespace

Schedule buildHierarchicalReduce(const BuildParams& bp) {
  const int me = bp.rank;
  const int64_t n = bp.count;
  const bool at_root = me == bp.root;
  const BlockSpan operand = span(at_root && bp.in_place ? BufferId::Recv : BufferId::Send, 0, n);
  if (bp.p == 1 || n == 0) {
    Schedule s;
    if (!bp.in_place && n > 0) addCopy(s.newRound(), operand, span(BufferId::Recv, 0, n));
    return s;
  }
  Hierarchy storage;
  const Hierarchy& h = hierarchyOf(bp, &storage);
  if (!bp.commutative && !nodesAreRankRuns(h)) {
    return flatReduce(bp, operand, "the op is not commutative and the nodes are not runs of ranks: a reduce over all ranks");
  }
  if (!nodeReduceFitsEveryNode(h, n, bp.shm_elements)) return flatReduce(bp, operand, "no room in the shared data area for an element per rank: a reduce over all ranks");

  Schedule s;
  s.shm = ShmUse::Data;
  const int node = h.nodeOf(me);
  const std::vector<int>& members = h.members(node);
  const std::vector<int> leaders = nodeLeaders(h, bp.root);
  const int leader = leaders[node];
  // Where the node's result goes at its leader: the root's receive buffer, else scratch; a rank
  // alone on its node (touching no flag and no area) has its operand as its node's result.
  BlockSpan node_result = operand;
  if (members.size() > 1) {
    NodeReducePlan plan;
    plan.capacity = bp.shm_elements;
    plan.slot = kReduceSlot;
    plan.operand = operand;
    node_result = at_root ? span(BufferId::Recv, 0, n) : span(BufferId::Tmp, 0, n);
    if (me == leader && !at_root) s.tmp_blocks = n;
    plan.members = members;
    plan.group = socketGroups(h, members, bp.commutative);
    plan.collector = leader;
    plan.result = node_result;
    plan.whole = members.size() == 2 || n * std::max<int64_t>(bp.element_bytes, 1) <= kWholeBytes;
    appendNodeReduce(&s, me, plan);
  }
  if (me != leader || h.nodeCount() == 1) return s;
  BuildParams sub = bp;
  sub.hierarchy = nullptr;
  sub.shm_elements = 0;
  sub.p = h.nodeCount();
  sub.rank = node;
  sub.root = h.nodeOf(bp.root);
  appendSubsetReduce(&s, sub, leaders, node_result);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Reduce, "hierarchical", buildHierarchicalReduce);

}  // namespace topocoll
