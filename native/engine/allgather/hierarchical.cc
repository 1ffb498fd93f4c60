// Hierarchical allgather over the node's shared memory (seed 001's layers applied to
// allgather, as its authors propose). When the data area holds all p blocks: every rank copies
// its block into the area at its own position and flags it; on one node everyone then reads
// every block straight from the area. With several nodes the leaders (lowest rank of each node)
// collect their node's blocks from the area, run a ring among themselves, and copy each node's
// blocks into the area as they arrive, flagging each ring step, so that the other ranks read
// them while the ring goes on. Larger messages: the node's blocks go to the leader by
// messages, the leaders' ring follows, and the whole result reaches the node through the
// pipelined shared-memory bcast (shm/node_bcast.h).
#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../shm/node_bcast.h"

namespace topocoll {
namespace {

constexpr int kSlot = 1;                 // a rank's block is in the area (1); the leader's ring steps (2 + t)
constexpr int kBcastSlot = 2;            // the large-message bcast

// Runs of consecutive ranks, as block spans of `buf` in units of `unit` per block.
std::vector<BlockSpan> runs(const std::vector<int>& ranks, BufferId buf, int64_t unit) {
  std::vector<BlockSpan> out;
  for (int r : ranks) {
    if (!out.empty() && out.back().first + out.back().count == r * unit) out.back().count += unit;
    else out.push_back(span(buf, r * unit, unit));
  }
  return out;
}

std::vector<int> without(const std::vector<int>& ranks, int r) {
  std::vector<int> out;
  for (int x : ranks) {
    if (x != r) out.push_back(x);
  }
  return out;
}

// The leaders' ring: at step t, leader i passes node (i - t)'s blocks to leader i + 1 and gets
// node (i - t - 1)'s from leader i - 1. `after(round, t, node)` adds what follows a receive.
template <typename After>
void leaderRing(Schedule* s, const Hierarchy& h, int node, int64_t unit, After after) {
  const int n = h.nodeCount();
  const std::vector<int> leaders = h.leaders();
  const int right = leaders[(node + 1) % n], left = leaders[(node - 1 + n) % n];
  for (int t = 0; t < n - 1; ++t) {
    Round& r = s->newRound();
    const int out = (node - t + n) % n, in = (node - t - 1 + n) % n;
    for (const BlockSpan& b : runs(h.members(out), BufferId::Recv, unit)) addSend(r, right, b);
    for (const BlockSpan& b : runs(h.members(in), BufferId::Recv, unit)) addRecv(r, left, b);
    after(r, t, in);
  }
}

}  // namespace

Schedule buildHierarchicalAllgather(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, me = bp.rank;
  const BlockSpan mine = bp.in_place ? span(BufferId::Recv, me, 1) : span(BufferId::Send, 0, 1);
  if (p == 1 || bp.count == 0) {
    if (!bp.in_place && bp.count > 0) addCopy(s.newRound(), mine, span(BufferId::Recv, me, 1));
    return s;
  }
  Hierarchy storage;
  const Hierarchy& h = hierarchyOf(bp, &storage);
  const int node = h.nodeOf(me);
  const std::vector<int>& members = h.members(node);
  const int leader = members[0];
  const std::vector<int> peers = without(members, me);
  s.shm = ShmUse::Data;

  if (bp.shm_elements >= p * bp.count) {
    // Every block has its place in the data area: block j at j.
    Round& put = s.newRound();
    addCopy(put, mine, span(BufferId::Shm, me, 1));
    if (!bp.in_place) addCopy(put, mine, span(BufferId::Recv, me, 1));
    addFlagSignal(put, me, kSlot, 1);
    Round& local = s.newRound();
    for (int r : peers) addFlagWait(local, r, kSlot, 1);
    for (const BlockSpan& b : runs(peers, BufferId::Shm, 1)) addCopy(local, b, span(BufferId::Recv, b.first, b.count));
    if (h.nodeCount() == 1) return s;
    if (me == leader) {
      leaderRing(&s, h, node, 1, [&](Round& r, int t, int in) {
        for (const BlockSpan& b : runs(h.members(in), BufferId::Recv, 1)) addCopy(r, b, span(BufferId::Shm, b.first, b.count));
        addFlagSignal(r, leader, kSlot, 2 + t);
      });
    } else {
      const int n = h.nodeCount();
      for (int t = 0; t < n - 1; ++t) {
        Round& r = s.newRound();
        addFlagWait(r, leader, kSlot, 2 + t);
        for (const BlockSpan& b : runs(h.members((node - t - 1 + n) % n), BufferId::Shm, 1)) {
          addCopy(r, b, span(BufferId::Recv, b.first, b.count));
        }
      }
    }
    return s;
  }

  // Large: spans in elements (a block is `count` of them).
  const int64_t c = bp.count;
  s.units_per_block = c;
  const BlockSpan my_elems = bp.in_place ? span(BufferId::Recv, me * c, c) : span(BufferId::Send, 0, c);
  Round& gather = s.newRound();
  if (!bp.in_place) addCopy(gather, my_elems, span(BufferId::Recv, me * c, c));
  if (me != leader) {
    addSend(gather, leader, my_elems);
  } else {
    for (int r : peers) addRecv(gather, r, span(BufferId::Recv, r * c, c));
  }
  if (me == leader && h.nodeCount() > 1) leaderRing(&s, h, node, c, [](Round&, int, int) {});
  NodeBcastPlan plan;
  plan.source = leader;
  plan.readers = without(members, leader);
  plan.reader_part.assign(plan.readers.size(), 0);
  plan.data = span(BufferId::Recv, 0, p * c);
  plan.capacity = bp.shm_elements;
  plan.min_segments = 4;
  plan.slot = kBcastSlot;
  if (nodeBcastFits(plan)) {
    appendNodeBcast(&s, me, plan);
  } else {
    // Elements too large for the data area: the leader sends the result to the node.
    Round& r = s.newRound();
    if (me == leader) {
      for (int m : plan.readers) addSend(r, m, plan.data);
    } else {
      addRecv(r, leader, plan.data);
    }
    s.note = "elements too large for the shared data area: the leader sends the result";
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "hierarchical", buildHierarchicalAllgather);

}  // namespace topocoll
