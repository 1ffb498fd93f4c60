// What the allreduce builders share: combining a peer's operand with mine in rank order, and
// MPICH's fold-in of a non-power-of-two communicator onto 2^floor(log p) ranks.
#pragma once

#include "../schedule.h"

namespace topocoll::allreduce {

// My operand of elements [first, first + n): in the send buffer until a first combination writes
// the receive buffer (MPI_IN_PLACE: there from the start).
inline BlockSpan myOperand(bool in_recv, int64_t first, int64_t n) {
  return span(in_recv ? BufferId::Recv : BufferId::Send, first, n);
}

// Receives `peer`'s operand of elements [first, first + n) and combines it with mine into the
// receive buffer, the lower rank's operand on the left: every rank then evaluates the same
// expression, so all get the same bits, and ops that are not commutative stay in rank order.
// Not yet in the receive buffer (not in place), mine is combined from the send buffer with the
// peer's, received straight into place: no copy. Else the peer's goes through tmp[tmp_first...].
void receiveAndCombine(Round& round, int peer, bool peer_is_lower, int64_t first, int64_t n, bool mine_in_recv, int64_t tmp_first);

// MPICH's fold-in: with q = 2^floor(log p) and rem = p - q, each even rank of the first 2 rem hands
// its operand to the odd rank above it and sits out; that one combines both (rank order kept) and
// joins the q ranks as newrank r / 2, the others as r - rem. Newranks keep the ranks' order.
struct FoldIn {
  int q = 1, rem = 0;
  int newrank = -1;  // -1: this rank sits out
  int rankOf(int newr) const { return newr < rem ? 2 * newr + 1 : newr + rem; }
};

// Adds the fold-in round (and, for a rank that sits out, the final receive of the result).
// *mine_in_recv: whether my operand is in the receive buffer from here on.
FoldIn foldIn(Schedule& s, const BuildParams& bp, int64_t n, bool* mine_in_recv);
// Adds the round handing the result back to the rank that sat out.
void unfold(Schedule& s, const BuildParams& bp, const FoldIn& f, int64_t n);

}  // namespace topocoll::allreduce
