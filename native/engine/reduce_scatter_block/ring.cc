// reduce_scatter_block by reduce_scatter's ring (reduce_scatter/ring.cc): p parts of
// BuildParams::count elements each (BuildParams::recv_counts is null).
#include "../algorithm_registry.h"
#include "../reduce_scatter/parts.h"

namespace topocoll {

TOPOCOLL_REGISTER_ALGORITHM(ReduceScatterBlock, "ring", buildRingReduceScatter);

}  // namespace topocoll
