// Ring allgather (seed 000; MPICH allgather_intra_ring): p-1 steps; at step s rank r sends the
// block it received at step s-1 to r+1 and receives block r-s-1 from r-1. Bandwidth-optimal,
// neighbour-only traffic (ALCD 2-2/p), latency linear in p: MPICH's choice for long messages.
#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildRingAllgather(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  if (!bp.in_place) addCopy(s.newRound(), span(BufferId::Send, 0, 1), span(BufferId::Recv, r, 1));
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int step = 0; step < p - 1; ++step) {
    Round& round = s.newRound();
    addSend(round, right, span(BufferId::Recv, (r - step + p) % p, 1));
    addRecv(round, left, span(BufferId::Recv, (r - step - 1 + p) % p, 1));
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "ring", buildRingAllgather);

}  // namespace topocoll
