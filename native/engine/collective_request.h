// The interface of a collective in flight, apart from the executor that implements it, so that
// the shared-memory context can progress the requests waiting on it without including the executor.
#pragma once

namespace topocoll {

// A collective in flight: the engine's schedules and the system MPI's own requests alike.
class CollectiveRequest {
 public:
  virtual ~CollectiveRequest() = default;
  virtual int test(bool* done) = 0;
  virtual int wait() = 0;
  // Moves on as far as it can without calling MPI (shared-memory flags and copies), for a thread
  // other than the one that calls MPI: MPICH 4.0 has no progress hook (interpose/requests.cc).
  // The caller excludes every other progress of this request.
  virtual void advanceWithoutMpi() {}
};

}  // namespace topocoll
