// MPI_I<coll>: the engine's nonblocking collectives, handed to the user as generalized requests
// (see requests.cc for why, and for how they progress); one per collective of the registry.
#include <mpi.h>

#include "engine.h"
#include "interpose.h"

using namespace topocoll;
using interpose::bypass;
using interpose::runNonblocking;

extern "C" {

#include "generated/nonblocking.inc"

}  // extern "C"
