// MPI_* definitions that route collectives through the engine (the PMPI profiling interface):
// LD_PRELOAD=libtopocoll.so makes them win over the MPI library's own, and everything we do
// not define still resolves to the MPI library. The engine only ever calls PMPI_*; a call we
// hand on (TOPOCOLL_PASSTHROUGH, init, finalize) goes to the next definition (TOPOCOLL_NEXT),
// which is a profiler preloaded after us, or the MPI's own.
// This file: init/finalize and the blocking collectives (generated from the registry).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "config.h"
#include "engine.h"
#include "interpose.h"

namespace topocoll::interpose {

// initial-exec: read on every intercepted call, which must not pay for __tls_get_addr (the library
// is preloaded, or loaded with libmpi; its few bytes of TLS fit the static surplus).
[[gnu::tls_model("initial-exec")]] thread_local int t_depth = 0;

bool bypass() { return t_depth > 0 || !engine::initialized() || config().get(Parameter::Passthrough); }

// A call the engine handed to the MPI's own collective has had its error raised there: a user's
// handler is called once, as without us.
int raise(MPI_Comm comm, int rc) {
  if (rc != MPI_SUCCESS && !engine::takeRaisedByMpi() && comm != MPI_COMM_NULL) PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

int completeProgressing(std::unique_ptr<CollectiveRequest> op) {
  for (;;) {
    if (!requests::anyPending()) return op->wait();
    requests::progress();
    bool done = false;
    int rc = op->test(&done);
    if (rc != MPI_SUCCESS || done) return rc;
    requests::idle();
  }
}

// A bad TOPOCOLL_* value stops the program here, on every rank alike (they share the
// environment), with one message from rank 0 and a non-zero exit status.
static int afterInit(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  std::string error;
  if (engine::initialize(&error) == MPI_SUCCESS) {
    requests::hookMpiProgress();
    return rc;
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::fprintf(stderr, "topocoll: %s\n", error.c_str());
  PMPI_Finalize();
  std::exit(1);
}

}  // namespace topocoll::interpose

using namespace topocoll;
using interpose::bypass;
using interpose::runBlocking;

extern "C" {

// Init and finalize go to the next definition too: a profiler below us must start and stop.
int MPI_Init(int* argc, char*** argv) { return interpose::afterInit(TOPOCOLL_NEXT(MPI_Init)(argc, argv)); }

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return interpose::afterInit(TOPOCOLL_NEXT(MPI_Init_thread)(argc, argv, required, provided));
}

int MPI_Finalize(void) {
  interpose::requests::unhookMpiProgress();
  engine::finalize();
  return TOPOCOLL_NEXT(MPI_Finalize)();
}

// MPI_Allgather, MPI_Bcast, ...: one per collective of the registry.
#include "generated/blocking.inc"

}  // extern "C"
