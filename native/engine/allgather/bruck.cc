// Bruck allgather (seed 000 §2.3; MPICH allgather_intra_brucks): ceil(log p) steps for every p.
// Tmp holds my block followed by those of r+1, r+2, ...; at step k rank r sends the first 2^k
// blocks it holds to r-2^k and receives the next 2^k from r+2^k (the last step only p-2^s),
// then rotates tmp into rank order. Latency-optimal on any p; MPICH's choice for short messages
// on non-power-of-two sizes.
#include <algorithm>

#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildBruckAllgather(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const BlockSpan own = bp.in_place ? span(BufferId::Recv, r, 1) : span(BufferId::Send, 0, 1);
  if (p == 1) {
    if (!bp.in_place) addCopy(s.newRound(), own, span(BufferId::Recv, 0, 1));
    return s;
  }
  s.tmp_blocks = p;
  for (int pof2 = 1; pof2 < p; pof2 *= 2) {
    const int n = std::min(pof2, p - pof2);
    Round& round = s.newRound();
    // The first step sends my block from where it is and files it in tmp after the receive.
    addSend(round, (r - pof2 + p) % p, pof2 == 1 ? own : span(BufferId::Tmp, 0, n));
    addRecv(round, (r + pof2) % p, span(BufferId::Tmp, pof2, n));
    if (pof2 == 1) addCopy(round, own, span(BufferId::Tmp, 0, 1));
  }
  // tmp[i] is the block of rank r+i: rotate down by r (my own block stays put when in place).
  Round& last = s.rounds.back();
  if (bp.in_place) {
    if (p - r > 1) addCopy(last, span(BufferId::Tmp, 1, p - r - 1), span(BufferId::Recv, r + 1, p - r - 1));
  } else {
    addCopy(last, span(BufferId::Tmp, 0, p - r), span(BufferId::Recv, r, p - r));
  }
  if (r > 0) addCopy(last, span(BufferId::Tmp, p - r, r), span(BufferId::Recv, 0, r));
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "bruck", buildBruckAllgather);

}  // namespace topocoll
