// The multilevel hierarchy of one (sub)graph: its coarse levels and the maps between them.
// A bisection builds it; the recursion hands each side the hierarchy restricted to that side,
// so children start from coarse levels instead of coarsening again.
#pragma once

#include <cstdint>
#include <vector>

#include "mapping/graph_view.h"

namespace topocoll::mapping::detail {

struct Hierarchy {
  std::vector<OwnedGraph> coarse;            // coarse[i] is level i+1 (level 0: the graph itself)
  std::vector<RawArray<int32_t>> cmap;       // cmap[i][v]: vertex of level i+1 containing v of level i

  int depth() const { return static_cast<int>(coarse.size()); }
  void truncate(int levels) {
    coarse.resize(static_cast<size_t>(levels));
    cmap.resize(static_cast<size_t>(levels));
  }
};

}  // namespace topocoll::mapping::detail
