// What the engine keeps per user communicator, cached on it as an MPI attribute (freed with it).
// The engine's traffic runs on a ShadowComm, acquired on first use: a call handed to the MPI
// needs none, and a request in flight holds its ShadowComm past the user's MPI_Comm_free.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_set>

#include "choice.h"
#include "generated/registry.h"
#include "shadow_comm.h"

namespace topocoll {

using generated::Collective;

class CommState {
 public:
  // Below MPI_THREAD_MULTIPLE: one thread at a time calls MPI, so one remembered lookup (or
  // call) serves all threads.
  static bool singleCaller() { return single_caller_; }

  // The state of `comm`, created on first use (local: no communication).
  // Inline: the last lookup is remembered (below MPI_THREAD_MULTIPLE), and a loop of collectives
  // on one communicator then skips the MPI's attribute lookup (a hash probe).
  static int get(MPI_Comm comm, CommState** out) {
    if (last_.state && last_.comm == comm) {
      *out = last_.state;
      return MPI_SUCCESS;
    }
    return lookUp(comm, out);
  }
  // Creates the attribute keyval; called once by engine::initialize() after MPI_Init.
  // `thread_level`: the program's (-1: the MPI's); only the program's threads call the engine.
  static int createKeyval(int thread_level);

  int size() const { return size_; }
  int rank() const { return rank_; }
  bool isInter() const { return inter_; }
  int serial() const { return serial_; }

  // The engine's side of this intracommunicator, ready to use: acquired on first use,
  // collectively (every rank asks at the same call, since every rank makes the same choice), or
  // its set-up begun without blocking completed (ShadowComm::settle).
  int shadow(ShadowComm** out) {
    if (shadow_ && shadow_->settled()) {
      *out = shadow_.get();
      return MPI_SUCCESS;
    }
    return acquireShadow(out);
  }
  // For a nonblocking call: acquires it without blocking where none is (ShadowComm::
  // acquireWithoutBlocking); it stays null where that cannot be done.
  int acquireShadowWithoutBlocking();
  // The engine's side if acquired already (settled or not), else null (no communication).
  ShadowComm* shadowIfAcquired() const { return shadow_.get(); }
  // A reference for a request in flight.
  std::shared_ptr<ShadowComm> shadowRef() const { return shadow_; }
  // The hierarchy of the shadow (collective on first use unless the communicator is within the
  // world); a set-up in flight is not waited for. *error says why it failed.
  int hierarchy(const Hierarchy** out, std::string* error);

  // The choice made for the last call of `coll`, and what it depended on (engine.cc).
  struct RecentChoice {
    uint64_t epoch = 0;
    int64_t block_bytes = 0, total_bytes = 0;
    int variant = 0;  // what else the choice depended on (engine.cc's Call::variant)
    Choice choice;
  };
  RecentChoice& recentChoice(Collective coll) { return recent_choices_[static_cast<int>(coll)]; }

  // True the first time (coll, size class) is seen: TOPOCOLL_VERBOSE prints once per class.
  bool firstOfSizeClass(Collective coll, int64_t bytes);

 private:
  CommState() = default;
  static int lookUp(MPI_Comm comm, CommState** out);
  static int deleteAttribute(MPI_Comm comm, int keyval, void* value, void* extra);
  int acquireShadow(ShadowComm** out);

  // Cleared when its state is freed, before the communicator's handle can be reused.
  struct LastLookup {
    MPI_Comm comm;
    CommState* state = nullptr;
  };
  static LastLookup last_;
  static bool single_caller_;

  MPI_Comm comm_ = MPI_COMM_NULL;  // valid while this lives: the attribute goes with the communicator
  int size_ = 0, rank_ = 0, serial_ = 0;
  bool inter_ = false;
  std::shared_ptr<ShadowComm> shadow_;
  std::array<RecentChoice, generated::kCollectiveCount> recent_choices_;
  std::unordered_set<int64_t> traced_;
};

}  // namespace topocoll
