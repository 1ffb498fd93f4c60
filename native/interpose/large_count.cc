// The MPI-4 large-count entry points (MPI_Allgather_c, ...; generated from the registry), which
// mpi4py 4 and other MPI-4 code call whenever the MPI has them: without these, such programs
// would bypass the engine. Counts the engine's MPI-3 calls cannot carry (> INT_MAX elements) go
// to the MPI's own _c function.
// Open MPI 4.1 is MPI 3.1 and has none: this file is then empty.
#include <mpi.h>

#if MPI_VERSION >= 4

#include "engine.h"
#include "interpose.h"

using namespace topocoll;
using interpose::bypass;
using interpose::runBlocking;
using interpose::runNonblocking;

namespace {

// Whether every rank's count of a counts array fits the engine's int (a call with a count beyond
// goes to the MPI's own _c function). An invalid communicator goes there too, which raises its error.
[[maybe_unused]] bool countsFitInt(const MPI_Count* counts, MPI_Comm comm) {
  int p = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &p) != MPI_SUCCESS || (p > 0 && !counts)) return false;
  for (int i = 0; i < p; ++i) {
    if (!fitsInt(counts[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" {

#include "generated/large_count.inc"

}  // extern "C"

#endif  // MPI_VERSION >= 4
