#include "shadow_comm.h"

#include <sched.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <deque>
#include <functional>
#include <list>
#include <mutex>

#include "algorithm_registry.h"
#include "config.h"
#include "hierarchy/node_override.h"
#include "mapping/remap/comm_machine.h"

namespace topocoll {
namespace {

constexpr size_t kMaxCachedSchedules = 64;
// Tags below this are left to the MPI's own use of a dup'ed communicator (none today); MPI
// guarantees MPI_TAG_UB >= 32767.
constexpr int kTagSpan = 32767;
// Pooled duplicates per process. Each holds an MPI communicator and, once shared memory ran on
// it, a leased segment (TOPOCOLL_SHM_BYTES a channel): a few cover a loop of create/free.
constexpr size_t kPoolCapacity = 8;
constexpr long long kNoId = LLONG_MAX;

}  // namespace

struct ShadowComm::Pool {
  std::mutex mutex;
  std::list<std::unique_ptr<ShadowComm>> idle;  // oldest first
  long long next_id = 0;                         // above every id this process has agreed to
  uint64_t created = 0, reused = 0;
  bool closed = false;  // MPI_Finalize has begun: what is released now is freed

  // Takes out the idle one of lowest id made for these ranks under these settings (null: none).
  std::unique_ptr<ShadowComm> reserve(const std::vector<int>& world_ranks, const Settings& settings) {
    auto best = idle.end();
    for (auto it = idle.begin(); it != idle.end(); ++it) {
      if ((*it)->world_ranks_ == world_ranks && (*it)->settings_ == settings && (best == idle.end() || (*it)->id_ < (*best)->id_)) best = it;
    }
    if (best == idle.end()) return nullptr;
    std::unique_ptr<ShadowComm> s = std::move(*best);
    idle.erase(best);
    return s;
  }
  // Returns `s` to the pool; the oldest leaves when it is full, and `s` itself once it is closed.
  // What leaves is freed after the lock is let go.
  void put(std::unique_ptr<ShadowComm> s) {
    std::unique_ptr<ShadowComm> leaving;
    std::lock_guard<std::mutex> lock(mutex);
    if (closed) {
      leaving = std::move(s);
      return;
    }
    idle.push_back(std::move(s));
    if (idle.size() <= kPoolCapacity) return;
    leaving = std::move(idle.front());
    idle.pop_front();
  }
};

ShadowComm::Pool* ShadowComm::pool_ = nullptr;

struct ShadowComm::Setup {
  MPI_Request dup = MPI_REQUEST_NULL;  // the MPI_Comm_idup in flight
  bool want_shm = false;               // startShm() was called
  ShmOptions shm_options;
  std::unique_ptr<ShmCreation> shm;    // its steps, once the duplicate exists
  std::deque<Waiter*> waiting;         // in call order
  int error = MPI_SUCCESS;             // a set-up that failed: every later call fails too
};

ShadowComm::Settings ShadowComm::currentSettings() {
  return {nodeOverride(), config().get(Parameter::ShmBytes), config().get(Parameter::Numa) != 0};
}

ShadowComm::Pool* ShadowComm::pool() {
  static Pool* pool = pool_ = new Pool();
  return pool;
}

int ShadowComm::acquireWithoutBlocking(MPI_Comm comm, std::shared_ptr<ShadowComm>* out) {
  std::vector<int> world_ranks;
  int rc = worldRanksOf(comm, &world_ranks);
  if (rc != MPI_SUCCESS || world_ranks.empty()) return rc;
  std::unique_ptr<ShadowComm> s(new ShadowComm());
  s->settings_ = currentSettings();
  auto h = std::make_unique<Hierarchy>();
  std::string error;
  // Within the world: no communication (Hierarchy::detect), and `comm` has the shadow's group.
  if ((rc = Hierarchy::detect(comm, s->settings_.node_override, h.get(), &error)) != MPI_SUCCESS) return rc;
  s->hierarchy_ = std::move(h);
  s->poolable_ = false;  // pooling needs an id the members agree on: a collective to wait for
  s->setup_ = std::make_unique<Setup>();
  if ((rc = PMPI_Comm_idup(comm, &s->comm_, &s->setup_->dup)) != MPI_SUCCESS) return rc;
  s->settled_.store(false, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(pool()->mutex);
    ++pool()->created;
  }
  *out = std::shared_ptr<ShadowComm>(s.release(), &ShadowComm::release);
  return MPI_SUCCESS;
}

bool ShadowComm::startShm() {
  if (shmIfCreated()) return true;
  const Hierarchy* h = nullptr;
  std::string error;
  // Known already, or detected without communication (a communicator within the world; a
  // shadow acquired without blocking has it from the start).
  if (!hierarchy_ && (world_ranks_.empty() || hierarchy(&h, &error) != MPI_SUCCESS)) return false;
  while (!tryLockSetup()) sched_yield();  // held only while another thread moves the set-up on
  if (!setup_) setup_ = std::make_unique<Setup>();
  if (!setup_->want_shm) {
    const Settings now = currentSettings();
    settings_.shm_bytes = now.shm_bytes;
    settings_.numa = now.numa;
    setup_->want_shm = true;
    setup_->shm_options.data_bytes = settings_.shm_bytes;
    setup_->shm_options.numa = settings_.numa;
  }
  settled_.store(false, std::memory_order_release);
  unlockSetup();
  return true;
}

// With the set-up flag held: moves the MPI_Comm_idup on; *done once the duplicate exists.
int ShadowComm::advanceDuplicate(bool block, bool* done) {
  Setup& s = *setup_;
  int flag = 1, rc = MPI_SUCCESS;
  if (s.dup != MPI_REQUEST_NULL) {
    rc = block ? PMPI_Wait(&s.dup, MPI_STATUS_IGNORE) : PMPI_Test(&s.dup, &flag, MPI_STATUS_IGNORE);
    // The engine's errors reach the user once, through the user's communicator (interpose.cc).
    if (rc == MPI_SUCCESS && flag) rc = PMPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  *done = rc == MPI_SUCCESS && flag;
  return rc;
}

// With the set-up flag held. *done once everything asked for exists.
int ShadowComm::advanceSetup(bool block, bool* done) {
  Setup& s = *setup_;
  int rc = advanceDuplicate(block, done);
  if (rc != MPI_SUCCESS || !*done) return rc;
  *done = false;
  if (s.want_shm && !shm_) {
    if (!s.shm) s.shm = std::make_unique<ShmCreation>(comm_, *hierarchy_, s.shm_options);
    std::unique_ptr<ShmContext> made;
    if ((rc = s.shm->step(block, &made)) != MPI_SUCCESS || !made) return rc;
    s.shm.reset();
    shm_ = std::move(made);
    shm_ready_.store(shm_.get(), std::memory_order_release);
  }
  *done = true;
  return MPI_SUCCESS;
}

int ShadowComm::settle(bool block) {
  if (settled()) return MPI_SUCCESS;
  if (block) {
    while (!tryLockSetup()) sched_yield();
  } else if (!tryLockSetup()) {
    return MPI_SUCCESS;
  }
  int rc = MPI_SUCCESS;
  if (setup_) {
    bool done = false;
    if (setup_->error == MPI_SUCCESS) setup_->error = advanceSetup(block, &done);
    rc = setup_->error;
    if (rc == MPI_SUCCESS && !done) {
      unlockSetup();
      return MPI_SUCCESS;
    }
    // Complete, or failed: the calls that waited start now, in call order, with the flag held
    // (a waiter's destructor waits for it in forget()).
    std::deque<Waiter*> waiting;
    waiting.swap(setup_->waiting);
    for (Waiter* w : waiting) w->start(rc);
    if (rc == MPI_SUCCESS) setup_.reset();
    else discardWhenReleased();
  }
  if (rc == MPI_SUCCESS) settled_.store(true, std::memory_order_release);
  unlockSetup();
  return rc;
}

void ShadowComm::whenSettled(Waiter* w) {
  if (!settled()) {
    while (!tryLockSetup()) sched_yield();
    if (!settled_.load(std::memory_order_relaxed)) {
      int error = setup_->error;
      if (error == MPI_SUCCESS) setup_->waiting.push_back(w);
      unlockSetup();
      if (error != MPI_SUCCESS) w->start(error);
      return;
    }
    unlockSetup();
  }
  w->start(MPI_SUCCESS);
}

void ShadowComm::forget(Waiter* w) {
  while (!tryLockSetup()) sched_yield();
  if (setup_) setup_->waiting.erase(std::remove(setup_->waiting.begin(), setup_->waiting.end(), w), setup_->waiting.end());
  unlockSetup();
}

int ShadowComm::acquire(MPI_Comm comm, std::shared_ptr<ShadowComm>* out) {
  Pool* pool = ShadowComm::pool();
  std::vector<int> world_ranks;
  int rc = worldRanksOf(comm, &world_ranks);
  if (rc != MPI_SUCCESS) return rc;
  const Settings settings = currentSettings();
  std::unique_ptr<ShadowComm> candidate;
  long long next_id;
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    if (!world_ranks.empty()) candidate = pool->reserve(world_ranks, settings);
    next_id = pool->next_id;
  }
  // MIN of (id, -id, -next id): all proposed the same id where min == max; a new one takes the
  // highest next id of all. On the user's communicator, as a collective: it matches no message
  // of the program's own.
  long long mine[3] = {candidate ? candidate->id_ : kNoId, candidate ? -candidate->id_ : -kNoId, -next_id}, agreed[3];
  if ((rc = PMPI_Allreduce(mine, agreed, 3, MPI_LONG_LONG, MPI_MIN, comm)) != MPI_SUCCESS) {
    if (candidate) pool->put(std::move(candidate));
    return rc;
  }
  std::unique_ptr<ShadowComm> s;
  const bool reused = candidate && agreed[0] == -agreed[1];
  if (reused) {
    s = std::move(candidate);
  } else {
    if (candidate) pool->put(std::move(candidate));
    s.reset(new ShadowComm());
    if ((rc = PMPI_Comm_dup(comm, &s->comm_)) != MPI_SUCCESS) return rc;
    // The engine's errors reach the user once, through the user's communicator (interpose.cc).
    if ((rc = PMPI_Comm_set_errhandler(s->comm_, MPI_ERRORS_RETURN)) != MPI_SUCCESS) return rc;
    s->id_ = -agreed[2];
    s->world_ranks_ = std::move(world_ranks);
    s->settings_ = settings;
  }
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->next_id = std::max(pool->next_id, s->id_ + 1);
    ++(reused ? pool->reused : pool->created);
  }
  *out = std::shared_ptr<ShadowComm>(s.release(), &ShadowComm::release);
  return MPI_SUCCESS;
}

