#include "mapping/initial_bisection.h"

#include <algorithm>

namespace topocoll::mapping::detail {

namespace {

void newStamp(const GraphView& g, BfsScratch& s) {
  if (static_cast<int>(s.seen.size()) < g.n) s.seen.resize(static_cast<size_t>(g.n), 0);
  if (static_cast<int>(s.queue.size()) < g.n) s.queue.resize(static_cast<size_t>(g.n));
  if (++s.stamp == INT32_MAX) {
    std::fill(s.seen.begin(), s.seen.end(), 0);
    s.stamp = 1;
  }
}

// BFS from root; returns the number of levels and leaves the last vertex dequeued in `last`.
int bfsDepth(const GraphView& g, int32_t root, BfsScratch& s, int32_t& last) {
  newStamp(g, s);
  int32_t* queue = s.queue.data();
  int32_t* seen = s.seen.data();
  int head = 0, tail = 0, depth = 0;
  queue[tail++] = root;
  seen[root] = s.stamp;
  while (head < tail) {
    const int level_end = tail;
    ++depth;
    while (head < level_end) {
      const int32_t u = queue[head++];
      for (int64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) {
        const int32_t v = g.adjncy[e];
        if (seen[v] != s.stamp) {
          seen[v] = s.stamp;
          queue[tail++] = v;
        }
      }
    }
  }
  last = queue[tail - 1];
  return depth;
}

}  // namespace

int32_t pseudoPeripheralVertex(const GraphView& g, int32_t start, BfsScratch& s) {
  int32_t current = start, far = start;
  int depth = bfsDepth(g, current, s, far);
  for (int round = 0; round < 4 && far != current; ++round) {
    int32_t next_far = far;
    const int next_depth = bfsDepth(g, far, s, next_far);
    if (next_depth <= depth) {
      current = far;  // as eccentric as it gets; root the levels here
      break;
    }
    current = far;
    far = next_far;
    depth = next_depth;
  }
  return current;
}

void levelizedBisection(const GraphView& g, int32_t root, uint8_t grow_side, int64_t grow_target, BfsScratch& s,
                        std::vector<uint8_t>& where) {
  const int n = g.n;
  where.assign(static_cast<size_t>(n), static_cast<uint8_t>(grow_side ^ 1));
  if (grow_target <= 0 || n == 0) return;
  newStamp(g, s);
  int32_t* queue = s.queue.data();
  int32_t* seen = s.seen.data();
  int64_t grown = 0;
  int head = 0, tail = 0;
  int32_t next_root = 0;  // next candidate root for another component
  queue[tail++] = root;
  seen[root] = s.stamp;
  for (;;) {
    while (head < tail && grown < grow_target) {
      const int32_t u = queue[head++];
      const int64_t after = grown + g.weight(u);
      if (after > grow_target) {
        // The level structure ends here: take u only if that lands closer to the target.
        // Skipping it for lighter vertices further on would scatter the grown side.
        if (after - grow_target < grow_target - grown) where[u] = grow_side;
        return;
      }
      where[u] = grow_side;
      grown += g.weight(u);
      for (int64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) {
        const int32_t v = g.adjncy[e];
        if (seen[v] != s.stamp) {
          seen[v] = s.stamp;
          queue[tail++] = v;
        }
      }
    }
    if (grown >= grow_target) return;
    // Component exhausted: continue in the next one.
    while (next_root < n && seen[next_root] == s.stamp) ++next_root;
    if (next_root == n) return;
    seen[next_root] = s.stamp;
    queue[tail++] = next_root;
  }
}

}  // namespace topocoll::mapping::detail
