// Recursive doubling allreduce (MPICH allreduce_intra_recursive_doubling): at step k rank r
// exchanges its whole partial result with r xor 2^k and combines, so log p steps of n elements.
// Latency-bound: the choice for short vectors. The partial results are those of aligned groups
// of consecutive ranks, and the lower group's is always the left operand: the combination is in
// rank order (ops that are not commutative run) and every rank evaluates the same expression
// (the same bits everywhere). Non-power-of-two p: MPICH's fold-in (fold_in.h), 2 more steps.
#include "../algorithm_registry.h"
#include "fold_in.h"

namespace topocoll {

Schedule buildRecursiveDoublingAllreduce(const BuildParams& bp) {
  Schedule s;
  const int64_t n = bp.count;
  bool mine_in_recv = bp.in_place;
  if (bp.p == 1) {
    if (!bp.in_place) addCopy(s.newRound(), span(BufferId::Send, 0, n), span(BufferId::Recv, 0, n));
    return s;
  }
  s.tmp_blocks = n;
  const allreduce::FoldIn f = allreduce::foldIn(s, bp, n, &mine_in_recv);
  if (f.newrank < 0) return s;
  for (int mask = 1; mask < f.q; mask *= 2) {
    const int peer = f.rankOf(f.newrank ^ mask);
    Round& round = s.newRound();
    addSend(round, peer, allreduce::myOperand(mine_in_recv, 0, n));
    allreduce::receiveAndCombine(round, peer, peer < bp.rank, 0, n, mine_in_recv, 0);
    mine_in_recv = true;
  }
  allreduce::unfold(s, bp, f, n);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "recursive_doubling", buildRecursiveDoublingAllreduce);

}  // namespace topocoll
