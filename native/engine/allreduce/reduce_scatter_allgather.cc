// Rabenseifner's allreduce (MPICH allreduce_intra_reduce_scatter_allgather): a reduce-scatter by
// recursive halving, then an allgather by recursive doubling that retraces its steps. The vector
// is cut into q = 2^floor(log p) blocks of n/q elements (rounded); at step k rank r keeps the half
// of its current blocks on its side of r xor 2^k, sends the other half and combines the half it
// receives, so each rank sends 2(q-1)/q n elements in 2 log q steps: the choice for long vectors.
// Partners are groups of consecutive ranks, the lower one's operand on the left: rank order holds
// (ops that are not commutative run) and every element is combined once, then copied, so every
// rank gets the same bits. Non-power-of-two p: MPICH's fold-in (reduce/accumulator.h). Blocks that are empty
// (fewer elements than q) are not sent.
#include <vector>

#include "../algorithm_registry.h"
#include "../reduce/accumulator.h"

namespace topocoll {

Schedule buildReduceScatterAllgatherAllreduce(const BuildParams& bp) {
  Schedule s;
  const int64_t n = bp.count;
  if (bp.p == 1) return reduction::alone(bp.in_place, n);
  reduction::Accumulator acc = reduction::inReceiveBuffer(bp.in_place);
  const reduction::FoldIn f = reduction::foldIn(s, bp.p, bp.rank, acc, n);
  reduction::receiveUnfolded(s, bp.rank, f, n);
  if (f.newrank < 0) return s;
  // Block b of q is elements [first(b), first(b + 1)).
  auto first = [&](int b) { return static_cast<int64_t>(b) * n / f.q; };

  struct Step {
    int peer;
    int keep_lo, keep_hi, give_lo, give_hi;  // block ranges
  };
  std::vector<Step> steps;
  int lo = 0, hi = f.q;
  for (int mask = 1; mask < f.q; mask *= 2) {
    const int peer = f.rankOf(f.newrank ^ mask);
    const int mid = (lo + hi) / 2;
    const bool lower = (f.newrank & mask) == 0;  // keeps the lower half
    Step st{peer, lo, mid, mid, hi};
    if (!lower) st = {peer, mid, hi, lo, mid};
    steps.push_back(st);
    const int64_t give = first(st.give_lo), give_n = first(st.give_hi) - give;
    const int64_t keep = first(st.keep_lo), keep_n = first(st.keep_hi) - keep;
    Round& round = s.newRound();
    if (give_n > 0) addSend(round, peer, acc.operand(give, give_n));
    // The blocks sent from here on are within those kept, which the receive buffer now holds.
    if (keep_n > 0) acc.receiveAndCombine(s, round, peer, peer < bp.rank, keep, keep_n);
    if (round.ops.empty()) s.rounds.pop_back();
    lo = st.keep_lo;
    hi = st.keep_hi;
  }
  for (auto st = steps.rbegin(); st != steps.rend(); ++st) {
    const int64_t keep = first(st->keep_lo), keep_n = first(st->keep_hi) - keep;
    const int64_t give = first(st->give_lo), give_n = first(st->give_hi) - give;
    Round& round = s.newRound();
    if (keep_n > 0) addSend(round, st->peer, span(BufferId::Recv, keep, keep_n));
    if (give_n > 0) addRecv(round, st->peer, span(BufferId::Recv, give, give_n));
    if (round.ops.empty()) s.rounds.pop_back();
  }
  reduction::sendUnfolded(s, bp.rank, f, n);
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "reduce_scatter_allgather", buildReduceScatterAllgatherAllreduce);

}  // namespace topocoll
