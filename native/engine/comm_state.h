// What the engine keeps per communicator, cached on it as an MPI attribute. The attribute holds
// one reference and every pending request of the communicator another: MPI lets a program free a
// communicator with collectives pending, and the state then lives until the last completes.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "generated/registry.h"
#include "hierarchy/hierarchy.h"
#include "mapping/remap/allgather_mapping.h"
#include "model/select_model.h"
#include "schedule.h"
#include "select.h"
#include "shm/shm_context.h"

namespace topocoll {

using generated::Collective;

class CommState : public std::enable_shared_from_this<CommState> {
 public:
  // Below MPI_THREAD_MULTIPLE: one thread at a time calls MPI, so one remembered lookup (or
  // call) serves all threads.
  static bool singleCaller() { return single_caller_; }

  // The state of `comm`, created on first use (collective over comm: it dups a shadow comm).
  // Inline: the last lookup is remembered (below MPI_THREAD_MULTIPLE), and a loop of collectives
  // on one communicator then skips the MPI's attribute lookup (a hash probe, ~20 ns in Open MPI).
  static int get(MPI_Comm comm, CommState** out) {
    if (last_.state && last_.comm == comm) {
      *out = last_.state;
      return MPI_SUCCESS;
    }
    return lookUp(comm, out);
  }
  // Creates the attribute keyval; called once by engine::initialize() after MPI_Init.
  static int createKeyval();

  ~CommState();

  int size() const { return size_; }
  int rank() const { return rank_; }
  bool isInter() const { return inter_; }
  int serial() const { return serial_; }
  // Engine traffic runs on a private duplicate so it never matches the user's messages.
  MPI_Comm shadow() const { return shadow_; }
  // A fresh tag per collective call: nonblocking collectives on one communicator may overlap.
  int nextTag();

  // The schedule of (coll, algorithm, params), built once and reused. The reference is valid
  // until the next call.
  const std::shared_ptr<const Schedule>& schedule(Collective coll, int algorithm, const BuildParams& params);

  // The choice made for the last call of `coll`, and what it depended on (engine.cc).
  struct RecentChoice {
    uint64_t epoch = 0;
    int64_t block_bytes = 0, total_bytes = 0;
    Choice choice;
  };
  RecentChoice& recentChoice(Collective coll) { return recent_choices_[static_cast<int>(coll)]; }

  // True the first time (coll, size class) is seen: TOPOCOLL_VERBOSE prints once per class.
  bool firstOfSizeClass(Collective coll, int64_t bytes);

  // The communicator's hierarchy (node, socket, NUMA node of every rank), detected on first use:
  // collective over the communicator. On error *error says why.
  int hierarchy(const Hierarchy** out, std::string* error);
  // Its shared memory, created on first use (collective; needs the hierarchy). *out is never
  // null on success; (*out)->available() tells whether the nodes got their segments.
  int shm(ShmContext** out);
  // The shared memory if already created, else null (no communication).
  ShmContext* shmIfCreated() const { return shm_.get(); }
  // The rank mappings of the remapped algorithms (seed 004), each computed at first use from the
  // hierarchy's nodes; no communication (pi is a deterministic function of the nodes). Needs
  // the hierarchy detected first (hierarchy()).
  mapping::RankMappingCache& rankMappings();
  // TOPOCOLL_SELECT=model's choices for this communicator.
  model::ModelChoiceCache& modelChoices() { return model_choices_; }

 private:
  CommState() = default;
  static int lookUp(MPI_Comm comm, CommState** out);
  static int deleteAttribute(MPI_Comm comm, int keyval, void* value, void* extra);

  // Cleared when its state is freed, before the communicator's handle can be reused.
  struct LastLookup {
    MPI_Comm comm;
    CommState* state = nullptr;
  };
  static LastLookup last_;
  static bool single_caller_;

  struct ScheduleKey {
    int coll, algorithm, root;
    bool in_place;
    int64_t count, max_outstanding, segment_blocks;
    int64_t element_bytes, shm_elements, bcast_concurrency, tile_bytes;  // the hierarchy is fixed per communicator
    bool operator==(const ScheduleKey& o) const {
      return coll == o.coll && algorithm == o.algorithm && root == o.root && in_place == o.in_place && count == o.count &&
             max_outstanding == o.max_outstanding && segment_blocks == o.segment_blocks && element_bytes == o.element_bytes &&
             shm_elements == o.shm_elements && bcast_concurrency == o.bcast_concurrency && tile_bytes == o.tile_bytes;
    }
  };
  struct ScheduleKeyHash {
    size_t operator()(const ScheduleKey& k) const;
  };

  MPI_Comm shadow_ = MPI_COMM_NULL;
  int size_ = 0, rank_ = 0, serial_ = 0;
  bool inter_ = false;
  uint32_t sequence_ = 0;
  std::unordered_map<ScheduleKey, std::shared_ptr<const Schedule>, ScheduleKeyHash> schedules_;
  // The last schedule of each collective: a loop of identical calls skips hashing the key.
  struct Recent {
    ScheduleKey key;
    std::shared_ptr<const Schedule> schedule;
  };
  std::array<Recent, generated::kCollectiveCount> recent_;
  std::array<RecentChoice, generated::kCollectiveCount> recent_choices_;
  model::ModelChoiceCache model_choices_;
  std::unordered_set<int64_t> traced_;
  std::unique_ptr<Hierarchy> hierarchy_;
  std::unique_ptr<ShmContext> shm_;  // declared after hierarchy_, which it points to
  std::unique_ptr<mapping::RankMappingCache> rank_mappings_;
};

}  // namespace topocoll
