// The requests of nonblocking collectives run by the engine, as the user sees them.
//
// Why generalized requests: MPI_I<coll> must hand back an MPI_Request that every MPI call taking
// requests accepts, mixed in arrays with the user's point-to-point requests, in C and Fortran,
// including calls we do not intercept (MPI_Request_c2f, MPI_Test_cancelled, MPI_Status_*). Any
// fake handle would break one of those. A generalized request (MPI_Grequest_start) is a real
// request of the MPI library whose completion we signal with MPI_Grequest_complete: once
// complete, PMPI_Wait/Test/... handle it like any other, query_fn fills its status (and returns
// the collective's error), free_fn releases our state. MPI does not progress it, so we do: the
// schedule behind it moves on only when we call test() on it. Therefore every completion call
// (completion.cc), every engine collective (interpose.cc) and the blocking point-to-point calls
// (progress.cc) first progress *all* pending collectives, and while any is pending they poll
// (progress + PMPI_Test*) instead of blocking in PMPI_Wait*: a rank waiting on anything keeps
// its part of every collective moving, which MPI's progress rule requires (a peer may be
// waiting on a collective this rank started, while this rank waits on that peer).
// MPICH's MPIX_Grequest_start poll_fn would let MPICH poll for us, but Open MPI 4.1 has none, so
// one mechanism serves both.
// Blocking calls we do not define (MPI_Gather, MPI_Comm_split, the setup collectives the engine
// runs on a communicator's first use, ...) cannot poll that way. Under Open MPI, progress() is
// also registered with opal_progress (as its own libnbc does), so every MPI call that waits
// moves our collectives on. MPICH exports no such hook: there a thread of ours calls progress()
// while something is pending, and MPICH runs at MPI_THREAD_MULTIPLE so that it may
// (interpose.cc initializes it so, and tells the program the level it asked for).
//
// Lifetime: an Entry is freed by whichever of (our completion, MPI's free_fn) comes second.
// MPICH calls free_fn from MPI_Request_free even before completion; Open MPI from
// MPI_Grequest_complete when the user freed the request first; both call it exactly once.
// MPI_Cancel on one of ours is the failed cancel MPI allows: the collective completes normally
// and MPI_Test_cancelled reports false (cancelling a nonblocking collective is erroneous anyway).
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "interpose.h"

