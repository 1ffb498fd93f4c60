// A POSIX shared-memory segment shared by the ranks of one node. The node's first rank creates
// it (mode 0600: only the job's user), the others attach, and it is unlinked as soon as every
// rank has attached: from then on the memory lives only in the ranks' mappings, so nothing is
// left in /dev/shm after a normal exit, an abort or a SIGKILL. Names are unique per job and
// communicator: /topocoll-<uid>-<creator pid>-<counter>-<random nonce>.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace topocoll {

// Part of a segment to place on one NUMA node (offsets and lengths in bytes, page-aligned).
struct NumaRange {
  size_t offset = 0;
  size_t length = 0;
  int node = 0;
};

class ShmSegment {
 public:
  ShmSegment() = default;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  // Collective over `node_comm` (the ranks of one node). Returns an MPI error code for MPI
  // failures; when the system refuses the segment (no /dev/shm, no space) returns MPI_SUCCESS
  // with *ok = false and *why saying what failed, on every rank of the node alike.
  // `numa` places ranges of the segment on NUMA nodes before any page is touched.
  int create(MPI_Comm node_comm, size_t bytes, const std::vector<NumaRange>& numa, bool* ok, std::string* why);

  char* base() const { return static_cast<char*>(base_); }
  size_t bytes() const { return bytes_; }

  static size_t pageSize();
  // The prefix every segment of this user carries in /dev/shm (tests look for leftovers).
  static std::string namePrefix();

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace topocoll
