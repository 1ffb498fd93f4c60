// Ring (shift) alltoall (seed 002; MPICH's pairwise exchange on non-power-of-two sizes): at step i
// rank r sends its block for r+i and receives the block of r-i, so every step is a cyclic shift
// by i over the whole communicator, on any p.
#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildRingAlltoall(const BuildParams& bp) {
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
  for (int i = 1; i < p; ++i) {
    const int to = (r + i) % p, src = (r - i + p) % p;
    Round& round = s.newRound();
    addSend(round, to, span(from, to, 1));
    addRecv(round, src, span(BufferId::Recv, src, 1));
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Alltoall, "ring", buildRingAlltoall);

}  // namespace topocoll