namespace topocoll::interpose::requests {

std::atomic<int> g_pending_count{0};

namespace {

enum : int { kCompleted = 1, kReleased = 2 };

struct Entry {
  std::unique_ptr<CollectiveRequest> op;
  MPI_Request greq = MPI_REQUEST_NULL;
  int error = MPI_SUCCESS;
  std::atomic<int> state{0};
};

// Guards g_pending and the progress of the requests in it (their schedules are not
// thread-safe). Recursive: completing a request may call back into free_fn on this thread.
std::recursive_mutex g_mutex;
std::vector<Entry*> g_pending;
// Set while this thread runs progress(): the MPI calls it makes re-enter opal_progress, which
// must not call progress() again.
[[gnu::tls_model("initial-exec")]] thread_local bool t_progressing = false;

int queryFn(void* extra, MPI_Status* status) {
  auto* e = static_cast<Entry*>(extra);
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return e->error;
}

int freeFn(void* extra) {
  auto* e = static_cast<Entry*>(extra);
  if (e->state.fetch_or(kReleased) & kCompleted) delete e;
  return MPI_SUCCESS;
}

int cancelFn(void*, int) { return MPI_SUCCESS; }

#if !defined(OMPI_MAJOR_VERSION)
void wakeMover();  // the thread that moves shared-memory rounds (below)
#endif

// Called with g_mutex held, e already out of g_pending. `e` may be gone when this returns.
void complete(Entry* e) {
  e->op.reset();
  MPI_Request greq = e->greq;
  int before = e->state.fetch_or(kCompleted);
  PMPI_Grequest_complete(greq);  // may run freeFn, which then deletes e
  if (before & kReleased) delete e;
}

}  // namespace


int adopt(std::unique_ptr<CollectiveRequest> op, MPI_Request* request) {
  auto* e = new Entry;
  e->op = std::move(op);
  int rc = PMPI_Grequest_start(queryFn, freeFn, cancelFn, e, &e->greq);
  if (rc != MPI_SUCCESS) {
    delete e;
    return rc;
  }
  *request = e->greq;
  {
    std::lock_guard<std::recursive_mutex> lock(g_mutex);
    g_pending.push_back(e);
    g_pending_count.fetch_add(1);
  }
#if !defined(OMPI_MAJOR_VERSION)
  wakeMover();
#endif
  progress();  // posts what can be posted now; a collective with nothing to move completes here
  return MPI_SUCCESS;
}

void progress() {
  if (!anyPending()) return;
  // Another thread progressing is as good as this one doing it.
  if (t_progressing) return;
  std::unique_lock<std::recursive_mutex> lock(g_mutex, std::try_to_lock);
  if (!lock.owns_lock()) return;
  t_progressing = true;
  for (size_t i = 0; i < g_pending.size();) {
    Entry* e = g_pending[i];
    bool done = false;
    int rc = e->op->test(&done);
    if (rc != MPI_SUCCESS) {
      e->error = rc;
      done = true;
    }
    if (!done) {
      ++i;
      continue;
    }
    g_pending[i] = g_pending.back();
    g_pending.pop_back();
    complete(e);
    // Only now: a thread that sees nothing pending may use what the request used (its shadow
    // communicator, shared memory) without the lock.
    g_pending_count.fetch_sub(1);
  }
  t_progressing = false;
}

#if defined(OMPI_MAJOR_VERSION)
namespace {
using OpalCallback = int (*)();
int opalProgress() {
  if (!anyPending()) return 0;
  progress();
  return 0;
}
bool g_hooked = false;
}  // namespace

void hookMpiProgress() {
  if (g_hooked) return;
  // libopen-pal is loaded with libmpi; looked up at run time so that no link flag is needed.
  auto reg = reinterpret_cast<int (*)(OpalCallback)>(dlsym(RTLD_DEFAULT, "opal_progress_register"));
  g_hooked = reg && reg(&opalProgress) == 0;
}

void unhookMpiProgress() {
  if (!g_hooked) return;
  auto unreg = reinterpret_cast<int (*)(OpalCallback)>(dlsym(RTLD_DEFAULT, "opal_progress_unregister"));
  if (unreg) unreg(&opalProgress);
  g_hooked = false;
}
#else
// MPICH exports no progress hook: a rank blocked in a call we do not define (MPI_Gather, ...)
// would leave its part of our pending collectives undone while a peer waits for it. A thread
// progresses them meanwhile. It may call MPI because MPICH runs at MPI_THREAD_MULTIPLE whatever
// level the program asked for (interpose.cc). An MPICH built without thread support cannot:
// then the thread calls no MPI and moves only their shared-memory rounds (flags and copies).
namespace {
// Never destroyed: a program that exits without MPI_Finalize leaves the thread waiting on g_wake,
// whose destructor then waits for it forever (glibc's pthread_cond_destroy), and a joinable
// std::thread's destructor terminates the process.
std::thread& g_mover = *new std::thread;
std::atomic<bool> g_stop{false};
std::mutex& g_wake_mutex = *new std::mutex;
std::condition_variable& g_wake = *new std::condition_variable;
bool g_multiple = false;  // MPICH runs at MPI_THREAD_MULTIPLE: the thread may call MPI

void moveOn() {
  while (!g_stop.load(std::memory_order_relaxed)) {
    if (!anyPending()) {
      std::unique_lock<std::mutex> lock(g_wake_mutex);
      g_wake.wait(lock, [] { return g_stop.load() || anyPending(); });
      continue;
    }
    if (g_multiple) {
      progress();
    } else {
      std::unique_lock<std::recursive_mutex> lock(g_mutex, std::try_to_lock);
      if (lock.owns_lock()) {
        for (Entry* e : g_pending) e->op->advanceWithoutMpi();
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void wakeMover() {
  std::lock_guard<std::mutex> lock(g_wake_mutex);
  g_wake.notify_all();
}
}  // namespace

void hookMpiProgress() {
  if (g_mover.joinable()) return;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  g_multiple = provided == MPI_THREAD_MULTIPLE;
  g_stop = false;
  g_mover = std::thread(moveOn);
}

void unhookMpiProgress() {
  if (!g_mover.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(g_wake_mutex);
    g_stop = true;
  }
  g_wake.notify_all();
  g_mover.join();
}

#endif

}  // namespace topocoll::interpose::requests
