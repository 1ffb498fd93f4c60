// Ring allreduce (Patarasuk & Yuan; Open MPI allreduce_intra_ring_segmented): the vector is cut
// into p blocks; a ring reduce-scatter (p-1 steps: send block r-k to r+1, combine block r-k-1
// received from r-1) leaves rank r with block r+1 complete, and a ring allgather (p-1 steps)
// passes the complete blocks on. Each rank sends 2(p-1)/p n elements, the bandwidth minimum, in
// 2(p-1) steps: for long vectors on any p. The reduce-scatter moves blocks in segments, so that
// the scratch buffer stays small and each combination runs on data still in cache.
// Block b's partial result travels b+1, b+2, ..., b: not rank order, so commutative ops only.
// Each element is combined on one rank (the received partial result on the left), then copied:
// every rank gets the same bits.
#include <algorithm>

#include "../algorithm_registry.h"
#include "../reduce/accumulator.h"

namespace topocoll {
namespace {

// Bytes of a reduce-scatter segment when the builder is not told (BuildParams::segment_blocks).
constexpr int64_t kSegmentBytes = 256 * 1024;

}  // namespace

Schedule buildRingAllreduce(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const int64_t n = bp.count;
  if (p == 1) return reduction::alone(bp.in_place, n);
  auto first = [&](int b) { return static_cast<int64_t>(b) * n / p; };
  auto mod = [&](int b) { return ((b % p) + p) % p; };
  const int right = mod(r + 1), left = mod(r - 1);
  int64_t segment = bp.segment_blocks > 0 ? bp.segment_blocks : std::max<int64_t>(1, kSegmentBytes / std::max<int64_t>(1, bp.element_bytes));
  const int64_t longest = (n + p - 1) / p;  // blocks hold floor(n/p) or ceil(n/p) elements
  segment = std::min(segment, std::max<int64_t>(longest, 1));
  const int64_t segments = (longest + segment - 1) / segment;
  // Each block is combined once, the partial result from the left arriving while mine is where
  // the call put it: the receive buffer in place (the partial result waits in tmp), else the send
  // buffer (the partial result lands straight in the receive buffer).
  const reduction::Accumulator fresh = reduction::inReceiveBuffer(bp.in_place);

  for (int k = 0; k < p - 1; ++k) {
    const int send_block = mod(r - k), recv_block = mod(r - k - 1);
    for (int64_t j = 0; j < segments; ++j) {
      const int64_t send_first = first(send_block) + j * segment, recv_first = first(recv_block) + j * segment;
      const int64_t send_n = std::min(segment, first(send_block + 1) - send_first);
      const int64_t recv_n = std::min(segment, first(recv_block + 1) - recv_first);
      Round& round = s.newRound();
      // Block r is sent from my operand; every other block after it was combined into recv.
      if (send_n > 0) addSend(round, right, k > 0 ? span(BufferId::Recv, send_first, send_n) : fresh.operand(send_first, send_n));
      // The partial result on the left: combined "as from a lower rank".
      if (recv_n > 0) reduction::Accumulator(fresh).receiveAndCombine(s, round, left, true, recv_first, recv_n);
      if (round.ops.empty()) s.rounds.pop_back();
    }
  }
  for (int k = 0; k < p - 1; ++k) {
    const int send_block = mod(r + 1 - k), recv_block = mod(r - k);
    const int64_t send_n = first(send_block + 1) - first(send_block), recv_n = first(recv_block + 1) - first(recv_block);
    Round& round = s.newRound();
    if (send_n > 0) addSend(round, right, span(BufferId::Recv, first(send_block), send_n));
    if (recv_n > 0) addRecv(round, left, span(BufferId::Recv, first(recv_block), recv_n));
    if (round.ops.empty()) s.rounds.pop_back();
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Allreduce, "ring", buildRingAllreduce);

}  // namespace topocoll
