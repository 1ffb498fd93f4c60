#include "stats.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "algorithm_registry.h"
#include "shadow_comm.h"
#include "shm/shm_pool.h"

namespace topocoll::engine::stats {

namespace {

// Per collective: slot 0 is native, slot i + 1 the registry's algorithm i.
std::array<std::vector<Counter>, generated::kCollectiveCount> g_counters;
MPI_Comm g_comm = MPI_COMM_NULL;  // the report's duplicate of MPI_COMM_WORLD

// One rank's counters as the report gathers them: per slot of every collective in registry
// order, calls and bytes (uint64) and seconds (double); then the pools' four counts.
constexpr int kPoolCounts = 4;

int slotCount() {
  int n = 0;
  for (int c = 0; c < generated::kCollectiveCount; ++c) n += collectiveEntry(static_cast<Collective>(c)).algorithm_count + 1;
  return n;
}

const char* choiceName(Collective coll, int slot) { return slot == 0 ? "native" : algorithmName(coll, slot - 1); }

// 3 significant digits, in the unit that keeps the number between 1 and 1000.
void formatTime(double seconds, char* out, size_t size) {
  const char* unit = "s";
  double v = seconds;
  if (seconds < 1e-3) v = seconds * 1e6, unit = "us";
  else if (seconds < 1) v = seconds * 1e3, unit = "ms";
  const char* format = v < 1 ? "%.3g %s" : v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s";
  std::snprintf(out, size, format, v, unit);
}

struct Gathered {
  int ranks = 0, slots = 0;
  std::vector<uint64_t> counts;  // per rank: slots x (calls, bytes), then the pool counts
  std::vector<double> seconds;   // per rank: slots
  uint64_t calls(int rank, int slot) const { return counts[rank * (2 * slots + kPoolCounts) + 2 * slot]; }
  uint64_t bytes(int rank, int slot) const { return counts[rank * (2 * slots + kPoolCounts) + 2 * slot + 1]; }
  uint64_t pool(int rank, int i) const { return counts[rank * (2 * slots + kPoolCounts) + 2 * slots + i]; }
  double time(int rank, int slot) const { return seconds[rank * slots + slot]; }
};

void printRanks(const Gathered& g) {
  for (int r = 0; r < g.ranks; ++r) {
    int slot = 0;
    for (int c = 0; c < generated::kCollectiveCount; ++c) {
      auto coll = static_cast<Collective>(c);
      for (int a = 0; a <= collectiveEntry(coll).algorithm_count; ++a, ++slot) {
        if (g.calls(r, slot) == 0) continue;
        char time[32];
        formatTime(g.time(r, slot), time, sizeof time);
        std::fprintf(stderr, "topocoll stats: rank %d %-10s %-20s calls %llu bytes %llu time %s\n", r, collectiveEntry(coll).name, choiceName(coll, a),
                     static_cast<unsigned long long>(g.calls(r, slot)), static_cast<unsigned long long>(g.bytes(r, slot)), time);
      }
    }
    if (g.pool(r, 0) + g.pool(r, 1) > 0) {
      std::fprintf(stderr, "topocoll stats: rank %d shadow comms created %llu reused %llu\n", r, static_cast<unsigned long long>(g.pool(r, 0)),
                   static_cast<unsigned long long>(g.pool(r, 1)));
    }
    if (g.pool(r, 3) > 0) {
      std::fprintf(stderr, "topocoll stats: rank %d shm segments created %llu leased %llu\n", r, static_cast<unsigned long long>(g.pool(r, 2)),
                   static_cast<unsigned long long>(g.pool(r, 3)));
    }
  }
}

// The job's table; nothing where no collective went through the engine (TOPOCOLL_PASSTHROUGH=1).
void printTable(const Gathered& g) {
  bool any = false;
  for (int r = 0; r < g.ranks && !any; ++r)
    for (int slot = 0; slot < g.slots && !any; ++slot) any = g.calls(r, slot) > 0;
  if (!any) return;
  std::fprintf(stderr,
               "topocoll stats: job of %d rank%s; calls and bytes summed over the ranks; time in the calls per rank (min, mean, max over the ranks "
               "that made them; a nonblocking call's start only) and per call\n",
               g.ranks, g.ranks == 1 ? "" : "s");
  std::fprintf(stderr, "topocoll stats: %-20s %-24s %5s %12s %16s %10s %10s %10s %10s\n", "collective", "algorithm", "ranks", "calls", "bytes", "time min",
               "time mean", "time max", "per call");
  int slot = 0;
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    auto coll = static_cast<Collective>(c);
    for (int a = 0; a <= collectiveEntry(coll).algorithm_count; ++a, ++slot) {
      int ranks = 0;
      uint64_t calls = 0, bytes = 0;
      double total = 0, least = 0, most = 0;
      for (int r = 0; r < g.ranks; ++r) {
        if (g.calls(r, slot) == 0) continue;
        double t = g.time(r, slot);
        least = ranks == 0 ? t : std::min(least, t);
        most = std::max(most, t);
        ranks++, calls += g.calls(r, slot), bytes += g.bytes(r, slot), total += t;
      }
      if (ranks == 0) continue;
      char tmin[32], tmean[32], tmax[32], per_call[32];
      formatTime(least, tmin, sizeof tmin);
      formatTime(total / ranks, tmean, sizeof tmean);
      formatTime(most, tmax, sizeof tmax);
      formatTime(total / static_cast<double>(calls), per_call, sizeof per_call);
      std::fprintf(stderr, "topocoll stats: %-20s %-24s %5d %12llu %16llu %10s %10s %10s %10s\n", collectiveEntry(coll).name, choiceName(coll, a), ranks,
                   static_cast<unsigned long long>(calls), static_cast<unsigned long long>(bytes), tmin, tmean, tmax, per_call);
    }
  }
  uint64_t pool[kPoolCounts] = {};
  for (int r = 0; r < g.ranks; ++r)
    for (int i = 0; i < kPoolCounts; ++i) pool[i] += g.pool(r, i);
  if (pool[0] + pool[1] > 0) {
    std::fprintf(stderr, "topocoll stats: all ranks: shadow comms created %llu reused %llu\n", static_cast<unsigned long long>(pool[0]),
                 static_cast<unsigned long long>(pool[1]));
  }
  if (pool[3] > 0) {
    std::fprintf(stderr, "topocoll stats: all ranks: shm segments created %llu leased %llu\n", static_cast<unsigned long long>(pool[2]),
                 static_cast<unsigned long long>(pool[3]));
  }
}

}  // namespace

