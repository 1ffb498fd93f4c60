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
  friend int leaseSegment(MPI_Comm, const std::vector<int>&, int, size_t, const std::vector<NumaRange>&, bool, std::unique_ptr<ShmLease>*,
                          bool*, std::string*);
  friend void settleLease(ShmLease*);
  std::shared_ptr<ShmSegment> segment_;
  uint64_t generation_ = 0;
};

// Collective over the ranks `members` of `comm` (ranks of one node in comm, the leader first;
// `local` is this rank's index in it): a segment of `bytes` with `numa` placement for them, a
// new one if `fresh`. Returns an MPI error code for MPI failures; when the system refuses the
// segment *out is null and *why says what failed (the leader's reason on every rank, or this
// rank's own), and *retry is set where a new segment may succeed (a rank could not open a
// pooled one through /proc: hidepid, another pid namespace).
int leaseSegment(MPI_Comm comm, const std::vector<int>& members, int local, size_t bytes, const std::vector<NumaRange>& numa, bool fresh,
                 std::unique_ptr<ShmLease>* out, bool* retry, std::string* why);
// What this process's pool did (TOPOCOLL_STATS): segments created here, and leases taken.
struct ShmPoolStats {
  uint64_t created = 0, leases = 0;
};
ShmPoolStats shmPoolStats();

// Once every rank of the node has attached or given up (after a synchronizing call): takes the
// segment's name out of /dev/shm again.
void settleLease(ShmLease* lease);

}  // namespace topocoll
