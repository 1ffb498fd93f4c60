// Blocking point-to-point calls made while our nonblocking collectives are pending: a peer may
// be waiting on a collective this rank started while this rank waits for that peer's message
// (MPI's progress rule makes such programs correct), so the call is made nonblocking and
// completed by the polling waits of completion.cc. With nothing pending, the next definition
// (a profiler below us, else the MPI's) at once.
// Not covered: MPI_Sendrecv_replace, MPI_Bsend/Rsend, matched probes, and blocking calls we do
// not define at all (collectives the engine does not handle, I/O, RMA synchronisation).
#include <mpi.h>

#include "interpose.h"

using namespace topocoll::interpose;

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Send)(buf, count, type, dest, tag, comm);
  MPI_Request r;
  int rc = PMPI_Isend(buf, count, type, dest, tag, comm, &r);
  return rc != MPI_SUCCESS ? rc : waitProgressing(&r, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Ssend)(buf, count, type, dest, tag, comm);
  MPI_Request r;
  int rc = PMPI_Issend(buf, count, type, dest, tag, comm, &r);
  return rc != MPI_SUCCESS ? rc : waitProgressing(&r, MPI_STATUS_IGNORE);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Recv)(buf, count, type, source, tag, comm, status);
  MPI_Request r;
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &r);
  return rc != MPI_SUCCESS ? rc : waitProgressing(&r, status);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (!requests::anyPending()) {
    return TOPOCOLL_NEXT(MPI_Sendrecv)(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  }
  MPI_Request r[2];
  int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
  if (rc != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1])) != MPI_SUCCESS) {
    PMPI_Cancel(&r[0]);
    PMPI_Request_free(&r[0]);
    return rc;
  }
  MPI_Status s[2];
  rc = waitallProgressing(2, r, s);
  if (status != MPI_STATUS_IGNORE) *status = s[0];
  if (rc != MPI_ERR_IN_STATUS) return rc;
  return s[0].MPI_ERROR != MPI_SUCCESS ? s[0].MPI_ERROR : s[1].MPI_ERROR;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  while (requests::anyPending()) {
    requests::progress();
    int flag = 0;
    int rc = PMPI_Iprobe(source, tag, comm, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    topocoll::idleWhileWaiting();
  }
  return TOPOCOLL_NEXT(MPI_Probe)(source, tag, comm, status);
}

}  // extern "C"
