// The reductions' MPI_* definitions: MPI_Allreduce, MPI_Reduce, MPI_Reduce_scatter_block,
// MPI_Reduce_scatter, their MPI_I* forms and, where the MPI has them (MPI 4), their _c forms.
// Written by hand for now; they follow interpose.cc, nonblocking.cc and large_count.cc, which
// descriptors are to generate with these. Counts the engine's MPI-3 calls cannot carry go to the
// MPI's own _c function.
#include <mpi.h>

#include "engine.h"
#include "interpose.h"

using namespace topocoll;
using interpose::bypass;
using interpose::runBlocking;
using interpose::runNonblocking;

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Allreduce)(sendbuf, recvbuf, count, datatype, op, comm);
  return runBlocking(comm, [&](engine::RequestOut r) { return engine::allreduce(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Iallreduce)(sendbuf, recvbuf, count, datatype, op, comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) { return engine::allreduce(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Reduce)(sendbuf, recvbuf, count, datatype, op, root, comm);
  return runBlocking(comm, [&](engine::RequestOut r) { return engine::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, r); });
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Ireduce)(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  return runNonblocking(comm, request,
                        [&](engine::RequestOut r) { return engine::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, r); });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Reduce_scatter_block)(sendbuf, recvbuf, recvcount, datatype, op, comm);
  return runBlocking(comm, [&](engine::RequestOut r) {
    return engine::reduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, comm, r);
  });
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Ireduce_scatter_block)(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::reduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, comm, r);
  });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Reduce_scatter)(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  return runBlocking(comm, [&](engine::RequestOut r) {
    return engine::reduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r);
  });
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Ireduce_scatter)(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::reduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r);
  });
}

#if MPI_VERSION >= 4

int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (bypass() || !fitsInt(count)) return TOPOCOLL_PASS(MPI_Allreduce_c)(sendbuf, recvbuf, count, datatype, op, comm);
  return runBlocking(comm, [&](engine::RequestOut r) { return engine::allreduce(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Request* request) {
  if (bypass() || !fitsInt(count)) return TOPOCOLL_PASS(MPI_Iallreduce_c)(sendbuf, recvbuf, count, datatype, op, comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) { return engine::allreduce(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  if (bypass() || !fitsInt(count)) return TOPOCOLL_PASS(MPI_Reduce_c)(sendbuf, recvbuf, count, datatype, op, root, comm);
  return runBlocking(comm, [&](engine::RequestOut r) { return engine::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, r); });
}

int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                  MPI_Request* request) {
  if (bypass() || !fitsInt(count)) return TOPOCOLL_PASS(MPI_Ireduce_c)(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  return runNonblocking(comm, request,
                        [&](engine::RequestOut r) { return engine::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, r); });
}

int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm) {
  if (bypass() || !fitsInt(recvcount)) return TOPOCOLL_PASS(MPI_Reduce_scatter_block_c)(sendbuf, recvbuf, recvcount, datatype, op, comm);
  return runBlocking(comm, [&](engine::RequestOut r) {
    return engine::reduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, comm, r);
  });
}

int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Request* request) {
  if (bypass() || !fitsInt(recvcount)) {
    return TOPOCOLL_PASS(MPI_Ireduce_scatter_block_c)(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
  }
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::reduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, comm, r);
  });
}

// The engine takes MPI_Count lists; counts too large for its spans go to the MPI from the engine.
int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Reduce_scatter_c)(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  return runBlocking(comm, [&](engine::RequestOut r) {
    return engine::reduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r);
  });
}

int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request* request) {
  if (bypass()) return TOPOCOLL_PASS(MPI_Ireduce_scatter_c)(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
  return runNonblocking(comm, request, [&](engine::RequestOut r) {
    return engine::reduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r);
  });
}

#endif  // MPI_VERSION >= 4

}  // extern "C"
