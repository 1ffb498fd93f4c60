#include "shm_pool.h"

#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace topocoll {
namespace {

// The one tag the engine's point-to-point calls leave free on a shadow communicator
// (ShadowComm::nextTag() numbers calls below it; MPI guarantees MPI_TAG_UB >= 32767).
constexpr int kTag = 32767;

std::mutex g_mutex;  // MPI_THREAD_MULTIPLE: communicators may lease from several threads
// Created here: lent again once released.
std::vector<std::shared_ptr<ShmSegment>> g_created;
// Created by other processes, by name: their creator may lend them to us again.
std::unordered_map<std::string, std::shared_ptr<ShmSegment>> g_attached;
ShmPoolStats g_stats;

// A segment of ours nobody uses with this layout, now held by us; else (or if `fresh`) a new one.
std::shared_ptr<ShmSegment> lend(size_t bytes, const std::vector<NumaRange>& numa, bool fresh, std::string* why) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& s : g_created) {
    int32_t idle = 0;
    if (!fresh && s->bytes() == bytes && s->numa() == numa && s->header().holders.compare_exchange_strong(idle, 1, std::memory_order_acquire)) {
      return s;
    }
  }
  std::shared_ptr<ShmSegment> s = ShmSegment::create(bytes, numa, why);
  if (!s) return nullptr;
  ++g_stats.created;
  s->header().holders.store(1, std::memory_order_relaxed);
  g_created.push_back(s);
  return s;
}

}  // namespace

// What the leader tells the others: a segment and where to open it, or an empty name and why
// it failed.
struct SegmentHandout::Message {
  char name[128];
  char error[160];
  uint64_t generation;
  int32_t pid, fd;  // the creator's descriptor, for /proc/<pid>/fd/<fd>
  int32_t named;    // new: open it by name
};

namespace {

std::shared_ptr<ShmSegment> attach(const SegmentHandout::Message& h, size_t bytes, std::string* why) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_attached.find(h.name);
  if (it != g_attached.end() && it->second->bytes() == bytes) return it->second;
  std::string path = h.named ? std::string("/dev/shm") + h.name : "/proc/" + std::to_string(h.pid) + "/fd/" + std::to_string(h.fd);
  std::shared_ptr<ShmSegment> s = ShmSegment::attach(h.name, path, bytes, why);
  if (s) g_attached[h.name] = s;
  return s;
}

}  // namespace

ShmLease::ShmLease(std::shared_ptr<ShmSegment> segment) : segment_(std::move(segment)) {}

ShmLease::~ShmLease() {
  ShmSegmentHeader& h = segment_->header();
  uint64_t seen = h.generation.load(std::memory_order_relaxed);
  while (seen < generation_ && !h.generation.compare_exchange_weak(seen, generation_, std::memory_order_relaxed)) {
  }
  // Release: this rank's last uses of the segment, and the generation, precede the creator's reuse.
  h.holders.fetch_sub(1, std::memory_order_acq_rel);
}

SegmentHandout::SegmentHandout() : msg_(new Message{}) {}

SegmentHandout::~SegmentHandout() {
  for (MPI_Request& r : requests_) {
    if (r == MPI_REQUEST_NULL) continue;
    PMPI_Cancel(&r);
    PMPI_Request_free(&r);
  }
}

int SegmentHandout::begin(MPI_Comm comm, const std::vector<int>& members, int local, size_t bytes, const std::vector<NumaRange>& numa,
                          bool fresh) {
  *msg_ = Message{};
  segment_.reset();
  why_.clear();
  bytes_ = bytes;
  local_ = local;
  requests_.assign(local == 0 ? members.size() - 1 : 1, MPI_REQUEST_NULL);
  if (local != 0) return PMPI_Irecv(msg_.get(), sizeof(Message), MPI_BYTE, members[0], kTag, comm, &requests_[0]);
  segment_ = lend(bytes, numa, fresh, &why_);
  if (segment_) {
    std::snprintf(msg_->name, sizeof msg_->name, "%s", segment_->name().c_str());
    msg_->generation = segment_->header().generation.load(std::memory_order_relaxed);
    msg_->pid = static_cast<int32_t>(getpid());
    msg_->fd = segment_->fd();
    msg_->named = segment_->linked();
  } else {
    std::snprintf(msg_->error, sizeof msg_->error, "%s", why_.c_str());
  }
  for (size_t i = 1; i < members.size(); ++i) {
    int rc = PMPI_Isend(msg_.get(), sizeof(Message), MPI_BYTE, members[i], kTag, comm, &requests_[i - 1]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int SegmentHandout::test(bool block, bool* done, std::unique_ptr<ShmLease>* out, bool* retry, std::string* why) {
  *retry = false;
  int n = static_cast<int>(requests_.size()), flag = 1, rc = MPI_SUCCESS;
  if (block) rc = PMPI_Waitall(n, requests_.data(), MPI_STATUSES_IGNORE);
  else rc = PMPI_Testall(n, requests_.data(), &flag, MPI_STATUSES_IGNORE);
  *done = rc != MPI_SUCCESS || flag;
  if (!*done) return MPI_SUCCESS;
  requests_.clear();
  if (local_ != 0 && rc == MPI_SUCCESS) {
    if (msg_->name[0]) {
      segment_ = attach(*msg_, bytes_, &why_);
      if (segment_) segment_->header().holders.fetch_add(1, std::memory_order_relaxed);
      else *retry = !msg_->named;  // /proc refused us: a new segment goes by name
    } else {
      why_ = msg_->error;
    }
  }
  *why = why_;
  if (segment_) {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_stats.leases;
    out->reset(new ShmLease(std::move(segment_)));
    (*out)->generation_ = msg_->generation;
  }
  if (rc != MPI_SUCCESS && *out) settleLease(out->get());
  return rc;
}

ShmPoolStats shmPoolStats() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_stats;
}

void settleLease(ShmLease* lease) {
  if (lease) lease->segment_->unlink();
}

}  // namespace topocoll
