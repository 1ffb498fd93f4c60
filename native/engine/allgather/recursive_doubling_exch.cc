// Recursive doubling exch (seed 004): each rank first swaps its block with the rank that runs
// its number under pi, then recursive doubling runs under pi in place. p not a power of two:
// the base's own non-power-of-two variant runs under pi (said in the schedule's note).
// pi places the heaviest edges of the base's information graph inside nodes and is computed
// once per communicator (mapping/remap/allgather_mapping.h); the result is in rank order.
#include "../algorithm_registry.h"
#include "../mapping/remap/remapped_allgather.h"

namespace topocoll {

Schedule buildRecursiveDoublingExchAllgather(const BuildParams& bp) { return mapping::buildExchangedAllgather(bp, "recursive_doubling_exch"); }

TOPOCOLL_REGISTER_ALGORITHM(Allgather, "recursive_doubling_exch", buildRecursiveDoublingExchAllgather);

}  // namespace topocoll
