// Isend/irecv alltoall (seed 002; MPICH alltoall_intra_scattered): every exchange posted at once,
// in a staggered order (rank r receives from r+1, r+2, ... and sends to r-1, r-2, ...) so that
// not all ranks hit the same peer first. At most BuildParams::max_outstanding requests are in
// flight (MPICH's MPIR_CVAR_ALLTOALL_THROTTLE): the exchanges are split into rounds of that many
// requests; the j-th exchange of every rank falls in the same round, so rounds never wait on each
// other across ranks. MPICH's choice for medium blocks.
#include <algorithm>
#include <string>

#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildIsendIrecvAlltoall(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  BufferId from = BufferId::Send;
  if (bp.in_place && p > 1) {
    // Blocks arrive where the outgoing ones sit: send from a copy.
    s.tmp_blocks = p;
    addCopy(s.newRound(), span(BufferId::Recv, 0, p), span(BufferId::Tmp, 0, p));
    from = BufferId::Tmp;
  }
  // A receive and its send are in flight together (else ranks sending first could deadlock).
  if (bp.max_outstanding < 2) s.note = "max_outstanding " + std::to_string(bp.max_outstanding) + " raised to 2: one send and one receive";
  const int pairs = std::max(1, bp.max_outstanding / 2);
  for (int first = 1; first < p || (first == 1 && !bp.in_place); first += pairs) {
    Round& round = s.newRound();
    // The round's copy runs after its requests complete; it touches no block they use.
    if (first == 1 && !bp.in_place) addCopy(round, span(BufferId::Send, r, 1), span(BufferId::Recv, r, 1));
    const int last = std::min(p, first + pairs);
    for (int j = first; j < last; ++j) {
      const int src = (r + j) % p;
      addRecv(round, src, span(BufferId::Recv, src, 1));
    }
    for (int j = first; j < last; ++j) {
      const int to = (r - j + p) % p;
      addSend(round, to, span(from, to, 1));
    }
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Alltoall, "isend_irecv", buildIsendIrecvAlltoall);

}  // namespace topocoll
