#include "shm_context.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "../collective_request.h"

namespace topocoll {

namespace shm_detail {
double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
}  // namespace shm_detail

namespace {

constexpr int kStageBits = 24;
static_assert(kShmMaxStage < (int64_t(1) << kStageBits), "stages must fit their bits");

size_t roundUp(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

// Flags of one rank: for each channel, kShmFlagSlots flags and the `done` flag.
constexpr int kLinesPerChannel = kShmFlagSlots + 1;

// Stores `value` unless the flag already holds more (release: it publishes the caller's copies).
void raise(std::atomic<uint64_t>* f, uint64_t value) {
  uint64_t seen = f->load(std::memory_order_relaxed);
  while (seen < value && !f->compare_exchange_weak(seen, value, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

[[noreturn]] void builderBug(const char* what, int owner) {
  std::fprintf(stderr, "topocoll: internal error: %s names rank %d, which is not on this node\n", what, owner);
  PMPI_Abort(MPI_COMM_WORLD, 70);
  std::abort();
}

}  // namespace

ShmCreation::ShmCreation(MPI_Comm comm, const Hierarchy& h, const ShmOptions& options) : ctx_(new ShmContext()), comm_(comm) {
  ShmContext* ctx = ctx_.get();
  ctx->hierarchy_ = &h;
  ctx->comm_ = comm;
  ctx->channels_ = std::max(1, options.channels);
  const int rank = h.rank(), node = h.nodeOf(rank);
  members_ = h.members(node);
  ctx->node_size_ = static_cast<int>(members_.size());
  ctx->node_rank_ = h.localIndex(rank);

  const size_t page = ShmSegment::pageSize();
  const std::vector<int> numa_nodes = h.numaNodes(node);
  ctx->parts_ = static_cast<int>(numa_nodes.size());
  ctx->part_bytes_ = static_cast<int64_t>(roundUp(static_cast<size_t>(options.data_bytes) / ctx->parts_, page));
  const size_t flag_page = roundUp((static_cast<size_t>(ctx->channels_) * kLinesPerChannel + 1) * ShmContext::kCacheLine, page);
  ctx->flags_bytes_ = flag_page;
  const size_t channel_bytes = static_cast<size_t>(ctx->part_bytes_) * ctx->parts_;
  total_ = flag_page * ctx->node_size_ + channel_bytes * ctx->channels_;

  // Each rank's flags near the rank; each part of a channel's data on its NUMA node.
  if (ctx->node_size_ > 1 && options.numa && numaMachine()) {
    for (int i = 0; i < ctx->node_size_; ++i) numa_.push_back({flag_page * i, flag_page, h.place(members_[i]).numa});
    for (int c = 0; c < ctx->channels_; ++c) {
      for (int part = 0; part < ctx->parts_; ++part) {
        size_t offset = flag_page * ctx->node_size_ + channel_bytes * c + static_cast<size_t>(ctx->part_bytes_) * part;
        numa_.push_back({offset, static_cast<size_t>(ctx->part_bytes_), numa_nodes[part]});
      }
    }
  }
}

ShmCreation::~ShmCreation() {
  // Abandoned (an error, the job ending): the agreement cannot be cancelled, only completed.
  if (agree_ != MPI_REQUEST_NULL) PMPI_Wait(&agree_, MPI_STATUS_IGNORE);
  if (ctx_) settleLease(ctx_->lease_.get());
}

int ShmCreation::step(bool block, std::unique_ptr<ShmContext>* out) {
  ShmContext* ctx = ctx_.get();
  int rc;
  // Every node must have its segment, or no rank uses shared memory: the ranks agree (which
  // also tells the leaders that their node has attached). 2: leased; 1: a rank could not open
  // a pooled segment, and new ones are tried once; 0: refused.
  for (;;) {
    if (!agreeing_) {
      mine_ = 2;
      if (ctx->node_size_ > 1) {
        if (!leasing_) {
          leasing_ = true;
          if ((rc = handout_.begin(comm_, members_, ctx->node_rank_, total_, numa_, fresh_)) != MPI_SUCCESS) return rc;
        }
        bool done = false, retry = false;
        if ((rc = handout_.test(block, &done, &ctx->lease_, &retry, &why_)) != MPI_SUCCESS) return rc;
        if (!done) return MPI_SUCCESS;
        mine_ = ctx->lease_ ? 2 : retry ? 1 : 0;
        if (ctx->lease_) ctx->pid(ctx->node_rank_)->store(static_cast<int32_t>(getpid()), std::memory_order_relaxed);
      }
      agreeing_ = true;
      if ((rc = PMPI_Iallreduce(&mine_, &all_, 1, MPI_INT, MPI_MIN, comm_, &agree_)) != MPI_SUCCESS) return rc;
    }
    int flag = 1;
    rc = block ? PMPI_Wait(&agree_, MPI_STATUS_IGNORE) : PMPI_Test(&agree_, &flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !flag) return MPI_SUCCESS;
    settleLease(ctx->lease_.get());
    if (rc != MPI_SUCCESS) return rc;
    agreeing_ = leasing_ = false;
    if (all_ == 2) break;
    ctx->lease_.reset();
    if (all_ == 1 && !fresh_) {
      fresh_ = true;
      continue;
    }
    ctx->available_ = false;
    ctx->why_ = mine_ == 2 ? "another rank could not get its shared-memory segment" : why_;
    break;
  }
  if (ctx->lease_) ctx->next_seq_ = ctx->lease_->generation();
  ctx->last_.assign(ctx->channels_, -1);
  ctx->last_data_.assign(ctx->channels_, -1);
  ctx->local_done_.reset(new std::atomic<int64_t>[ctx->channels_]);
  for (int c = 0; c < ctx->channels_; ++c) ctx->local_done_[c].store(0, std::memory_order_relaxed);
  *out = std::move(ctx_);
  return MPI_SUCCESS;
}

ShmContext::~ShmContext() {
  if (lease_) lease_->keepAbove(next_seq_);
}

char* ShmContext::data(int channel) const {
  return lease_->base() + flags_bytes_ * node_size_ + static_cast<size_t>(part_bytes_) * parts_ * channel;
}

std::atomic<uint64_t>* ShmContext::flag(int local, int channel, int slot) const {
  char* line = lease_->base() + flags_bytes_ * local + (static_cast<size_t>(channel) * kLinesPerChannel + slot) * kCacheLine;
  return reinterpret_cast<std::atomic<uint64_t>*>(line);
}

ShmContext::Call ShmContext::beginCall(ShmUse use) {
  Call c;
  c.seq = next_seq_++;
  c.channel = static_cast<int>(c.seq % channels_);
  c.use = use;
  c.prev = last_[c.channel];
  c.prev_data = last_data_[c.channel];
  last_[c.channel] = static_cast<int64_t>(c.seq);
  if (use == ShmUse::Data) last_data_[c.channel] = static_cast<int64_t>(c.seq);
  return c;
}

bool ShmContext::channelFree(const Call& call) const {
  if (node_size_ == 1) return true;
  if (call.prev >= 0 && local_done_[call.channel].load(std::memory_order_acquire) < call.prev + 1) return false;
  if (call.use != ShmUse::Data || call.prev_data < 0) return true;
  const uint64_t needed = static_cast<uint64_t>(call.prev_data) + 1;
  for (int i = 0; i < node_size_; ++i) {
    if (i != node_rank_ && flag(i, call.channel, kShmFlagSlots)->load(std::memory_order_acquire) < needed) return false;
  }
  return true;
}

void ShmContext::markDone(const Call& call) {
  if (node_size_ == 1) return;
  // Calls of one channel run one after the other here: this only grows.
  local_done_[call.channel].store(static_cast<int64_t>(call.seq) + 1, std::memory_order_release);
  if (call.use == ShmUse::Data) raise(flag(node_rank_, call.channel, kShmFlagSlots), call.seq + 1);
}

bool ShmContext::flagReached(const Call& call, int owner, int slot, int64_t stage) const {
  if (hierarchy_->nodeOf(owner) != hierarchy_->nodeOf(hierarchy_->rank())) builderBug("a flag wait", owner);
  uint64_t want = ((call.seq + 1) << kStageBits) | static_cast<uint64_t>(stage);
  return flag(hierarchy_->localIndex(owner), call.channel, slot)->load(std::memory_order_acquire) >= want;
}

void ShmContext::signalFlag(const Call& call, int owner, int slot, int64_t stage) {
  if (hierarchy_->nodeOf(owner) != hierarchy_->nodeOf(hierarchy_->rank())) builderBug("a flag signal", owner);
  uint64_t value = ((call.seq + 1) << kStageBits) | static_cast<uint64_t>(stage);
  raise(flag(hierarchy_->localIndex(owner), call.channel, slot), value);
}

std::atomic<int32_t>* ShmContext::pid(int local) const {
  return reinterpret_cast<std::atomic<int32_t>*>(flag(local, channels_, 0));
}

int ShmContext::checkPeers() const {
  for (int i = 0; i < node_size_ && lease_; ++i) {
    const pid_t p = pid(i)->load(std::memory_order_relaxed);
    if (i == node_rank_ || kill(p, 0) == 0 || errno != ESRCH) continue;
    std::fprintf(stderr, "topocoll: rank %d of this node (pid %d) died during a shared-memory collective\n",
                 hierarchy_->members(hierarchy_->nodeOf(hierarchy_->rank()))[i], static_cast<int>(p));
    return MPI_ERR_OTHER;
  }
  return MPI_SUCCESS;
}

void ShmContext::progressMpi() const {
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE);
}

void ShmContext::addInFlight(CollectiveRequest* r) {
  std::lock_guard<std::mutex> lock(in_flight_mutex_);
  in_flight_.push_back(r);
  in_flight_count_.store(static_cast<int>(in_flight_.size()), std::memory_order_relaxed);
}

void ShmContext::removeInFlight(CollectiveRequest* r) {
  std::lock_guard<std::mutex> lock(in_flight_mutex_);
  in_flight_.erase(std::remove(in_flight_.begin(), in_flight_.end(), r), in_flight_.end());
  in_flight_count_.store(static_cast<int>(in_flight_.size()), std::memory_order_relaxed);
}

bool ShmContext::othersInFlight(const CollectiveRequest* self) const {
  if (in_flight_count_.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(in_flight_mutex_);
  return std::any_of(in_flight_.begin(), in_flight_.end(), [&](CollectiveRequest* r) { return r != self; });
}

// A rank blocked on one call progresses its others: theirs may be what the node waits for.
// Only the thread that waits calls this (the preload's own thread never waits here).
void ShmContext::progressOthers(const CollectiveRequest* self) {
  if (progressing_) return;
  progressing_ = true;
  std::vector<CollectiveRequest*> others;
  {
    std::lock_guard<std::mutex> lock(in_flight_mutex_);
    others = in_flight_;
  }
  for (CollectiveRequest* r : others) {
    if (r == self) continue;
    {
      std::lock_guard<std::mutex> lock(in_flight_mutex_);
      if (std::find(in_flight_.begin(), in_flight_.end(), r) == in_flight_.end()) continue;
    }
    bool done = false;
    r->test(&done);  // an error stays with the request and surfaces at its own test/wait
  }
  progressing_ = false;
}

}  // namespace topocoll
