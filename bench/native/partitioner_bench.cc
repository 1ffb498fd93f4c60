// Benchmarks of the rank-mapping core against the figures of seed 004 (Kurnosov): the mapping
// for n = 64 on 8 nodes (the paper: 300-480 us) and the Bruck graph of n = 1,048,576 into
// h = 131,072 parts of 8 (the paper: 32.73 s on a Xeon E5420). Reports medians over repeats and
// the cut achieved against the identity placements.
//   partitioner_bench [--quick | --small | --large] [--repeats N] [--threads T]
//   --quick: no n = 1,048,576 run; --small: only n = 64; --large: only n = 1,048,576
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <ctime>
#include <string>
#include <vector>

#include "mapping/allgather_graphs.h"
#include "mapping/graph.h"
#include "mapping/mapping_cost.h"
#include "mapping/partitioner.h"
#include "mapping/rank_mapping.h"

using namespace topocoll::mapping;

namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds of the whole process: on a loaded machine (other jobs on the same cores) this is
// what the work costs, where wall-clock time also counts the waits for a core.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

// Median over `repeats` of the mean time of `iters` calls of f: wall clock, and CPU in *cpu.
double timePerCall(int repeats, int iters, const std::function<void()>& f, double* cpu = nullptr) {
  std::vector<double> samples, cpu_samples;
  for (int r = 0; r < repeats; ++r) {
    const double c0 = cpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    samples.push_back(seconds(t0, std::chrono::steady_clock::now()) / iters);
    cpu_samples.push_back((cpuSeconds() - c0) / iters);
  }
  if (cpu) *cpu = median(cpu_samples);
  return median(samples);
}

std::vector<int> contiguous(int n, int per_part) {
  std::vector<int> part(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) part[v] = v / per_part;
  return part;
}

std::vector<int> roundRobin(int n, int h) {
  std::vector<int> part(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) part[v] = v % h;
  return part;
}

void smallMapping(int repeats) {
  std::printf("\n== mapping for n = 64 ranks on h = 8 nodes of 8 (seed 004: 300-480 us) ==\n");
  std::printf("%-22s %12s %12s %12s %12s %12s\n", "graph", "partition", "(cpu)", "+mapping", "+graph", "cut/identity");
  const std::vector<int> node_of_slot = contiguous(64, 8);
  const std::vector<int> sizes(8, 8);
  struct Case {
    const char* name;
    Graph (*build)(int, int64_t);
  };
  for (const Case& c : {Case{"bruck", buildBruckAllgatherGraph}, Case{"recursive_doubling", buildRecursiveDoublingAllgatherGraph}}) {
    const Graph g = c.build(64, 1);
    std::vector<int> part;
    RankMapping m;
    double cpu_part = 0;
    const double t_part = timePerCall(repeats, 2000, [&] { part = partitionGraph(g, sizes); }, &cpu_part);
    const double t_map = timePerCall(repeats, 2000, [&] { m = computeRankMapping(g, node_of_slot); });
    const double t_all = timePerCall(repeats, 2000, [&] { m = computeRankMapping(c.build(64, 1), node_of_slot); });
    std::printf("%-22s %9.1f us %9.1f us %9.1f us %9.1f us %6lld/%lld\n", c.name, t_part * 1e6, cpu_part * 1e6, t_map * 1e6, t_all * 1e6,
                static_cast<long long>(cutWeight(g, part)), static_cast<long long>(cutWeight(g, node_of_slot)));
  }
}

void scaling(int repeats, int threads) {
  std::printf("\n== partition time vs n, h parts of n/h (seed 004 fig. 9), threads = %d ==\n", threads);
  std::printf("%-20s %9s %7s %11s %11s %14s %14s %14s\n", "graph", "n", "h", "build", "partition", "cut", "contiguous",
              "round-robin");
  PartitionOptions options;
  options.threads = threads;
  struct Case {
    const char* name;
    Graph (*build)(int, int64_t);
  };
  for (const Case& c : {Case{"bruck", buildBruckAllgatherGraph}, Case{"recursive_doubling", buildRecursiveDoublingAllgatherGraph}}) {
    for (int n : {1024, 16384, 131072}) {
      for (int h : {128, 512}) {
        std::vector<double> build_s, part_s;
        Graph g;
        std::vector<int> part;
        for (int r = 0; r < repeats; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          g = c.build(n, 1);
          const auto t1 = std::chrono::steady_clock::now();
          part = partitionGraph(g, std::vector<int>(static_cast<size_t>(h), n / h), options);
          const auto t2 = std::chrono::steady_clock::now();
          build_s.push_back(seconds(t0, t1));
          part_s.push_back(seconds(t1, t2));
        }
        std::printf("%-20s %9d %7d %8.2f ms %8.2f ms %14lld %14lld %14lld\n", c.name, n, h, median(build_s) * 1e3,
                    median(part_s) * 1e3, static_cast<long long>(cutWeight(g, part)),
                    static_cast<long long>(cutWeight(g, contiguous(n, n / h))),
                    static_cast<long long>(cutWeight(g, roundRobin(n, h))));
      }
    }
  }
}

void largeBruck(int repeats, int threads) {
  const int n = 1 << 20, h = 1 << 17;
  std::printf("\n== Bruck, n = %d into h = %d parts of 8, threads = %d (seed 004: 32.73 s) ==\n", n, h, threads);
  PartitionOptions options;
  options.threads = threads;
  std::vector<double> build_s, part_s, map_s, cpu_s;
  Graph g;
  std::vector<int> part;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    g = buildBruckAllgatherGraph(n, 1);
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpuSeconds();
    part = partitionGraph(g, std::vector<int>(static_cast<size_t>(h), 8), options);
    cpu_s.push_back(cpuSeconds() - c1);
    const auto t2 = std::chrono::steady_clock::now();
    const RankMapping m = rankMappingFromParts(part, contiguous(n, 8));
    const auto t3 = std::chrono::steady_clock::now();
    build_s.push_back(seconds(t0, t1));
    part_s.push_back(seconds(t1, t2));
    map_s.push_back(seconds(t2, t3));
    std::printf("  run %d: build %.3f s, partition %.3f s (cpu %.3f s), pi %.3f s\n", r + 1, build_s.back(), part_s.back(), cpu_s.back(),
                map_s.back());
    std::fflush(stdout);
  }
  const int64_t cut = cutWeight(g, part);
  const int64_t ident = cutWeight(g, contiguous(n, 8));
  const int64_t rr = cutWeight(g, roundRobin(n, h));
  std::printf("  median: build %.3f s, partition %.3f s (cpu %.3f s), pi %.3f s (|E| = %lld)\n", median(build_s), median(part_s),
              median(cpu_s), median(map_s), static_cast<long long>(g.numEdges()));
  std::printf("  cut %lld = %.2f%% of identity (contiguous blocks of 8) %lld; round-robin %lld; total %lld\n",
              static_cast<long long>(cut), 100.0 * static_cast<double>(cut) / static_cast<double>(ident),
              static_cast<long long>(ident), static_cast<long long>(rr), static_cast<long long>(g.totalEdgeWeight()));
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, small_only = false, large_only = false;
  int repeats = 5;
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--small")) small_only = true;
    else if (!std::strcmp(argv[i], "--large")) large_only = true;
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--quick | --small | --large] [--repeats N] [--threads T]\n", argv[0]);
      return 2;
    }
  }
  if (!large_only) smallMapping(repeats);
  if (!large_only && !small_only) scaling(quick ? 1 : 3, threads);
  if (!quick && !small_only) largeBruck(repeats, threads);
  return 0;
}