Counter* count(Collective coll, int algorithm, int64_t bytes) {
  auto& slots = g_counters[static_cast<int>(coll)];
  if (slots.empty()) slots.resize(collectiveEntry(coll).algorithm_count + 1);
  Counter& s = slots[algorithm + 1];
  s.calls++;
  s.bytes += static_cast<uint64_t>(bytes);
  return &s;
}

int open() {
  if (g_comm != MPI_COMM_NULL) return MPI_SUCCESS;
  int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_errhandler(g_comm, MPI_ERRORS_RETURN);
  return rc;
}

void report(int level) {
  if (g_comm == MPI_COMM_NULL) return;
  Gathered g;
  g.slots = slotCount();
  int rank = 0;
  PMPI_Comm_rank(g_comm, &rank);
  PMPI_Comm_size(g_comm, &g.ranks);
  const int words = 2 * g.slots + kPoolCounts;
  std::vector<uint64_t> counts(words, 0);
  std::vector<double> seconds(g.slots, 0);
  int slot = 0;
  for (int c = 0; c < generated::kCollectiveCount; ++c) {
    const auto& mine = g_counters[c];
    const int n = collectiveEntry(static_cast<Collective>(c)).algorithm_count + 1;
    for (int a = 0; a < n; ++a, ++slot) {
      if (mine.empty()) continue;
      counts[2 * slot] = mine[a].calls;
      counts[2 * slot + 1] = mine[a].bytes;
      seconds[slot] = mine[a].seconds;
    }
  }
  ShadowPoolStats shadows = ShadowComm::poolStats();
  ShmPoolStats shm = shmPoolStats();
  const uint64_t pools[kPoolCounts] = {shadows.created, shadows.reused, shm.created, shm.leases};
  std::copy(pools, pools + kPoolCounts, counts.begin() + 2 * g.slots);
  if (rank == 0) {
    g.counts.resize(static_cast<size_t>(words) * g.ranks);
    g.seconds.resize(static_cast<size_t>(g.slots) * g.ranks);
  }
  int rc = PMPI_Gather(counts.data(), words, MPI_UINT64_T, g.counts.data(), words, MPI_UINT64_T, 0, g_comm);
  if (rc == MPI_SUCCESS) rc = PMPI_Gather(seconds.data(), g.slots, MPI_DOUBLE, g.seconds.data(), g.slots, MPI_DOUBLE, 0, g_comm);
  PMPI_Comm_free(&g_comm);
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "topocoll stats: rank %d could not gather the ranks' counters (MPI error %d); no report\n", rank, rc);
    return;
  }
  if (rank != 0) return;
  if (level >= 2) printRanks(g);
  printTable(g);
  std::fflush(stderr);
}

}  // namespace topocoll::engine::stats
