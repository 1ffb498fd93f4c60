// Fortran programs under Open MPI. Its Fortran bindings (libmpi_mpifh: mpif.h and `use mpi`;
// libmpi_usempif08 goes through the same ompi_<name>_f functions) call PMPI_* directly, so our
// MPI_* definitions never see a Fortran call: we export the Fortran symbols as well, under every
// name Open MPI gives them (mpi_allgather, mpi_allgather_, mpi_allgather__, MPI_ALLGATHER, and
// ompi_allgather_f, which the mpi_f08 wrappers call), translate handles and sentinels, and call
// the C entry points. The completion calls are exported too, since a Fortran MPI_WAIT would
// otherwise block in PMPI_Wait on a request only our progress completes; they poll through
// Open MPI's own Fortran pmpi_test* while our collectives are pending, then hand over to pmpi_*.
// MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE are exported for the same reason: Open MPI's go to
// PMPI_Init/PMPI_Finalize, and the engine must start and print its statistics.
// MPICH's Fortran layer (libmpichfort) calls MPI_* (our C definitions): wrapping it here would
// intercept twice, so this file is compiled for Open MPI only.
#include <mpi.h>

#if defined(OMPI_MAJOR_VERSION)

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "interpose.h"

using namespace topocoll::interpose;

// Open MPI's Fortran sentinels: MPI_IN_PLACE and MPI_BOTTOM are common blocks, defined in libmpi.
extern "C" int mpi_fortran_in_place_;
extern "C" int mpi_fortran_bottom_;

