// One multilevel bisection: coarsen by heavy-edge matching, bisect the coarsest graph by
// levelized nested dissection (several roots, best kept), then project back level by level with
// FM refinement. Coarse levels allow a small imbalance; the finest level is made exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/coarsening.h"
#include "mapping/graph_view.h"
#include "mapping/hierarchy.h"
#include "mapping/initial_bisection.h"
#include "mapping/two_way_refinement.h"

namespace topocoll::mapping::detail {

struct BisectionOptions {
  int coarsen_to = 48;       // stop coarsening at this many vertices
  int initial_tries = 4;     // LND bisections (2 per root) tried on the coarsest graph
  int refined_tries = 2;     // how many of the best of them get FM refinement
  int refine_passes = 8;     // FM passes per level
  int64_t coarse_tolerance_ppm = 2000;  // allowed imbalance on coarse levels, parts per million
};

// Scratch reused across bisections (the recursion runs ~h of them), so small subgraphs cost
// no allocation.
struct BisectionWorkspace {
  std::vector<TwoWayPartition> states;       // per level
  std::vector<TwoWayPartition> candidates;  // initial bisections kept for refinement
  CoarseningScratch coarsening;
  RefinementScratch refinement;
  BfsScratch bfs;
};

// Splits g into side 0 of weight target0 and side 1 of the rest; exact when g has unit vertex
// weights. Returns the cut; `where` receives the sides. `hierarchy` may hold coarse levels of g
// already (restricted from the parent); it is extended until a level has at most coarsen_to
// vertices, and left holding every level used.
int64_t multilevelBisection(const GraphView& g, Hierarchy& hierarchy, int64_t target0, uint64_t seed,
                            const BisectionOptions& options, BisectionWorkspace& ws, BlockPool* pool,
                            std::vector<uint8_t>& where);

}  // namespace topocoll::mapping::detail
