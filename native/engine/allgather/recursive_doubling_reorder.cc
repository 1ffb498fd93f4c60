// Recursive doubling reorder (seed 004): recursive doubling runs under pi into scratch, then
// each rank copies every block to its rank's slot. p not a power of two: the base's own
// non-power-of-two variant runs under pi (said in the schedule's note).
// pi places the heaviest edges of the base's information graph inside nodes and is computed
// once per communicator (mapping/remap/allgather_mapping.h); the result is in rank order.
#include "../algorithm_registry.h"
#include "../mapping/remap/remapped_allgather.h"

namespace topocoll {

Schedule buildRecursiveDoublingReorderAllgather(const BuildParams& bp) { return mapping::buildReorderedAllgather(bp, "recursive_doubling_reorder"); }

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "recursive_doubling_reorder", buildRecursiveDoublingReorderAllgather);

}  // namespace topocoll
