// The engine's private side of a user's intracommunicator: a duplicate (the shadow) on which all
// engine traffic runs, so it never matches the user's messages, and what lives on it: the tag
// sequence, built schedules, the hierarchy, shared memory and rank mappings.
//
// Creating one costs an MPI_Comm_dup and a shared-memory lease, as much again as the user's own
// communicator. So when the last reference goes (the user's communicator freed, its requests
// complete) it is kept in a small per-process pool, and the next communicator of the same ranks
// in the same order takes it over. The members agree on which one with a single allreduce: each
// proposes its lowest pooled id for that group, and one is reused only where all proposed it,
// which means every member holds that very duplicate with the same history behind it.
//
// A nonblocking collective may not wait for the other ranks, so where it is the first to need
// the shadow (an algorithm forced on a new communicator), the set-up runs without blocking: the
// duplicate with MPI_Comm_idup, started within the call so that it takes the call's place among
// the collectives on the user's communicator, and the shared memory in steps (ShmCreation). The
// calls made meanwhile start, in call order, once it is complete (settle()).
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "generated/registry.h"
#include "hierarchy/hierarchy.h"
#include "mapping/remap/allgather_mapping.h"
#include "model/select_model.h"
#include "schedule.h"
#include "shm/shm_context.h"

namespace topocoll {

// What this process's pool did (TOPOCOLL_STATS).
struct ShadowPoolStats {
  uint64_t created = 0, reused = 0;
};

class ShadowComm {
 public:
  // The shadow comm for the intracommunicator `comm`: a pooled one of the same ranks, or a new
  // duplicate. Collective over `comm` (one allreduce, and MPI_Comm_dup when none is pooled).
  static int acquire(MPI_Comm comm, std::shared_ptr<ShadowComm>* out);
  // For a nonblocking call: a new duplicate (never a pooled one: taking one needs the members'
  // agreement first), its MPI_Comm_idup started here, and its hierarchy from the world's (no
  // communication); not settled() until the duplicate exists. *out stays null where `comm`
  // reaches outside MPI_COMM_WORLD: its hierarchy takes an exchange.
  static int acquireWithoutBlocking(MPI_Comm comm, std::shared_ptr<ShadowComm>* out);
  // Frees the pooled ones, and those released from now on: at MPI_Finalize.
  static void drainPool();
  static ShadowPoolStats poolStats();

  ~ShadowComm();

  // Valid once settled().
  MPI_Comm comm() const { return comm_; }

  // False while a set-up begun without blocking (acquireWithoutBlocking, startShm) is in flight
  // or the calls that waited for it have not all started: a call on this shadow then waits too
  // (whenSettled), so that calls start in call order on every rank (tags, shared-memory calls).
  bool settled() const { return settled_.load(std::memory_order_acquire); }
  // Begins creating the shared memory without blocking. False where the hierarchy is not known
  // without communication (a communicator reaching outside the world, not detected yet).
  bool startShm();
  // A call waiting for the set-up: start() runs once it is complete (`rc` its outcome), in call
  // order, on whichever thread completes it.
  class Waiter {
   public:
    virtual ~Waiter() = default;
    virtual void start(int rc) = 0;
  };
  // Runs `w->start` now when settled, else once settle() completes the set-up. A waiter
  // destroyed first must be forgotten.
  void whenSettled(Waiter* w);
  void forget(Waiter* w);
  // Moves the set-up on, then starts the waiting calls; with `block`, to its end. Without
  // `block` it never waits, not even for another thread that settles. Returns an MPI error code.
  int settle(bool block);
  // A fresh tag per collective call: nonblocking collectives on one communicator may overlap.
  int nextTag();
  // A call that did not run to its end (an error, a request abandoned) leaves the members'
  // histories apart: this one is then freed, never pooled.
  void discardWhenReleased() { poolable_ = false; }

  // The schedule of (coll, algorithm, params), built once and reused. The reference is valid
  // until the next call.
  const std::shared_ptr<const Schedule>& schedule(generated::Collective coll, int algorithm, const BuildParams& params);

