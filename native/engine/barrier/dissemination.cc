// Dissemination barrier (Hensgen, Finkel and Manber 1988; MPICH barrier_intra_dissemination /
// Open MPI's bruck barrier): in round k rank r signals r+2^k and waits for r-2^k. After
// ceil(log p) rounds every rank has heard, through a chain, from every other rank, on any p.
#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildDisseminationBarrier(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const BlockSpan nothing = span(BufferId::Recv, 0, 0);  // zero-byte messages
  for (int distance = 1; distance < p; distance *= 2) {
    Round& round = s.newRound();
    addSend(round, (r + distance) % p, nothing);
    addRecv(round, (r - distance + p) % p, nothing);
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Barrier, "dissemination", buildDisseminationBarrier);

}  // namespace topocoll
