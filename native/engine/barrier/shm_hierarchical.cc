// Seed 001's three-level barrier. Inside a node, one queue serves both phases: every rank owns
// one entry (flag slot 0, on its own cache line); a rank marks its entry "arrived" (stage 1),
// its parent waits for that and later marks the same entry "released" (stage 2), on which the
// rank spins. Levels: ranks -> their socket's master (its lowest rank) -> the node leader (its
// lowest rank), then dissemination among the leaders of all nodes, then release back down.
#include <map>

#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"

namespace topocoll {
namespace {

constexpr int kSlot = 0;
constexpr int64_t kArrived = 1, kReleased = 2;

}  // namespace

Schedule buildShmHierarchicalBarrier(const BuildParams& bp) {
  Schedule s;
  s.shm = ShmUse::Flags;
  if (bp.p == 1) return s;
  Hierarchy storage;
  const Hierarchy& h = hierarchyOf(bp, &storage);
  const int me = bp.rank, node = h.nodeOf(me);
  const std::vector<int>& members = h.members(node);
  const int leader = members[0];
  // The master of each socket of the node: its lowest rank (the leader for the leader's socket).
  std::map<int, int> master;
  for (int r : members) master.emplace(h.place(r).socket, r);
  const int my_master = master.at(h.place(me).socket);
  std::vector<int> children;
  if (me == my_master) {
    for (int r : members) {
      if (r != me && h.place(r).socket == h.place(me).socket) children.push_back(r);
    }
  }
  if (me == leader) {
    for (const auto& [socket, m] : master) {
      if (m != me) children.push_back(m);
    }
  }

  // Gather: wait for the children's arrival, then announce ours (in a round, waits come first
  // and signals last). The leader has no parent: it meets the other leaders instead.
  Round& gather = s.newRound();
  for (int c : children) addFlagWait(gather, c, kSlot, kArrived);
  if (me != leader) {
    addFlagSignal(gather, me, kSlot, kArrived);
  } else if (h.nodeCount() > 1) {
    BuildParams sub = bp;
    sub.hierarchy = nullptr;
    sub.p = h.nodeCount();
    sub.rank = node;
    if (!appendFirstOnSubset(&s, Collective::Barrier, {"dissemination", "recursive_doubling"}, sub, h.leaders())) {
      appendSubsetBarrier(&s, sub, h.leaders());
    }
  }
  // Release: once our entry is marked (the leader's release is its own), mark the children's.
  if (me != leader || !children.empty()) {
    Round& release = s.newRound();
    if (me != leader) addFlagWait(release, me, kSlot, kReleased);
    for (int c : children) addFlagSignal(release, c, kSlot, kReleased);
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Barrier, "shm_hierarchical", buildShmHierarchicalBarrier);

}  // namespace topocoll
