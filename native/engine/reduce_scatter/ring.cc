// Ring reduce_scatter (Open MPI reduce_scatter_intra_ring; the first half of ring allreduce): at
// step k rank r sends the partial result of part r-k-1 to r+1 and combines its operand into the
// partial result of part r-k-2 received from r-1, so after p-1 steps it holds part r complete.
// Each rank sends its vector but its part once, in p-1 steps to one neighbour: for long vectors
// on any p. Part b's partial result travels b+1, b+2, ..., b, each rank putting its operand on
// the right: not rank order, so commutative ops only. Two parts of scratch, alternating: the one
// combined at a step is sent on at the next. Parts of any size, empty ones not sent.
#include <algorithm>

#include "../algorithm_registry.h"
#include "../reduce/accumulator.h"
#include "parts.h"

namespace topocoll {

Schedule buildRingReduceScatter(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const reduce_scatter::Parts parts(bp);
  const int64_t n = parts.count(r);
  const BufferId source = bp.in_place ? BufferId::Recv : BufferId::Send;  // my operand, the whole vector
  if (p == 1) return reduction::alone(bp.in_place, n);
  if (parts.total() == 0) return s;
  auto part = [&](BufferId buf, int b) { return span(buf, parts.first(b), parts.count(b)); };
  int64_t longest = 0;
  for (int b = 0; b < p; ++b) longest = std::max(longest, parts.count(b));
  auto scratch = [&](int k, int b) {
    const BlockSpan at = span(BufferId::Tmp, (k % 2) * longest, parts.count(b));
    s.tmp_blocks = std::max(s.tmp_blocks, at.first + at.count);
    return at;
  };
  for (int k = 0; k < p - 1; ++k) {
    const int send_part = ringIndex(r - k - 1, p), recv_part = ringIndex(r - k - 2, p);
    Round& round = s.newRound();
    // Step 0 sends my own operand; later steps the partial result combined at the step before.
    if (parts.count(send_part) > 0) addSend(round, ringIndex(r + 1, p), k == 0 ? part(source, send_part) : scratch(k - 1, send_part));
    if (parts.count(recv_part) > 0) {
      // The last step's part is mine: not in place, it is received and combined in the receive
      // buffer; in place it goes there last, over operands no longer needed.
      const bool into_recv = k == p - 2 && !bp.in_place;
      const BlockSpan partial = into_recv ? span(BufferId::Recv, 0, n) : scratch(k, recv_part);
      addRecv(round, ringIndex(r - 1, p), partial);
      addReduce(round, part(source, recv_part), partial, ReduceOrder::DstFirst);
      if (k == p - 2 && bp.in_place) addCopy(round, partial, span(BufferId::Recv, 0, n));
    }
    if (round.ops.empty()) s.rounds.pop_back();
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(ReduceScatter, "ring", buildRingReduceScatter);

}  // namespace topocoll
