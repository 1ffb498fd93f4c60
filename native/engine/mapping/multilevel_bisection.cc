#include "mapping/multilevel_bisection.h"

#include <algorithm>
#include <utility>

#include "mapping/rng.h"

namespace topocoll::mapping::detail {

namespace {

BalanceTarget balanceFor(const GraphView& g, int64_t target0, bool finest, const BisectionOptions& o) {
  BalanceTarget t;
  t.target0 = target0;
  // A coarse level cannot balance finer than its vertex weights; demanding more makes FM buy
  // exactness with scattered sides. The finest level (unit weights) is made exact.
  t.tolerance = finest ? 0 : std::max<int64_t>(g.total_vwgt * o.coarse_tolerance_ppm / 1000000, g.max_vwgt);
  t.slack = g.max_vwgt;
  return t;
}

bool better(const BalanceTarget& balance, const TwoWayPartition& a, const TwoWayPartition& b) {
  const int64_t ea = balance.excess(a.pw[0]), eb = balance.excess(b.pw[0]);
  return ea < eb || (ea == eb && a.cut < b.cut);
}

// Several LND roots, each grown from both sides. FM is the expensive part, so only the
// `refined` best raw bisections get it; the best refined one ends in `best`.
void initialBisection(const GraphView& g, int64_t target0, const BalanceTarget& balance, Rng& rng,
                      const BisectionOptions& o, BisectionWorkspace& ws, TwoWayPartition& best) {
  const int tries = g.n <= 2 ? 1 : std::max(1, o.initial_tries);
  const int refined = std::min(tries, std::max(1, o.refined_tries));
  if (static_cast<int>(ws.candidates.size()) < refined + 1) ws.candidates.resize(static_cast<size_t>(refined) + 1);
  int kept = 0;  // candidates[0..kept) sorted best first; candidates[refined] is the scratch slot
  int32_t previous_root = -1, root = 0;
  for (int t = 0; t < tries; ++t) {
    if (t % 2 == 0) {
      root = pseudoPeripheralVertex(g, static_cast<int32_t>(rng.below(static_cast<uint32_t>(g.n))), ws.bfs);
      if (root == previous_root) {  // same root, same level structure: nothing new to try
        ++t;
        continue;
      }
      previous_root = root;
    }
    // Alternate which side is grown from the root: the two cuts differ.
    const uint8_t grow_side = static_cast<uint8_t>(t % 2);
    const int64_t grow_target = grow_side == 0 ? target0 : g.total_vwgt - target0;
    TwoWayPartition& trial = ws.candidates[refined];
    levelizedBisection(g, root, grow_side, grow_target, ws.bfs, trial.where);
    computeTwoWayPartition(g, trial);
    balanceTwoWay(g, trial, balance, ws.refinement);
    // Insert into the kept list (insertion sort over at most `refined` entries).
    int at = kept;
    while (at > 0 && better(balance, trial, ws.candidates[at - 1])) --at;
    if (at >= refined) continue;
    for (int i = std::min(kept, refined - 1); i > at; --i) std::swap(ws.candidates[i], ws.candidates[i - 1]);
    std::swap(ws.candidates[at], ws.candidates[refined]);
    kept = std::min(kept + 1, refined);
  }
  int winner = 0;
  for (int i = 0; i < kept; ++i) {
    refineTwoWay(g, ws.candidates[i], balance, o.refine_passes, ws.refinement);
    if (better(balance, ws.candidates[i], ws.candidates[winner])) winner = i;
  }
  std::swap(best, ws.candidates[winner]);
}

}  // namespace

int64_t multilevelBisection(const GraphView& g, Hierarchy& hierarchy, int64_t target0, uint64_t seed,
                            const BisectionOptions& o, BisectionWorkspace& ws, BlockPool* pool,
                            std::vector<uint8_t>& where) {
  Rng rng(seed);
  // views[0] is g; views[i] is hierarchy.coarse[i-1]. Inherited levels first, then new ones.
  std::vector<GraphView> views{g};
  int inherited = 0;
  while (inherited < hierarchy.depth() && views.back().n > o.coarsen_to) views.push_back(hierarchy.coarse[inherited++].view());
  hierarchy.truncate(inherited);
  const int32_t max_pair_weight =
      static_cast<int32_t>(std::max<int64_t>(2, 3 * g.total_vwgt / (2 * std::max(1, o.coarsen_to))));
  while (views.back().n > o.coarsen_to) {
    const GraphView fine = views.back();  // a copy: push_back below may move views
    hierarchy.coarse.emplace_back();
    hierarchy.cmap.emplace_back();
    const int cn = coarsenOnce(fine, max_pair_weight, ws.coarsening, pool, hierarchy.coarse.back(), hierarchy.cmap.back());
    if (cn == fine.n) {  // nothing matched: a coarser level would be the same graph
      hierarchy.truncate(hierarchy.depth() - 1);
      break;
    }
    views.push_back(hierarchy.coarse.back().view());
    if (cn * 20 > fine.n * 19) break;  // under 5% shrinkage: further levels are not worth it
  }
  const size_t coarsest = views.size() - 1;
  if (ws.states.size() < views.size()) ws.states.resize(views.size());

  initialBisection(views[coarsest], target0, balanceFor(views[coarsest], target0, coarsest == 0, o), rng, o, ws,
                   ws.states[coarsest]);

  for (size_t level = coarsest; level-- > 0;) {
    const GraphView& fine = views[level];
    TwoWayPartition& state = ws.states[level];
    projectTwoWayPartition(fine, hierarchy.cmap[level].data(), ws.states[level + 1], state);
    const BalanceTarget balance = balanceFor(fine, target0, level == 0, o);
    balanceTwoWay(fine, state, balance, ws.refinement);
    refineTwoWay(fine, state, balance, o.refine_passes, ws.refinement);
  }
  std::swap(where, ws.states[0].where);
  return ws.states[0].cut;
}

}  // namespace topocoll::mapping::detail