namespace {

using F = MPI_Fint;

const void* sendBuffer(const void* buf) {
  if (buf == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  return buf == &mpi_fortran_bottom_ ? MPI_BOTTOM : buf;
}

void* dataBuffer(void* buf) { return buf == &mpi_fortran_bottom_ ? MPI_BOTTOM : buf; }

// Open MPI's own Fortran profiling entry points (libmpi_mpifh is loaded whenever a Fortran
// program calls these wrappers).
template <typename Fn>
Fn openMpiFortran(const char* name) {
  void* fn = dlsym(RTLD_DEFAULT, name);
  if (!fn) {
    std::fprintf(stderr, "topocoll: Open MPI's Fortran library does not define %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

template <typename Test>
bool pollWhilePending(Test test, F* ierr) {
  while (requests::anyPending()) {
    requests::progress();
    if (test() || *ierr != MPI_SUCCESS) return true;
    topocoll::idleWhileWaiting();
  }
  return false;
}

}  // namespace

extern "C" {

// Every name Open MPI exports for one Fortran routine, as aliases of our implementation.
#define TOPOCOLL_FORTRAN(lower, UPPER, params)                                          \
  void mpi_##lower params __attribute__((alias("topocoll_f_" #lower)));                 \
  void mpi_##lower##_ params __attribute__((alias("topocoll_f_" #lower)));              \
  void mpi_##lower##__ params __attribute__((alias("topocoll_f_" #lower)));             \
  void MPI_##UPPER params __attribute__((alias("topocoll_f_" #lower)));                 \
  void ompi_##lower##_f params __attribute__((alias("topocoll_f_" #lower)))

// ---- init and finalize: Open MPI's Fortran MPI_INIT calls PMPI_Init, which would leave the
// engine uninitialized (every call then passes through) and TOPOCOLL_STATS unprinted --------------

static void topocoll_f_init(F* ierr) { *ierr = MPI_Init(nullptr, nullptr); }

static void topocoll_f_init_thread(F* required, F* provided, F* ierr) {
  int p = MPI_THREAD_SINGLE;
  *ierr = MPI_Init_thread(nullptr, nullptr, *required, &p);
  *provided = p;
}

static void topocoll_f_finalize(F* ierr) { *ierr = MPI_Finalize(); }

// ---- collectives: one per collective of the registry, generated -------------------------------

#include "generated/fortran.inc"

// ---- completion ------------------------------------------------------------------------------

static void topocoll_f_wait(F* request, F* status, F* ierr) {
  static auto test = openMpiFortran<void (*)(F*, F*, F*, F*)>("pmpi_test_");
  static auto wait = openMpiFortran<void (*)(F*, F*, F*)>("pmpi_wait_");
  F flag = 0;
  *ierr = MPI_SUCCESS;
  if (!pollWhilePending([&] { return test(request, &flag, status, ierr), flag != 0; }, ierr)) wait(request, status, ierr);
}

static void topocoll_f_test(F* request, F* flag, F* status, F* ierr) {
  static auto test = openMpiFortran<void (*)(F*, F*, F*, F*)>("pmpi_test_");
  requests::progress();
  test(request, flag, status, ierr);
}

static void topocoll_f_waitall(F* count, F* requests, F* statuses, F* ierr) {
  static auto testall = openMpiFortran<void (*)(F*, F*, F*, F*, F*)>("pmpi_testall_");
  static auto waitall = openMpiFortran<void (*)(F*, F*, F*, F*)>("pmpi_waitall_");
  F flag = 0;
  *ierr = MPI_SUCCESS;
  if (!pollWhilePending([&] { return testall(count, requests, &flag, statuses, ierr), flag != 0; }, ierr)) {
    waitall(count, requests, statuses, ierr);
  }
}

static void topocoll_f_testall(F* count, F* requests, F* flag, F* statuses, F* ierr) {
  static auto testall = openMpiFortran<void (*)(F*, F*, F*, F*, F*)>("pmpi_testall_");
  requests::progress();
  testall(count, requests, flag, statuses, ierr);
}

static void topocoll_f_waitany(F* count, F* requests, F* index, F* status, F* ierr) {
  static auto testany = openMpiFortran<void (*)(F*, F*, F*, F*, F*, F*)>("pmpi_testany_");
  static auto waitany = openMpiFortran<void (*)(F*, F*, F*, F*, F*)>("pmpi_waitany_");
  F flag = 0;
  *ierr = MPI_SUCCESS;
  if (!pollWhilePending([&] { return testany(count, requests, index, &flag, status, ierr), flag != 0; }, ierr)) {
    waitany(count, requests, index, status, ierr);
  }
}

static void topocoll_f_testany(F* count, F* requests, F* index, F* flag, F* status, F* ierr) {
  static auto testany = openMpiFortran<void (*)(F*, F*, F*, F*, F*, F*)>("pmpi_testany_");
  requests::progress();
  testany(count, requests, index, flag, status, ierr);
}

static void topocoll_f_waitsome(F* incount, F* requests, F* outcount, F* indices, F* statuses, F* ierr) {
  static auto testsome = openMpiFortran<void (*)(F*, F*, F*, F*, F*, F*)>("pmpi_testsome_");
  static auto waitsome = openMpiFortran<void (*)(F*, F*, F*, F*, F*, F*)>("pmpi_waitsome_");
  *ierr = MPI_SUCCESS;
  auto test = [&] { return testsome(incount, requests, outcount, indices, statuses, ierr), *outcount != 0; };
  if (!pollWhilePending(test, ierr)) waitsome(incount, requests, outcount, indices, statuses, ierr);
}

static void topocoll_f_testsome(F* incount, F* requests, F* outcount, F* indices, F* statuses, F* ierr) {
  static auto testsome = openMpiFortran<void (*)(F*, F*, F*, F*, F*, F*)>("pmpi_testsome_");
  requests::progress();
  testsome(incount, requests, outcount, indices, statuses, ierr);
}

static void topocoll_f_request_get_status(F* request, F* flag, F* status, F* ierr) {
  static auto get = openMpiFortran<void (*)(F*, F*, F*, F*)>("pmpi_request_get_status_");
  requests::progress();
  get(request, flag, status, ierr);
}

TOPOCOLL_FORTRAN(init, INIT, (F*));
TOPOCOLL_FORTRAN(init_thread, INIT_THREAD, (F*, F*, F*));
TOPOCOLL_FORTRAN(finalize, FINALIZE, (F*));

TOPOCOLL_FORTRAN(wait, WAIT, (F*, F*, F*));
TOPOCOLL_FORTRAN(test, TEST, (F*, F*, F*, F*));
TOPOCOLL_FORTRAN(waitall, WAITALL, (F*, F*, F*, F*));
TOPOCOLL_FORTRAN(testall, TESTALL, (F*, F*, F*, F*, F*));
TOPOCOLL_FORTRAN(waitany, WAITANY, (F*, F*, F*, F*, F*));
TOPOCOLL_FORTRAN(testany, TESTANY, (F*, F*, F*, F*, F*, F*));
TOPOCOLL_FORTRAN(waitsome, WAITSOME, (F*, F*, F*, F*, F*, F*));
TOPOCOLL_FORTRAN(testsome, TESTSOME, (F*, F*, F*, F*, F*, F*));
TOPOCOLL_FORTRAN(request_get_status, REQUEST_GET_STATUS, (F*, F*, F*, F*));

}  // extern "C"

#endif  // OMPI_MAJOR_VERSION
