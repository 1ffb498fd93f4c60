// MPI_* definitions that route collectives through the engine (the PMPI profiling interface):
// LD_PRELOAD=libtopocoll.so makes them win over the MPI library's own, and everything we do
// not define still resolves to the MPI library. The engine only ever calls PMPI_*; a call we
// hand on (TOPOCOLL_PASSTHROUGH, init, finalize) goes to the next definition (TOPOCOLL_NEXT),
// which is a profiler preloaded after us, or the MPI's own.
// This file: init/finalize and the blocking collectives (generated from the registry).
#include <mpi.h>
#include <strings.h>

#include <algorithm>
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
    topocoll::idleWhileWaiting();
  }
}

// The thread level the program asked for and was told, where we initialized the MPI at a
// higher one (MPI_Query_thread reports this); -1: the MPI's own.
static int g_program_level = -1;

// A bad TOPOCOLL_* value stops the program here, on every rank alike (they share the
// environment), with one message from rank 0 and a non-zero exit status.
static int afterInit(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  std::string error;
  if (engine::initialize(&error, g_program_level) == MPI_SUCCESS) {
    requests::hookMpiProgress();
    return rc;
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::fprintf(stderr, "topocoll: %s\n", error.c_str());
  PMPI_Finalize();
  std::exit(1);
}

#if !defined(OMPI_MAJOR_VERSION)
// MPICH exports no progress hook, so our pending nonblocking collectives move on, while the
// program blocks in a call we do not define, only through our progress thread (requests.cc),
// which may call MPI only at MPI_THREAD_MULTIPLE. So MPICH is initialized at MULTIPLE on the
// program's behalf, and the program is told the level it asked for (MPICH provides any level
// asked for). MULTIPLE costs MPICH's locks, 7 to 9 ns a call (docs/preload.md).
// Not under TOPOCOLL_PASSTHROUGH, which must leave the program as the MPI alone would.
static bool raiseThreadLevel(int program_level) {
  if (program_level < MPI_THREAD_SINGLE || program_level >= MPI_THREAD_MULTIPLE) return false;
  const char* passthrough = std::getenv("TOPOCOLL_PASSTHROUGH");
  int64_t on = 0;
  std::string ignored;
  return !(passthrough && parseParameter(Parameter::Passthrough, passthrough, &on, &ignored) && on);
}

// The level MPICH's MPI_Init gives: MPIR_CVAR_DEFAULT_THREAD_LEVEL (case-insensitive), else
// single; -1 for a value MPICH rejects, so that MPICH's MPI_Init reports it.
static int mpichInitLevel() {
  const char* v = std::getenv("MPIR_CVAR_DEFAULT_THREAD_LEVEL");
  if (!v) return MPI_THREAD_SINGLE;
  static const struct {
    const char* name;
    int level;
  } kLevels[] = {{"MPI_THREAD_SINGLE", MPI_THREAD_SINGLE}, {"MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED},
                 {"MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED}, {"MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE}};
  for (const auto& l : kLevels) {
    if (strcasecmp(v, l.name) == 0) return l.level;
  }
  return -1;
}

// MPI_Init_thread at MPI_THREAD_MULTIPLE for a program that asked for `required`.
static int initRaised(int* argc, char*** argv, int required, int* provided) {
  int got = MPI_THREAD_SINGLE;
  int rc = TOPOCOLL_NEXT(MPI_Init_thread)(argc, argv, MPI_THREAD_MULTIPLE, &got);
  if (rc != MPI_SUCCESS) return rc;
  g_program_level = std::min(required, got);  // what asking for `required` gives
  if (provided) *provided = g_program_level;
  return afterInit(rc);
}
#endif

}  // namespace topocoll::interpose

using namespace topocoll;
using interpose::bypass;
using interpose::runBlocking;

extern "C" {

// Init and finalize go to the next definition too: a profiler below us must start and stop
// (under MPICH it sees MPI_Init_thread at MPI_THREAD_MULTIPLE: interpose::raiseThreadLevel).
int MPI_Init(int* argc, char*** argv) {
#if !defined(OMPI_MAJOR_VERSION)
  if (int level = interpose::mpichInitLevel(); interpose::raiseThreadLevel(level)) return interpose::initRaised(argc, argv, level, nullptr);
#endif
  return interpose::afterInit(TOPOCOLL_NEXT(MPI_Init)(argc, argv));
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
#if !defined(OMPI_MAJOR_VERSION)
  if (interpose::raiseThreadLevel(required)) return interpose::initRaised(argc, argv, required, provided);
#endif
  return interpose::afterInit(TOPOCOLL_NEXT(MPI_Init_thread)(argc, argv, required, provided));
}

int MPI_Query_thread(int* provided) {
  int rc = TOPOCOLL_NEXT(MPI_Query_thread)(provided);
  if (rc == MPI_SUCCESS && interpose::g_program_level >= 0) *provided = interpose::g_program_level;
  return rc;
}

int MPI_Finalize(void) {
  interpose::requests::unhookMpiProgress();
  engine::finalize();
  return TOPOCOLL_NEXT(MPI_Finalize)();
}

// MPI_Allgather, MPI_Bcast, ...: one per collective of the registry.
#include "generated/blocking.inc"

}  // extern "C"
