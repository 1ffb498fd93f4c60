// Recursive doubling allreduce (MPICH allreduce_intra_recursive_doubling): at step k rank r
// exchanges its whole partial result with r xor 2^k and combines, so log p steps of n elements.
// Latency-bound: the choice for short vectors. The partial results are those of aligned groups
// of consecutive ranks, and the lower group's is always the left operand: the combination is in
// rank order (ops that are not commutative run) and every rank evaluates the same expression
// (the same bits everywhere). Non-power-of-two p: MPICH's fold-in (reduce/accumulator.h), 2 more
// steps.
#include "../algorithm_registry.h"
#include "../reduce/accumulator.h"

namespace topocoll {

Schedule buildRecursiveDoublingAllreduce(const BuildParams& bp) {
  Schedule s;
  const int64_t n = bp.count;
  if (bp.p == 1) return reduction::alone(bp.in_place, n);
  reduction::Accumulator acc = reduction::inReceiveBuffer(bp.in_place);
  const reduction::FoldIn f = reduction::foldIn(s, bp.p, bp.rank, acc, n);
  reduction::receiveUnfolded(s, bp.rank, f, n);
  if (f.newrank < 0) return s;
  for (int mask = 1; mask < f.q; mask *= 2) {
    const int peer = f.rankOf(f.newrank ^ mask);
    Round& round = s.newRound();
    addSend(round, peer, acc.operand(0, n));
    acc.receiveAndCombine(s, round, peer, peer < bp.rank, 0, n);
  }
  reduction::sendUnfolded(s, bp.rank, f, n);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "recursive_doubling", buildRecursiveDoublingAllreduce);

}  // namespace topocoll
