#include "segment.h"

#include <dirent.h>
#include <fcntl.h>
#include <numa.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace topocoll {
namespace {

constexpr size_t kNameMax = 96;

std::string errnoText(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Segments whose creator died before unlinking them (killed between creation and the last
// attach, a window of microseconds) are removed by the next job of the same user.
void removeOrphans() {
  static bool done = false;
  if (done) return;
  done = true;
  std::string prefix = ShmSegment::namePrefix().substr(1);  // without the leading '/'
  DIR* dir = opendir("/dev/shm");
  if (!dir) return;
  while (dirent* e = readdir(dir)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) != 0) continue;
    long pid = std::strtol(e->d_name + prefix.size(), nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) shm_unlink((std::string("/") + e->d_name).c_str());
  }
  closedir(dir);
}

std::string uniqueName() {
  static unsigned counter = 0;
  uint64_t nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce) nonce ^= reinterpret_cast<uintptr_t>(&nonce) ^ uint64_t(time(nullptr));
  char name[kNameMax];
  std::snprintf(name, sizeof name, "%s%d-%u-%016" PRIx64, ShmSegment::namePrefix().c_str(), static_cast<int>(getpid()), counter++,
                nonce);
  return name;
}

void placeOnNuma(void* base, const std::vector<NumaRange>& numa) {
  if (numa.empty() || numa_available() < 0) return;
  for (const NumaRange& r : numa) {
    if (r.length > 0) numa_tonode_memory(static_cast<char*>(base) + r.offset, r.length, r.node);
  }
}

}  // namespace

size_t ShmSegment::pageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

std::string ShmSegment::namePrefix() { return "/topocoll-" + std::to_string(getuid()) + "-"; }

ShmSegment::~ShmSegment() {
  if (base_) munmap(base_, bytes_);
}

int ShmSegment::create(MPI_Comm node_comm, size_t bytes, const std::vector<NumaRange>& numa, bool* ok, std::string* why) {
  int node_rank = 0, rc;
  if ((rc = PMPI_Comm_rank(node_comm, &node_rank)) != MPI_SUCCESS) return rc;
  // What the creator tells the others: the name, or an empty name and why it failed.
  struct {
    char name[kNameMax];
    char error[160];
  } msg{};
  int fd = -1;
  if (node_rank == 0) {
    removeOrphans();
    std::string name = uniqueName();
    std::string error;
    fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
      error = errnoText("shm_open");
    } else if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      error = errnoText("ftruncate");
    } else if ((base_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
      base_ = nullptr;
      error = errnoText("mmap");
    } else {
      placeOnNuma(base_, numa);
      // Reserve the memory now: a full /dev/shm is an error here rather than a SIGBUS later.
      int e = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
      if (e != 0) error = std::string("posix_fallocate: ") + std::strerror(e);
    }
    if (error.empty()) {
      std::snprintf(msg.name, sizeof msg.name, "%s", name.c_str());
    } else {
      std::snprintf(msg.error, sizeof msg.error, "%s", error.c_str());
      if (fd >= 0) shm_unlink(name.c_str());
    }
  }
  if ((rc = PMPI_Bcast(&msg, sizeof msg, MPI_BYTE, 0, node_comm)) != MPI_SUCCESS) return rc;
  int attached = msg.name[0] != '\0';
  if (attached && node_rank != 0) {
    fd = shm_open(msg.name, O_RDWR, 0);
    struct stat st{};
    if (fd < 0 || fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < bytes) {
      attached = 0;
    } else if ((base_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
      base_ = nullptr;
      attached = 0;
    }
  }
  if (fd >= 0) close(fd);
  int all = 0;
  rc = PMPI_Allreduce(&attached, &all, 1, MPI_INT, MPI_MIN, node_comm);
  // Every rank has attached (or given up): the name is no longer needed.
  if (node_rank == 0 && msg.name[0]) shm_unlink(msg.name);
  if (rc != MPI_SUCCESS) return rc;
  if (base_) bytes_ = bytes;
  *ok = all != 0;
  if (!*ok) {
    *why = msg.error[0] ? msg.error : "a rank of the node could not attach the shared-memory segment";
    if (base_) munmap(base_, bytes_);
    base_ = nullptr;
    bytes_ = 0;
  }
  return MPI_SUCCESS;
}

}  // namespace topocoll
