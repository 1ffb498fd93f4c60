// Recursive doubling allgather (seed 000; MPICH allgather_intra_recursive_doubling): at step k
// rank r exchanges everything its subtree of 2^k ranks holds with r xor 2^k, so log p steps move
// p-1 blocks. MPICH's own non-power-of-two scheme forwards what missing partners would have sent
// inside each subtree; we fold in instead, which keeps every message's size known in advance:
// with q = 2^floor(log p), rank q+j first hands its block to rank j, the q low ranks run the
// power-of-two algorithm (a subtree then also holds its extras' blocks, a second span), and rank
// j finally sends the whole result to q+j. floor(log p) + 2 steps, at most 2 floor(log p).
#include <algorithm>
#include <string>

#include "../algorithm_registry.h"

namespace topocoll {
namespace {

// Blocks [first, first + n) of the low ranks and the blocks of the extra ranks folded into them.
void addSubtreeSpans(Round& round, bool sending, int peer, int first, int n, int q, int p) {
  if (sending) addSend(round, peer, span(BufferId::Recv, first, n));
  else addRecv(round, peer, span(BufferId::Recv, first, n));
  const int extra_first = first + q, extra_n = std::min(n, p - extra_first);
  if (extra_n <= 0) return;
  if (sending) addSend(round, peer, span(BufferId::Recv, extra_first, extra_n));
  else addRecv(round, peer, span(BufferId::Recv, extra_first, extra_n));
}

}  // namespace

Schedule buildRecursiveDoublingAllgather(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  int q = 1;
  while (q * 2 <= p) q *= 2;
  if (q != p) s.note = "non-power-of-two p: fold-in (ranks >= " + std::to_string(q) + " hand their block to rank - " + std::to_string(q) + " first and get the result back last)";

  // Fold-in, with the own-block copy of the non-in-place call in the same round.
  Round& first = s.newRound();
  if (!bp.in_place) addCopy(first, span(BufferId::Send, 0, 1), span(BufferId::Recv, r, 1));
  if (r >= q) {
    addSend(first, r - q, bp.in_place ? span(BufferId::Recv, r, 1) : span(BufferId::Send, 0, 1));
    // The result, around the block we already hold.
    Round& last = s.newRound();
    addRecv(last, r - q, span(BufferId::Recv, 0, r));
    if (r + 1 < p) addRecv(last, r - q, span(BufferId::Recv, r + 1, p - r - 1));
    return s;
  }
  if (r + q < p) addRecv(first, r + q, span(BufferId::Recv, r + q, 1));
  if (first.ops.empty()) s.rounds.pop_back();

  for (int mask = 1; mask < q; mask *= 2) {
    const int partner = r ^ mask;
    const int mine = r & ~(mask - 1), theirs = partner & ~(mask - 1);
    Round& round = s.newRound();
    addSubtreeSpans(round, true, partner, mine, mask, q, p);
    addSubtreeSpans(round, false, partner, theirs, mask, q, p);
  }

  if (r + q < p) {
    Round& last = s.newRound();
    addSend(last, r + q, span(BufferId::Recv, 0, r + q));
    if (r + q + 1 < p) addSend(last, r + q, span(BufferId::Recv, r + q + 1, p - r - q - 1));
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "recursive_doubling", buildRecursiveDoublingAllgather);

}  // namespace topocoll
