// Shared pieces of the MPI_* interposition layer (libtopocoll.so under LD_PRELOAD).
//   interpose.cc    MPI_Init/Finalize and the blocking collectives
//   nonblocking.cc  MPI_I<coll>: engine requests handed to the user as generalized requests
//   requests.cc     the registry of those requests and their progress
//   completion.cc   MPI_Wait/Test/... families: progress our requests, then PMPI_*
//   progress.cc     blocking point-to-point calls made while our requests are pending
//   large_count.cc  the MPI-4 `_c` entry points (where the MPI has them)
//   fortran.cc      Open MPI's Fortran symbols (its Fortran layer calls PMPI_* directly)
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <memory>

#include "engine.h"
#include "hierarchy/hierarchy.h"
#include "executor.h"

namespace topocoll::interpose {

// Depth of engine calls on this thread: building sub-communicators or a profiler below us may
// call MPI_* collectives from inside the engine, and those must go straight to PMPI_*.
[[gnu::tls_model("initial-exec")]] extern thread_local int t_depth;

struct EngineScope {
  EngineScope() { ++t_depth; }
  ~EngineScope() { --t_depth; }
};

// True when a call must not run through the engine: re-entered, before init, or
// TOPOCOLL_PASSTHROUGH. Such calls go to TOPOCOLL_PASS(fn).
bool bypass();

// The definition of `name` that ours hides: the next library in the lookup order (a profiler
// preloaded after us), else the MPI's own PMPI_ one. Calls we hand on go there, so that a tool
// stacked below us still sees them; the engine itself calls PMPI_* only.
template <typename Fn>
Fn nextDefinition(const char* name, Fn pmpi) {
  void* next = dlsym(RTLD_NEXT, name);
  return next ? reinterpret_cast<Fn>(next) : pmpi;
}

// The next definition of MPI function `fn` (looked up once per call site).
#define TOPOCOLL_NEXT(fn)                                                                          \
  ([]() {                                                                                          \
    static const auto next = ::topocoll::interpose::nextDefinition(#fn, &P##fn);                   \
    return next;                                                                                   \
  }())
// Where a call that does not run through the engine goes: PMPI_* when re-entered from inside the
// engine (a tool below us must not see our own traffic), else the next definition.
#define TOPOCOLL_PASS(fn) (::topocoll::interpose::t_depth > 0 ? &P##fn : TOPOCOLL_NEXT(fn))

// An error of the engine reaches the user as the MPI's own would: through the communicator's
// error handler (MPI_ERRORS_ARE_FATAL by default), then as the return code.
int raise(MPI_Comm comm, int rc);

// Completes `op` while every pending nonblocking collective moves on too, so that a peer waiting
// on one of those is never starved by this rank blocking here.
int completeProgressing(std::unique_ptr<CollectiveRequest> op);

// MPI_Wait and MPI_Waitall as completion.cc defines them (for our own callers: calling the
// MPI_* symbols could land in another library's definitions).
int waitProgressing(MPI_Request* request, MPI_Status* status);
int waitallProgressing(int count, MPI_Request requests[], MPI_Status statuses[]);

// A blocking collective through the engine. `start(out)` is an engine entry point. While our
// nonblocking collectives are pending, the call is started polled (engine::RequestOut) and
// completed with them (MPI's progress rule).
template <typename Start>
int runBlocking(MPI_Comm comm, Start start);

// A nonblocking collective through the engine, handed to the user as a real MPI_Request.
template <typename Start>
int runNonblocking(MPI_Comm comm, MPI_Request* request, Start start);

namespace requests {

// How many collectives started by MPI_I<coll> have not completed (requests.cc).
extern std::atomic<int> g_pending_count;

// True while some collective started by MPI_I<coll> has not completed: the completion and
// blocking calls then poll instead of blocking in PMPI_*. One relaxed atomic load, inline.
inline bool anyPending() { return g_pending_count.load(std::memory_order_relaxed) > 0; }

// Hands `op` to the user as a real MPI_Request (a generalized request completed by progress()).
int adopt(std::unique_ptr<CollectiveRequest> op, MPI_Request* request);

// Moves every pending collective on without blocking; completes the finished ones.
void progress();

// Registers progress() with the MPI's own progress loop where the MPI lets us (Open MPI:
// opal_progress), so that blocking calls we do not define progress our collectives too.
void hookMpiProgress();
void unhookMpiProgress();

}  // namespace requests

template <typename Start>
int runBlocking(MPI_Comm comm, Start start) {
  EngineScope scope;
  if (!requests::anyPending()) return raise(comm, start(nullptr));
  std::unique_ptr<CollectiveRequest> op;
  int rc = start(engine::RequestOut::polled(&op));
  if (rc == MPI_SUCCESS && op) rc = completeProgressing(std::move(op));
  return raise(comm, rc);
}

template <typename Start>
int runNonblocking(MPI_Comm comm, MPI_Request* request, Start start) {
  EngineScope scope;
  std::unique_ptr<CollectiveRequest> op;
  int rc = start(&op);
  if (rc == MPI_SUCCESS) rc = requests::adopt(std::move(op), request);
  return raise(comm, rc);
}

}  // namespace topocoll::interpose
