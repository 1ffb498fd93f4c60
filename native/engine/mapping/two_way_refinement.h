// State and refinement of a bisection: internal/external incident weights per vertex, side
// weights and cut, Fiduccia–Mattheyses passes and a balancing step.
//
// Balance is lexicographic: first the excess over the tolerance, then the cut, then the distance
// to the exact target. A tolerance of 0 on unit vertex weights makes sides exact: a pass may
// stray one vertex off target (so moves alternate, i.e. swaps) but only exact states are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/graph_view.h"
#include "mapping/indexed_max_heap.h"
#include "mapping/scan_max_queue.h"

namespace topocoll::mapping::detail {

struct TwoWayPartition {
  std::vector<uint8_t> where;  // side of each vertex, 0 or 1
  std::vector<int64_t> id;     // weight of edges to the vertex's own side
  std::vector<int64_t> ed;     // weight of edges to the other side (> 0: boundary vertex)
  int64_t pw[2] = {0, 0};      // vertex weight per side
  int64_t cut = 0;
};

struct BalanceTarget {
  int64_t target0 = 0;    // wanted weight of side 0; side 1 gets the rest
  int64_t tolerance = 0;  // deviation allowed without penalty (0 at the finest level)
  int64_t slack = 1;      // extra deviation a pass may pass through on its way to a better state

  int64_t excess(int64_t pw0) const {
    const int64_t d = pw0 > target0 ? pw0 - target0 : target0 - pw0;
    return d > tolerance ? d - tolerance : 0;
  }
};

struct RefinementScratch {
  IndexedMaxHeap heap[2];
  ScanMaxQueue scan[2];  // used instead of heap for graphs of up to kScanQueueVertices
  std::vector<uint8_t> locked;
  std::vector<int32_t> moves;
};

// id, ed, pw and cut from `where` (which must be sized g.n).
void computeTwoWayPartition(const GraphView& g, TwoWayPartition& p);

// Fine state from the coarse one. Vertices of interior coarse vertices are interior, so only
// boundary coarse vertices cost a look at the neighbours' sides.
void projectTwoWayPartition(const GraphView& fine, const int32_t* cmap, const TwoWayPartition& coarse,
                            TwoWayPartition& p);

// Moves the cheapest vertices off the heavy side until the excess is 0 (always reached on unit
// weights; on heavier vertices, as close as single moves get).
void balanceTwoWay(const GraphView& g, TwoWayPartition& p, const BalanceTarget& target, RefinementScratch& s);

// Graphs up to this size use ScanMaxQueue in FM.
constexpr int kScanQueueVertices = 64;

// Up to max_passes FM passes over boundary vertices; each pass rolls back to its best state and
// the loop stops at the first pass that finds nothing better.
void refineTwoWay(const GraphView& g, TwoWayPartition& p, const BalanceTarget& target, int max_passes,
                  RefinementScratch& s);

}  // namespace topocoll::mapping::detail
