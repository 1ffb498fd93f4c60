// Binomial tree bcast (MPICH bcast_intra_binomial): in ranks relative to the root, rank v
// receives the whole vector from v minus its lowest set bit, then sends it to v + 2^k for every
// 2^k below that bit, farthest first. ceil(log p) steps, the whole message each: MPICH's choice
// for short messages and small communicators.
#include "../algorithm_registry.h"

namespace topocoll {

Schedule buildBinomialBcast(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, root = bp.root;
  if (p == 1 || bp.count == 0) return s;
  const int vr = (bp.rank - root + p) % p;
  const BlockSpan all = span(BufferId::Recv, 0, bp.count);
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      addRecv(s.newRound(), (bp.rank - mask + p) % p, all);
      break;
    }
    mask <<= 1;
  }
  // Children: all sends in one round, the largest subtree first so that it starts first.
  Round children;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask < p) addSend(children, (bp.rank + mask) % p, all);
  }
  if (!children.ops.empty()) s.rounds.push_back(std::move(children));
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Bcast, "binomial", buildBinomialBcast);

}  // namespace topocoll
