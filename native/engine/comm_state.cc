#include "comm_state.h"

#include <functional>

#include "algorithm_registry.h"
#include "config.h"
#include "mapping/remap/comm_machine.h"
#include "select.h"

namespace topocoll {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;
int g_next_serial = 0;
constexpr size_t kMaxCachedSchedules = 64;
// Tags below this are left to the MPI's own use of a dup'ed communicator (none today); MPI
// guarantees MPI_TAG_UB >= 32767.
constexpr int kTagSpan = 32767;

}  // namespace

int CommState::createKeyval() {
  if (g_keyval != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  single_caller_ = provided < MPI_THREAD_MULTIPLE;
  return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &CommState::deleteAttribute, &g_keyval, nullptr);
}

CommState::LastLookup CommState::last_;
// Not thread_local: that would cost as much as the lookup, through __tls_get_addr.
bool CommState::single_caller_ = false;

// The attribute's value: a heap-held reference to the state.
using StateRef = std::shared_ptr<CommState>;

int CommState::deleteAttribute(MPI_Comm, int, void* value, void*) {
  auto* ref = static_cast<StateRef*>(value);
  if (last_.state == ref->get()) last_ = {};
  bumpSelectionEpoch();  // memos keyed by this handle are stale: it may name another communicator next
  delete ref;
  return MPI_SUCCESS;
}

CommState::~CommState() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (!finalized && shadow_ != MPI_COMM_NULL) PMPI_Comm_free(&shadow_);
}

int CommState::lookUp(MPI_Comm comm, CommState** out) {
  int found = 0;
  StateRef* ref = nullptr;
  int rc = PMPI_Comm_get_attr(comm, g_keyval, &ref, &found);
  if (rc != MPI_SUCCESS) return rc;
  if (found) {
    *out = ref->get();
    if (single_caller_) last_ = {comm, *out};
    return MPI_SUCCESS;
  }
  auto state = std::make_unique<StateRef>(new CommState());
  int inter = 0;
  CommState& s = **state;
  if ((rc = PMPI_Comm_test_inter(comm, &inter)) != MPI_SUCCESS) return rc;
  s.inter_ = inter != 0;
  if ((rc = PMPI_Comm_size(comm, &s.size_)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_rank(comm, &s.rank_)) != MPI_SUCCESS) return rc;
  if (!s.inter_) {
    if ((rc = PMPI_Comm_dup(comm, &s.shadow_)) != MPI_SUCCESS) return rc;
    // The engine's errors reach the user once, through the user's communicator (interpose.cc).
    if ((rc = PMPI_Comm_set_errhandler(s.shadow_, MPI_ERRORS_RETURN)) != MPI_SUCCESS) return rc;
  }
  s.serial_ = g_next_serial++;
  if ((rc = PMPI_Comm_set_attr(comm, g_keyval, state.get())) != MPI_SUCCESS) return rc;
  state.release();
  *out = &s;
  return MPI_SUCCESS;
}

int CommState::nextTag() { return static_cast<int>(sequence_++ % kTagSpan); }

size_t CommState::ScheduleKeyHash::operator()(const ScheduleKey& k) const {
  size_t h = std::hash<int64_t>()(k.count);
  for (int64_t v : {int64_t(k.coll), int64_t(k.algorithm), int64_t(k.root), int64_t(k.in_place), k.max_outstanding, k.segment_blocks,
                    k.element_bytes, k.shm_elements, k.bcast_concurrency, k.tile_bytes}) {
    h = h * 1000003u ^ std::hash<int64_t>()(v);
  }
  return h;
}

const std::shared_ptr<const Schedule>& CommState::schedule(Collective coll, int algorithm, const BuildParams& params) {
  ScheduleKey key{static_cast<int>(coll), algorithm, params.root, params.in_place, params.count, params.max_outstanding,
                  params.segment_blocks, params.element_bytes, params.shm_elements, params.bcast_concurrency, params.tile_bytes};
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

bool CommState::firstOfSizeClass(Collective coll, int64_t bytes) {
  int size_class = 0;
  while (bytes > 0) {
    bytes >>= 1;
    ++size_class;
  }
  return traced_.insert(static_cast<int64_t>(coll) * 128 + size_class).second;
}

int CommState::hierarchy(const Hierarchy** out, std::string* error) {
  if (!hierarchy_) {
    auto h = std::make_unique<Hierarchy>();
    MPI_Comm comm = inter_ ? MPI_COMM_NULL : shadow_;
    if (comm == MPI_COMM_NULL) return MPI_ERR_COMM;
    int rc = Hierarchy::detect(comm, nodeOverride(), h.get(), error);
    if (rc != MPI_SUCCESS) return rc;
    hierarchy_ = std::move(h);
  }
  *out = hierarchy_.get();
  return MPI_SUCCESS;
}

mapping::RankMappingCache& CommState::rankMappings() {
  if (!rank_mappings_) {
    rank_mappings_ = std::make_unique<mapping::RankMappingCache>(mapping::nodeOfSlot(hierarchy_.get(), size_),
                                                                 hierarchy_ ? mapping::commMachineTree(shadow_, *hierarchy_) : nullptr);
  }
  return *rank_mappings_;
}

int CommState::shm(ShmContext** out) {
  if (!shm_) {
    const Hierarchy* h = nullptr;
    std::string error;
    int rc = hierarchy(&h, &error);
    if (rc != MPI_SUCCESS) return rc;
    ShmOptions options;
    options.data_bytes = config().get(Parameter::ShmBytes);
    options.numa = config().get(Parameter::Numa) != 0;
    if ((rc = ShmContext::create(shadow_, *h, options, &shm_)) != MPI_SUCCESS) return rc;
  }
  *out = shm_.get();
  return MPI_SUCCESS;
}

}  // namespace topocoll
