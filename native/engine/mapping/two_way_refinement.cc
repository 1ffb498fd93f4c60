#include "mapping/two_way_refinement.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace topocoll::mapping::detail {

namespace {

// Moves v to the other side, keeping id/ed/pw/cut exact; calls touched(u) for each neighbour
// after its id/ed changed.
template <typename Touched>
inline void moveVertex(const GraphView& g, TwoWayPartition& p, int32_t v, Touched touched) {
  const uint8_t from = p.where[v];
  const uint8_t to = static_cast<uint8_t>(from ^ 1);
  const int32_t w = g.weight(v);
  p.cut -= p.ed[v] - p.id[v];
  std::swap(p.id[v], p.ed[v]);
  p.where[v] = to;
  p.pw[from] -= w;
  p.pw[to] += w;
  uint8_t* where = p.where.data();
  int64_t* id = p.id.data();
  int64_t* ed = p.ed.data();
  for (int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
    const int32_t u = g.adjncy[e];
    const int64_t ew = where[u] == to ? g.adjwgt[e] : -g.adjwgt[e];  // branch-free: sides are random
    id[u] += ew;
    ed[u] -= ew;
    touched(u);
  }
}

struct Score {
  int64_t excess, cut, deviation;
  bool operator<(const Score& o) const {
    return std::tie(excess, cut, deviation) < std::tie(o.excess, o.cut, o.deviation);
  }
};

Score scoreOf(const TwoWayPartition& p, const BalanceTarget& t) {
  const int64_t d = p.pw[0] - t.target0;
  return {t.excess(p.pw[0]), p.cut, d < 0 ? -d : d};
}

}  // namespace

void computeTwoWayPartition(const GraphView& g, TwoWayPartition& p) {
  const int n = g.n;
  p.id.resize(static_cast<size_t>(n));
  p.ed.resize(static_cast<size_t>(n));
  p.pw[0] = p.pw[1] = 0;
  int64_t cut2 = 0;
  const uint8_t* where = p.where.data();
  for (int v = 0; v < n; ++v) {
    const uint8_t side = where[v];
    int64_t in = 0, out = 0;
    for (int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      if (where[g.adjncy[e]] == side) in += g.adjwgt[e];
      else out += g.adjwgt[e];
    }
    p.id[v] = in;
    p.ed[v] = out;
    cut2 += out;
    p.pw[side] += g.weight(v);
  }
  p.cut = cut2 / 2;
}

void projectTwoWayPartition(const GraphView& fine, const int32_t* cmap, const TwoWayPartition& coarse,
                            TwoWayPartition& p) {
  const int n = fine.n;
  p.where.resize(static_cast<size_t>(n));
  p.id.resize(static_cast<size_t>(n));
  p.ed.resize(static_cast<size_t>(n));
  uint8_t* where = p.where.data();
  for (int v = 0; v < n; ++v) where[v] = coarse.where[cmap[v]];
  for (int v = 0; v < n; ++v) {
    int64_t in = 0, out = 0;
    if (coarse.ed[cmap[v]] == 0) {
      for (int64_t e = fine.xadj[v]; e < fine.xadj[v + 1]; ++e) in += fine.adjwgt[e];
    } else {
      const uint8_t side = where[v];
      for (int64_t e = fine.xadj[v]; e < fine.xadj[v + 1]; ++e) {
        if (where[fine.adjncy[e]] == side) in += fine.adjwgt[e];
        else out += fine.adjwgt[e];
      }
    }
    p.id[v] = in;
    p.ed[v] = out;
  }
  // Contraction keeps vertex weights and cut edges, so side weights and cut carry over.
  p.pw[0] = coarse.pw[0];
  p.pw[1] = coarse.pw[1];
  p.cut = coarse.cut;
}

