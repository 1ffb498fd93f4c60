// Bruck alltoall (Bruck et al. 1997; seed 002; MPICH alltoall_intra_brucks): ceil(log p) steps
// instead of p-1, each moving about half the blocks, so lg p / 2 times the data: MPICH's choice
// for short blocks on 8 or more ranks. Three phases on a working copy W (in tmp):
//   1. W[i] = my block for rank r+i (a rotation by r);
//   2. at step 2^k send every W[i] with bit k of i set to r+2^k, and receive the same positions
//      from r-2^k: a block for r+i then travels i ranks, bit by bit;
//   3. W[i] now holds the block of rank r-i for me: reverse into the receive buffer.
// MPICH packs phase 2 with an indexed datatype; here the blocks of a step are packed into a
// contiguous area of tmp by copies (a step's blocks form runs of 2^k) and unpacked likewise.
#include <algorithm>
#include <vector>

#include "../algorithm_registry.h"

namespace topocoll {
namespace {

// The positions i < p with bit `pof2` set: runs [first, first + count).
std::vector<BlockSpan> stepRuns(int p, int pof2) {
  std::vector<BlockSpan> runs;
  for (int first = pof2; first < p; first += 2 * pof2) runs.push_back(span(BufferId::Tmp, first, std::min(pof2, p - first)));
  return runs;
}

int64_t blocksOf(const std::vector<BlockSpan>& runs) {
  int64_t n = 0;
  for (const BlockSpan& b : runs) n += b.count;
  return n;
}

}  // namespace

Schedule buildBruckAlltoall(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, r = bp.rank;
  const BufferId from = bp.in_place ? BufferId::Recv : BufferId::Send;
  if (p == 1) {
    if (!bp.in_place) addCopy(s.newRound(), span(BufferId::Send, 0, 1), span(BufferId::Recv, 0, 1));
    return s;
  }
  // tmp: W = [0, p), then the packed outgoing blocks of a step, then the packed incoming ones.
  int64_t most = 0;
  for (int pof2 = 1; pof2 < p; pof2 *= 2) most = std::max(most, blocksOf(stepRuns(p, pof2)));
  const int64_t packed_out = p, packed_in = p + most;
  s.tmp_blocks = p + 2 * most;

  // Packs the blocks of step pof2, unless they form one run that can be sent as it is.
  auto pack = [&](Round& round, int pof2) {
    std::vector<BlockSpan> runs = stepRuns(p, pof2);
    if (runs.size() == 1) return runs[0];
    int64_t at = packed_out;
    for (const BlockSpan& run : runs) {
      addCopy(round, run, span(BufferId::Tmp, at, run.count));
      at += run.count;
    }
    return span(BufferId::Tmp, packed_out, at - packed_out);
  };

  // Phase 1 (the in-place source is copied out of the receive buffer here, before anything arrives).
  Round* round = &s.newRound();
  addCopy(*round, span(from, r, p - r), span(BufferId::Tmp, 0, p - r));
  if (r > 0) addCopy(*round, span(from, 0, r), span(BufferId::Tmp, p - r, r));
  BlockSpan outgoing = pack(*round, 1);
  // Phase 2: a round's copies run after its transfers, so each round unpacks what it received
  // and packs what the next one sends.
  for (int pof2 = 1; pof2 < p; pof2 *= 2) {
    round = &s.newRound();
    addSend(*round, (r + pof2) % p, outgoing);
    addRecv(*round, (r - pof2 + p) % p, span(BufferId::Tmp, packed_in, outgoing.count));
    int64_t at = packed_in;
    for (const BlockSpan& run : stepRuns(p, pof2)) {
      addCopy(*round, span(BufferId::Tmp, at, run.count), run);
      at += run.count;
    }
    if (pof2 * 2 < p) outgoing = pack(*round, pof2 * 2);
  }
  // Phase 3: W[i] is the block of rank r-i.
  for (int i = 0; i < p; ++i) addCopy(*round, span(BufferId::Tmp, i, 1), span(BufferId::Recv, (r - i + p) % p, 1));
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Alltoall, "bruck", buildBruckAlltoall);

}  // namespace topocoll