  // The hierarchy (node, socket, NUMA node of every rank), detected on first use: collective
  // over the communicator. On error *error says why.
  int hierarchy(const Hierarchy** out, std::string* error);
  // Shared memory, created on first use (collective; needs the hierarchy), or completed where
  // startShm() began it. *out is never null on success; (*out)->available() tells whether the
  // nodes got their segments.
  int shm(ShmContext** out);
  // The shared memory if already created, else null (no communication).
  ShmContext* shmIfCreated() const { return shm_ready_.load(std::memory_order_acquire); }
  // The rank mappings of the remapped algorithms (seed 004), each computed at first use from the
  // hierarchy's nodes; no communication. Needs the hierarchy detected first.
  mapping::RankMappingCache& rankMappings();
  // TOPOCOLL_SELECT=model's choices for these ranks.
  model::ModelChoiceCache& modelChoices() { return model_choices_; }

 private:
  struct Pool;
  // Never destroyed: freeing communicators at exit, maybe after MPI_Finalize, is not allowed.
  static Pool* pool_;
  // What its hierarchy and shared memory were made under: a pooled one is taken over only
  // while these still hold.
  struct Settings {
    NodeOverride node_override;
    int64_t shm_bytes = 0;
    bool numa = false;
    bool operator==(const Settings& o) const { return node_override == o.node_override && shm_bytes == o.shm_bytes && numa == o.numa; }
  };
  static Settings currentSettings();
  static void release(ShadowComm* shadow);

  ShadowComm() = default;
  // What a set-up begun without blocking has in flight.
  struct Setup;
  int advanceDuplicate(bool block, bool* done);
  int advanceSetup(bool block, bool* done);
  static Pool* pool();
  bool tryLockSetup() { return !setup_busy_.exchange(true, std::memory_order_acquire); }
  void unlockSetup() { setup_busy_.store(false, std::memory_order_release); }

  struct ScheduleKey {
    int coll, algorithm, root;
    bool in_place, commutative;
    int64_t count, max_outstanding, segment_blocks;
    int64_t element_bytes, shm_elements, bcast_concurrency, tile_bytes;  // the hierarchy is fixed per communicator
    std::vector<int64_t> recv_counts;  // reduce_scatter's; empty for the others
    bool operator==(const ScheduleKey& o) const {
      return coll == o.coll && algorithm == o.algorithm && root == o.root && in_place == o.in_place && commutative == o.commutative &&
             count == o.count && max_outstanding == o.max_outstanding && segment_blocks == o.segment_blocks &&
             element_bytes == o.element_bytes && shm_elements == o.shm_elements && bcast_concurrency == o.bcast_concurrency &&
             tile_bytes == o.tile_bytes && recv_counts == o.recv_counts;
    }
  };
  struct ScheduleKeyHash {
    size_t operator()(const ScheduleKey& k) const;
  };

  MPI_Comm comm_ = MPI_COMM_NULL;
  long long id_ = 0;              // agreed by the members at creation
  std::vector<int> world_ranks_;  // the pool's key; empty: some member is outside this world
  Settings settings_;
  bool poolable_ = true;
  uint32_t sequence_ = 0;
  std::unordered_map<ScheduleKey, std::shared_ptr<const Schedule>, ScheduleKeyHash> schedules_;
  // The last schedule of each collective: a loop of identical calls skips hashing the key.
  struct Recent {
    ScheduleKey key;
    std::shared_ptr<const Schedule> schedule;
  };
  std::array<Recent, generated::kCollectiveCount> recent_;
  model::ModelChoiceCache model_choices_;
  std::unique_ptr<Hierarchy> hierarchy_;
  std::unique_ptr<ShmContext> shm_;  // declared after hierarchy_, which it points to
  std::atomic<ShmContext*> shm_ready_{nullptr};  // shm_ once made: read by any thread
  std::unique_ptr<mapping::RankMappingCache> rank_mappings_;
  // The set-up in flight (null: none) and the waiting calls, guarded by setup_busy_: a flag, not
  // a mutex, since the MPI calls of a set-up may re-enter it on the same thread (Open MPI's
  // progress callback) and must then find it busy.
  std::unique_ptr<Setup> setup_;
  std::atomic<bool> setup_busy_{false};
  std::atomic<bool> settled_{true};
};

}  // namespace topocoll
