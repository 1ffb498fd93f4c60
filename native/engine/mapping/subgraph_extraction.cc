#include "mapping/subgraph_extraction.h"

#include <algorithm>
#include <cstddef>

namespace topocoll::mapping::detail {

namespace {

// Induced subgraphs of both wanted sides of one level; local_id must hold each vertex's id
// within its side, count[s] the side sizes.
void extractLevel(const GraphView& g, const uint8_t* side, const int32_t* local_id, const int count[2], const bool want[2],
                  BlockPool* pool, OwnedGraph* out[2]) {
  int64_t entries[2] = {0, 0};  // upper bound on each side's adjacency: its vertices' degrees
  for (int v = 0; v < g.n; ++v) entries[side[v]] += g.xadj[v + 1] - g.xadj[v];
  int64_t pos[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    if (!want[s]) continue;
    OwnedGraph& o = *out[s];
    o.n = count[s];
    o.xadj.allocate(static_cast<size_t>(count[s]) + 1, pool);
    o.adjncy.allocate(static_cast<size_t>(entries[s]), pool);
    o.adjwgt.allocate(static_cast<size_t>(entries[s]), pool);
    if (g.vwgt) o.vwgt.allocate(static_cast<size_t>(count[s]), pool);
    else o.vwgt.release();
    o.xadj[0] = 0;
    o.total_vwgt = 0;
    o.max_vwgt = 1;
  }
  for (int v = 0; v < g.n; ++v) {
    const uint8_t s = side[v];
    if (!want[s]) continue;
    OwnedGraph& o = *out[s];
    int32_t* adj = o.adjncy.data();
    int64_t* wgt = o.adjwgt.data();
    int64_t p = pos[s];
    for (int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const int32_t u = g.adjncy[e];
      if (side[u] != s) continue;
      adj[p] = local_id[u];
      wgt[p] = g.adjwgt[e];
      ++p;
    }
    pos[s] = p;
    const int32_t lv = local_id[v];
    o.xadj[lv + 1] = p;
    const int32_t w = g.weight(v);
    if (g.vwgt) o.vwgt[lv] = w;
    o.total_vwgt += w;
    o.max_vwgt = std::max(o.max_vwgt, w);
  }
  for (int s = 0; s < 2; ++s) {
    if (!want[s]) continue;
    out[s]->adjncy.shrink(static_cast<size_t>(pos[s]));
    out[s]->adjwgt.shrink(static_cast<size_t>(pos[s]));
  }
}

}  // namespace

void splitBySide(const GraphView& g, const std::vector<uint8_t>& where, const int32_t* labels, const Hierarchy& hierarchy,
                 int coarsen_to, const bool want[2], BlockPool* pool, Subproblem out[2], ExtractionScratch& scratch) {
  // Level 0: the graph itself, plus labels.
  std::vector<int32_t>& local_id = scratch.local_id;
  local_id.resize(static_cast<size_t>(g.n));
  int count[2] = {0, 0};
  for (int v = 0; v < g.n; ++v) local_id[v] = count[where[v]]++;
  OwnedGraph* graphs[2] = {&out[0].graph, &out[1].graph};
  extractLevel(g, where.data(), local_id.data(), count, want, pool, graphs);
  for (int s = 0; s < 2; ++s)
    if (want[s]) out[s].labels.allocate(static_cast<size_t>(count[s]), pool);
  for (int v = 0; v < g.n; ++v)
    if (want[where[v]]) out[where[v]].labels[local_id[v]] = labels ? labels[v] : v;

  // Coarse levels, while they stay pure and some wanted side still has more than coarsen_to
  // vertices at its current coarsest level.
  const uint8_t* side = where.data();
  int fine_n = g.n;
  int fine_count[2] = {count[0], count[1]};
  for (int level = 0; level < hierarchy.depth(); ++level) {
    bool needed = false;
    for (int s = 0; s < 2; ++s) needed = needed || (want[s] && fine_count[s] > coarsen_to);
    if (!needed) break;
    const int32_t* cmap = hierarchy.cmap[level].data();
    const GraphView coarse = hierarchy.coarse[level].view();
    std::vector<uint8_t>& coarse_side = scratch.coarse_side;
    coarse_side.assign(static_cast<size_t>(coarse.n), 2);
    bool pure = true;
    for (int v = 0; v < fine_n && pure; ++v) {
      uint8_t& cs = coarse_side[cmap[v]];
      if (cs == 2) cs = side[v];
      else pure = cs == side[v];
    }
    if (!pure) break;  // a coarse vertex straddles the cut: the children coarsen from here
    std::vector<int32_t>& coarse_local = scratch.coarse_local;
    coarse_local.resize(static_cast<size_t>(coarse.n));
    int coarse_count[2] = {0, 0};
    for (int c = 0; c < coarse.n; ++c) coarse_local[c] = coarse_count[coarse_side[c]]++;
    bool level_want[2];
    OwnedGraph* level_graphs[2] = {nullptr, nullptr};
    for (int s = 0; s < 2; ++s) {
      level_want[s] = want[s] && fine_count[s] > coarsen_to;
      if (!level_want[s]) continue;
      out[s].hierarchy.coarse.emplace_back();
      out[s].hierarchy.cmap.emplace_back();
      out[s].hierarchy.cmap.back().allocate(static_cast<size_t>(fine_count[s]), pool);
      level_graphs[s] = &out[s].hierarchy.coarse.back();
    }
    extractLevel(coarse, coarse_side.data(), coarse_local.data(), coarse_count, level_want, pool, level_graphs);
    for (int v = 0; v < fine_n; ++v) {
      const uint8_t s = side[v];
      if (level_want[s]) out[s].hierarchy.cmap.back()[local_id[v]] = coarse_local[cmap[v]];
    }
    // Step up: the coarse level becomes the fine one.
    std::swap(local_id, coarse_local);
    std::swap(scratch.coarse_side, scratch.coarse_side_fine);
    side = scratch.coarse_side_fine.data();
    fine_n = coarse.n;
    fine_count[0] = level_want[0] ? coarse_count[0] : 0;
    fine_count[1] = level_want[1] ? coarse_count[1] : 0;
  }
}

}  // namespace topocoll::mapping::detail
