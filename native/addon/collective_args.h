// One call of any collective, its arguments by the role they play in the C signature
// (src/select/registry.ts, ParameterRole). The generated engineCall/systemCall
// (generated/collective_calls.h) pass each collective the fields it takes.
#pragma once

#include <mpi.h>

namespace topocoll::addon {

struct CollectiveArgs {
  const void* sendbuf = nullptr;  // MPI_IN_PLACE in place
  void* recvbuf = nullptr;        // an in-out collective's buffer (bcast) too
  MPI_Count sendcount = 0;        // the send side's, where it has its own (allgather, alltoall)
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  MPI_Count count = 0;  // recvcount, or the count
  const int* counts = nullptr;  // elements per rank (reduce_scatter)
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;
};

}  // namespace topocoll::addon
