#include "mapping/allgather_graphs.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace topocoll::mapping {

namespace {

// Every rank sends and receives fewer than n blocks per step and at most n blocks in total per
// direction and peer, so 2 * n * block_bytes bounds every edge weight.
void checkArguments(const char* fn, int n, int64_t block_bytes) {
  if (n < 0) throw std::invalid_argument(std::string(fn) + ": n = " + std::to_string(n) + " is negative");
  if (block_bytes < 1)
    throw std::invalid_argument(std::string(fn) + ": block_bytes = " + std::to_string(block_bytes) + " (must be >= 1)");
  if (n > 0 && block_bytes > std::numeric_limits<int64_t>::max() / 4 / n)
    throw std::invalid_argument(std::string(fn) + ": n * block_bytes = " + std::to_string(n) + " * " +
                                std::to_string(block_bytes) + " overflows int64 edge weights");
}

int ceilLog2(int n) {
  int s = 0;
  while ((int64_t{1} << s) < n) ++s;
  return s;
}

}  // namespace

std::vector<Message> bruckAllgatherMessages(int n, int64_t block_bytes) {
  checkArguments("bruckAllgatherMessages", n, block_bytes);
  std::vector<Message> messages;
  const int steps = ceilLog2(n);
  messages.reserve(static_cast<size_t>(n) * steps);
  for (int k = 0; k < steps; ++k) {
    const int dist = 1 << k;
    const int64_t bytes = std::min(dist, n - dist) * block_bytes;
    for (int i = 0; i < n; ++i) messages.push_back({i, (i - dist + n) % n, bytes});
  }
  return messages;
}

Graph buildBruckAllgatherGraph(int n, int64_t block_bytes) {
  checkArguments("buildBruckAllgatherGraph", n, block_bytes);
  const int steps = ceilLog2(n);
  Graph g;
  g.n = n;
  g.xadj.assign(static_cast<size_t>(n) + 1, 0);
  g.vwgt.assign(static_cast<size_t>(n), 1);
  g.adjncy.reserve(static_cast<size_t>(n) * 2 * steps);
  g.adjwgt.reserve(static_cast<size_t>(n) * 2 * steps);
  // A row has at most 2 * 31 entries: i sends to i - 2^k and receives from i + 2^k.
  std::pair<int32_t, int64_t> row[64];
  for (int i = 0; i < n; ++i) {
    int len = 0;
    for (int k = 0; k < steps; ++k) {
      const int dist = 1 << k;
      const int64_t bytes = std::min(dist, n - dist) * block_bytes;
      row[len++] = {static_cast<int32_t>((i - dist + n) % n), bytes};
      row[len++] = {static_cast<int32_t>((i + dist) % n), bytes};
    }
    std::sort(row, row + len, [](const auto& a, const auto& b) { return a.first < b.first; });
    for (int e = 0; e < len; ++e) {
      if (e > 0 && row[e].first == row[e - 1].first) {
        g.adjwgt.back() += row[e].second;  // the pair meets at more than one step
      } else {
        g.adjncy.push_back(row[e].first);
        g.adjwgt.push_back(row[e].second);
      }
    }
    g.xadj[i + 1] = static_cast<int64_t>(g.adjncy.size());
  }
  return g;
}

std::vector<Message> recursiveDoublingAllgatherMessages(int n, int64_t block_bytes) {
  checkArguments("recursiveDoublingAllgatherMessages", n, block_bytes);
  std::vector<Message> messages;
  if (n <= 1) return messages;
  int p = 1;
  while (p * 2 <= n) p *= 2;
  const int r = n - p;
  for (int j = 0; j < r; ++j) messages.push_back({p + j, j, block_bytes});
  for (int dist = 1; dist < p; dist *= 2) {
    for (int i = 0; i < p; ++i) {
      const int base = i & ~(dist - 1);                    // first rank of i's aligned subcube
      const int folded = std::clamp(r - base, 0, dist);    // subcube members that hold a folded block
      messages.push_back({i, i ^ dist, (dist + folded) * block_bytes});
    }
  }
  for (int j = 0; j < r; ++j) messages.push_back({j, p + j, static_cast<int64_t>(n) * block_bytes});
  return messages;
}

Graph buildRecursiveDoublingAllgatherGraph(int n, int64_t block_bytes) {
  checkArguments("buildRecursiveDoublingAllgatherGraph", n, block_bytes);
  return buildGraphFromMessages(n, recursiveDoublingAllgatherMessages(n, block_bytes));
}

}  // namespace topocoll::mapping
