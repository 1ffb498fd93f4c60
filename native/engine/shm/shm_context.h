// A communicator's shared memory: one segment per node, leased from the node's pool
// (shm_pool.h) on the first call of an algorithm that uses it, cut into channels so that
// consecutive calls (and several nonblocking ones) can be in flight at once. The executor runs
// FlagSignal/FlagWait ops and copies to and from BufferId::Shm through it; builders only name
// flags and offsets.
//
// Layout of a node's segment:
//   flags  one page per rank of the node (placed on that rank's NUMA node); in it, for every
//          channel, kShmFlagSlots flags and a `done` flag, each on its own cache line, then
//          the rank's pid (checkPeers)
//   data   per channel: the data area, cut into one part per NUMA node of the node's ranks,
//          part i placed on the i-th of them (Hierarchy::numaNodes)
//
// A flag holds (call sequence + 1) << 24 | stage, so values only grow and never need resetting
// (a leased segment's calls are numbered on from where its previous communicator stopped);
// writes never lower a flag (nonblocking calls complete in any order, and a parent and a child
// both write a barrier entry). Calls are numbered per communicator in call order, the same on
// every rank (MPI orders collectives), and call s uses channel s mod channels(). A call that
// moves data waits first until the previous data call on its channel is done on every rank of
// the node (their `done` flags hold the sequence of the last data call done + 1).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../hierarchy/hierarchy.h"
#include "../schedule.h"
#include "shm_pool.h"

namespace topocoll {

class CollectiveRequest;  // collective_request.h

struct ShmOptions {
  int64_t data_bytes = 1 << 20;  // data area per channel (TOPOCOLL_SHM_BYTES)
  bool numa = true;              // place parts on NUMA nodes (TOPOCOLL_NUMA)
  int channels = 4;
};

class ShmContext {
 public:
  static constexpr int kCacheLine = 64;

  // Made by ShmCreation, even when shared memory is unavailable (see available()).
  ~ShmContext();

  // False when some node could not get its segment; then why() says what failed, on every rank.
  bool available() const { return available_; }
  const std::string& why() const { return why_; }

  int nodeSize() const { return node_size_; }
  int channels() const { return channels_; }
  // The data area of one channel: parts() parts of partBytes() bytes each.
  int parts() const { return parts_; }
  int64_t partBytes() const { return part_bytes_; }
  char* data(int channel) const;

  // A call on the segment: its sequence number, channel, the call before it on the channel and
  // the last one of those that moved data (-1: none). Every rank numbers the same calls alike.
  struct Call {
    uint64_t seq = 0;
    int channel = 0;
    ShmUse use = ShmUse::None;
    int64_t prev = -1;
    int64_t prev_data = -1;
  };
  Call beginCall(ShmUse use);
  // True once the previous call on `call`'s channel is done on this rank (so that two calls
  // of one rank never share the channel's flags; a later call's stage would pass for an
  // earlier one) and, for a call that moves data, the previous data call on the channel is
  // done on every rank of the node (nobody still reads or writes the area).
  bool channelFree(const Call& call) const;
  void markDone(const Call& call);
  // Flag ops of a schedule: `owner` is a rank of the communicator on this node.
  bool flagReached(const Call& call, int owner, int slot, int64_t stage) const;
  void signalFlag(const Call& call, int owner, int slot, int64_t stage);

  // Spins until ready() holds: a short busy spin, then polls that progress MPI, with
  // idleWhileWaiting() between them (an oversubscribed kernel yields the core). While it waits
  // it progresses the other nonblocking calls in flight on this communicator (their ranks may be
  // waiting for us), and it gives up with MPI_ERR_OTHER when a rank of the node has died.
  template <typename Ready>
  int waitUntil(Ready ready, const CollectiveRequest* self);

