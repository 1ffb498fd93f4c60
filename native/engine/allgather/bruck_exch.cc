// Bruck exch (seed 004): each rank first swaps its block with the rank that runs its number
// under pi, then Bruck runs under pi in place (any p).
// pi places the heaviest edges of the base's information graph inside nodes and is computed
// once per communicator (mapping/remap/allgather_mapping.h); the result is in rank order.
#include "../algorithm_registry.h"
#include "../mapping/remap/remapped_allgather.h"

namespace topocoll {

Schedule buildBruckExchAllgather(const BuildParams& bp) { return mapping::buildExchangedAllgather(bp, "bruck_exch"); }

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "bruck_exch", buildBruckExchAllgather);

}  // namespace topocoll
