// The intra-node half of the hierarchical reductions, as schedule ops. Every rank of the node
// copies its operand into its slot of the node segment's data area (slot j for the node's j-th
// rank); then either
// - whole (one flag handoff): the collector(s) combine all the slots themselves (a single
//   collector reads its own operand from its buffer and puts nothing);
// - sliced: every rank combines its own slice of the vector across all slots into slot 0, and
//   the collector(s) copy the result out (Open MPI's xhc and MPICH's release_gather reduce the
//   same way, reading the user's buffers where we copy them into the segment first).
// Slots are combined in the node's rank order, the lower ranks' operand on the left, so ops that
// are not commutative stay correct; each element is combined on one rank only (or identically
// on every collector), so every rank gets the same bits. A socket level (`group`) first
// combines the slots of each socket into the slot of its first rank, slice by slice among the
// socket's ranks, so that one partial result per socket crosses between sockets.
//
// Vectors that do not fit the area (K slots of n elements) go through it in chunks of
// capacity / 2K elements per slot, alternating between two halves. A rank that combines copies
// chunk t in once every other rank has put chunk t - 1 in (it waited for that to combine), which
// each does only when done with chunk t - 2; in a whole reduction to one collector the others
// wait for it to be done with chunk t - 2.
//
// Flags (one slot): a rank's flag holds 4t + 1 once its operand of chunk t is in, 4t + 2 once it
// has combined its socket slice, 4t + 3 its node slice, 4t + 4 once it is done with chunk t.
//
// - scattered (for several leaders per node, one per part of the vector): the node's j-th rank
//   gets the j-th of K parts of the result, combined as in the sliced reduction but straight into
//   its `result` (no slot 0, no copy out, no socket level). A chunk then holds a piece of every
//   part: each rank's slot is K pieces, so that a rank's pieces of all chunks make its whole part.
//   appendNodeAllgather() brings the parts back to every rank.
#pragma once

#include <vector>

#include "../schedule.h"

namespace topocoll {

class Hierarchy;

struct NodeReducePlan {
  std::vector<int> members;   // the node's ranks, ascending: their operands are combined in this order
  std::vector<int> group;     // per member: its socket group (numbered by first member); empty: no socket level
  int collector = -1;         // the member that gets the result; -1: every member
  bool scatter = false;       // the j-th member gets the j-th part (nodePart()) of the result
  BlockSpan operand;          // my operand (the vector: Send, or Recv in place)
  BlockSpan result;           // where a collector puts the result (may be `operand`, in place)
  int64_t capacity = 0;       // elements the data area holds
  bool whole = false;         // the collectors combine every slot themselves
  int slot = 1;               // the flag slot it uses
};

// True when the area can carry the plan: one element per slot and half at least, and stages
// within kShmMaxStage.
bool nodeReduceFits(const NodeReducePlan& plan);

// True when every node of `h` can reduce n elements through `capacity` (the same on every rank).
bool nodeReduceFitsEveryNode(const Hierarchy& h, int64_t n, int64_t capacity);

// The socket groups of `members` for NodeReducePlan::group: empty unless they sit on several
// sockets with some socket holding two or more, every one of them bound (an unbound rank's socket
// is where it ran at detection: neither lasting nor the same from run to run, while the order of
// combination, hence the bits of a floating-point sum, must be), and, for an op that is not
// commutative, each socket holding a run of consecutive members.
std::vector<int> socketGroups(const Hierarchy& h, const std::vector<int>& members, bool commutative);

// Appends the rounds of rank `me`, a member. The plan must fit (nodeReduceFits) and the node
// have two members or more.
void appendNodeReduce(Schedule* s, int me, const NodeReducePlan& plan);

// The j-th of `parts` parts of `n` elements: elements [first, first + count).
BlockSpan nodePart(int64_t n, int j, int parts);

// After a scattered reduction (`plan`, with `slot` a flag slot of its own): every member puts its
// part of `result` into the area and reads the others' from it, in chunks alternating between the
// two halves (flags: 2u + 1 once a rank's piece of chunk u is in, 2u + 2 once it has read chunk u).
// It first waits until every member is done with the reduction.
void appendNodeAllgather(Schedule* s, int me, const NodeReducePlan& plan, int slot);

}  // namespace topocoll
