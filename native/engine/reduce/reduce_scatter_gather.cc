// Rabenseifner's reduce (MPICH reduce_intra_reduce_scatter_gather): a reduce-scatter by recursive
// halving, then a binomial gather of the reduced blocks to the root. The vector is cut into
// q = 2^floor(log p) blocks (n/q elements, rounded); at step k rank r keeps the half of its
// current blocks on its side of r xor 2^k, sends the other half and combines the half it
// receives; the gather retraces the steps backwards, each rank handing what it holds to the
// partner nearer the root. Each rank sends at most (q-1)/q n elements twice, in 2 log q steps:
// MPICH's choice for vectors above 2 KiB.
// The halving pairs aligned groups of consecutive ranks, nearest first, the lower group's operand
// on the left: every element is combined in rank order (ops that are not commutative run; MPICH
// pairs farthest first and keeps this algorithm for predefined ops). Non-power-of-two p: MPICH's
// fold-in; a root that sat out gets the result from the rank it handed its operand to. Blocks that
// are empty (fewer elements than q) are not sent.
#include <vector>

#include "../algorithm_registry.h"
#include "accumulator.h"

namespace topocoll {

Schedule buildReduceScatterGatherReduce(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank, root = bp.root;
  const int64_t n = bp.count;
  const bool at_root = r == root, in_place = bp.in_place && at_root;
  if (p == 1) return reduction::alone(in_place, n);
  if (n == 0) return s;
  reduction::Accumulator acc = reduction::towardRoot(at_root, in_place, n);
  const reduction::FoldIn f = reduction::foldIn(s, p, r, acc, n);
  // The root's stand-in among the q ranks: itself, or the rank it handed its operand to.
  const int newroot = root < 2 * f.rem ? root / 2 : root - f.rem;
  const int stand_in = f.rankOf(newroot);
  if (f.newrank >= 0) {
    auto first = [&](int b) { return static_cast<int64_t>(b) * n / f.q; };
    struct Step {
      int mask, peer;
      int keep_lo, keep_hi, give_lo, give_hi;  // block ranges
    };
    std::vector<Step> steps;
    int lo = 0, hi = f.q;
    for (int mask = 1; mask < f.q; mask *= 2) {
      const int mid = (lo + hi) / 2;
      const int peer = f.rankOf(f.newrank ^ mask);
      const Step st = (f.newrank & mask) == 0 ? Step{mask, peer, lo, mid, mid, hi} : Step{mask, peer, mid, hi, lo, mid};
      steps.push_back(st);
      const int64_t give = first(st.give_lo), give_n = first(st.give_hi) - give;
      const int64_t keep = first(st.keep_lo), keep_n = first(st.keep_hi) - keep;
      Round& round = s.newRound();
      if (give_n > 0) addSend(round, peer, acc.operand(give, give_n));
      // Every block used from here on lies within those kept.
      if (keep_n > 0) acc.receiveAndCombine(s, round, peer, peer < r, keep, keep_n);
      if (round.ops.empty()) s.rounds.pop_back();
      lo = st.keep_lo;
      hi = st.keep_hi;
    }
    // The gather, last step first: before the step of mask a rank holds the blocks it kept at that
    // step, complete; the partner whose mask bit differs from the root's hands its blocks over and
    // is done, the other now holds the blocks both had.
    for (auto st = steps.rbegin(); st != steps.rend(); ++st) {
      const int64_t keep = first(st->keep_lo), keep_n = first(st->keep_hi) - keep;
      const int64_t give = first(st->give_lo), give_n = first(st->give_hi) - give;
      if ((f.newrank ^ newroot) & st->mask) {
        if (keep_n > 0) addSend(s.newRound(), st->peer, acc.at(keep, keep_n));
        break;
      }
      if (give_n > 0) addRecv(s.newRound(), st->peer, acc.into(s, give, give_n));
    }
  }
  if (stand_in != root) {
    if (r == stand_in) addSend(s.newRound(), root, acc.at(0, n));
    if (at_root) addRecv(s.newRound(), stand_in, span(BufferId::Recv, 0, n));
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Reduce, "reduce_scatter_gather", buildReduceScatterGatherReduce);

}  // namespace topocoll
