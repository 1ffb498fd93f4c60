// Multi-leader allreduce by messages only (MPICH 4.1's multi-leader allreduce, Open MPI han's
// reduce-scatter/allreduce/allgather): on nodes of K ranks each, (1) the node reduce-scatters
// the vector (its j-th rank gets the node's combination of part j: every member sends the others
// their parts of its operand and combines the K - 1 it receives for its own part), (2) the j-th
// ranks of all nodes (lane j) allreduce part j with the ring, (3) the node allgathers the parts
// (every member sends its part to the others). Between nodes each link then carries the
// node-level minimum 2(h-1)/h of the vector (K lanes of n/K each) where the flat ring over all
// p ranks carries 2(p-1)/p. Every phase moves segments, each a round of its own, and no shared
// memory is used, so the executor posts rounds ahead (Schedule::overlap_rounds): the node's
// exchanges, the lane's ring and the node's allgather pipeline into each other.
// Each element is combined on one rank (the j-th of its node, then in its lane's ring) and copied
// from there: every rank gets the same bits. Parts are combined in no rank order: commutative ops
// only. Nodes of different sizes run the flat ring over all ranks.
#include <algorithm>
#include <utility>

#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../reduce/accumulator.h"
#include "../shm/node_reduce.h"

namespace topocoll {
namespace {

// Bytes of a segment of the node phases: those of the ring (ring.cc), below the TCP transports'
// eager limit so that a send completes without a rendezvous.
constexpr int64_t kSegmentBytes = 32 * 1024;

// The allreduce of a lane (or of every rank): the ring, else whatever the build has.
void appendRing(Schedule* s, const BuildParams& sub, const std::vector<int>& members) {
  appendFirstOnSubset(s, Collective::Allreduce, {"ring", "reduce_scatter_allgather", "recursive_doubling"}, sub, members);
}

}  // namespace

Schedule buildMultiLeaderAllreduce(const BuildParams& bp) {
  const int me = bp.rank;
  const int64_t n = bp.count;
  if (bp.p == 1 || n == 0) return reduction::alone(bp.in_place, n);
  Hierarchy storage;
  const Hierarchy& h = hierarchyOf(bp, &storage);
  const int k = commonNodeSize(h);
  Schedule s;
  s.overlap_rounds = true;
  if (k == 0) {
    appendRing(&s, withoutShm(bp), everyRank(bp.p));
    addNote(&s, "nodes of different sizes: the ring over all ranks");
    return s;
  }
  const std::vector<int>& node = h.members(h.nodeOf(me));
  const int li = h.localIndex(me);
  const BlockSpan mine = nodePart(n, li, k);
  const int64_t longest = (n + k - 1) / k;  // parts hold floor(n/k) or ceil(n/k) elements
  int64_t segment = bp.segment_blocks > 0 ? bp.segment_blocks : kSegmentBytes / std::max<int64_t>(1, bp.element_bytes);
  segment = std::clamp<int64_t>(segment, 1, std::max<int64_t>(longest, 1));
  const int64_t segments = k == 1 ? 0 : (longest + segment - 1) / segment;
  // Segment i of part j: its first element and length (0 past the end of a shorter part).
  auto segmentOf = [&](int j, int64_t i) {
    const BlockSpan part = nodePart(n, j, k);
    const int64_t from = part.first + i * segment;
    return std::pair<int64_t, int64_t>{from, std::max<int64_t>(0, std::min(segment, part.first + part.count - from))};
  };

  // (1) Reduce-scatter in the node. My part is combined where the call put my operand's (in
  // place the receive buffer; else the first peer's lands there and mine is combined into it);
  // the others' wait in tmp, K - 1 segments per round in one of kMaxRoundsAhead + 1 places in
  // turn, so that rounds posted ahead do not receive into a place still to be combined.
  const reduction::Accumulator fresh = reduction::inReceiveBuffer(bp.in_place);
  const int64_t round_scratch = (k - 1) * segment;
  for (int64_t i = 0; i < segments; ++i) {
    Round& round = s.newRound();
    for (int j = 0; j < k; ++j) {
      const auto [first, count] = segmentOf(j, i);
      if (j != li && count > 0) addSend(round, node[j], fresh.operand(first, count));
    }
    const auto [first, count] = segmentOf(li, i);
    reduction::Accumulator acc = fresh;
    int64_t waiting = 0;  // peers' segments in tmp this round
    for (int j = 0; j < k && count > 0; ++j) {
      if (j == li) continue;
      if (acc.holds_mine) acc.scratch = (i % (kMaxRoundsAhead + 1)) * round_scratch + waiting++ * segment;
      acc.receiveAndCombine(s, round, node[j], j < li, first, count);
    }
    if (round.ops.empty()) s.rounds.pop_back();
  }
  if (k == 1 && !bp.in_place) addCopy(s.newRound(), span(BufferId::Send, 0, n), span(BufferId::Recv, 0, n));

  // (2) Lane li: the li-th ranks of every node allreduce my part, now in the receive buffer.
  std::vector<int> lane;
  for (int other = 0; other < h.nodeCount(); ++other) lane.push_back(h.members(other)[li]);
  BuildParams sub = withoutShm(bp);
  sub.p = h.nodeCount();
  sub.rank = h.nodeOf(me);
  sub.count = mine.count;
  sub.in_place = true;
  Schedule lane_schedule;
  appendRing(&lane_schedule, sub, lane);
  const int64_t lane_scratch = s.tmp_blocks;
  appendMoved(&s, std::move(lane_schedule), {{BufferId::Recv, BufferId::Recv, mine.first}, {BufferId::Tmp, BufferId::Tmp, lane_scratch}});

  // (3) Allgather in the node: my part to every member, theirs from each.
  for (int64_t i = 0; i < segments; ++i) {
    Round& round = s.newRound();
    const auto [first, count] = segmentOf(li, i);
    for (int j = 0; j < k; ++j) {
      if (j == li) continue;
      if (count > 0) addSend(round, node[j], span(BufferId::Recv, first, count));
      const auto [their_first, their_count] = segmentOf(j, i);
      if (their_count > 0) addRecv(round, node[j], span(BufferId::Recv, their_first, their_count));
    }
    if (round.ops.empty()) s.rounds.pop_back();
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "multi_leader", buildMultiLeaderAllreduce);

}  // namespace topocoll
