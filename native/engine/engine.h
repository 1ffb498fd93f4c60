// The engine: one entry point per collective (generated/entry_points.h, from the registry's
// descriptors), shared by the preload library (MPI_* symbols) and the Node addon. Each call
// selects an algorithm, fetches its cached schedule and runs it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

#include "executor.h"
#include "generated/registry.h"
#include "schedule.h"

namespace topocoll::engine {

// Reads TOPOCOLL_* from the environment; needs no MPI. False with *error on a bad value.
bool loadConfig(std::string* error);
// After MPI_Init: loads the configuration and prepares communicator caching. Idempotent.
// `thread_level`: the level the program was told, where the MPI runs at a higher one (-1: the
// MPI's own).
int initialize(std::string* error, int thread_level = -1);
extern bool g_initialized;  // read on every intercepted call: inline, no call
inline bool initialized() { return g_initialized; }
// Before MPI_Finalize: the TOPOCOLL_STATS report (collective over the world), then frees what it made.
void finalize();

// Where a call's request goes. Null: the call is blocking. A pointer: the call starts a
// nonblocking collective and hands back the request to progress with test()/wait().
// polled(): a blocking call that the caller completes by polling, together with the nonblocking
// collectives it has pending (MPI's progress rule). Our schedules hand back a request as for a
// nonblocking call; `native` runs the MPI's blocking collective and hands back none, because MPI
// never matches a blocking collective with a nonblocking one, and a rank with nothing pending
// calls the blocking form.
class RequestOut {
 public:
  RequestOut(std::nullptr_t = nullptr) {}
  RequestOut(std::unique_ptr<CollectiveRequest>* out) : out_(out) {}
  static RequestOut polled(std::unique_ptr<CollectiveRequest>* out) {
    RequestOut r(out);
    r.native_blocks_ = true;
    return r;
  }
  explicit operator bool() const { return out_ != nullptr; }
  std::unique_ptr<CollectiveRequest>& operator*() const { return *out_; }
  bool nativeBlocks() const { return out_ == nullptr || native_blocks_; }

 private:
  std::unique_ptr<CollectiveRequest>* out_ = nullptr;
  bool native_blocks_ = false;
};

// True, once, when the last call that failed on this thread was handed to the MPI's own
// collective, which has already called the communicator's error handler.
bool takeRaisedByMpi();

}  // namespace topocoll::engine

// The entry points, one per collective of the registry (allgather, bcast, ...), declared from
// its descriptors; engine.cc defines them through generated/entry_points.inc.
// Per-rank counts of reduce_scatter as the caller has them: the int array of MPI_Reduce_scatter
// or the MPI_Count array of its MPI-4 _c form.
struct CountList {
  CountList(const int* counts) : ints_(counts) {}
  CountList(const MPI_Count* counts) : counts_(counts) {}
  bool null() const { return ints_ == nullptr && counts_ == nullptr; }
  MPI_Count operator[](int i) const { return ints_ ? MPI_Count(ints_[i]) : counts_[i]; }
  const int* ints() const { return ints_; }
  const MPI_Count* counts() const { return counts_; }

 private:
  const int* ints_ = nullptr;
  const MPI_Count* counts_ = nullptr;
};

// The int counts an MPI-3 call takes: the caller's own array (MPI_Count ones go to the _c form).
inline const int* intCounts(CountList counts) { return counts.ints(); }

#include "generated/entry_points.h"
