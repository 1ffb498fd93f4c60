// The executor runs any schedule on any datatype and communicator. It knows no algorithm.
#pragma once

#include <mpi.h>

#include <array>
#include <memory>
#include <vector>

#include "buffer_binding.h"
#include "collective_request.h"
#include "reduce/reduction.h"
#include "schedule.h"
#include "shadow_comm.h"
#include "shm/shm_context.h"
#include "staging.h"

namespace topocoll {

struct Bindings {
  BufferBinding send, recv, tmp;
  BufferBinding shm;  // the node segment's data area of the call's channel (bound by the executor)
  Reduction reduction;  // how Reduce ops combine (reductions only)
  const BufferBinding& of(BufferId id) const {
    return id == BufferId::Send ? send : id == BufferId::Recv ? recv : id == BufferId::Shm ? shm : tmp;
  }
};

// Scratch space for a schedule's tmp buffer, in blocks of the receive binding.
class ScratchBuffer {
 public:
  void allocate(const BufferBinding& like, int64_t blocks, BufferBinding* out);

 private:
  std::vector<char> storage_;
};

// Runs the whole schedule; returns an MPI error code. `shm`: the communicator's shared memory,
// needed by schedules that use it (Schedule::shm) and progressed while this call waits.
int executeSchedule(const Schedule& schedule, const Bindings& bindings, MPI_Comm comm, int tag, ShmContext* shm = nullptr);

// A schedule progressed round by round by test()/wait() on `shadow`, which it keeps (with its
// shared memory) until it completes: MPI lets a program free a communicator while a collective on
// it is pending. `staged` is unpacked into the user's
// buffers when the schedule ends.
class ScheduleRequest final : public CollectiveRequest {
 public:
  ScheduleRequest(std::shared_ptr<const Schedule> schedule, const Bindings& bindings, StagedBuffers staged, int tag,
                  std::shared_ptr<ShadowComm> shadow);
  ~ScheduleRequest() override;
  int start();
  int test(bool* done) override;
  int wait() override;
  void advanceWithoutMpi() override;

 private:
  int startRound();
  int finishRound();
  // Moves the schedule on as far as it can without blocking, or (blocking) to its end.
  int advance(bool blocking);
  std::shared_ptr<ShadowComm> shadow_;  // first: destroyed last
  std::shared_ptr<const Schedule> schedule_;
  Bindings bindings_;
  StagedBuffers staged_;
  ScratchBuffer scratch_;
  MPI_Comm comm_;
  int tag_;
  int postAhead();
  size_t round_ = 0;
  size_t next_ = 0;  // the first round not posted
  std::vector<MPI_Request> requests_;  // the current round's
  std::array<std::vector<MPI_Request>, kRoundsInFlight> ahead_;  // rounds posted ahead, by index modulo its size
  ShmContext* shm_ = nullptr;
  ShmContext::Call call_;
  bool begun_ = false;     // the channel was free and the bindings prepared
  bool posted_ = false;    // the current round's messages are posted (or it has none)
  bool in_flight_ = false; // registered with shm_ for progress
  int error_ = MPI_SUCCESS;
};

// Wraps a request of the system MPI (the `native` algorithm of a nonblocking collective).
class NativeRequest final : public CollectiveRequest {
 public:
  explicit NativeRequest(MPI_Request request) : request_(request) {}
  int test(bool* done) override;
  int wait() override;

 private:
  MPI_Request request_;
};

}  // namespace topocoll
