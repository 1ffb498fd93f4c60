// Recursive doubling barrier (MPICH barrier_intra_recursive_doubling, Open MPI's recursive
// doubling barrier): in round k rank r exchanges a zero-byte message with r xor 2^k. On other
// sizes the ranks above q = 2^floor(log p) fold in: rank q+j signals j before j starts and waits
// for j's release after j has finished (floor(log p) + 2 rounds).
#include <string>

#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildRecursiveDoublingBarrier(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const BlockSpan nothing = span(BufferId::Recv, 0, 0);  // zero-byte messages
  int q = 1;
  while (q * 2 <= p) q *= 2;
  if (q != p) s.note = "non-power-of-two p: fold-in (ranks >= " + std::to_string(q) + " signal rank - " + std::to_string(q) + " and wait for its release)";
  if (r >= q) {
    // Arrival and release in one round: the release only comes once rank r-q has heard from all.
    Round& round = s.newRound();
    addSend(round, r - q, nothing);
    addRecv(round, r - q, nothing);
    return s;
  }
  if (r + q < p) addRecv(s.newRound(), r + q, nothing);
  for (int mask = 1; mask < q; mask *= 2) {
    Round& round = s.newRound();
    addSend(round, r ^ mask, nothing);
    addRecv(round, r ^ mask, nothing);
  }
  if (r + q < p) addSend(s.newRound(), r + q, nothing);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Barrier, "recursive_doubling", buildRecursiveDoublingBarrier);

}  // namespace topocoll
