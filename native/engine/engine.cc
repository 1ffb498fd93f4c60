#include "engine.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "algorithm_registry.h"
#include "comm_state.h"
#include "config.h"
#include "hierarchy/node_override.h"
#include "load_config.h"
#include "model/select_model.h"
#include "mapping/remap/remapped_allgather.h"
#include "override.h"
#include "select.h"
#include "shm/shm_pool.h"
#include "staging.h"
#include "stats.h"
#include "topology/runtime.h"

namespace topocoll::engine {

bool g_initialized = false;

namespace {

const char* choiceName(Collective coll, int algorithm) {
  return algorithm == kAlgorithmNative ? "native" : algorithmName(coll, algorithm);
}

// One call of a collective, as the selection, the trace and the executor see it. Small on
// purpose: a call handed to the MPI never builds (nor zeroes) the BuildParams.
// Sizes are bytes of the type signature (staging.h), which every rank agrees on.
struct Call {
  Collective coll;
  MPI_Comm comm;
  int64_t block_bytes;
  int64_t total_bytes;  // a block collective's: set by dispatch (p blocks), unless total_known
  int64_t count;        // builders' units per block: bytes of a block (bcast: of the vector, a block being one byte;
                        // reductions: elements of the vector, a block being one element)
  int root = 0;
  bool in_place = false;
  // Reductions: the op is commutative; it combines through MPI with the user's handles.
  bool commutative = true;
  bool user_handles = false;
  const std::vector<int64_t>* recv_counts = nullptr;  // reduce_scatter: every rank's part, in elements
  // What the choice depends on besides the sizes (CommState::RecentChoice): the call's form too,
  // which rules may name (`nonblocking`).
  int variant(bool nonblocking) const { return (commutative ? 0 : 1) | (nonblocking ? 2 : 0) | (user_handles && nonblocking ? 4 : 0); }
  bool total_known = false;  // reduce_scatter: total_bytes is the sum of its parts
};

bool isReduction(Collective coll) { return collectiveEntry(coll).reducing; }

// Whether a builder's block is one element (a vector's: a byte; reductions: an element of the
// datatype) rather than one rank's block.
bool blockIsElement(Collective coll) { return collectiveEntry(coll).shape == Shape::Vector || isReduction(coll); }

// Signature bytes of one element of a call: 1 but for reductions, whose builders' elements are
// the datatype's.
int64_t elementBytesOf(const Call& call) {
  return isReduction(call.coll) && call.count > 0 ? call.block_bytes / call.count : 1;
}

// What the builders learn of the call itself (the engine adds the communicator's part).
BuildParams paramsOf(const Call& call) {
  BuildParams params;
  params.count = call.count;
  params.root = call.root;
  params.in_place = call.in_place;
  params.commutative = call.commutative;
  params.recv_counts = call.recv_counts;
  return params;
}

void trace(const Call& call, CommState* state, const Choice& choice) {
  if (state->rank() != 0 || !state->firstOfSizeClass(call.coll, call.block_bytes)) return;
  std::fprintf(stderr, "topocoll: comm %d (p=%d) %s %lld B%s -> %s (%s)\n", state->serial(), state->size(),
               collectiveEntry(call.coll).name, static_cast<long long>(call.block_bytes),
               collectiveEntry(call.coll).shape == Shape::Block ? "/block" : "",
               choiceName(call.coll, choice.algorithm), choice.reason);
}

// The communicator's hierarchy, detected on first use (collectively); rank 0 says why it failed.
int hierarchyOf(CommState* state, const Hierarchy** out) {
  std::string error;
  int rc = state->hierarchy(out, &error);
  if (rc != MPI_SUCCESS && !error.empty() && state->rank() == 0) std::fprintf(stderr, "topocoll: %s\n", error.c_str());
  return rc;
}

// TOPOCOLL_SELECT=model: the call as the model sees it (the hierarchy is detected here, collectively).
int modelCall(const Call& call, CommState* state, model::ModelCall* out) {
  const Config& cfg = config();
  int rc = hierarchyOf(state, &out->hierarchy);
  if (rc != MPI_SUCCESS) return rc;
  ShadowComm* shadow = nullptr;
  state->shadow(&shadow);  // acquired with the hierarchy
  out->coll = call.coll;
  out->comm = call.comm;
  out->cache = &shadow->modelChoices();
  out->mappings = &shadow->rankMappings();
  out->params = paramsOf(call);
  out->params.p = state->size();
  out->params.hierarchy = out->hierarchy;
  out->params.max_outstanding = static_cast<int>(cfg.get(Parameter::AlltoallMaxOutstanding));
  out->params.bcast_concurrency = static_cast<int>(cfg.get(Parameter::BcastConcurrency));
  out->params.tile_bytes = cfg.get(Parameter::AlltoallTileBytes);
  // A vector's or a reduction's block is one element; a block collective's one rank's block (count elements).
  int64_t count = std::max<int64_t>(call.count, 1);
  out->block_bytes = blockIsElement(call.coll) ? double(call.block_bytes) / double(count) : double(call.block_bytes);
  int64_t element = std::max<int64_t>(1, call.block_bytes / count);
  out->params.element_bytes = element;
  if (cfg.get(Parameter::Shm)) out->params.shm_elements = cfg.get(Parameter::ShmBytes) / element;  // before the segment exists
  return MPI_SUCCESS;
}

// TOPOCOLL_SELECT=model. Out of line: the ModelCall is large, and the rule-based path must not
// pay for zeroing it on every call.
[[gnu::noinline]] int selectByModel(const Call& call, CommState* state, bool nonblocking, Choice* choice) {
  model::ModelCall model_call;
  int rc = modelCall(call, state, &model_call);
  if (rc != MPI_SUCCESS) return rc;
  int nodes = model_call.hierarchy->nodeCount();
  *choice = selectAlgorithm(call.coll, state->size(), call.block_bytes, call.total_bytes, config(), nodes, nonblocking, &model_call);
  return MPI_SUCCESS;
}

// Whether the user forced the algorithm of `coll` (TOPOCOLL_<COLL>_ALGORITHM or the C API).
bool forced(Collective coll) {
  return override_algorithm::forced(coll) != kAlgorithmAuto || config().forced[static_cast<int>(coll)] != kAlgorithmAuto;
}

// MPI lets a nonblocking collective return at once, so it must not wait for other ranks. With
// the selection left to the engine, one that would set something up (collectively) goes to the
// MPI until a blocking call has set it up; every rank agrees: the same calls came before on the
// communicator. A forced algorithm sets up without blocking instead (ShadowComm).
const Choice kSetupDeferred{kAlgorithmNative, "native: a nonblocking call sets nothing up; the first blocking call of an engine algorithm on this communicator does"};

// A forced algorithm in a nonblocking call: begins what it needs set up (the shadow, its shared
// memory) without blocking. Returns why it cannot run (null: it can), or sets *rc.
const char* setUpWithoutBlocking(CommState* state, bool uses_shm, int* rc) {
  static const char* const kOutsideWorld =
      "the communicator reaches outside MPI_COMM_WORLD: setting it up takes an exchange, which a nonblocking call may not wait for";
  if (!state->shadowIfAcquired()) {
#if defined(OMPI_MAJOR_VERSION)
    // Open MPI 4.1 holds up the blocking creation of a communicator made after the parent of a
    // pending MPI_Comm_idup until that completes: rank 0 idup(c) then dup(d), rank 1 dup(d) then
    // idup(c) deadlocks without us. Our duplicate must not bring that into a program.
    return "Open MPI cannot duplicate the communicator without blocking the program's own communicator creation (MPI_Comm_idup); "
           "the first blocking call of an engine algorithm on this communicator sets it up";
#else
    if ((*rc = state->acquireShadowWithoutBlocking()) != MPI_SUCCESS) return nullptr;
    if (!state->shadowIfAcquired()) return kOutsideWorld;
#endif
  }
  ShadowComm* shadow = state->shadowIfAcquired();
  if (!uses_shm) return nullptr;
  if (ShmContext* shm = shadow->shmIfCreated()) return shm->available() ? nullptr : shm->why().c_str();
  return shadow->startShm() ? nullptr : kOutsideWorld;
}

// Resolves the algorithm for a call, applying TOPOCOLL_FALLBACK where a forced one cannot run.
// *deferred: native because a nonblocking call may not set up, or not yet (not to be remembered).
int choose(const Call& call, CommState* state, bool nonblocking, Choice* choice, bool* deferred) {
  int rc;
  const bool was_forced = forced(call.coll);
  if (was_forced) {
    // Nothing else to weigh (nor a hierarchy to detect, which a nonblocking call could not).
    *choice = selectAlgorithm(call.coll, state->size(), call.block_bytes, call.total_bytes, config(), 1, nonblocking);
  } else if (config().get(Parameter::Select) == model::kSelectModel && !state->isInter()) {
    if ((rc = selectByModel(call, state, nonblocking, choice)) != MPI_SUCCESS) return rc;
  } else {
    // Placement-dependent rules need the node count: detected once per communicator
    // (collectively: whether a collective needs it is the same on every rank).
    int nodes = 1;
    if (rulesNeedNodes(call.coll) && !state->isInter()) {
      const Hierarchy* hierarchy = nullptr;
      if ((rc = hierarchyOf(state, &hierarchy)) != MPI_SUCCESS) return rc;
      nodes = hierarchy->nodeCount();
    }
    *choice = selectAlgorithm(call.coll, state->size(), call.block_bytes, call.total_bytes, config(), nodes, nonblocking);
  }
  if (choice->algorithm == kAlgorithmNative) {
    // Say why an intercommunicator ran native even where a rule would have picked native anyway.
    if (state->isInter()) choice->reason = "fallback: intercommunicators are not handled by the engine";
    return MPI_SUCCESS;
  }
  const char* why = nullptr;
  const bool uses_shm = collectiveEntry(call.coll).uses_shm[choice->algorithm];
  rc = MPI_SUCCESS;
  if (state->isInter()) why = "intercommunicators are not handled by the engine";
  else if (!findBuilder(call.coll, choice->algorithm)) why = "this build has no builder for it";
  else if (!call.commutative && !collectiveEntry(call.coll).rank_ordered[choice->algorithm]) {
    why = "the op is not commutative, and the algorithm does not combine in rank order";
  } else if (nonblocking && call.user_handles) {
    why = "a nonblocking call with a user-defined op (MPI lets the program free the op while the call is pending, and offers no way to keep it)";
  } else if (uses_shm && !config().get(Parameter::Shm)) why = "shared memory is off (TOPOCOLL_SHM=0)";
  else if (nonblocking && was_forced) {
    // Not remembered when it cannot: a blocking call may set the communicator up meanwhile.
    *deferred = (why = setUpWithoutBlocking(state, uses_shm, &rc)) != nullptr;
  } else if (uses_shm) {
    ShadowComm* shadow = state->shadowIfAcquired();
    if (nonblocking && !(shadow && shadow->shmIfCreated())) {
      *deferred = true;
      *choice = kSetupDeferred;
      return MPI_SUCCESS;
    }
    // Collective on first use: every rank chose the same algorithm.
    ShmContext* shm = nullptr;
    if ((rc = state->shadow(&shadow)) == MPI_SUCCESS && (rc = shadow->shm(&shm)) == MPI_SUCCESS && !shm->available()) why = shm->why().c_str();
  }
  if (rc != MPI_SUCCESS) return rc;
  if (!why) return MPI_SUCCESS;
  if (override_algorithm::forced(call.coll) != kAlgorithmAuto) override_algorithm::noteFallback(call.coll, why);
  if (was_forced && config().fallback() == FallbackMode::Error) {
    std::fprintf(stderr, "topocoll: %s=%s cannot run this call: %s (TOPOCOLL_FALLBACK=error)\n",
                 collectiveEntry(call.coll).env, choiceName(call.coll, choice->algorithm), why);
    return MPI_ERR_OTHER;
  }
  if (was_forced && config().fallback() == FallbackMode::Warn && state->firstOfSizeClass(call.coll, -1)) {
    std::fprintf(stderr, "topocoll: %s=%s cannot run this call (%s); using native\n", collectiveEntry(call.coll).env,
                 choiceName(call.coll, choice->algorithm), why);
  }
  *choice = {kAlgorithmNative, internReason(std::string("fallback: ") + why)};
  return MPI_SUCCESS;
}

// What builders learn of the communicator's hierarchy and shared memory (seed 001).
int multicoreParams(const Call& call, int algorithm, ShadowComm* shadow, BuildParams* params) {
  const Hierarchy* hierarchy = nullptr;
  std::string error;
  int rc = shadow->hierarchy(&hierarchy, &error);
  if (rc != MPI_SUCCESS) {
    if (!error.empty() && params->rank == 0) std::fprintf(stderr, "topocoll: %s\n", error.c_str());
    return rc;
  }
  params->hierarchy = hierarchy;
  params->element_bytes = elementBytesOf(call);  // builders' elements are signature bytes (reductions: elements)
  params->bcast_concurrency = static_cast<int>(config().get(Parameter::BcastConcurrency));
  params->tile_bytes = config().get(Parameter::AlltoallTileBytes);
  ShmContext* shm = shadow->shmIfCreated();
  // Elements of the data area (the builders' elements: signature bytes, or a reduction's elements).
  if (shm && shm->available() && collectiveEntry(call.coll).uses_shm[algorithm]) {
    params->shm_elements = shm->parts() * shm->partBytes() / params->element_bytes;
  }
  return MPI_SUCCESS;
}

// Builds (or finds) the schedule of `algorithm` for `call` and runs it on `shadow` (settled), as
// rank `rank` of `p`. Out of line: the calls handed to the MPI then pay for none of this frame.
[[gnu::noinline]] int runSchedule(const Call& call, RequestOut request, int p, int rank, const std::shared_ptr<ShadowComm>& shadow,
                                  int algorithm, const Bindings& bindings, StagedBuffers staged) {
  BuildParams params = paramsOf(call);
  params.p = p;
  params.rank = rank;
  params.max_outstanding = static_cast<int>(config().get(Parameter::AlltoallMaxOutstanding));
  int rc = multicoreParams(call, algorithm, shadow.get(), &params);
  if (rc != MPI_SUCCESS) return rc;
  if (call.coll == Collective::Allgather) {
    // Remapped allgathers (seed 004): pi of this communicator, computed once per base algorithm.
    if (const char* base = mapping::remappedAllgatherBase(algorithm)) params.mapping = &shadow->rankMappings().allgatherFor(algorithm, base);
  }
  const auto& schedule = shadow->schedule(call.coll, algorithm, params);
  int tag = shadow->nextTag();
  if (!request) {
    if ((rc = executeSchedule(*schedule, bindings, shadow->comm(), tag, shadow->shmIfCreated())) != MPI_SUCCESS) return rc;
    return staged.unpack();
  }
  auto r = std::make_unique<ScheduleRequest>(schedule, bindings, std::move(staged), tag, shadow);
  if ((rc = r->start()) == MPI_SUCCESS) *request = std::move(r);
  return rc;
}

// The algorithm that stands in for a forced shared-memory one whose segment the system refused
// after a nonblocking call had started it: no longer can the call go to the MPI, whose
// collectives on the user's communicator must keep their order. The first of the registry that
// needs no shared memory (it runs any call).
int withoutShm(Collective coll) {
  const auto& entry = collectiveEntry(coll);
  for (int a = 0; a < entry.algorithm_count; ++a) {
    if (!entry.uses_shm[a] && findBuilder(coll, a)) return a;
  }
  return kAlgorithmNative;
}

// A process-wide duplicate of MPI_COMM_SELF whose errors return: what MPI_Pack/MPI_Unpack are
// told for a call bound before its shadow exists (they communicate on nothing).
MPI_Comm g_local_comm = MPI_COMM_NULL;

// A call of our schedule on a shadow whose set-up, begun without blocking, is in flight: its
// buffers are bound at the call, its schedule built and started once the set-up is complete, in
// call order (ShadowComm::whenSettled), on whichever thread completes it.
class AfterSetUp final : public CollectiveRequest, public ShadowComm::Waiter {
 public:
  AfterSetUp(const Call& call, int algorithm, int p, int rank, std::shared_ptr<ShadowComm> shadow, const Bindings& bindings,
             StagedBuffers staged)
      : shadow_(std::move(shadow)), call_(call), algorithm_(algorithm), p_(p), rank_(rank), bindings_(bindings), staged_(std::move(staged)) {}
  ~AfterSetUp() override {
    if (!started_.load(std::memory_order_acquire)) shadow_->forget(this);
  }