  // Nonblocking calls in flight, progressed by waitUntil() of the others. Under MPICH a thread
  // of the preload progresses them (interpose/requests.cc) while the program's thread starts
  // others: this list, and the bookkeeping of done calls, are safe for the two.
  void addInFlight(CollectiveRequest* r);
  void removeInFlight(CollectiveRequest* r);
  bool othersInFlight(const CollectiveRequest* self) const;
  void progressOthers(const CollectiveRequest* self);

 private:
  friend class ShmCreation;
  ShmContext() = default;
  std::atomic<uint64_t>* flag(int local, int channel, int slot) const;
  std::atomic<int32_t>* pid(int local) const;
  // Checked every few ms of a long wait: MPI_ERR_OTHER when a rank of the node is gone.
  int checkPeers() const;
  // Lets MPI progress what this rank started before (a rendezvous send another rank waits for
  // before it can reach this collective): a flag wait calls no MPI otherwise.
  void progressMpi() const;

  bool available_ = true;
  std::string why_;
  MPI_Comm comm_ = MPI_COMM_NULL;  // the communicator's shadow, for progressMpi()
  const Hierarchy* hierarchy_ = nullptr;
  int node_size_ = 1, node_rank_ = 0, channels_ = 1, parts_ = 1;
  int64_t part_bytes_ = 0;
  size_t flags_bytes_ = 0;
  uint64_t next_seq_ = 0;
  // Per channel: the sequence of its last call and of its last data call (-1: none), written
  // by beginCall() (calls begin one at a time, in call order), and the sequence + 1 of the last
  // call done here, written by whichever thread completes a call.
  std::vector<int64_t> last_, last_data_;
  std::unique_ptr<std::atomic<int64_t>[]> local_done_;
  std::unique_ptr<ShmLease> lease_;  // null when alone on the node
  mutable std::mutex in_flight_mutex_;
  std::vector<CollectiveRequest*> in_flight_;
  std::atomic<int> in_flight_count_{0};  // in_flight_.size(), read without the lock
  bool progressing_ = false;
};

// A communicator's ShmContext, made collectively over `comm` (its shadow) in steps that never
// block, so that a nonblocking collective can set its communicator up: every node's leader
// lends a segment and tells the node's other ranks where it is, then all agree that every node
// has one (MPI_Iallreduce over `comm`). Blocking, step(true) runs them to the end.
class ShmCreation {
 public:
  ShmCreation(MPI_Comm comm, const Hierarchy& h, const ShmOptions& options);
  ~ShmCreation();
  // Moves on (block: to the end); *out is set once done. Returns an MPI error code.
  int step(bool block, std::unique_ptr<ShmContext>* out);

 private:
  std::unique_ptr<ShmContext> ctx_;
  MPI_Comm comm_;
  std::vector<int> members_;  // of this rank's node
  std::vector<NumaRange> numa_;
  size_t total_ = 0;
  SegmentHandout handout_;
  bool leasing_ = false;  // handout_ begun
  bool agreeing_ = false; // agree_ posted
  bool fresh_ = false;    // a new segment, not a pooled one (the second try)
  int mine_ = 2, all_ = 0;
  std::string why_;
  MPI_Request agree_ = MPI_REQUEST_NULL;
};

namespace shm_detail {
double now();
}  // namespace shm_detail

template <typename Ready>
int ShmContext::waitUntil(Ready ready, const CollectiveRequest* self) {
  constexpr int kSpins = 32;
  for (int i = 0; i < kSpins; ++i) {
    if (ready()) return MPI_SUCCESS;
    cpuRelax();
  }
  double next_check = shm_detail::now() + 0.1;
  for (unsigned i = 0;; ++i) {
    if (ready()) return MPI_SUCCESS;
    if (in_flight_count_.load(std::memory_order_relaxed) > 0) progressOthers(self);
    progressMpi();
    idleWhileWaiting();
    if ((i & 63) == 0 && shm_detail::now() > next_check) {
      int rc = checkPeers();
      if (rc != MPI_SUCCESS) return rc;
      next_check = shm_detail::now() + 0.1;
    }
  }
}

}  // namespace topocoll