void ShadowComm::release(ShadowComm* shadow) {
  std::unique_ptr<ShadowComm> s(shadow);
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (pool_ && s->poolable_ && !s->world_ranks_.empty() && !finalized) pool_->put(std::move(s));
}

void ShadowComm::drainPool() {
  if (!pool_) return;
  std::list<std::unique_ptr<ShadowComm>> idle;
  std::lock_guard<std::mutex> lock(pool_->mutex);
  idle.swap(pool_->idle);
  pool_->closed = true;
}

ShadowPoolStats ShadowComm::poolStats() {
  if (!pool_) return {};
  std::lock_guard<std::mutex> lock(pool_->mutex);
  return {pool_->created, pool_->reused};
}

ShadowComm::~ShadowComm() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return;
  // A set-up abandoned midway (an error): a collective in flight cannot be cancelled, only completed.
  if (setup_) {
    setup_->shm.reset();
    if (setup_->dup != MPI_REQUEST_NULL) PMPI_Wait(&setup_->dup, MPI_STATUS_IGNORE);
  }
  if (comm_ != MPI_COMM_NULL) PMPI_Comm_free(&comm_);
}

int ShadowComm::nextTag() { return static_cast<int>(sequence_++ % kTagSpan); }

size_t ShadowComm::ScheduleKeyHash::operator()(const ScheduleKey& k) const {
  size_t h = std::hash<int64_t>()(k.count);
  for (int64_t v : {int64_t(k.coll), int64_t(k.algorithm), int64_t(k.root), int64_t(k.in_place), int64_t(k.commutative), k.max_outstanding,
                    k.segment_blocks, k.element_bytes, k.shm_elements, k.bcast_concurrency, k.tile_bytes}) {
    h = h * 1000003u ^ std::hash<int64_t>()(v);
  }
  for (int64_t v : k.recv_counts) h = h * 1000003u ^ std::hash<int64_t>()(v);
  return h;
}

