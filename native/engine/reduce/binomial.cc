// Binomial tree reduce (MPICH reduce_intra_binomial): in ranks relative to the tree's root, rank v
// receives and combines the partial results of v + 2^k for every 2^k below its lowest set bit,
// nearest first, then sends its own to v minus that bit. ceil(log p) steps of the whole vector:
// MPICH's choice for short vectors (and for user-defined ops).
// A commutative op runs the tree rooted at the root. Otherwise the tree is rooted at rank 0, so
// that every subtree is a run of consecutive ranks combined left to right (the rank order that
// ops which are not commutative need), and rank 0 sends the result to the root: one more step
// when the root is not 0.
#include "../algorithm_registry.h"
#include "accumulator.h"

namespace topocoll {

Schedule buildBinomialReduce(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank, root = bp.root;
  const int64_t n = bp.count;
  const bool at_root = r == root, in_place = bp.in_place && at_root;
  if (p == 1) return reduction::alone(in_place, n);
  if (n == 0) return s;
  reduction::Accumulator acc = reduction::towardRoot(at_root, in_place, n);
  const int tree_root = bp.commutative ? root : 0;
  const int v = (r - tree_root + p) % p;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (v & mask) {
      // My subtree is ranks v .. v + mask - 1 relative to the tree's root: my partial result.
      addSend(s.newRound(), (r - mask + p) % p, acc.operand(0, n));
      break;
    }
    if (v + mask < p) {
      // The child's subtree follows mine in rank order (the tree at rank 0): its result goes right.
      acc.receiveAndCombine(s, s.newRound(), (r + mask) % p, false, 0, n);
    }
  }
  if (tree_root != root) {
    if (r == tree_root) addSend(s.newRound(), root, acc.at(0, n));
    if (at_root) addRecv(s.newRound(), tree_root, span(BufferId::Recv, 0, n));
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Reduce, "binomial", buildBinomialReduce);

}  // namespace topocoll
