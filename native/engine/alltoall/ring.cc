// Ring (shift) alltoall (seed 002; MPICH's pairwise exchange on non-power-of-two sizes): at step i
// rank r sends its block for r+i and receives the block of r-i, so every step is a cyclic shift
// by i over the whole communicator, on any p.
#include "../algorithm_registry.h"
#include "stepwise_exchange.h"

namespace topocoll {

Schedule buildRingAlltoall(const BuildParams& bp) {
  const int p = bp.p, r = bp.rank;
  return buildStepwiseAlltoall(bp, [&](int i) { return StepPartners{(r + i) % p, (r - i + p) % p}; });
}

TOPOCOLL_REGISTER_ALGORITHM(Alltoall, "ring", buildRingAlltoall);

}  // namespace topocoll
