// Initial bisection of the coarsest graph by levelized nested dissection: a breadth-first
// level structure rooted at a pseudo-peripheral vertex, cut where the grown side reaches its
// target weight. Rooting at a far end makes the levels thin, so the cut between them is small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/graph_view.h"

namespace topocoll::mapping::detail {

struct BfsScratch {
  std::vector<int32_t> queue;
  std::vector<int32_t> seen;  // stamp per vertex
  int32_t stamp = 0;
};

// A vertex of (nearly) maximal eccentricity in start's component: repeated BFS to the last
// vertex reached, while the depth grows.
int32_t pseudoPeripheralVertex(const GraphView& g, int32_t start, BfsScratch& s);

// where[v] = grow_side for the vertices taken in BFS order from root until grow_target is
// reached (the vertex that would overshoot is taken only if that lands closer), 1 - grow_side
// for the rest. Other components are entered in vertex order when the root's runs out.
void levelizedBisection(const GraphView& g, int32_t root, uint8_t grow_side, int64_t grow_target, BfsScratch& s,
                        std::vector<uint8_t>& where);

}  // namespace topocoll::mapping::detail
