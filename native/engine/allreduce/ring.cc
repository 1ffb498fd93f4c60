// Ring allreduce (Patarasuk & Yuan; Open MPI allreduce_intra_ring_segmented): the vector is cut
// into p blocks; a ring reduce-scatter (p-1 steps: send block r-k to r+1, combine block r-k-1
// received from r-1) leaves rank r with block r+1 complete, and a ring allgather (p-1 steps)
// passes the complete blocks on. Each rank sends 2(p-1)/p n elements, the bandwidth minimum, in
// 2(p-1) steps: for long vectors on any p. Both phases move blocks in segments, each a round of
// its own, and the executor posts up to kMaxRoundsAhead rounds ahead (Schedule::overlap_rounds):
// segment j of step k waits only for segment j of step k-1, so the link carries the next segments
// while one is combined or its rank waits for a core, instead of idling at every step. Segments
// stay below the eager limit of the TCP transports (Open MPI's btl_tcp_eager_limit is 64 KiB):
// a send then completes without a rendezvous round trip.
// Block b's partial result travels b+1, b+2, ..., b: not rank order, so commutative ops only.
// Each element is combined on one rank (the received partial result on the left), then copied:
// every rank gets the same bits.
#include <algorithm>

#include "../algorithm_registry.h"
#include "../reduce/accumulator.h"

namespace topocoll {

// Segments (reduction::segmentElements): emulated cluster, 4 hosts x 2 ranks, 1 Gbit/s, a loaded
// machine (docs/benchmarks.md): 1 MiB 1.15-1.87x faster than Open MPI (median 1.71x) with 32 KiB
// segments overlapped, 0.65-1.66x (0.81x) with the 256 KiB segments of lockstep rounds (on a
// quiet machine 15.4 against 16.1-17.2 ms).
Schedule buildRingAllreduce(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const int64_t n = bp.count;
  if (p == 1) return reduction::alone(bp.in_place, n);
  auto first = [&](int b) { return static_cast<int64_t>(b) * n / p; };
  const int right = ringIndex(r + 1, p), left = ringIndex(r - 1, p);
  const int64_t longest = (n + p - 1) / p;  // blocks hold floor(n/p) or ceil(n/p) elements
  const int64_t segment = reduction::segmentElements(bp.segment_blocks, bp.element_bytes, longest);
  const int64_t segments = (longest + segment - 1) / segment;
  auto segmentOf = [&](int b, int64_t j) { return reduction::segmentOf(first(b), first(b + 1) - first(b), segment, j); };
  s.overlap_rounds = true;
  // Each block is combined once, the partial result from the left arriving while mine is where
  // the call put it: the receive buffer in place (the partial result waits in tmp), else the send
  // buffer (the partial result lands straight in the receive buffer).
  const reduction::Accumulator fresh = reduction::inReceiveBuffer(bp.in_place);
  int64_t received = 0;
  for (int k = 0; k < p - 1; ++k) {
    for (int64_t j = 0; j < segments; ++j) {
      const auto [send_first, send_n] = segmentOf(ringIndex(r - k, p), j);
      const auto [recv_first, recv_n] = segmentOf(ringIndex(r - k - 1, p), j);
      Round& round = s.newRound();
      // Block r is sent from my operand; every other block after it was combined into recv.
      if (send_n > 0) addSend(round, right, k > 0 ? span(BufferId::Recv, send_first, send_n) : fresh.operand(send_first, send_n));
      // The partial result on the left: combined "as from a lower rank". In place it waits in
      // tmp, in one of kRoundsInFlight places in turn, so that the rounds posted ahead do
      // not receive into a place still to be combined.
      reduction::Accumulator acc = fresh;
      acc.scratch = (received++ % kRoundsInFlight) * segment;
      if (recv_n > 0) acc.receiveAndCombine(s, round, left, true, recv_first, recv_n);
      if (round.ops.empty()) s.rounds.pop_back();
    }
  }
  for (int k = 0; k < p - 1; ++k) {
    for (int64_t j = 0; j < segments; ++j) {
      const auto [send_first, send_n] = segmentOf(ringIndex(r + 1 - k, p), j);
      const auto [recv_first, recv_n] = segmentOf(ringIndex(r - k, p), j);
      Round& round = s.newRound();
      if (send_n > 0) addSend(round, right, span(BufferId::Recv, send_first, send_n));
      if (recv_n > 0) addRecv(round, left, span(BufferId::Recv, recv_first, recv_n));
      if (round.ops.empty()) s.rounds.pop_back();
    }
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "ring", buildRingAllreduce);

}  // namespace topocoll