  void start(int rc) override {
    if (rc == MPI_SUCCESS) rc = run();
    rc_ = rc;
    started_.store(true, std::memory_order_release);
  }
  int test(bool* done) override {
    *done = false;
    if (!started_.load(std::memory_order_acquire)) {
      shadow_->settle(false);  // an error reaches this call through start()
      if (!started_.load(std::memory_order_acquire)) return MPI_SUCCESS;
    }
    if (rc_ == MPI_SUCCESS && inner_) return inner_->test(done);
    *done = true;
    return rc_;
  }
  int wait() override {
    if (!started_.load(std::memory_order_acquire)) shadow_->settle(true);
    if (rc_ != MPI_SUCCESS || !inner_) return rc_;
    return inner_->wait();
  }
  void advanceWithoutMpi() override {
    if (started_.load(std::memory_order_acquire) && inner_) inner_->advanceWithoutMpi();
  }

 private:
  int run() {
    ShmContext* shm = shadow_->shmIfCreated();
    if (collectiveEntry(call_.coll).uses_shm[algorithm_] && !shm->available()) {
      const char* env = collectiveEntry(call_.coll).env;
      const char* name = choiceName(call_.coll, algorithm_);
      if (config().fallback() == FallbackMode::Error) {
        std::fprintf(stderr, "topocoll: %s=%s cannot run this call: %s (TOPOCOLL_FALLBACK=error)\n", env, name, shm->why().c_str());
        return MPI_ERR_OTHER;
      }
      if ((algorithm_ = withoutShm(call_.coll)) == kAlgorithmNative) return MPI_ERR_OTHER;
      if (config().fallback() == FallbackMode::Warn && rank_ == 0) {
        std::fprintf(stderr, "topocoll: %s=%s cannot run this call (%s); using %s\n", env, name, shm->why().c_str(),
                     choiceName(call_.coll, algorithm_));
      }
    }
    return runSchedule(call_, &inner_, p_, rank_, shadow_, algorithm_, bindings_, std::move(staged_));
  }

