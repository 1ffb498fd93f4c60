// Neighbor exchange allgather (seed 000 §3; Open MPI allgather_intra_neighborexchange). Even p:
// at step 1 even ranks swap their block with the right neighbour, odd ranks with the left; from
// then on ranks alternate between their two neighbours and swap the pair of blocks received in
// the previous step: p/2 steps, every message between ring neighbours (ALCD 2-2/p, or
// 2-4/p+4/p^2 when p = 2 mod 4), which suits long messages.
// Odd p (seed 000): rank p-1 first hands its block to p-2 and sits out; ranks 0..p-2 run the
// even algorithm, p-2's "block" being blocks p-2 and p-1 together; at the end p-2 sends
// everything to p-1: (p+3)/2 steps.
#include <algorithm>

#include "../algorithm_registry.h"

namespace topocoll {
namespace {

// The receive buffer seen by the ranks 0..q-1 of the even algorithm: virtual block j is recv
// block j, except that the last one also carries the block of the rank that sat out.
struct VirtualBlocks {
  int q;
  bool odd;  // p = q + 1
  BlockSpan blocks(int first, int n) const {
    const int extra = odd && first + n == q ? 1 : 0;
    return span(BufferId::Recv, first, n + extra);
  }
};

}  // namespace

Schedule buildNeighborExchangeAllgather(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const BlockSpan own = bp.in_place ? span(BufferId::Recv, r, 1) : span(BufferId::Send, 0, 1);
  if (p == 1) {
    if (!bp.in_place) addCopy(s.newRound(), own, span(BufferId::Recv, 0, 1));
    return s;
  }
  const bool odd = p % 2 == 1;
  const int q = odd ? p - 1 : p;
  const VirtualBlocks vb{q, odd};

  if (odd && r == p - 1) {
    // Hand my block to p-2, then sit out until it has everything.
    Round& start = s.newRound();
    if (!bp.in_place) addCopy(start, own, span(BufferId::Recv, r, 1));
    addSend(start, p - 2, own);
    addRecv(s.newRound(), p - 2, span(BufferId::Recv, 0, p - 1));
    return s;
  }
  // What I send first: my block from where it is, or for p-2 (odd p) my block and p-1's, which
  // must be in the receive buffer before that round.
  BlockSpan first_send = own;
  if (odd && r == p - 2) {
    Round& start = s.newRound();
    if (!bp.in_place) addCopy(start, own, span(BufferId::Recv, r, 1));
    addRecv(start, p - 1, span(BufferId::Recv, p - 1, 1));
    first_send = vb.blocks(r, 1);
  }

  // Open MPI's formulation: neighbor[0] is the partner of odd steps, neighbor[1] of even ones;
  // recv_from[k] is the first block of the pair last received from neighbor[k].
  const bool even_rank = r % 2 == 0;
  const int neighbor[2] = {even_rank ? (r + 1) % q : (r - 1 + q) % q, even_rank ? (r - 1 + q) % q : (r + 1) % q};
  const int offset[2] = {even_rank ? 2 : -2, even_rank ? -2 : 2};
  int recv_from[2] = {even_rank ? r : neighbor[0], even_rank ? r : neighbor[0]};
  {
    Round& round = s.newRound();
    addSend(round, neighbor[0], first_send);
    addRecv(round, neighbor[0], vb.blocks(neighbor[0], 1));
    // Files my block after the round's receive (a copy runs after it): no round of its own.
    if (!bp.in_place && !(odd && r == p - 2)) addCopy(round, own, span(BufferId::Recv, r, 1));
  }
  // The pair sent next: both blocks I now hold, starting at the even one.
  int send_from = even_rank ? r : neighbor[0];
  for (int step = 1; step < q / 2; ++step) {
    const int k = step % 2;
    recv_from[k] = (recv_from[k] + offset[k] + q) % q;
    Round& round = s.newRound();
    addSend(round, neighbor[k], vb.blocks(send_from, 2));
    addRecv(round, neighbor[k], vb.blocks(recv_from[k], 2));
    send_from = recv_from[k];
  }

  if (odd && r == p - 2) addSend(s.newRound(), p - 1, span(BufferId::Recv, 0, p - 1));
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "neighbor_exchange", buildNeighborExchangeAllgather);

}  // namespace topocoll
