// Scatter-allgather bcast (van de Geijn; MPICH bcast_intra_scatter_ring_allgather): the vector is
// cut into p pieces of ceil(count/p) elements (the last ones shorter or empty when count is not a
// multiple of p), scattered down the binomial tree, then gathered back by a ring. About 2x the
// message on the wire instead of log p times it: MPICH's choice for long messages.
// Ranks are relative to the root; piece v belongs to relative rank v.
#include <algorithm>

#include "../algorithm_registry.h"

namespace topocoll {
namespace {

// Elements of pieces [a, b), clipped to the vector.
struct Pieces {
  int64_t count, piece;
  BlockSpan of(int64_t a, int64_t b) const {
    const int64_t first = std::min(a * piece, count), end = std::min(b * piece, count);
    return span(BufferId::Recv, first, end - first);
  }
};

}  // namespace

Schedule buildScatterAllgatherBcast(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, root = bp.root;
  if (p == 1 || bp.count == 0) return s;
  const int vr = (bp.rank - root + p) % p;
  auto rank_of = [&](int v) { return (v + root) % p; };
  const Pieces pieces{bp.count, (bp.count + p - 1) / p};

  // Scatter: my subtree is [vr, vr + lowest set bit of vr) (the root's: everyone).
  int subtree = 1;
  while (subtree < p && !(vr & subtree)) subtree <<= 1;
  if (vr != 0) {
    BlockSpan mine = pieces.of(vr, std::min(vr + subtree, p));
    if (mine.count > 0) addRecv(s.newRound(), rank_of(vr - subtree), mine);
  }
  Round children;
  for (int mask = subtree >> 1; mask > 0; mask >>= 1) {
    if (vr + mask >= p) continue;
    BlockSpan theirs = pieces.of(vr + mask, std::min(vr + 2 * mask, p));
    if (theirs.count > 0) addSend(children, rank_of(vr + mask), theirs);
  }
  if (!children.ops.empty()) s.rounds.push_back(std::move(children));

  // Ring allgather of the pieces: at step i send piece vr-i right and receive piece vr-i-1 from
  // the left. The root holds every piece already: nobody sends to it and it only forwards.
  const int right = (vr + 1) % p, left = (vr - 1 + p) % p;
  for (int i = 0; i < p - 1; ++i) {
    const int out = (vr - i + p) % p, in = (vr - i - 1 + p) % p;
    Round round;
    if (right != 0) {
      BlockSpan piece = pieces.of(out, out + 1);
      if (piece.count > 0) addSend(round, rank_of(right), piece);
    }
    if (vr != 0) {
      BlockSpan piece = pieces.of(in, in + 1);
      if (piece.count > 0) addRecv(round, rank_of(left), piece);
    }
    if (!round.ops.empty()) s.rounds.push_back(std::move(round));
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Bcast, "scatter_allgather", buildScatterAllgatherBcast);

}  // namespace topocoll