  std::shared_ptr<ShadowComm> shadow_;
  Call call_;
  int algorithm_, p_, rank_;
  Bindings bindings_;
  StagedBuffers staged_;
  std::unique_ptr<CollectiveRequest> inner_;
  int rc_ = MPI_SUCCESS;
  std::atomic<bool> started_{false};
};

thread_local bool t_raised_by_mpi = false;

// A call handed to the MPI's own collective: its error has been raised there already.
int handedToMpi(int rc) {
  if (rc != MPI_SUCCESS) t_raised_by_mpi = true;
  return rc;
}

// Hands the call, with exactly the caller's arguments, to the MPI's own collective (nonblocking:
// its request wrapped for the caller).
template <typename Native>
int runNative(RequestOut request, Native native) {
  if (request.nativeBlocks()) return handedToMpi(native(nullptr));
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = handedToMpi(native(&r));
  if (rc == MPI_SUCCESS) *request = std::make_unique<NativeRequest>(r);
  return rc;
}

// A request that is already complete: a collective with nothing to move.
int completed(RequestOut request) {
  if (request) *request = std::make_unique<NativeRequest>(MPI_REQUEST_NULL);
  return MPI_SUCCESS;
}

// Runs `call` with the chosen algorithm: our schedule, on the buffers `bind(Bindings*,
// StagedBuffers*)` describes, or `native(MPI_Request*)` (null = blocking). Binding the buffers
// waits for the choice: a call handed to the MPI would pay for datatype queries it does not need.
// A call whose arguments the MPI would reject goes to the MPI, which raises its own error.
template <typename Bind, typename Native>
int dispatch(Call& call, RequestOut request, Bind bind, Native native, bool* ran_native) {
  if (call.comm == MPI_COMM_NULL || call.block_bytes < 0) return runNative(request, native);
  CommState* state = nullptr;
  int rc = CommState::get(call.comm, &state);
  if (rc != MPI_SUCCESS) return rc;
  const generated::CollectiveEntry& entry = collectiveEntry(call.coll);
  if (entry.shape == Shape::Block && !call.total_known) call.total_bytes = call.block_bytes * state->size();
  if (!state->isInter()) {
    if (entry.rooted && (call.root < 0 || call.root >= state->size())) return runNative(request, native);
    if (call.total_bytes == 0 && entry.shape != Shape::None) return completed(request);
    // Spans of the MPI-3 calls carry int byte counts: bigger calls go to the MPI (every rank
    // agrees: the sizes are the type signature's).
    if (call.total_bytes > INT_MAX) return runNative(request, native);
  }
  // A loop of like calls selects once (model selection, which reads more of the call, always runs).
  // Read in place, not copied: copying the 16-byte Choice stalls on store forwarding.
  const Choice* chosen = nullptr;
  Choice fresh;
  CommState::RecentChoice& recent = state->recentChoice(call.coll);
  uint64_t epoch = selectionEpoch();
  bool deferred = false;
  const bool nonblocking = !request.nativeBlocks();  // the user's call (a polled one is blocking on every rank)
  if (nonblocking && !state->isInter() && !(state->shadowIfAcquired() && state->shadowIfAcquired()->settled()) && !forced(call.coll)) {
    chosen = &kSetupDeferred;
  } else if (recent.epoch == epoch && recent.block_bytes == call.block_bytes && recent.total_bytes == call.total_bytes &&
             recent.variant == call.variant(nonblocking)) {
    chosen = &recent.choice;
  } else {
    if ((rc = choose(call, state, nonblocking, &fresh, &deferred)) != MPI_SUCCESS) return rc;
    if (config().get(Parameter::Select) != model::kSelectModel && !deferred) {
      recent = {epoch, call.block_bytes, call.total_bytes, call.variant(nonblocking), fresh};
    }
    chosen = &fresh;
  }
  const Choice& choice = *chosen;
  if (config().verbose() >= 1) trace(call, state, choice);
  stats::Counter* counted = config().get(Parameter::Stats) ? stats::count(call.coll, choice.algorithm, call.total_bytes) : nullptr;
  double started = config().verbose() >= 2 || counted ? PMPI_Wtime() : 0;

  *ran_native = choice.algorithm == kAlgorithmNative && !request && config().verbose() == 0 && !config().get(Parameter::Stats) &&
                config().get(Parameter::Select) != model::kSelectModel;
  if (choice.algorithm == kAlgorithmNative) {
    rc = runNative(request, native);
  } else {
    // A blocking call acquires the shadow, or completes its set-up in flight; a nonblocking one
    // (forced: choose() began the set-up) leaves that to its request.
    ShadowComm* shadow = state->shadowIfAcquired();
    if (!(nonblocking && shadow) && (rc = state->shadow(&shadow)) != MPI_SUCCESS) return rc;
    const bool settled = shadow->settled();
    Bindings bindings;
    StagedBuffers staged(settled ? shadow->comm() : g_local_comm);
    if ((rc = bind(&bindings, &staged, state->size(), state->rank())) != MPI_SUCCESS) return rc;
    if (settled) {
      rc = runSchedule(call, request, state->size(), state->rank(), state->shadowRef(), choice.algorithm, bindings, std::move(staged));
    } else {
      auto r = std::make_unique<AfterSetUp>(call, choice.algorithm, state->size(), state->rank(), state->shadowRef(), bindings, std::move(staged));
      AfterSetUp* waiting = r.get();
      *request = std::move(r);
      shadow->whenSettled(waiting);  // started at once if the set-up has completed meanwhile
    }
    if (rc != MPI_SUCCESS) shadow->discardWhenReleased();
  }
  if (counted) counted->seconds += PMPI_Wtime() - started;
  if (config().verbose() >= 2 && !request) {
    std::fprintf(stderr, "topocoll: rank %d %s %s %lld B: %.2f us\n", state->rank(), collectiveEntry(call.coll).name,
                 choiceName(call.coll, choice.algorithm), static_cast<long long>(call.total_bytes),
                 (PMPI_Wtime() - started) * 1e6);
  }
  return rc;
}

// A blocking call identical to the last one of its collective that ran the MPI's own goes
// straight to PMPI_*, so that a loop of small native calls pays as little as possible over the
// MPI's own. Identical: same communicator, datatypes, counts, root and in-place; valid while
// the selection epoch holds (rules, overrides and freed communicators bump it). Only below
// MPI_THREAD_MULTIPLE (one remembered call serves all threads, as for the communicator lookup),
// and never while tracing, counting or selecting by model, which must see every call. A
// datatype freed and its handle reused with another size could only send a call to the MPI's
// own, which is always correct.
class NativeRepeat {
 public:
  // The call's words (handles as handleBits, counts, flags) compare one by one: building a key
  // array first went through the stack with vector stores, and stalled the compares.
  template <typename... Words>
  bool matches(Words... words) const {
    size_t i = 0;
    return epoch_ == selectionEpoch() && ((key_[i++] == static_cast<uintptr_t>(words)) && ...);
  }
  template <typename... Words>
  void remember(uint64_t epoch, bool ran_native, Words... words) {
    if (!CommState::singleCaller()) return;
    key_ = {static_cast<uintptr_t>(words)...};
    epoch_ = ran_native ? epoch : 0;
  }

