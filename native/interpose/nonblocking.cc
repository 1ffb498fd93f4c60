// MPI_I<coll>: the engine's nonblocking collectives, handed to the user as generalized requests
// (see requests.cc for why, and for how they progress).
#include <mpi.h>

#include "engine.h"
#include "interpose.h"

using namespace topocoll;
using interpose::bypass;
using interpose::runNonblocking;

extern "C" {

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Iallgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Ibcast)(buffer, count, datatype, root, comm, request);
  return runNonblocking(comm, request,
                        [&](engine::RequestOut r) { return engine::bcast(buffer, count, datatype, root, comm, r); });
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Ibarrier)(comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) { return engine::barrier(comm, r); });
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Ialltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

}  // extern "C"
