#include "segment.h"

#include <dirent.h>
#include <fcntl.h>
#include <numa.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>

namespace topocoll {
namespace {

constexpr const char* kDir = "/dev/shm";
constexpr size_t kNonceDigits = 16;

std::string errnoText(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

uint64_t fnv1a(const std::string& text, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string readSmall(const char* file) {
  char buf[128] = {0};
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// Which pids a name's creator pid means: one kernel (its boot id) and one pid namespace.
std::string hostId() {
  static const std::string id = [] {
    std::string boot = readSmall("/proc/sys/kernel/random/boot_id");
    if (boot.empty()) {
      char host[256] = {0};
      gethostname(host, sizeof host - 1);
      boot = host;
    }
    char ns[64] = {0};
    ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    char out[17];
    std::snprintf(out, sizeof out, "%016" PRIx64, fnv1a(n > 0 ? std::string(ns, static_cast<size_t>(n)) : std::string(), fnv1a(boot)));
    return std::string(out);
  }();
  return id;
}

std::string uniqueName() {
  static std::atomic<unsigned> serial{0};
  uint64_t nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce) nonce ^= reinterpret_cast<uintptr_t>(&nonce) ^ uint64_t(time(nullptr));
  char name[128];
  std::snprintf(name, sizeof name, "%s%d-%u-%016" PRIx64, ShmSegment::namePrefix().c_str(), static_cast<int>(getpid()), serial++, nonce);
  return name;
}

// Digits up to '-' (or the end when `last`): the number, or -1 if the field is not exactly that.
long field(const char** p, bool last, bool hex, size_t exact = 0) {
  const char* s = *p;
  size_t n = 0;
  while (s[n] && s[n] != '-' && (hex ? std::isxdigit(static_cast<unsigned char>(s[n])) : std::isdigit(static_cast<unsigned char>(s[n])))) ++n;
  if (n == 0 || n > 18 || (exact && n != exact) || (last ? s[n] != '\0' : s[n] != '-')) return -1;
  long v = std::strtol(s, nullptr, hex ? 16 : 10);
  *p = s + n + (last ? 0 : 1);
  return hex ? 0 : v;
}

// The creator pid of a name "<prefix><pid>-<serial>-<nonce>" (without '/'), or -1.
long creatorOf(const char* name, const std::string& prefix) {
  if (std::strncmp(name, prefix.c_str(), prefix.size()) != 0) return -1;
  const char* p = name + prefix.size();
  long pid = field(&p, false, false);
  if (pid <= 0 || field(&p, false, false) < 0 || field(&p, true, true, kNonceDigits) < 0) return -1;
  return pid;
}

void placeOnNuma(char* base, const std::vector<NumaRange>& numa) {
  if (numa.empty() || numa_available() < 0) return;
  for (const NumaRange& r : numa) {
    if (r.length > 0) numa_tonode_memory(base + r.offset, r.length, r.node);
  }
}

}  // namespace

size_t ShmSegment::pageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// 'h' before the host id: older versions' cleanup took the number after the uid for the
// creator pid, and removed any name whose number was not a live pid.
std::string ShmSegment::namePrefix() { return "/topocoll-" + std::to_string(geteuid()) + "-h" + hostId() + "-"; }

void ShmSegment::removeOrphans() {
  const std::string prefix = namePrefix().substr(1);
  DIR* dir = opendir(kDir);
  if (!dir) return;
  while (dirent* e = readdir(dir)) {
    long pid = creatorOf(e->d_name, prefix);
    if (pid <= 0 || pid == getpid()) continue;
    struct stat st{};
    if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) unlinkat(dirfd(dir), e->d_name, 0);
  }
  closedir(dir);
}

std::shared_ptr<ShmSegment> ShmSegment::create(size_t bytes, const std::vector<NumaRange>& numa, std::string* why) {
  static std::once_flag orphans;
  std::call_once(orphans, removeOrphans);
  std::shared_ptr<ShmSegment> s(new ShmSegment());
  s->name_ = uniqueName();
  s->bytes_ = bytes;
  s->numa_ = numa;
  s->fd_ = open(s->namePath().c_str(), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (s->fd_ < 0) {
    *why = errnoText("shm_open");
    return nullptr;
  }
  s->linked_ = true;
  const off_t total = static_cast<off_t>(bytes + pageSize());
  if (ftruncate(s->fd_, total) != 0) {
    *why = errnoText("ftruncate");
    return nullptr;
  }
  if (!s->map(why)) return nullptr;
  placeOnNuma(s->base(), numa);
  int e = posix_fallocate(s->fd_, 0, total);
  if (e != 0) {
    *why = std::string("posix_fallocate: ") + std::strerror(e);
    return nullptr;
  }
  return s;
}

std::shared_ptr<ShmSegment> ShmSegment::attach(const std::string& name, const std::string& path, size_t bytes, std::string* why) {
  std::shared_ptr<ShmSegment> s(new ShmSegment());
  s->name_ = name;
  s->bytes_ = bytes;
  // Not O_NOFOLLOW: /proc/<pid>/fd/<fd> is a link; the checks below hold either way.
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) {
    *why = errnoText(("open " + path).c_str());
  } else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || static_cast<size_t>(st.st_size) < bytes + pageSize()) {
    *why = "the shared-memory segment " + name + " is not the one its creator made";
  } else {
    s->fd_ = fd;  // map() needs it; an attached segment does not keep it
    bool ok = s->map(why);
    s->fd_ = -1;
    close(fd);
    return ok ? s : nullptr;
  }
  if (fd >= 0) close(fd);
  return nullptr;
}

bool ShmSegment::map(std::string* why) {
  void* p = mmap(nullptr, bytes_ + pageSize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    *why = errnoText("mmap");
    return false;
  }
  map_ = p;
  return true;
}

ShmSegment::~ShmSegment() {
  unlink();
  if (map_) munmap(map_, bytes_ + pageSize());
  if (fd_ >= 0) close(fd_);
}

std::string ShmSegment::namePath() const { return kDir + name_; }

void ShmSegment::unlink() {
  if (!linked_) return;
  ::unlink(namePath().c_str());
  linked_ = false;
}

}  // namespace topocoll