 private:
  std::array<uintptr_t, 6> key_{};
  uint64_t epoch_ = 0;  // 0: nothing remembered (epochs start at 1)
};

NativeRepeat g_native_repeats[generated::kCollectiveCount];

// A handle as key material: Open MPI's are pointers, MPICH's integers.
template <typename Handle>
uintptr_t handleBits(Handle h) {
  if constexpr (std::is_pointer_v<Handle>) return reinterpret_cast<uintptr_t>(h);
  else return static_cast<uintptr_t>(h);
}

// Runs a call through the engine (`run(&ran_native)`); a blocking one is remembered by its `words`
// for NativeRepeat. The entry points check for a repeat first and run the rest out of line
// (<coll>ThroughEngine, generated): the closures built there would otherwise cost the repeat
// their set-up.
template <typename Run, typename... Words>
int runRemembered(Collective coll, RequestOut request, Run run, Words... words) {
  bool ran_native = false;
  if (request) return run(&ran_native);
  uint64_t epoch = selectionEpoch();
  int rc = run(&ran_native);
  g_native_repeats[static_cast<int>(coll)].remember(epoch, ran_native, words...);
  return rc;
}

template <typename... Words>
bool repeatsNative(Collective coll, RequestOut request, Words... words) {
  return !request && g_native_repeats[static_cast<int>(coll)].matches(words...);
}

// A block collective: p blocks of recvcount elements each. Arguments the MPI rejects leave
// block_bytes negative: dispatch hands such a call to the MPI, which raises its own error.
int blockCall(Collective coll, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, Call* call) {
  bool in_place = sendbuf == MPI_IN_PLACE;
  *call = Call{coll, comm, -1, 0, 0};
  call->in_place = in_place;
  if (recvcount < 0 || recvtype == MPI_DATATYPE_NULL || (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))) return MPI_SUCCESS;
  if (!fitsInt(recvcount) || (!in_place && !fitsInt(sendcount))) return MPI_ERR_COUNT;
  int rc = signatureBytes(recvcount, recvtype, &call->block_bytes);
  call->count = call->block_bytes;
  return rc;
}

// runThroughEngine: one call through the engine, one overload per signature of the generated
// entry points (generated/entry_points.inc, which builds `native`, the MPI's own collective with
// the caller's arguments, and remembers the call for NativeRepeat). Each describes the call (its
// size in signature bytes) and how its buffers bind to the schedule's, then dispatches.

// A block collective exchanging blocks (allgather, alltoall): p blocks of recvcount elements in
// recvbuf; the send side holds one block or p, as the descriptor says.
template <typename Native>
int runThroughEngine(Collective coll, RequestOut request, Native& native, bool* ran_native, const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Call call;
  int rc = blockCall(coll, sendbuf, sendcount, sendtype, recvcount, recvtype, comm, &call);
  if (rc != MPI_SUCCESS) return rc;
  const bool sends_all = collectiveEntry(coll).send_blocks == generated::Blocks::PerRank;
  auto bind = [&](Bindings* b, StagedBuffers* staged, int p, int rank) {
    const int64_t block = call.block_bytes;
    const int64_t send_blocks = sends_all ? p : 1;
    if (call.in_place) {
      // The input is in recv: this rank's block (builders read it there), or all p blocks (the
      // builders first copy them to tmp; their send binding is unused).
      int rc = staged->bind(recvbuf, recvcount, recvtype, block, p, sends_all ? 0 : rank, send_blocks, true, &b->recv);
      if (sends_all) b->send = b->recv;
      return rc;
    }
    int rc = staged->bindSend(sendbuf, sendcount, sendtype, block, send_blocks, &b->send);
    if (rc != MPI_SUCCESS) return rc;
    return staged->bind(recvbuf, recvcount, recvtype, block, p, 0, 0, true, &b->recv);
  };
  return dispatch(call, request, bind, native, ran_native);
}

// A rooted vector (bcast): the root's buffer is the input, every other rank's the output.
template <typename Native>
int runThroughEngine(Collective coll, RequestOut request, Native& native, bool* ran_native, void* buffer, MPI_Count count,
                     MPI_Datatype type, int root, MPI_Comm comm) {
  Call call{coll, comm, -1, 0, 0, root};
  if (count >= 0 && type != MPI_DATATYPE_NULL) {
    if (!fitsInt(count)) return MPI_ERR_COUNT;
    int rc = signatureBytes(count, type, &call.block_bytes);
    if (rc != MPI_SUCCESS) return rc;
    call.total_bytes = call.count = call.block_bytes;
  }
  // A vector's block is one byte, so that algorithms can cut it into segments anywhere.
  auto bind = [&](Bindings* b, StagedBuffers* staged, int, int rank) {
    bool at_root = rank == root;
    int rc = staged->bind(buffer, count, type, call.total_bytes, 1, 0, at_root ? 1 : 0, !at_root, &b->recv);
    b->recv.blockBytes = 1;
    return rc;
  };
  return dispatch(call, request, bind, native, ran_native);
}

// No payload (barrier).
template <typename Native>
int runThroughEngine(Collective coll, RequestOut request, Native& native, bool* ran_native, MPI_Comm comm) {
  Call call{coll, comm, 0, 0, 0};
  auto bind = [](Bindings*, StagedBuffers*, int, int) { return MPI_SUCCESS; };
  return dispatch(call, request, bind, native, ran_native);
}

// A reduction of `count` elements of `type` with `op`. Arguments the MPI rejects (negative count,
// null handles, aliased buffers) and pairs the engine does not combine (Reduction) leave
// block_bytes negative: dispatch hands such calls to the MPI, which combines them or raises its
// error. *reduction: how the executor combines.
int reductionCall(const void* sendbuf, const void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, Call* call,
                  Reduction* reduction) {
  call->in_place = sendbuf == MPI_IN_PLACE;
  if (count < 0 || type == MPI_DATATYPE_NULL || op == MPI_OP_NULL || (count > 0 && sendbuf == recvbuf)) return MPI_SUCCESS;
  if (!fitsInt(count)) return MPI_ERR_COUNT;
  int rc = Reduction::resolve(op, type, reduction);
  if (rc != MPI_SUCCESS || !reduction->supported()) return rc;
  call->count = count;
  call->block_bytes = call->total_bytes = count * reduction->elementBytes();
  call->commutative = reduction->commutative();
  call->user_handles = reduction->needsUserHandles();
  return MPI_SUCCESS;
}

// Reductions bind elements of the datatype as blocks (their signature bytes each), so that no
// span splits one: the operands a call only reads, and the buffer it writes (holding this rank's
// operand first where `holds_operand`: in place).
int bindOperand(StagedBuffers* staged, const void* base, MPI_Count elements, MPI_Datatype type, int64_t element_bytes, BufferBinding* out) {
  int rc = staged->bindSend(base, elements, type, elements * element_bytes, 1, out);
  out->blockBytes = element_bytes;
  return rc;
}

int bindResult(StagedBuffers* staged, void* base, MPI_Count elements, MPI_Datatype type, int64_t element_bytes, bool holds_operand,
               BufferBinding* out) {
  int rc = staged->bind(base, elements, type, elements * element_bytes, 1, 0, holds_operand ? 1 : 0, true, out);
  out->blockBytes = element_bytes;
  return rc;
}

// allreduce (count elements, the result on every rank; in place: my operand in recvbuf) and
// reduce_scatter_block (p parts of count elements, part i left on rank i; the send binding holds
// the p parts, in place the receive binding does and the result goes to its first part).
template <typename Native>
int runThroughEngine(Collective coll, RequestOut request, Native& native, bool* ran_native, const void* sendbuf, void* recvbuf,
                     MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  Call call{coll, comm, -1, 0, 0};
  Reduction reduction;
  int rc = reductionCall(sendbuf, recvbuf, count, type, op, &call, &reduction);
  if (rc != MPI_SUCCESS) return rc;
  const bool parts = collectiveEntry(coll).send_blocks == generated::Blocks::PerRank;
  auto bind = [&](Bindings* b, StagedBuffers* staged, int p, int) {
    const int64_t element = reduction.elementBytes();
    const MPI_Count input = parts ? count * p : count;
    b->reduction = reduction;
    if (call.in_place) return bindResult(staged, recvbuf, input, type, element, true, &b->recv);
    int rc = bindOperand(staged, sendbuf, input, type, element, &b->send);
    if (rc == MPI_SUCCESS) rc = bindResult(staged, recvbuf, count, type, element, false, &b->recv);
    return rc;
  };
  return dispatch(call, request, bind, native, ran_native);
}

// reduce: count elements combined at the root. The receive buffer is bound at the root only (in
// place: the root's operand in it); builders use tmp elsewhere.
template <typename Native>
int runThroughEngine(Collective coll, RequestOut request, Native& native, bool* ran_native, const void* sendbuf, void* recvbuf,
                     MPI_Count count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  Call call{coll, comm, -1, 0, 0, root};
  Reduction reduction;
  // Only the root's receive buffer is significant: the aliasing check is the root's.
  int rc = reductionCall(sendbuf, nullptr, count, type, op, &call, &reduction);
  if (rc != MPI_SUCCESS) return rc;
  auto bind = [&](Bindings* b, StagedBuffers* staged, int, int rank) {
    const int64_t element = reduction.elementBytes();
    const bool at_root = rank == root, in_place = call.in_place && at_root;
    b->reduction = reduction;
    b->recv.blockBytes = element;
    int rc = in_place ? MPI_SUCCESS : bindOperand(staged, sendbuf, count, type, element, &b->send);
    if (rc == MPI_SUCCESS && at_root) rc = bindResult(staged, recvbuf, count, type, element, in_place, &b->recv);
    return rc;
  };
  return dispatch(call, request, bind, native, ran_native);
}

// reduce_scatter: parts of recvcounts[i] elements combined, part i left on rank i. The call's
// count is the sum (BuildParams::recv_counts has the parts); the send binding holds them all (in
// place: the receive binding, the result going to its start).
template <typename Native>
int runThroughEngine(Collective coll, RequestOut request, Native& native, bool* ran_native, const void* sendbuf, void* recvbuf,
                     CountList recvcounts, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  Call call{coll, comm, -1, 0, 0};
  CommState* state = nullptr;
  std::vector<int64_t> parts;
  int64_t total = 0;
  bool valid = !recvcounts.null() && comm != MPI_COMM_NULL && CommState::get(comm, &state) == MPI_SUCCESS && !state->isInter();
  for (int i = 0; valid && i < state->size(); ++i) {
    valid = recvcounts[i] >= 0;
    parts.push_back(recvcounts[i]);
    total += recvcounts[i];
  }
  // The MPI raises the error, runs the intercommunicator, or counts more than the engine's spans carry.
  if (!valid || !fitsInt(total)) return runNative(request, native);
  Reduction reduction;
  int rc = reductionCall(sendbuf, recvbuf, total, type, op, &call, &reduction);
  if (rc != MPI_SUCCESS) return rc;
  call.recv_counts = &parts;
  call.total_known = true;
  auto bind = [&](Bindings* b, StagedBuffers* staged, int, int rank) {
    const int64_t element = reduction.elementBytes();
    b->reduction = reduction;
    if (call.in_place) return bindResult(staged, recvbuf, total, type, element, true, &b->recv);
    int rc = bindOperand(staged, sendbuf, total, type, element, &b->send);
    if (rc == MPI_SUCCESS) rc = bindResult(staged, recvbuf, parts[rank], type, element, false, &b->recv);
    return rc;
  };
  return dispatch(call, request, bind, native, ran_native);
}

}  // namespace

