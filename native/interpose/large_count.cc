// The MPI-4 large-count entry points (MPI_Allgather_c, ...), which mpi4py 4 and other MPI-4 code
// call whenever the MPI has them: without these, such programs would bypass the engine. Counts
// the engine's MPI-3 calls cannot carry (> INT_MAX elements) go to the MPI's own _c function.
// Open MPI 4.1 is MPI 3.1 and has none: this file is then empty.
#include <mpi.h>

#if MPI_VERSION >= 4

#include <climits>

#include "engine.h"
#include "interpose.h"

using namespace topocoll;
using interpose::bypass;
using interpose::runBlocking;
using interpose::runNonblocking;

namespace {

// Whether the engine takes the call: its counts fit (the send count is ignored in place).
bool engineTakes(const void* sendbuf, MPI_Count sendcount, MPI_Count recvcount) {
  return !bypass() && fitsInt(recvcount) && (sendbuf == MPI_IN_PLACE || fitsInt(sendcount));
}

}  // namespace

extern "C" {

int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  if (!engineTakes(sendbuf, sendcount, recvcount)) {
    return TOPOCOLL_PASS(MPI_Allgather_c)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return runBlocking(comm, [&](engine::RequestOut r) {
    return engine::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!engineTakes(sendbuf, sendcount, recvcount)) {
    return TOPOCOLL_PASS(MPI_Iallgather_c)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  }
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (bypass() || !fitsInt(count)) return TOPOCOLL_PASS(MPI_Bcast_c)(buffer, count, datatype, root, comm);
  return runBlocking(comm, [&](engine::RequestOut r) { return engine::bcast(buffer, count, datatype, root, comm, r); });
}

int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  if (bypass() || !fitsInt(count)) return TOPOCOLL_PASS(MPI_Ibcast_c)(buffer, count, datatype, root, comm, request);
  return runNonblocking(comm, request,
                        [&](engine::RequestOut r) { return engine::bcast(buffer, count, datatype, root, comm, r); });
}

int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  if (!engineTakes(sendbuf, sendcount, recvcount)) {
    return TOPOCOLL_PASS(MPI_Alltoall_c)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return runBlocking(comm, [&](engine::RequestOut r) {
    return engine::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!engineTakes(sendbuf, sendcount, recvcount)) {
    return TOPOCOLL_PASS(MPI_Ialltoall_c)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  }
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

}  // extern "C"

#endif  // MPI_VERSION >= 4
