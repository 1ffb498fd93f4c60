#include "comm_state.h"

#include "choice.h"

namespace topocoll {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;
int g_next_serial = 0;

}  // namespace

int CommState::createKeyval(int thread_level) {
  if (g_keyval != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
  int provided = thread_level;
  if (provided < 0) PMPI_Query_thread(&provided);
  single_caller_ = provided < MPI_THREAD_MULTIPLE;
  return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &CommState::deleteAttribute, &g_keyval, nullptr);
}

CommState::LastLookup CommState::last_;
// Not thread_local: that would cost as much as the lookup, through __tls_get_addr.
bool CommState::single_caller_ = false;

int CommState::deleteAttribute(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<CommState*>(value);
  if (last_.state == state) last_ = {};
  bumpSelectionEpoch();  // memos keyed by this handle are stale: it may name another communicator next
  delete state;
  return MPI_SUCCESS;
}

int CommState::lookUp(MPI_Comm comm, CommState** out) {
  int found = 0;
  CommState* existing = nullptr;
  int rc = PMPI_Comm_get_attr(comm, g_keyval, &existing, &found);
  if (rc != MPI_SUCCESS) return rc;
  if (found) {
    *out = existing;
    if (single_caller_) last_ = {comm, existing};
    return MPI_SUCCESS;
  }
  std::unique_ptr<CommState> s(new CommState());
  int inter = 0;
  if ((rc = PMPI_Comm_test_inter(comm, &inter)) != MPI_SUCCESS) return rc;
  s->inter_ = inter != 0;
  if ((rc = PMPI_Comm_size(comm, &s->size_)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_rank(comm, &s->rank_)) != MPI_SUCCESS) return rc;
  s->comm_ = comm;
  s->serial_ = g_next_serial++;
  if ((rc = PMPI_Comm_set_attr(comm, g_keyval, s.get())) != MPI_SUCCESS) return rc;
  *out = s.release();
  return MPI_SUCCESS;
}

int CommState::acquireShadow(ShadowComm** out) {
  if (inter_) return MPI_ERR_COMM;  // the engine runs intercommunicators' calls natively
  int rc = shadow_ ? shadow_->settle(true) : ShadowComm::acquire(comm_, &shadow_);
  if (rc == MPI_SUCCESS) *out = shadow_.get();
  return rc;
}

int CommState::acquireShadowWithoutBlocking() {
  if (inter_) return MPI_ERR_COMM;
  return shadow_ ? MPI_SUCCESS : ShadowComm::acquireWithoutBlocking(comm_, &shadow_);
}

int CommState::hierarchy(const Hierarchy** out, std::string* error) {
  ShadowComm* shadow = shadow_.get();
  int rc = shadow ? MPI_SUCCESS : acquireShadow(&shadow);
  return rc == MPI_SUCCESS ? shadow->hierarchy(out, error) : rc;
}

bool CommState::firstOfSizeClass(Collective coll, int64_t bytes) {
  int size_class = 0;
  while (bytes > 0) {
    bytes >>= 1;
    ++size_class;
  }
  return traced_.insert(static_cast<int64_t>(coll) * 128 + size_class).second;
}

}  // namespace topocoll