const std::shared_ptr<const Schedule>& ShadowComm::schedule(generated::Collective coll, int algorithm, const BuildParams& params) {
  ScheduleKey key{static_cast<int>(coll), algorithm, params.root, params.in_place, params.commutative, params.count, params.max_outstanding,
                  params.segment_blocks, params.element_bytes, params.shm_elements, params.bcast_concurrency, params.tile_bytes,
                  params.recv_counts ? *params.recv_counts : std::vector<int64_t>()};
  Recent& recent = recent_[static_cast<int>(coll)];
  if (recent.schedule && recent.key == key) return recent.schedule;
  auto it = schedules_.find(key);
  if (it == schedules_.end()) {
    if (schedules_.size() >= kMaxCachedSchedules) schedules_.clear();
    it = schedules_.emplace(key, std::make_shared<const Schedule>(findBuilder(coll, algorithm)(params))).first;
  }
  recent = {key, it->second};
  return recent.schedule;
}

int ShadowComm::hierarchy(const Hierarchy** out, std::string* error) {
  if (!hierarchy_) {
    // The override in force now (a topology file may set one after this was acquired).
    settings_.node_override = nodeOverride();
    auto h = std::make_unique<Hierarchy>();
    int rc = Hierarchy::detect(comm_, settings_.node_override, h.get(), error);
    if (rc != MPI_SUCCESS) return rc;
    hierarchy_ = std::move(h);
  }
  *out = hierarchy_.get();
  return MPI_SUCCESS;
}

mapping::RankMappingCache& ShadowComm::rankMappings() {
  if (!rank_mappings_) {
    int size = 0;
    PMPI_Comm_size(comm_, &size);
    rank_mappings_ = std::make_unique<mapping::RankMappingCache>(mapping::nodeOfSlot(hierarchy_.get(), size),
                                                                 hierarchy_ ? mapping::commMachineTree(comm_, *hierarchy_) : nullptr);
  }
  return *rank_mappings_;
}

int ShadowComm::shm(ShmContext** out) {
  if (!shmIfCreated()) {
    // The steps of startShm(), run to their end (with one begun without blocking, if any).
    const Hierarchy* h = nullptr;
    std::string error;
    int rc = hierarchy(&h, &error);  // collective where the communicator reaches outside the world
    if (rc != MPI_SUCCESS) return rc;
    startShm();
    if ((rc = settle(true)) != MPI_SUCCESS) return rc;
  }
  *out = shmIfCreated();
  return MPI_SUCCESS;
}

}  // namespace topocoll
