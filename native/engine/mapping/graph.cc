#include "mapping/graph.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace topocoll::mapping {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

// SplitMix64 finaliser: a strong 64-bit mixer, used for the symmetry hash.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t edgeHash(uint32_t u, uint32_t v, int64_t w) {
  return mix64(mix64((static_cast<uint64_t>(u) << 32) | v) ^ static_cast<uint64_t>(w));
}

}  // namespace

int64_t Graph::totalEdgeWeight() const {
  int64_t sum = 0;
  for (int64_t w : adjwgt) sum += w;
  return sum / 2;
}

void validateGraph(const Graph& g) {
  const std::string where = "validateGraph: ";
  if (g.n < 0) fail(where + "n = " + std::to_string(g.n) + " is negative");
  if (g.xadj.size() != static_cast<size_t>(g.n) + 1)
    fail(where + "xadj has " + std::to_string(g.xadj.size()) + " entries, expected n+1 = " + std::to_string(g.n + 1));
  if (g.xadj[0] != 0) fail(where + "xadj[0] = " + std::to_string(g.xadj[0]) + ", expected 0");
  if (g.vwgt.size() != static_cast<size_t>(g.n))
    fail(where + "vwgt has " + std::to_string(g.vwgt.size()) + " entries, expected n = " + std::to_string(g.n));
  const int64_t m = g.xadj[g.n];
  if (g.adjncy.size() != static_cast<size_t>(m) || g.adjwgt.size() != static_cast<size_t>(m))
    fail(where + "xadj[n] = " + std::to_string(m) + " but adjncy has " + std::to_string(g.adjncy.size()) +
         " and adjwgt " + std::to_string(g.adjwgt.size()) + " entries");
  for (int u = 0; u < g.n; ++u)  // before any row is read, so rows stay inside adjncy
    if (g.xadj[u + 1] < g.xadj[u]) fail(where + "xadj decreases at vertex " + std::to_string(u));
  std::vector<int32_t> stamp(g.n, -1);
  uint64_t symmetry = 0;
  for (int u = 0; u < g.n; ++u) {
    if (g.vwgt[u] <= 0) fail(where + "vertex " + std::to_string(u) + " has weight " + std::to_string(g.vwgt[u]) + " (must be > 0)");
    for (int64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) {
      const int32_t v = g.adjncy[e];
      auto edge = [&] { return where + "edge " + std::to_string(u) + "->" + std::to_string(v); };
      if (v < 0 || v >= g.n) fail(edge() + " leaves the graph (n = " + std::to_string(g.n) + ")");
      if (v == u) fail(where + "self loop at vertex " + std::to_string(u));
      if (g.adjwgt[e] <= 0) fail(edge() + " has weight " + std::to_string(g.adjwgt[e]) + " (must be > 0)");
      if (stamp[v] == u) fail(edge() + " appears twice");
      stamp[v] = u;
      symmetry += edgeHash(static_cast<uint32_t>(u), static_cast<uint32_t>(v), g.adjwgt[e]);
      symmetry -= edgeHash(static_cast<uint32_t>(v), static_cast<uint32_t>(u), g.adjwgt[e]);
    }
  }
  if (symmetry != 0) fail(where + "graph is not symmetric (some u->v has no v->u of the same weight)");
}

Graph buildGraphFromMessages(int n, const std::vector<Message>& messages) {
  const std::string where = "buildGraphFromMessages: ";
  if (n < 0) fail(where + "n = " + std::to_string(n) + " is negative");
  // Degree count over both directions; a pair may repeat, duplicates are merged below.
  std::vector<int64_t> count(static_cast<size_t>(n) + 1, 0);
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& msg = messages[i];
    if (msg.src < 0 || msg.src >= n || msg.dst < 0 || msg.dst >= n)
      fail(where + "message " + std::to_string(i) + " (" + std::to_string(msg.src) + " -> " + std::to_string(msg.dst) +
           ") names a rank outside 0.." + std::to_string(n - 1));
    if (msg.bytes < 0) fail(where + "message " + std::to_string(i) + " has " + std::to_string(msg.bytes) + " bytes");
    if (msg.src == msg.dst || msg.bytes == 0) continue;
    ++count[msg.src + 1];
    ++count[msg.dst + 1];
  }
  for (int v = 0; v < n; ++v) count[v + 1] += count[v];

  struct Entry {
    int32_t v;
    int64_t w;
  };
  std::vector<Entry> entries(static_cast<size_t>(count[n]));
  std::vector<int64_t> fill(count.begin(), count.end() - 1);
  for (const Message& msg : messages) {
    if (msg.src == msg.dst || msg.bytes == 0) continue;
    entries[fill[msg.src]++] = {msg.dst, msg.bytes};
    entries[fill[msg.dst]++] = {msg.src, msg.bytes};
  }

  Graph g;
  g.n = n;
  g.xadj.assign(static_cast<size_t>(n) + 1, 0);
  g.vwgt.assign(static_cast<size_t>(n), 1);
  g.adjncy.reserve(entries.size());
  g.adjwgt.reserve(entries.size());
  for (int u = 0; u < n; ++u) {
    auto first = entries.begin() + count[u], last = entries.begin() + count[u + 1];
    std::sort(first, last, [](const Entry& a, const Entry& b) { return a.v < b.v; });
    for (auto it = first; it != last; ++it) {
      if (!g.adjncy.empty() && static_cast<int64_t>(g.adjncy.size()) > g.xadj[u] && g.adjncy.back() == it->v) {
        if (g.adjwgt.back() > std::numeric_limits<int64_t>::max() - it->w)
          fail(where + "bytes between ranks " + std::to_string(u) + " and " + std::to_string(it->v) + " overflow int64");
        g.adjwgt.back() += it->w;
      } else {
        g.adjncy.push_back(it->v);
        g.adjwgt.push_back(it->w);
      }
    }
    g.xadj[u + 1] = static_cast<int64_t>(g.adjncy.size());
  }
  return g;
}

}  // namespace topocoll::mapping
