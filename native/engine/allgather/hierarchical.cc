// Hierarchical allgather over the node's shared memory (seed 001's layers applied to
// allgather, as its authors propose). When the data area holds all p blocks: every rank copies
// its block into the area at its own position and flags it; on one node everyone then reads
// every block straight from the area. With several nodes the leaders (lowest rank of each node)
// collect their node's blocks from the area and run an allgather among themselves, then copy
// the other nodes' blocks into the area for their node to read. Larger messages: the node's
// blocks go to the leader by messages, the leaders' allgather follows, and the whole result
// reaches the node through the pipelined shared-memory bcast (shm/node_bcast.h).
//
// The leaders' allgather: when the nodes are of one size K and hold consecutive ranks (the usual
// by-slot placement), a node's K blocks are one block to the leaders and any allgather of the
// registry runs among them, chosen by size like the flat defaults (recursive doubling or Bruck
// for short totals, ring for long ones). Otherwise (uneven or interleaved nodes) a ring that
// moves each node's blocks as runs; in the shared-memory case it flags every step, so that the
// node reads a node's blocks while the ring goes on.
#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"
#include "../shm/node_bcast.h"

namespace topocoll {
namespace {

constexpr int kSlot = 1;                 // a rank's block is in the area (1); the leader's ring steps (2 + t)
constexpr int kBcastSlot = 2;            // the large-message bcast
constexpr int64_t kShortTotalBytes = 81920;  // MPICH's allgather bound for short messages (total bytes)

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

// K when every node holds K consecutive ranks (node i: ranks iK ... iK+K-1), else 0.
int uniformNodeSize(const Hierarchy& h) {
  const int k = static_cast<int>(h.members(0).size());
  for (int node = 0; node < h.nodeCount(); ++node) {
    const std::vector<int>& m = h.members(node);
    if (static_cast<int>(m.size()) != k) return 0;
    for (int i = 0; i < k; ++i) {
      if (m[i] != node * k + i) return 0;
    }
  }
  return k;
}

// The leaders' allgather through the registry (nodes of K consecutive ranks; a node's blocks are
// `unit` units each): false when the build has none of the algorithms asked for.
bool registryLeaderAllgather(Schedule* s, const BuildParams& bp, const Hierarchy& h, int k, int64_t unit) {
  const int n = h.nodeCount();
  BuildParams sub = withoutShm(bp);
  sub.p = n;
  sub.rank = h.nodeOf(bp.rank);
  sub.in_place = true;  // the node's blocks are in the receive buffer already
  sub.count = bp.count * k;
  const int64_t total = bp.p * bp.count * std::max<int64_t>(bp.element_bytes, 1);
  const bool pow2 = (n & (n - 1)) == 0;
  const char* chosen =
      total >= kShortTotalBytes ? appendFirstOnSubset(s, Collective::Allgather, {"ring", "neighbor_exchange"}, sub, h.leaders(), k * unit)
      : pow2 ? appendFirstOnSubset(s, Collective::Allgather, {"recursive_doubling", "bruck", "ring"}, sub, h.leaders(), k * unit)
             : appendFirstOnSubset(s, Collective::Allgather, {"bruck", "recursive_doubling", "ring"}, sub, h.leaders(), k * unit);
  return chosen != nullptr;
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

  // A rank alone on its node has nobody to share memory with: it touches no flag and no area.
  const bool alone = members.size() == 1;
  if (bp.shm_elements >= p * bp.count) {
    // Every block has its place in the data area: block j at j.
    if (alone) {
      if (!bp.in_place) addCopy(s.newRound(), mine, span(BufferId::Recv, me, 1));
    } else {
      Round& put = s.newRound();
      addCopy(put, mine, span(BufferId::Shm, me, 1));
      if (!bp.in_place) addCopy(put, mine, span(BufferId::Recv, me, 1));
      addFlagSignal(put, me, kSlot, 1);
      Round& local = s.newRound();
      for (int r : peers) addFlagWait(local, r, kSlot, 1);
      for (const BlockSpan& b : runs(peers, BufferId::Shm, 1)) addCopy(local, b, span(BufferId::Recv, b.first, b.count));
    }
    if (h.nodeCount() == 1) return s;
    const int n = h.nodeCount();
    const int k = uniformNodeSize(h);
    if (k > 0) {
      // The leaders' allgather, then one copy of the other nodes' blocks into the area.
      if (me == leader && !registryLeaderAllgather(&s, bp, h, k, 1)) leaderRing(&s, h, node, 1, [](Round&, int, int) {});
      if (alone) return s;
      Round& r = s.newRound();
      const BlockSpan before = span(BufferId::Recv, 0, node * k), after = span(BufferId::Recv, (node + 1) * k, (n - node - 1) * k);
      for (const BlockSpan& b : {before, after}) {
        if (b.count == 0) continue;
        if (me == leader) addCopy(r, b, span(BufferId::Shm, b.first, b.count));
        else addCopy(r, span(BufferId::Shm, b.first, b.count), b);
      }
      if (me == leader) addFlagSignal(r, leader, kSlot, 2);
      else addFlagWait(r, leader, kSlot, 2);
      return s;
    }
    if (me == leader) {
      leaderRing(&s, h, node, 1, [&](Round& r, int t, int in) {
        if (alone) return;
        for (const BlockSpan& b : runs(h.members(in), BufferId::Recv, 1)) addCopy(r, b, span(BufferId::Shm, b.first, b.count));
        addFlagSignal(r, leader, kSlot, 2 + t);
      });
    } else {
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
  if (me == leader && h.nodeCount() > 1) {
    const int k = uniformNodeSize(h);
    if (k == 0 || !registryLeaderAllgather(&s, bp, h, k, c)) leaderRing(&s, h, node, c, [](Round&, int, int) {});
  }
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
    addNote(&s, "elements too large for the shared data area: the leader sends the result");
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "hierarchical", buildHierarchicalAllgather);

}  // namespace topocoll
