// Recursive halving reduce_scatter (MPICH reduce_scatter_intra_recursive_halving): at step k rank
// r exchanges with r xor 2^k, farthest first (2^k = q/2, q/4, ..., 1), sending the half of its
// current parts on the partner's side and combining the half on its own, until it holds its own
// part: log q steps, each rank sending about (q-1)/q of the vector. MPICH's choice for commutative
// ops below 512 KiB. The first step pairs ranks q/2 apart, so the partial results are not runs of
// consecutive ranks: commutative ops only. Non-power-of-two p: MPICH's fold-in (the rank that sat
// out gets its part from the one that stood in for it); parts of any size, empty ones not sent.
#include "../algorithm_registry.h"
#include "../reduce/accumulator.h"
#include "parts.h"

namespace topocoll {

Schedule buildRecursiveHalvingReduceScatter(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const reduce_scatter::Parts parts(bp);
  const int64_t total = parts.total(), mine_n = parts.count(r);
  if (p == 1) return reduction::alone(bp.in_place, total);
  if (total == 0) return s;
  // The whole vector is combined in tmp (my part then copied out: in place, it goes where other
  // parts are still to be sent from).
  reduction::Accumulator acc{BufferId::Tmp, 0, bp.in_place ? BufferId::Recv : BufferId::Send, 0, total, false};
  const reduction::FoldIn f = reduction::foldIn(s, p, r, acc, total);
  if (f.newrank >= 0) {
    // Newrank i's parts: those of the ranks it stands for.
    auto first = [&](int i) { return parts.first(i == f.q ? p : f.firstRankOf(i)); };
    int lo = 0, hi = f.q;
    for (int mask = f.q / 2; mask > 0; mask /= 2) {
      const int peer = f.rankOf(f.newrank ^ mask);
      const int mid = lo + mask;
      const bool lower = (f.newrank & mask) == 0;  // keeps the lower half
      const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
      const int give_lo = lower ? mid : lo, give_hi = lower ? hi : mid;
      const int64_t give = first(give_lo), give_n = first(give_hi) - give;
      const int64_t keep = first(keep_lo), keep_n = first(keep_hi) - keep;
      Round& round = s.newRound();
      if (give_n > 0) addSend(round, peer, acc.operand(give, give_n));
      // Every part used from here on lies within those kept.
      if (keep_n > 0) acc.receiveAndCombine(s, round, peer, peer < r, keep, keep_n);
      if (round.ops.empty()) s.rounds.pop_back();
      lo = keep_lo;
      hi = keep_hi;
    }
  }
  Round& round = s.newRound();
  if (r < 2 * f.rem && r % 2 == 0) {
    if (mine_n > 0) addRecv(round, r + 1, span(BufferId::Recv, 0, mine_n));
  } else {
    if (r < 2 * f.rem && parts.count(r - 1) > 0) addSend(round, r - 1, acc.at(parts.first(r - 1), parts.count(r - 1)));
    if (mine_n > 0) addCopy(round, acc.at(parts.first(r), mine_n), span(BufferId::Recv, 0, mine_n));
  }
  if (round.ops.empty()) s.rounds.pop_back();
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(ReduceScatter, "recursive_halving", buildRecursiveHalvingReduceScatter);

}  // namespace topocoll
