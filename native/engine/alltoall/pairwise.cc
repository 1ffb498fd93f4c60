// Pairwise exchange alltoall (seed 002; MPICH alltoall_intra_pairwise): p-1 steps of one
// exchange each; at step i rank r swaps blocks with r xor i on power-of-two sizes (both sides of
// a pair talk to each other), otherwise sends to r+i and receives from r-i. One message in flight
// per direction: MPICH's choice for long blocks, where the network must not be flooded.
#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildPairwiseAlltoall(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  BufferId from = BufferId::Send;
  if (bp.in_place) {
    if (p == 1) return s;
    // Blocks arrive where the outgoing ones sit: send from a copy.
    s.tmp_blocks = p;
    addCopy(s.newRound(), span(BufferId::Recv, 0, p), span(BufferId::Tmp, 0, p));
    from = BufferId::Tmp;
  } else {
    addCopy(s.newRound(), span(BufferId::Send, r, 1), span(BufferId::Recv, r, 1));
  }
  const bool xor_pairs = (p & (p - 1)) == 0;
  if (!xor_pairs) s.note = "non-power-of-two p: shift (send to r+i, receive from r-i) instead of xor pairs";
  for (int i = 1; i < p; ++i) {
    const int to = xor_pairs ? r ^ i : (r + i) % p;
    const int src = xor_pairs ? r ^ i : (r - i + p) % p;
    Round& round = s.newRound();
    addSend(round, to, span(from, to, 1));
    addRecv(round, src, span(BufferId::Recv, src, 1));
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Alltoall, "pairwise", buildPairwiseAlltoall);

}  // namespace topocoll