bool loadConfig(std::string* error) {
  Config c;
  if (!loadConfigAndRules(&c, error)) return false;
  g_config = c;
  bumpSelectionEpoch();
  return true;
}

int initialize(std::string* error, int thread_level) {
  if (g_initialized) return MPI_SUCCESS;
  if (!loadConfig(error)) return MPI_ERR_ARG;
  int rc = CommState::createKeyval(thread_level);
  if (rc != MPI_SUCCESS) {
    *error = "topocoll: cannot create the communicator attribute keyval";
    return rc;
  }
  if ((rc = PMPI_Comm_dup(MPI_COMM_SELF, &g_local_comm)) != MPI_SUCCESS || (rc = PMPI_Comm_set_errhandler(g_local_comm, MPI_ERRORS_RETURN)) != MPI_SUCCESS) {
    *error = "topocoll: cannot duplicate MPI_COMM_SELF";
    return rc;
  }
  int world_size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (!nodeOverride().covers(world_size, error)) {
    *error = "TOPOCOLL_VIRTUAL_NODES=\"" + config().text(Parameter::VirtualNodes) + "\": " + *error;
    return MPI_ERR_ARG;
  }
  if ((rc = Hierarchy::initializeWorld(nodeOverride())) != MPI_SUCCESS) {
    *error = "topocoll: cannot find which ranks share memory (MPI_Comm_split_type)";
    return rc;
  }
  // TOPOCOLL_TOPOLOGY: read (or installed by the Node side), resolved for the world's hosts.
  if ((rc = topology::initialize(MPI_COMM_WORLD, error)) != MPI_SUCCESS) return rc;
  if (config().get(Parameter::Stats) && (rc = stats::open()) != MPI_SUCCESS) {
    *error = "TOPOCOLL_STATS: cannot duplicate MPI_COMM_WORLD for the report";
    return rc;
  }
  g_initialized = true;
  return MPI_SUCCESS;
}

void finalize() {
  if (g_initialized) stats::report(static_cast<int>(config().get(Parameter::Stats)));
  ShadowComm::drainPool();
  if (g_local_comm != MPI_COMM_NULL) PMPI_Comm_free(&g_local_comm);
}

}  // namespace topocoll::engine

// Per collective: its native thunk, its way through the engine, its entry point.
#include "generated/entry_points.inc"

namespace topocoll::engine {

bool takeRaisedByMpi() {
  bool raised = t_raised_by_mpi;
  t_raised_by_mpi = false;
  return raised;
}

}  // namespace topocoll::engine
