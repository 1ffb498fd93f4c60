// After a bisection, the recursion continues on each side's induced subgraph (cut edges are
// paid for and dropped), together with the coarse levels of the parent restricted to that side:
// a coarse vertex lying wholly on one side contracts exactly the same vertices in the child, so
// as long as no coarse vertex straddles the cut, each level restricts to a valid coarse level of
// the child. Levels from the first straddling one on are dropped (the child coarsens afresh).
#pragma once

#include <cstdint>
#include <vector>

#include "mapping/graph_view.h"
#include "mapping/hierarchy.h"

namespace topocoll::mapping::detail {

// A graph still to be split further: vertices carry the caller's original ids in `labels`.
struct Subproblem {
  OwnedGraph graph;
  RawArray<int32_t> labels;  // empty: the caller's graph, labels are the vertex ids
  Hierarchy hierarchy;
};

struct ExtractionScratch {
  struct Level {
    std::vector<int32_t> code;  // per vertex: side and id within it
    int count[2] = {0, 0};      // vertices per side
    bool want[2] = {false, false};
  };
  std::vector<Level> levels;         // level 0: the graph itself, then the restricted coarse levels
  std::vector<uint8_t> coarse_side;  // side of each coarse vertex (2: not seen yet)
};

// For each side s with want[s], out[s] = the subgraph induced by {v : where[v] == s}, vertices
// renumbered in order, labels[v] carried over (labels == nullptr: v itself), and the restricted
// hierarchy down to the first level with at most coarsen_to vertices. One pass over the edges
// per level. The levels of `hierarchy` used are released on the way (the rest stays); buffers
// come from `pool`.
void splitBySide(const GraphView& g, const std::vector<uint8_t>& where, const int32_t* labels, Hierarchy& hierarchy,
                 int coarsen_to, const bool want[2], BlockPool* pool, Subproblem out[2], ExtractionScratch& scratch);

}  // namespace topocoll::mapping::detail
