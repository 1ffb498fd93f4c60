// Hierarchical allreduce over the node's shared memory (Open MPI's xhc and han, MPICH's
// release_gather): inside a node every rank puts its operand into the node segment and combines
// its own slice of the vector across all of them (shm/node_reduce.h), with a socket level where
// the node's ranks are bound to several sockets; short vectors, and any on nodes of two ranks,
// are combined whole by every rank (one flag handoff instead of two). With several nodes the
// node's leader (its lowest rank) takes the node's result out, the leaders run an allreduce of
// the registry among themselves (chosen by size), and the result reaches the node through the
// pipelined shared-memory bcast (shm/node_bcast.h); very long vectors on nodes of one size have
// a leader per part of the vector instead (lanes). Vectors longer than the data area go through
// it in chunks.
//
// Rank order: a node combines its operands in rank order, and the leaders' algorithms combine the
// nodes' in node order; where the nodes hold runs of consecutive ranks (by-slot placement) that
// is rank order. Otherwise an op that is not commutative runs a flat allreduce over all the ranks
// (noted in the schedule), as does a data area too small for one element per rank.
#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../shm/node_bcast.h"
#include "../shm/node_reduce.h"

namespace topocoll {
namespace {

constexpr int kReduceSlot = 1;
constexpr int kBcastSlot = 2;
// Vectors up to this size, and any on a node of two ranks, are combined whole by every rank: one
// flag handoff, where slices take two and a copy out, and every rank reads (K - 1) n elements of
// the others' instead of (K - 1) n / K. Measured on 2 ranks (docs/benchmarks.md): whole 1.2-2.1x
// faster than Open MPI's allreduce from 4 KiB to 2 MiB, sliced 1.0-1.3x.
constexpr int64_t kWholeBytes = 16384;
constexpr int64_t kShortBytes = 2048;  // MPICH's MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
// From this size, on nodes of one size, every rank of a node leads a part of the vector (lanes).
// Emulated cluster, 4 hosts x 2 ranks, 1 Gbit/s (docs/benchmarks.md): lanes 265-272 ms against
// one leader's 275-276 at 16 MiB, but 24-32 against 17.5 ms at 1 MiB and even at 4-8 MiB (two
// TCP streams per link on two cores for eight ranks). Where one rank cannot fill a node's links
// they are what MPICH 4.1's multi-leader allreduce does.
constexpr int64_t kLaneBytes = 16 << 20;

// The ring's segments where its rounds run in lockstep, composed into a schedule of shared memory
// (the executor posts no round ahead there, Schedule::overlap_rounds): 256 KiB, one rendezvous
// per segment, as measured for the leaders (docs/benchmarks.md); its own 32 KiB ones need rounds
// in flight together.
constexpr int64_t kLockstepRingSegmentBytes = 256 * 1024;

BuildParams lockstepRing(BuildParams sub) {
  if (sub.segment_blocks == 0) sub.segment_blocks = std::max<int64_t>(1, kLockstepRingSegmentBytes / std::max<int64_t>(1, sub.element_bytes));
  return sub;
}

// An allreduce of the registry among `members` (sub: p and rank as indices among them):
// recursive doubling for short vectors (MPICH's bound); for long ones the segmented ring, as Open
// MPI chooses (on the emulated cluster, 4 leaders over 1 Gbit/s links: 17 ms against
// Rabenseifner's 24 ms at 1 MiB, 276 against 437 ms at 16 MiB, docs/benchmarks.md), or
// Rabenseifner for an op that is not commutative (the ring is not in rank order).
void appendSubsetAllreduce(Schedule* s, const BuildParams& sub, const std::vector<int>& members) {
  const int64_t bytes = sub.count * std::max<int64_t>(sub.element_bytes, 1);
  if (bytes < kShortBytes) appendFirstOnSubset(s, Collective::Allreduce, {"recursive_doubling", "reduce_scatter_allgather"}, sub, members);
  else if (!sub.commutative) appendFirstOnSubset(s, Collective::Allreduce, {"reduce_scatter_allgather", "recursive_doubling"}, sub, members);
  else appendFirstOnSubset(s, Collective::Allreduce, {"ring", "reduce_scatter_allgather", "recursive_doubling"}, lockstepRing(sub), members);
}

// An allreduce over every rank, without shared memory.
Schedule flatAllreduce(const BuildParams& bp, const char* why) {
  Schedule s;
  appendSubsetAllreduce(&s, withoutShm(bp), everyRank(bp.p));
  addNote(&s, why);
  return s;
}

// Several leaders per node: the node's j-th rank gets the j-th part of the node's result
// (a scattered node reduction), the j-th ranks of all nodes allreduce that part among themselves
// (lane j), and the node gathers its parts back through the area. Every link between nodes
// carries K concurrent streams of n / K elements, and each rank combines n / K.
void appendLanes(Schedule* s, const BuildParams& bp, const Hierarchy& h, NodeReducePlan plan) {
  const int me = bp.rank, node = h.nodeOf(me), k = static_cast<int>(plan.members.size());
  const int li = h.localIndex(me);
  plan.scatter = true;
  plan.collector = -1;
  appendNodeReduce(s, me, plan);
  const BlockSpan part = nodePart(bp.count, li, k);
  std::vector<int> lane;
  for (int other = 0; other < h.nodeCount(); ++other) lane.push_back(h.members(other)[li]);
  BuildParams sub = withoutShm(bp);
  sub.p = h.nodeCount();
  sub.rank = node;
  sub.count = part.count;
  sub.in_place = true;  // my part of the node's result is in the receive buffer
  Schedule lane_schedule;
  appendSubsetAllreduce(&lane_schedule, sub, lane);
  appendMoved(s, std::move(lane_schedule), {{BufferId::Recv, BufferId::Recv, part.first}});
  appendNodeAllgather(s, me, plan, kBcastSlot);
}

}  // namespace

Schedule buildHierarchicalAllreduce(const BuildParams& bp) {
  const int me = bp.rank;
  const int64_t n = bp.count;
  const BlockSpan operand = span(bp.in_place ? BufferId::Recv : BufferId::Send, 0, n), result = span(BufferId::Recv, 0, n);
  if (bp.p == 1 || n == 0) {
    Schedule s;
    if (!bp.in_place && n > 0) addCopy(s.newRound(), operand, result);
    return s;
  }
  Hierarchy storage;
  const Hierarchy& h = hierarchyOf(bp, &storage);
  if (!bp.commutative && !nodesAreRankRuns(h)) {
    return flatAllreduce(bp, "the op is not commutative and the nodes are not runs of ranks: a flat allreduce over all ranks");
  }
  if (!nodeReduceFitsEveryNode(h, n, bp.shm_elements)) return flatAllreduce(bp, "no room in the shared data area for an element per rank: a flat allreduce over all ranks");

  Schedule s;
  s.shm = ShmUse::Data;
  const int node = h.nodeOf(me);
  const std::vector<int>& members = h.members(node);
  const int leader = members[0];
  const bool several_nodes = h.nodeCount() > 1;
  NodeReducePlan plan;
  plan.capacity = bp.shm_elements;
  plan.slot = kReduceSlot;
  plan.members = members;
  plan.group = socketGroups(h, members, bp.commutative);
  plan.collector = several_nodes ? leader : -1;
  plan.operand = operand;
  plan.result = result;
  plan.whole = members.size() == 2 || n * std::max<int64_t>(bp.element_bytes, 1) <= kWholeBytes;
  if (several_nodes && commonNodeSize(h) > 1 && n * std::max<int64_t>(bp.element_bytes, 1) >= kLaneBytes && n >= commonNodeSize(h)) {
    NodeReducePlan scattered = plan;
    scattered.scatter = true;
    if (nodeReduceFits(scattered)) {
      appendLanes(&s, bp, h, plan);
      return s;
    }
  }
  // A rank alone on its node has nobody to share memory with: it touches no flag and no area.
  if (members.size() == 1) {
    if (!bp.in_place) addCopy(s.newRound(), operand, result);
  } else {
    appendNodeReduce(&s, me, plan);
  }
  if (!several_nodes) return s;

  if (me == leader) {
    BuildParams sub = withoutShm(bp);
    sub.p = h.nodeCount();
    sub.rank = node;
    sub.in_place = true;  // the node's result is in the receive buffer
    appendSubsetAllreduce(&s, sub, h.leaders());
  }
  NodeBcastPlan bcast;
  bcast.source = leader;
  for (int r : members) {
    if (r == leader) continue;
    bcast.readers.push_back(r);
    bcast.reader_part.push_back(0);
  }
  bcast.data = result;
  bcast.capacity = bp.shm_elements;
  bcast.min_segments = pipelineSegments(n * std::max<int64_t>(bp.element_bytes, 1));
  bcast.slot = kBcastSlot;
  if (nodeBcastFits(bcast)) {
    appendNodeBcast(&s, me, bcast);
  } else {
    // Elements too large for a segment of the area: the leader sends the result to the node.
    Round& r = s.newRound();
    if (me == leader) {
      for (int m : bcast.readers) addSend(r, m, result);
    } else {
      addRecv(r, leader, result);
    }
    addNote(&s, "elements too large for the shared data area's segments: the leader sends the result");
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "hierarchical", buildHierarchicalAllreduce);

}  // namespace topocoll
