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

// What the leader tells the others: a segment and where to open it, or an empty name and why
// it failed.
struct Handout {
  char name[128];
  char error[160];
  uint64_t generation;
  int32_t pid, fd;  // the creator's descriptor, for /proc/<pid>/fd/<fd>
  int32_t named;    // new: open it by name
};

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

std::shared_ptr<ShmSegment> attach(const Handout& h, size_t bytes, std::string* why) {
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

int leaseSegment(MPI_Comm comm, const std::vector<int>& members, int local, size_t bytes, const std::vector<NumaRange>& numa, bool fresh,
                 std::unique_ptr<ShmLease>* out, bool* retry, std::string* why) {
  Handout msg{};
  std::shared_ptr<ShmSegment> segment;
  int rc = MPI_SUCCESS;
  *retry = false;
  if (local == 0) {
    segment = lend(bytes, numa, fresh, why);
    if (segment) {
      std::snprintf(msg.name, sizeof msg.name, "%s", segment->name().c_str());
      msg.generation = segment->header().generation.load(std::memory_order_relaxed);
      msg.pid = static_cast<int32_t>(getpid());
      msg.fd = segment->fd();
      msg.named = segment->linked();
    } else {
      std::snprintf(msg.error, sizeof msg.error, "%s", why->c_str());
    }
    for (size_t i = 1; i < members.size() && rc == MPI_SUCCESS; ++i) rc = PMPI_Send(&msg, sizeof msg, MPI_BYTE, members[i], kTag, comm);
  } else {
    rc = PMPI_Recv(&msg, sizeof msg, MPI_BYTE, members[0], kTag, comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && msg.name[0]) {
      segment = attach(msg, bytes, why);
      if (segment) segment->header().holders.fetch_add(1, std::memory_order_relaxed);
      else *retry = !msg.named;  // /proc refused us: a new segment goes by name
    } else if (rc == MPI_SUCCESS) {
      *why = msg.error;
    }
  }
  if (segment) {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_stats.leases;
    out->reset(new ShmLease(std::move(segment)));
    (*out)->generation_ = msg.generation;
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
