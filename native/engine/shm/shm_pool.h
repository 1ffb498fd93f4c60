// Segments pooled per process across communicators. The node's leader in a communicator (its
// lowest rank on the node) lends one of the segments it created, once every rank has released
// it (ShmSegmentHeader::holders back at 0) and its layout is the one asked for, or creates one;
// the node's other ranks map it once and keep it mapped for the next time it is lent to them.
// A communicator created and freed in a loop thus costs one small message per rank of a node
// instead of a segment created, pre-faulted and unmapped each time; concurrent communicators
// never share a segment, and a communicator of a few ranks of a node leases like any other.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "segment.h"

namespace topocoll {

// One communicator's hold on a segment, on one rank.
class ShmLease {
 public:
  explicit ShmLease(std::shared_ptr<ShmSegment> segment);
  ShmLease(const ShmLease&) = delete;
  ShmLease& operator=(const ShmLease&) = delete;
  // Releases it: from then on the creator may lend it again.
  ~ShmLease();

  char* base() const { return segment_->base(); }
  // What the previous user left (see keepAbove); 0 for a new segment.
  uint64_t generation() const { return generation_; }
  // Raised into the header at release: flags that only grow stay meaningful to the next user.
  void keepAbove(uint64_t generation) { generation_ = generation; }

 private:
  friend class SegmentHandout;
  friend void settleLease(ShmLease*);
  std::shared_ptr<ShmSegment> segment_;
  uint64_t generation_ = 0;
};

// The lease of one node's segment, collective over the ranks `members` of `comm` (ranks of one
// node in comm, the leader first; `local` is this rank's index in it): the leader lends a segment
// of `bytes` with `numa` placement (a new one if `fresh`) and tells the others where it is. In
// steps that never block, so that a nonblocking call can take it (ShmCreation).
class SegmentHandout {
 public:
  SegmentHandout();
  ~SegmentHandout();  // cancels what is still in flight
  // Lends (the leader) and posts the messages. Returns an MPI error code.
  int begin(MPI_Comm comm, const std::vector<int>& members, int local, size_t bytes, const std::vector<NumaRange>& numa, bool fresh);
  // Moves on (block: to the end); *done once this rank has its lease. Returns an MPI error code
  // for MPI failures; when the system refuses the segment *out is null and *why says what failed
  // (the leader's reason on every rank, or this rank's own), and *retry is set where a new
  // segment may succeed (a rank could not open a pooled one through /proc: hidepid, another pid
  // namespace).
  int test(bool block, bool* done, std::unique_ptr<ShmLease>* out, bool* retry, std::string* why);

  struct Message;  // what the leader sends (shm_pool.cc)

 private:
  std::unique_ptr<Message> msg_;
  std::vector<MPI_Request> requests_;
  std::shared_ptr<ShmSegment> segment_;
  std::string why_;
  size_t bytes_ = 0;
  int local_ = 0;
};
// What this process's pool did (TOPOCOLL_STATS): segments created here, and leases taken.
struct ShmPoolStats {
  uint64_t created = 0, leases = 0;
};
ShmPoolStats shmPoolStats();

// Once every rank of the node has attached or given up (after a synchronizing call): takes the
// segment's name out of /dev/shm again.
void settleLease(ShmLease* lease);

}  // namespace topocoll
