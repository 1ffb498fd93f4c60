// What this process can learn about the CPU it runs on, without MPI: socket, NUMA node and core
// (sysfs and libnuma), how it is bound (sched_getaffinity), and the caches of that CPU (sysfs).
// Missing files (containers, non-Linux sysfs layouts) degrade to socket 0, NUMA node 0, no caches.
// TOPOCOLL_SYSFS_ROOT, for tests, reads another tree in place of /sys (libnuma still reads /sys).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topocoll {

// How tightly the process is bound: to one core, to CPUs of one socket, or not at all (the
// kernel may move it anywhere; its place is then where it ran when asked).
enum class Binding : int { None = 0, Socket = 1, Core = 2 };
const char* bindingName(Binding b);

struct CpuPlace {
  int cpu = 0;      // logical CPU (the bound one, else the current one)
  int socket = 0;   // physical_package_id
  int numa = 0;     // NUMA node of the CPU (0 without libnuma or on one node)
  int core = 0;     // core_id within the socket
  Binding binding = Binding::None;
};

CpuPlace currentCpuPlace();

struct CacheInfo {
  int level = 0;
  std::string type;      // Data, Instruction, Unified
  int64_t bytes = 0;
  int line_bytes = 64;
  std::vector<int> shared_cpus;  // logical CPUs sharing this cache
};

// The caches of logical CPU `cpu`, from /sys/devices/system/cpu/cpuN/cache/index*/ (none: empty).
std::vector<CacheInfo> cpuCaches(int cpu);

// True when libnuma works and the machine has more than one NUMA node with memory.
bool numaMachine();

// The running kernel's boot id (/proc/sys/kernel/random/boot_id; empty where unreadable). Ranks
// that share it share its CPUs and its CLOCK_MONOTONIC, in network namespaces (`topocoll
// cluster`) too, where MPI_Comm_split_type(SHARED) tells them apart.
std::string kernelBootId();

// Tells the CPU this thread spins (x86 pause, Arm yield): no other thread gets the core.
void cpuRelax();

// Logical CPUs online (read once: glibc reads sysfs on each sysconf).
int onlineCpus();

// The CPUs this process may run on (sched_getaffinity; empty where it fails).
std::vector<int> allowedCpus();

// How many CPUs' worth of time the CFS bandwidth limit of this process's cgroup allows, rounded
// up, the least along the cgroup's path to its root (cgroup v2 cpu.max, v1 cpu.cfs_quota_us over
// cpu.cfs_period_us, under <sysfs root>/fs/cgroup); 0 where nothing limits it. A container given
// 2 CPUs of a 64-CPU machine runs its ranks on all 64, two at a time. Read once.
int cgroupCpuLimit();

// Parses a sysfs CPU list ("0-3,8,10-11").
std::vector<int> parseCpuList(const std::string& text);

}  // namespace topocoll