void balanceTwoWay(const GraphView& g, TwoWayPartition& p, const BalanceTarget& target, RefinementScratch& s) {
  if (target.excess(p.pw[0]) == 0) return;
  const uint8_t from = p.pw[0] > target.target0 ? 0 : 1;
  IndexedMaxHeap& heap = s.heap[0];
  heap.prepare(g.n);
  for (int v = 0; v < g.n; ++v)
    if (p.where[v] == from && p.ed[v] > 0) heap.append(v, p.ed[v] - p.id[v]);
  heap.heapify();
  bool interior_added = false;
  while (target.excess(p.pw[0]) > 0) {
    if (heap.empty()) {
      if (interior_added) break;
      // Not enough boundary vertices: the rest of the heavy side is eligible too.
      interior_added = true;
      for (int v = 0; v < g.n; ++v)
        if (p.where[v] == from && p.ed[v] == 0) heap.append(v, -p.id[v]);
      heap.heapify();
      continue;
    }
    const int32_t v = heap.pop();
    const int64_t d = p.pw[0] - target.target0;
    const int64_t nd = from == 0 ? d - g.weight(v) : d + g.weight(v);
    if ((nd < 0 ? -nd : nd) >= (d < 0 ? -d : d)) continue;  // too heavy to help
    moveVertex(g, p, v, [&](int32_t u) {
      if (p.where[u] != from) return;
      if (heap.contains(u)) heap.update(u, p.ed[u] - p.id[u]);
      else if (p.ed[u] > 0 || interior_added) heap.insert(u, p.ed[u] - p.id[u]);
    });
  }
  heap.clear();
}

namespace {

template <typename Queue>
void refineWith(const GraphView& g, TwoWayPartition& p, const BalanceTarget& target, int max_passes, Queue* queue,
                RefinementScratch& s) {
  const int n = g.n;
  queue[0].prepare(n);
  queue[1].prepare(n);
  if (static_cast<int>(s.locked.size()) < n) s.locked.resize(static_cast<size_t>(n), 0);
  uint8_t* locked = s.locked.data();
  // Stop a pass after this many moves without a new best state (METIS uses the same rule).
  const int limit = std::min(std::max(n / 100, std::min(15, n / 4 + 2)), 100);
  const int64_t slack = target.slack;

  for (int pass = 0; pass < max_passes; ++pass) {
    for (int v = 0; v < n; ++v)
      if (p.ed[v] > 0) queue[p.where[v]].append(v, p.ed[v] - p.id[v]);
    if (queue[0].empty() && queue[1].empty()) return;
    queue[0].heapify();
    queue[1].heapify();
    s.moves.clear();
    Score best = scoreOf(p, target);
    size_t best_len = 0;

    for (;;) {
      const int64_t d = p.pw[0] - target.target0;
      const int64_t excess = target.excess(p.pw[0]);
      int from;
      if (excess > 0) {
        from = d > 0 ? 0 : 1;  // must shrink the heavy side
      } else if (queue[0].empty() || queue[1].empty()) {
        from = queue[0].empty() ? 1 : 0;
      } else if (queue[0].topKey() != queue[1].topKey()) {
        from = queue[0].topKey() > queue[1].topKey() ? 0 : 1;
      } else {
        from = d > 0 ? 0 : 1;
      }
      Queue& heap = queue[from];
      if (heap.empty()) break;
      const int32_t v = heap.pop();
      const int64_t moved_pw0 = p.pw[0] + (from == 0 ? -g.weight(v) : g.weight(v));
      if (target.excess(moved_pw0) > std::max(excess, slack)) continue;  // too far off balance

      moveVertex(g, p, v, [&](int32_t u) {
        if (locked[u]) return;
        Queue& hu = queue[p.where[u]];
        if (hu.contains(u)) {
          if (p.ed[u] > 0) hu.update(u, p.ed[u] - p.id[u]);
          else hu.remove(u);
        } else if (p.ed[u] > 0) {
          hu.insert(u, p.ed[u] - p.id[u]);
        }
      });
      locked[v] = 1;
      s.moves.push_back(v);

      const Score now = scoreOf(p, target);
      if (now < best) {
        best = now;
        best_len = s.moves.size();
      } else if (s.moves.size() - best_len > static_cast<size_t>(limit)) {
        break;
      }
    }

    queue[0].clear();
    queue[1].clear();
    for (size_t i = s.moves.size(); i > best_len; --i) moveVertex(g, p, s.moves[i - 1], [](int32_t) {});
    for (int32_t v : s.moves) locked[v] = 0;
    if (best_len == 0) return;
  }
}

}  // namespace

void refineTwoWay(const GraphView& g, TwoWayPartition& p, const BalanceTarget& target, int max_passes,
                  RefinementScratch& s) {
  if (g.n < 2) return;
  if (g.n <= kScanQueueVertices) refineWith(g, p, target, max_passes, s.scan, s);
  else refineWith(g, p, target, max_passes, s.heap, s);
}

}  // namespace topocoll::mapping::detail
