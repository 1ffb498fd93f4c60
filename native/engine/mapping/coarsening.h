// One coarsening step of the multilevel scheme: heavy-edge matching (each vertex, in index
// order, pairs with its unmatched neighbour of heaviest edge) and contraction of matched pairs.
// Heavy edges vanish inside coarse vertices, so the coarse graph's cuts are cheap fine cuts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/graph_view.h"

namespace topocoll::mapping::detail {

struct CoarseningScratch {
  std::vector<int32_t> match;
  std::vector<int32_t> slot;  // coarse vertex -> its position in the row being built, or -1
};

// Contracts `fine` into `coarse`; cmap[v] is the coarse vertex of fine vertex v. Pairs heavier
// than max_pair_weight stay unmatched, so coarse vertices stay small enough to balance.
// Buffers come from `pool`. Returns the number of coarse vertices.
int coarsenOnce(const GraphView& fine, int32_t max_pair_weight, CoarseningScratch& scratch, BlockPool* pool,
                OwnedGraph& coarse, RawArray<int32_t>& cmap);

}  // namespace topocoll::mapping::detail
