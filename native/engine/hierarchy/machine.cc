#include "machine.h"

#include <numa.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <unordered_map>

namespace topocoll {
namespace {

bool readLine(const std::string& path, std::string* out) {
  std::ifstream f(path);
  return static_cast<bool>(std::getline(f, *out));
}

int readInt(const std::string& path, int fallback) {
  std::string s;
  if (!readLine(path, &s) || s.empty()) return fallback;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  return end == s.c_str() || v < 0 ? fallback : static_cast<int>(v);
}

// TOPOCOLL_SYSFS_ROOT (default "/sys") stands in for /sys: tests point it at a made-up tree (a
// machine whose sysfs lists no caches, as some containers and VMs) to check how we degrade.
const std::string& sysfsRoot() {
  static const std::string root = [] {
    const char* env = std::getenv("TOPOCOLL_SYSFS_ROOT");
    return std::string(env && *env ? env : "/sys");
  }();
  return root;
}

std::string cpuDir(int cpu) { return sysfsRoot() + "/devices/system/cpu/cpu" + std::to_string(cpu); }

// sysfs describes fixed hardware: read once per CPU and process. Every new communicator detects
// its hierarchy, and two dozen sysfs opens cost more than the rest of its creation.
template <typename T, typename Read>
T perCpu(int cpu, Read read) {
  static std::mutex mutex;
  static std::unordered_map<int, T> memo;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = memo.find(cpu);
  if (it == memo.end()) it = memo.emplace(cpu, read(cpu)).first;
  return it->second;
}

int socketOf(int cpu) {
  return perCpu<int>(cpu, [](int c) { return readInt(cpuDir(c) + "/topology/physical_package_id", 0); });
}

bool numaWorks() {
  static const bool works = numa_available() >= 0;
  return works;
}

int numaOf(int cpu) {
  if (!numaWorks()) return 0;
  int node = numa_node_of_cpu(cpu);
  return node < 0 ? 0 : node;
}

// "32K", "16384K", "1M" -> bytes.
int64_t parseSize(const std::string& s) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str()) return 0;
  switch (*end) {
    case 'K': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    default: return v;
  }
}

}  // namespace

const char* bindingName(Binding b) {
  switch (b) {
    case Binding::Core: return "core";
    case Binding::Socket: return "socket";
    default: return "none";
  }
}

std::vector<int> parseCpuList(const std::string& text) {
  std::vector<int> cpus;
  size_t i = 0;
  while (i < text.size()) {
    char* end = nullptr;
    long a = std::strtol(text.c_str() + i, &end, 10);
    if (end == text.c_str() + i) break;
    long b = a;
    i = end - text.c_str();
    if (i < text.size() && text[i] == '-') {
      b = std::strtol(text.c_str() + i + 1, &end, 10);
      i = end - text.c_str();
    }
    for (long c = a; c <= b && c - a < 65536; ++c) cpus.push_back(static_cast<int>(c));
    while (i < text.size() && (text[i] == ',' || text[i] == '\n' || text[i] == ' ')) ++i;
  }
  return cpus;
}

std::string kernelBootId() {
  std::string id;
  return readLine("/proc/sys/kernel/random/boot_id", &id) ? id : std::string();
}

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

int onlineCpus() {
  static const int online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return online;
}

std::vector<int> allowedCpus() {
  std::vector<int> cpus;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  return cpus;
}

int cgroupCpuLimit() {
  static const int limit = [] {
    // /proc/self/cgroup: "id:controllers:path" per hierarchy; v2's is "0::path".
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    std::vector<std::pair<std::string, bool>> paths;  // (directory of the cgroup, v2)
    const std::string root = sysfsRoot() + "/fs/cgroup";
    while (std::getline(in, line)) {
      const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
      if (b == std::string::npos) continue;
      const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
      std::string path = line.substr(b + 1);
      while (!path.empty() && path.back() == '/') path.pop_back();
      if (controllers == ",,") paths.emplace_back(root + path, true);
      else if (controllers.find(",cpu,") != std::string::npos) paths.emplace_back(root + "/cpu" + path, false);
    }
    int least = 0;
    for (auto [dir, v2] : paths) {
      for (;;) {
        double quota = -1, period = 0;
        std::string text;
        if (v2 && readLine(dir + "/cpu.max", &text)) {
          // "max 100000" (no limit) or "200000 100000"
          if (text.compare(0, 3, "max") != 0) std::sscanf(text.c_str(), "%lf %lf", &quota, &period);
        } else if (!v2 && readLine(dir + "/cpu.cfs_quota_us", &text)) {
          quota = std::atof(text.c_str());
          if (readLine(dir + "/cpu.cfs_period_us", &text)) period = std::atof(text.c_str());
        }
        if (quota > 0 && period > 0) {
          const int cpus = std::max(1, static_cast<int>(std::ceil(quota / period)));
          if (least == 0 || cpus < least) least = cpus;
        }
        const size_t slash = dir.rfind('/');
        if (dir.size() <= root.size() || slash == std::string::npos || slash < root.size()) break;
        dir.resize(slash);
      }
    }
    return least;
  }();
  return limit;
}

CpuPlace currentCpuPlace() {
  CpuPlace place;
  const std::vector<int> cpus = allowedCpus();
  const int allowed = static_cast<int>(cpus.size()), first = cpus.empty() ? -1 : cpus[0];
  const bool one_socket = std::all_of(cpus.begin(), cpus.end(), [first](int c) { return socketOf(c) == socketOf(first); });
  const int online = onlineCpus();
  int current = sched_getcpu();
  place.cpu = allowed == 1 ? first : current >= 0 ? current : 0;
  if (allowed == 1) place.binding = Binding::Core;
  else if (allowed > 0 && allowed < online && one_socket) place.binding = Binding::Socket;
  place.socket = socketOf(place.cpu);
  place.numa = numaOf(place.cpu);
  place.core = perCpu<int>(place.cpu, [](int c) { return readInt(cpuDir(c) + "/topology/core_id", c); });
  return place;
}

std::vector<CacheInfo> cpuCaches(int cpu) {
  return perCpu<std::vector<CacheInfo>>(cpu, [](int c) {
    std::vector<CacheInfo> caches;
    for (int i = 0;; ++i) {
      std::string dir = cpuDir(c) + "/cache/index" + std::to_string(i);
      CacheInfo info;
      std::string size, shared;
      if (!readLine(dir + "/size", &size)) break;
      info.level = readInt(dir + "/level", 0);
      readLine(dir + "/type", &info.type);
      info.bytes = parseSize(size);
      info.line_bytes = readInt(dir + "/coherency_line_size", 64);
      if (readLine(dir + "/shared_cpu_list", &shared)) info.shared_cpus = parseCpuList(shared);
      caches.push_back(info);
    }
    return caches;
  });
}

bool numaMachine() { return numaWorks() && numa_max_node() > 0; }

}  // namespace topocoll
