// Multi-leader allreduce by messages only (MPICH 4.1's multi-leader allreduce, Open MPI han's
// reduce-scatter/allreduce/allgather): on nodes of K ranks each, (1) the node reduce-scatters
// the vector (its j-th rank gets the node's combination of part j: every member sends the others
// their parts of its operand and combines the K - 1 it receives for its own part), (2) the j-th
// ranks of all nodes (lane j) allreduce part j with the ring, (3) the node allgathers the parts
// (every member sends its part to the others). Between nodes each link then carries the
// node-level minimum 2(h-1)/h of the vector (K lanes of n/K each) where the flat ring over all
// p ranks carries 2(p-1)/p. Every phase moves segments, each a round of its own, and no shared
// memory is used, so the executor posts rounds ahead (Schedule::overlap_rounds); the phases are
// interleaved block by block of the lane's ring (a block's node combination just before the ring
// step that needs it, its node allgather just after the step that makes it final), so that the
// node's exchanges run while the lane's ring is on the wire instead of before and after it.
// Each element is combined on one rank (the j-th of its node, then in its lane's ring) and copied
// from there: every rank gets the same bits. Parts are combined in no rank order: commutative ops
// only. Nodes of different sizes run the flat ring over all ranks.
#include <algorithm>

#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../reduce/accumulator.h"
#include "../shm/node_reduce.h"

namespace topocoll {
namespace {

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
  if (k <= 1) {
    // One rank per node: the lanes are the ring over all ranks.
    appendRing(&s, withoutShm(bp), everyRank(bp.p));
    if (k == 0) addNote(&s, "nodes of different sizes: the ring over all ranks");
    return s;
  }
  const std::vector<int>& node = h.members(h.nodeOf(me));
  const int li = h.localIndex(me), nodes = h.nodeCount(), r = h.nodeOf(me);
  // My lane's ring runs among the li-th ranks of the nodes, on my part of the vector cut into
  // `nodes` blocks; the node phases move the same blocks of every part, so that a block enters
  // the ring as soon as the node has combined it and leaves it to the node as soon as it is final.
  auto left = h.members(ringIndex(r - 1, nodes))[li], right = h.members(ringIndex(r + 1, nodes))[li];
  // Block b of part j: elements [first, first + count).
  auto blockOf = [&](int j, int b) {
    const BlockSpan part = nodePart(n, j, k), block = nodePart(part.count, b, nodes);
    return span(BufferId::Recv, part.first + block.first, block.count);
  };
  const int64_t longest = ((n + k - 1) / k + nodes - 1) / nodes;  // blocks hold floor or ceil
  const int64_t segment = reduction::segmentElements(bp.segment_blocks, bp.element_bytes, longest);
  const int64_t segments = (longest + segment - 1) / segment;
  auto segmentOf = [&](BlockSpan block, int64_t i) { return reduction::segmentOf(block.first, block.count, segment, i); };
  // Received segments wait in tmp, in one of kRoundsInFlight places in turn per phase, so
  // that the rounds posted ahead do not receive into a place still to be combined: the node's
  // K - 1 segments first, the ring's one after them.
  const int64_t places = kRoundsInFlight, node_place = (k - 1) * segment, ring_scratch = places * node_place;
  int64_t node_rounds = 0, ring_rounds = 0;
  const reduction::Accumulator fresh = reduction::inReceiveBuffer(bp.in_place);
  auto finish = [&](Round& round) {
    if (round.ops.empty()) s.rounds.pop_back();
  };
  // (1) Segment i of block b of the node's reduce-scatter: every member's part of my operand to
  // it, my part combined where the call put my operand (not in place: the first peer's lands
  // there and mine is combined into it).
  auto nodeReduce = [&](int b, int64_t i) {
    Round& round = s.newRound();
    for (int j = 0; j < k; ++j) {
      const auto [first, count] = segmentOf(blockOf(j, b), i);
      if (j != li && count > 0) addSend(round, node[j], fresh.operand(first, count));
    }
    const auto [first, count] = segmentOf(blockOf(li, b), i);
    reduction::Accumulator acc = fresh;
    int64_t waiting = 0;  // peers' segments in tmp this round
    for (int j = 0; j < k && count > 0; ++j) {
      if (j == li) continue;
      if (acc.holds_mine) acc.scratch = (node_rounds % places) * node_place + waiting++ * segment;
      acc.receiveAndCombine(s, round, node[j], j < li, first, count);
    }
    node_rounds++;
    finish(round);
  };
  // (2) Segment i of step `step` of the lane's ring (Patarasuk & Yuan, as ring.cc): reduce-scatter
  // steps 0 .. nodes - 2 send block r - step and combine block r - step - 1 from the left (now
  // in the receive buffer, holding my node's combination); allgather steps pass the final blocks.
  auto ringStep = [&](int step, int64_t i) {
    Round& round = s.newRound();
    const bool reducing = step < nodes - 1;
    const int sent = reducing ? r - step : r + 1 - (step - nodes + 1);
    const auto [send_first, send_n] = segmentOf(blockOf(li, ringIndex(sent, nodes)), i);
    const auto [recv_first, recv_n] = segmentOf(blockOf(li, ringIndex(sent - 1, nodes)), i);
    if (send_n > 0) addSend(round, right, span(BufferId::Recv, send_first, send_n));
    if (recv_n > 0 && reducing) {
      reduction::Accumulator acc = reduction::inReceiveBuffer(true);
      acc.scratch = ring_scratch + (ring_rounds++ % places) * segment;
      acc.receiveAndCombine(s, round, left, true, recv_first, recv_n);
    } else if (recv_n > 0) {
      addRecv(round, left, span(BufferId::Recv, recv_first, recv_n));
    }
    finish(round);
  };
  // (3) Segment i of block b of the node's allgather: my part's block to every member, theirs from each.
  auto nodeAllgather = [&](int b, int64_t i) {
    Round& round = s.newRound();
    const auto [first, count] = segmentOf(blockOf(li, b), i);
    for (int j = 0; j < k; ++j) {
      if (j == li) continue;
      if (count > 0) addSend(round, node[j], span(BufferId::Recv, first, count));
      const auto [their_first, their_count] = segmentOf(blockOf(j, b), i);
      if (their_count > 0) addRecv(round, node[j], span(BufferId::Recv, their_first, their_count));
    }
    finish(round);
  };
  // The ring's step t needs block r - t - 1 combined in the node: the node reduces it segment by
  // segment just before; the allgather's step t makes block r - t final: the node gathers it
  // segment by segment just after (block r + 1 is final when the reduce-scatter ends).
  for (int64_t i = 0; i < segments; ++i) nodeReduce(r, i);
  for (int step = 0; step < nodes - 1; ++step) {
    for (int64_t i = 0; i < segments; ++i) {
      nodeReduce(ringIndex(r - step - 1, nodes), i);
      ringStep(step, i);
    }
  }
  for (int step = 0; step < nodes - 1; ++step) {
    for (int64_t i = 0; i < segments; ++i) {
      nodeAllgather(ringIndex(r + 1 - step, nodes), i);
      ringStep(nodes - 1 + step, i);
    }
  }
  for (int64_t i = 0; i < segments; ++i) nodeAllgather(ringIndex(r + 2 - nodes, nodes), i);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "multi_leader", buildMultiLeaderAllreduce);

}  // namespace topocoll
