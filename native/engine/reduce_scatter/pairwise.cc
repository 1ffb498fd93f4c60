// Pairwise exchange reduce_scatter (MPICH reduce_scatter_intra_pairwise): at step i rank r sends
// its operand of part r+i to r+i and receives the operand of r-i for its own part, so p-1 steps in
// which every rank sends its whole vector but its part once: MPICH's choice for commutative ops
// from 512 KiB. The operands arrive from r-1, r-2, ..., 0, then p-1, ..., r+1: each is put on the
// left of one of two partial results (ranks 0..r, and r+1..p-1), which are combined last, so the
// part is combined in rank order (ops that are not commutative run; MPICH keeps pairwise for
// commutative ones) at the cost of one more part of scratch. Parts of any size, empty ones not sent.
#include "../algorithm_registry.h"
#include "../reduce/accumulator.h"
#include "parts.h"

namespace topocoll {

Schedule buildPairwiseReduceScatter(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const reduce_scatter::Parts parts(bp);
  const int64_t n = parts.count(r);
  const BufferId source = bp.in_place ? BufferId::Recv : BufferId::Send;  // my operand, the whole vector
  if (p == 1) return reduction::alone(bp.in_place, n);
  if (parts.total() == 0) return s;
  const BlockSpan mine = span(source, parts.first(r), n);
  // The lower partial result (ranks 0..r) starts as mine, where it is. Not in place, the first
  // operand received from below goes straight into the receive buffer; in place, my part of the
  // receive buffer is sent to no one, so the lower result builds up there, and moves to the
  // buffer's start last. The upper one (ranks r+1..p-1) is in tmp, but on rank 0 not in place,
  // where it takes the receive buffer, mine being prepended last.
  const BlockSpan lower = bp.in_place ? mine : span(BufferId::Recv, 0, n);
  const bool upper_in_tmp = r > 0 || bp.in_place;
  const BlockSpan upper = upper_in_tmp ? span(BufferId::Tmp, 0, n) : span(BufferId::Recv, 0, n);
  const BlockSpan arriving = span(BufferId::Tmp, upper_in_tmp && r < p - 1 ? n : 0, n);
  s.tmp_blocks = arriving.first + n;
  bool lower_moved = bp.in_place, upper_started = false;  // lower: out of `mine` into `lower`
  for (int i = 1; i < p; ++i) {
    const int to = (r + i) % p, from = (r - i + p) % p;
    Round& round = s.newRound();
    if (parts.count(to) > 0) addSend(round, to, span(source, parts.first(to), parts.count(to)));
    if (n > 0 && from < r && !lower_moved) {
      addRecv(round, from, lower);
      addReduce(round, mine, lower, ReduceOrder::DstFirst);  // (from) op mine
      lower_moved = true;
    } else if (n > 0 && from > r && !upper_started) {
      addRecv(round, from, upper);
      upper_started = true;
    } else if (n > 0) {
      addRecv(round, from, arriving);
      addReduce(round, arriving, from < r ? lower : upper, ReduceOrder::SrcFirst);  // prepended
    }
    if (round.ops.empty()) s.rounds.pop_back();
  }
  if (n == 0) return s;
  Round& last = s.rounds.back();
  if (r == 0) {
    // mine op (1 .. p-1), into the receive buffer.
    if (bp.in_place) addReduce(last, upper, mine, ReduceOrder::DstFirst);
    else addReduce(last, mine, upper, ReduceOrder::SrcFirst);
    return s;
  }
  if (r < p - 1) addReduce(last, upper, lower, ReduceOrder::DstFirst);  // (0 .. r) op (r+1 .. p-1)
  if (bp.in_place) addCopy(last, lower, span(BufferId::Recv, 0, n));
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(ReduceScatter, "pairwise", buildPairwiseReduceScatter);

}  // namespace topocoll
