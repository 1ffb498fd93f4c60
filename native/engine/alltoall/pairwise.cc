// Pairwise exchange alltoall (seed 002; MPICH alltoall_intra_pairwise): p-1 steps of one
// exchange each; at step i rank r swaps blocks with r xor i on power-of-two sizes (both sides of
// a pair talk to each other), otherwise sends to r+i and receives from r-i. One message in flight
// per direction: MPICH's choice for long blocks, where the network must not be flooded.
#include "../algorithm_registry.h"
#include "stepwise_exchange.h"

namespace topocoll {

Schedule buildPairwiseAlltoall(const BuildParams& bp) {
  const int p = bp.p, r = bp.rank;
  const bool xor_pairs = (p & (p - 1)) == 0;
  Schedule s = buildStepwiseAlltoall(bp, [&](int i) {
    return xor_pairs ? StepPartners{r ^ i, r ^ i} : StepPartners{(r + i) % p, (r - i + p) % p};
  });
  if (!xor_pairs) s.note = "non-power-of-two p: shift (send to r+i, receive from r-i) instead of xor pairs";
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Alltoall, "pairwise", buildPairwiseAlltoall);

}  // namespace topocoll
