#include "fold_in.h"

#include <string>

namespace topocoll::allreduce {

void receiveAndCombine(Round& round, int peer, bool peer_is_lower, int64_t first, int64_t n, bool mine_in_recv, int64_t tmp_first) {
  const BlockSpan into = span(BufferId::Recv, first, n);
  if (mine_in_recv) {
    const BlockSpan theirs = span(BufferId::Tmp, tmp_first, n);
    addRecv(round, peer, theirs);
    addReduce(round, theirs, into, peer_is_lower ? ReduceOrder::SrcFirst : ReduceOrder::DstFirst);
  } else {
    addRecv(round, peer, into);
    addReduce(round, span(BufferId::Send, first, n), into, peer_is_lower ? ReduceOrder::DstFirst : ReduceOrder::SrcFirst);
  }
}

FoldIn foldIn(Schedule& s, const BuildParams& bp, int64_t n, bool* mine_in_recv) {
  FoldIn f;
  while (f.q * 2 <= bp.p) f.q *= 2;
  f.rem = bp.p - f.q;
  const int r = bp.rank;
  if (f.rem > 0) {
    s.note = "non-power-of-two p: fold-in (of ranks 0.." + std::to_string(2 * f.rem - 1) +
             ", each even one hands its operand to the next and gets the result back last)";
  }
  if (r >= 2 * f.rem) {
    f.newrank = r - f.rem;
    return f;
  }
  Round& round = s.newRound();
  if (r % 2 == 0) {
    addSend(round, r + 1, myOperand(*mine_in_recv, 0, n));
    addRecv(s.newRound(), r + 1, span(BufferId::Recv, 0, n));
    return f;
  }
  receiveAndCombine(round, r - 1, true, 0, n, *mine_in_recv, 0);
  *mine_in_recv = true;
  f.newrank = r / 2;
  return f;
}

void unfold(Schedule& s, const BuildParams& bp, const FoldIn& f, int64_t n) {
  if (bp.rank < 2 * f.rem && bp.rank % 2 == 1) addSend(s.newRound(), bp.rank - 1, span(BufferId::Recv, 0, n));
}

}  // namespace topocoll::allreduce
