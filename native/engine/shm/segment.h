// A POSIX shared-memory segment shared by the ranks of one node (shm_pool.h lends them to
// communicators). Its creator makes it a tmpfs file in /dev/shm (mode 0600) and keeps it open;
// the file has a name only while the first ranks attach (unlinked as soon as they have), so a
// job leaves nothing in /dev/shm after a normal exit, an abort or a SIGKILL, except when killed
// inside that window of microseconds. Ranks attaching later open the creator's descriptor
// through /proc/<creator pid>/fd/<fd>. Names:
//   /topocoll-<euid>-h<host id>-<creator pid>-<serial>-<nonce>
// the host id a hash of the kernel's boot id and the pid namespace: a creator pid is judged dead
// or alive only by processes that see the same pids (removeOrphans).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace topocoll {

// Part of a segment to place on one NUMA node (offsets and lengths in bytes, page-aligned).
struct NumaRange {
  size_t offset = 0;
  size_t length = 0;
  int node = 0;
  bool operator==(const NumaRange& o) const { return offset == o.offset && length == o.length && node == o.node; }
};

// The first page of every segment; the user's area follows it.
struct ShmSegmentHeader {
  std::atomic<int32_t> holders;      // ranks using the segment now: the creator reuses it at 0
  std::atomic<uint64_t> generation;  // raised by each user at release, read by the next one
};

class ShmSegment {
 public:
  // A new segment with `bytes` of user area, `numa` (offsets in the user area) placed before
  // any page is touched and the memory reserved (a full /dev/shm fails here, not with a SIGBUS
  // later). Null when the system refuses it; *why says what failed.
  static std::shared_ptr<ShmSegment> create(size_t bytes, const std::vector<NumaRange>& numa, std::string* why);
  // Maps another process's segment `name`, opened at `path` (its name in /dev/shm or its
  // /proc/<creator pid>/fd/<fd>): a regular file of ours of at least `bytes`.
  static std::shared_ptr<ShmSegment> attach(const std::string& name, const std::string& path, size_t bytes, std::string* why);
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  const std::string& name() const { return name_; }
  // The path in /dev/shm, while it has its name (from create() to unlink()).
  std::string namePath() const;
  // Creator only: the descriptor others open as /proc/<pid>/fd/<fd> once the name is gone.
  int fd() const { return fd_; }
  bool linked() const { return linked_; }
  void unlink();
  const std::vector<NumaRange>& numa() const { return numa_; }

  char* base() const { return static_cast<char*>(map_) + pageSize(); }
  size_t bytes() const { return bytes_; }
  ShmSegmentHeader& header() const { return *static_cast<ShmSegmentHeader*>(map_); }

  static size_t pageSize();
  // "/topocoll-<euid>-h<host id>-": every name of this user on this host starts so.
  static std::string namePrefix();
  // Removes the segments in /dev/shm whose creator died (on this host, as this user) before
  // it unlinked them: only names exactly of our pattern, regular files owned by us.
  static void removeOrphans();

 private:
  ShmSegment() = default;
  bool map(std::string* why);

  std::string name_;
  int fd_ = -1;  // creator: the file, kept open for /proc/<pid>/fd
  bool linked_ = false;
  void* map_ = nullptr;
  size_t bytes_ = 0;
  std::vector<NumaRange> numa_;
};

}  // namespace topocoll
