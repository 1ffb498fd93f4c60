// Seed 001's data-tiled alltoall: pairwise exchange (r xor i on power-of-two sizes, else send to
// r+i and receive from r-i), with every block cut into tiles that fit the shared cache, so that
// what one exchange moves is still in cache when the next copy touches it. The tile is
// TOPOCOLL_ALLTOALL_TILE_BYTES, or the last-level cache divided among the ranks sharing it and
// by 4 (a tile is read and written on both sides, plus the MPI's own copies).
#include <algorithm>

#include "../algorithm_registry.h"
#include "../hierarchy/compose.h"

namespace topocoll {
namespace {

constexpr int64_t kDefaultTileBytes = 256 << 10;  // without a detected cache (tools)

int64_t tileBytes(const BuildParams& bp) {
  if (bp.tile_bytes > 0) return bp.tile_bytes;
  if (!bp.hierarchy || bp.hierarchy->sharedCacheBytes() <= 0) return kDefaultTileBytes;
  return std::max<int64_t>(4096, bp.hierarchy->sharedCacheBytes() / (4 * bp.hierarchy->sharedCacheRanks()));
}

}  // namespace

Schedule buildTiledAlltoall(const BuildParams& bp) {
  Schedule s;
  const int p = bp.p, me = bp.rank;
  const int64_t c = bp.count;
  if (c == 0) return s;
  const int64_t tile = std::clamp<int64_t>(tileBytes(bp) / std::max<int64_t>(bp.element_bytes, 1), 1, c);
  // Spans in elements when blocks are cut, else in blocks.
  const bool cut = tile < c;
  s.units_per_block = cut ? c : 1;
  const int64_t per_block = cut ? c : 1;  // units of one block
  const int64_t tile_units = cut ? tile : 1;
  BufferId from = BufferId::Send;
  if (bp.in_place) {
    // The receive buffer is overwritten as blocks arrive: send from a copy.
    s.tmp_blocks = p;
    addCopy(s.newRound(), span(BufferId::Recv, 0, p * per_block), span(BufferId::Tmp, 0, p * per_block));
    from = BufferId::Tmp;
  } else {
    addCopy(s.newRound(), span(BufferId::Send, me * per_block, per_block), span(BufferId::Recv, me * per_block, per_block));
  }
  const bool pow2 = (p & (p - 1)) == 0;
  for (int i = 1; i < p; ++i) {
    const int to = pow2 ? me ^ i : (me + i) % p;
    const int src = pow2 ? me ^ i : (me - i + p) % p;
    for (int64_t t = 0; t < per_block; t += tile_units) {
      const int64_t n = std::min(tile_units, per_block - t);
      Round& r = s.newRound();
      addSend(r, to, span(from, to * per_block + t, n));
      addRecv(r, src, span(BufferId::Recv, src * per_block + t, n));
    }
  }
  return s;
}

TOPOCOLL_REGISTER_ALGORITHM(Alltoall, "tiled", buildTiledAlltoall);

}  // namespace topocoll
