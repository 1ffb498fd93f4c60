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
  std::vector<int32_t> local_id;       // vertex -> id within its side, current level
  std::vector<int32_t> coarse_local;   // the same one level up
  std::vector<uint8_t> coarse_side;    // side of each vertex one level up (2: not seen yet)
  std::vector<uint8_t> coarse_side_fine;  // the previous level's sides, once stepped up
};

// For each side s with want[s], out[s] = the subgraph induced by {v : where[v] == s}, vertices
// renumbered in order, labels[v] carried over (labels == nullptr: v itself), and the restricted
// hierarchy down to the first level with at most coarsen_to vertices. One pass per level.
// Buffers come from `pool`.
void splitBySide(const GraphView& g, const std::vector<uint8_t>& where, const int32_t* labels, const Hierarchy& hierarchy,
                 int coarsen_to, const bool want[2], BlockPool* pool, Subproblem out[2], ExtractionScratch& scratch);

}  // namespace topocoll::mapping::detail
