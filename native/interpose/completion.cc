// The completion calls. While one of our nonblocking collectives is pending (requests.cc), each
// first moves every pending collective on, and the waits poll (progress + PMPI_Test*) instead of
// blocking in PMPI_Wait*, which would never return for a generalized request nobody completes.
// With nothing pending they are one atomic load away from the next definition (a profiler
// below us, else the MPI's own).
// MPI_Request_free and MPI_Cancel need nothing of ours: the MPI handles them for generalized
// requests (requests.cc says how ours behave).
#include <mpi.h>

#include "interpose.h"

using namespace topocoll::interpose;

namespace {

// Polls `test(&rc)` (true when satisfied) until it is, or until nothing of ours is pending;
// then the caller's blocking PMPI_* call finishes the job. Returns true when `test` settled it.
template <typename Test>
bool pollWhilePending(Test test, int* rc) {
  while (requests::anyPending()) {
    requests::progress();
    if (test(rc) || *rc != MPI_SUCCESS) return true;
    topocoll::idleWhileWaiting();
  }
  return false;
}

}  // namespace

namespace topocoll::interpose {

int waitProgressing(MPI_Request* request, MPI_Status* status) {
  int rc = MPI_SUCCESS;
  auto test = [&](int* r) {
    int flag = 0;
    *r = PMPI_Test(request, &flag, status);
    return flag != 0;
  };
  return pollWhilePending(test, &rc) ? rc : PMPI_Wait(request, status);
}

int waitallProgressing(int count, MPI_Request requests[], MPI_Status statuses[]) {
  int rc = MPI_SUCCESS;
  auto test = [&](int* r) {
    int flag = 0;
    *r = PMPI_Testall(count, requests, &flag, statuses);
    return flag != 0;
  };
  return pollWhilePending(test, &rc) ? rc : PMPI_Waitall(count, requests, statuses);
}

}  // namespace topocoll::interpose

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Wait)(request, status);
  return waitProgressing(request, status);
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Test)(request, flag, status);
  requests::progress();
  return PMPI_Test(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Waitall)(count, requests, statuses);
  return waitallProgressing(count, requests, statuses);
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Testall)(count, requests, flag, statuses);
  requests::progress();
  return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Waitany)(count, requests, index, status);
  int rc = MPI_SUCCESS;
  auto test = [&](int* r) {
    int flag = 0;
    *r = PMPI_Testany(count, requests, index, &flag, status);
    return flag != 0;
  };
  return pollWhilePending(test, &rc) ? rc : PMPI_Waitany(count, requests, index, status);
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Testany)(count, requests, index, flag, status);
  requests::progress();
  return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Waitsome)(incount, requests, outcount, indices, statuses);
  int rc = MPI_SUCCESS;
  auto test = [&](int* r) {
    *r = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return *outcount != 0;  // some completed, or MPI_UNDEFINED: none active
  };
  return pollWhilePending(test, &rc) ? rc : PMPI_Waitsome(incount, requests, outcount, indices, statuses);
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Testsome)(incount, requests, outcount, indices, statuses);
  requests::progress();
  return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  if (!requests::anyPending()) return TOPOCOLL_NEXT(MPI_Request_get_status)(request, flag, status);
  requests::progress();
  return PMPI_Request_get_status(request, flag, status);
}

}  // extern "C"
