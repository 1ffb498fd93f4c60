// reduce_scatter_block by reduce_scatter's recursive_halving (reduce_scatter/recursive_halving.cc): p parts of
// BuildParams::count elements each (BuildParams::recv_counts is null).
#include "../algorithm_registry.h"
#include "../reduce_scatter/parts.h"

namespace topocoll {

TOPOCOLL_REGISTER_ALGORITHM(ReduceScatterBlock, "recursive_halving", buildRecursiveHalvingReduceScatter);

}  // namespace topocoll
