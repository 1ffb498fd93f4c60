// Bruck reorder (seed 004): Bruck runs under pi into scratch, then each rank copies every block
// to its rank's slot (any p).
// pi places the heaviest edges of the base's information graph inside nodes and is computed
// once per communicator (mapping/remap/allgather_mapping.h); the result is in rank order.
#include "../algorithm_registry.h"
#include "../mapping/remap/remapped_allgather.h"

namespace topocoll {

Schedule buildBruckReorderAllgather(const BuildParams& bp) { return mapping::buildReorderedAllgather(bp, "bruck_reorder"); }

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "bruck_reorder", buildBruckReorderAllgather);

}  // namespace topocoll
