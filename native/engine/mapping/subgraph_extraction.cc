#include "mapping/subgraph_extraction.h"

#include <algorithm>
#include <cstddef>

namespace topocoll::mapping::detail {

namespace {

// A vertex's side and its id within that side in one word, so the inner loop makes one load
// per edge: side 0 stores the id, side 1 its complement (negative). Two vertices are on the same
// side iff their codes have the same sign.
inline int32_t encode(int side, int count[2]) { return side ? ~count[1]++ : count[0]++; }
inline int sideOf(int32_t code) { return static_cast<int>(static_cast<uint32_t>(code) >> 31); }
inline int32_t idOf(int32_t code) { return code ^ (code >> 31); }

// Where one side's share of a level goes. graph == nullptr: the side is not wanted.
struct SideOutput {
  OwnedGraph* graph = nullptr;
  int32_t* labels = nullptr;  // level 0: the caller's ids
  int32_t* cmap = nullptr;    // the child's map to its next level, when that level is restricted too
};

// Induced subgraphs of one level. code[] covers every vertex of g, count[s] the side sizes.
// Labels come from labels_in (nullptr: the vertex ids); the child's cmap entry of v is the id
// of its coarse vertex, next_code[cmap[v]].
void extractLevel(const GraphView& g, const int32_t* code, const int count[2], const int32_t* labels_in,
                  const int32_t* cmap, const int32_t* next_code, BlockPool* pool, const SideOutput out[2]) {
  int64_t entries[2] = {0, 0};  // upper bound on each side's adjacency: its vertices' degrees
  for (int v = 0; v < g.n; ++v) entries[sideOf(code[v])] += g.xadj[v + 1] - g.xadj[v];
  int64_t* xadj[2] = {nullptr, nullptr};
  int32_t* adj[2] = {nullptr, nullptr};
  int64_t* wgt[2] = {nullptr, nullptr};
  int32_t* vwgt[2] = {nullptr, nullptr};
  for (int s = 0; s < 2; ++s) {
    if (!out[s].graph) continue;
    OwnedGraph& o = *out[s].graph;
    o.n = count[s];
    o.xadj.allocate(static_cast<size_t>(count[s]) + 1, pool);
    o.adjncy.allocate(static_cast<size_t>(entries[s]), pool);
    o.adjwgt.allocate(static_cast<size_t>(entries[s]), pool);
    if (g.vwgt) o.vwgt.allocate(static_cast<size_t>(count[s]), pool);
    else o.vwgt.release();
    xadj[s] = o.xadj.data();
    adj[s] = o.adjncy.data();
    wgt[s] = o.adjwgt.data();
    vwgt[s] = g.vwgt ? o.vwgt.data() : nullptr;
    xadj[s][0] = 0;
  }
  int64_t pos[2] = {0, 0};
  for (int v = 0; v < g.n; ++v) {
    const int32_t cv = code[v];
    const int s = sideOf(cv);
    if (!xadj[s]) continue;
    const int32_t flip = cv >> 31;  // turns a same-side code into its id
    int32_t* a = adj[s];
    int64_t* w = wgt[s];
    int64_t p = pos[s];
    const int64_t end = g.xadj[v + 1];
    for (int64_t e = g.xadj[v]; e < end; ++e) {
      const int32_t cu = code[g.adjncy[e]];
      if ((cu ^ cv) < 0) continue;  // cut edge
      a[p] = cu ^ flip;
      w[p] = g.adjwgt[e];
      ++p;
    }
    pos[s] = p;
    const int32_t lv = cv ^ flip;
    xadj[s][lv + 1] = p;
    if (vwgt[s]) vwgt[s][lv] = g.vwgt[v];
    if (out[s].labels) out[s].labels[lv] = labels_in ? labels_in[v] : v;
    if (out[s].cmap) out[s].cmap[lv] = idOf(next_code[cmap[v]]);
  }
  for (int s = 0; s < 2; ++s) {
    if (!out[s].graph) continue;
    OwnedGraph& o = *out[s].graph;
    o.adjncy.shrink(static_cast<size_t>(pos[s]));
    o.adjwgt.shrink(static_cast<size_t>(pos[s]));
    o.total_vwgt = count[s];
    o.max_vwgt = 1;
    if (vwgt[s]) {
      o.total_vwgt = 0;
      for (int v = 0; v < count[s]; ++v) {
        o.total_vwgt += vwgt[s][v];
        o.max_vwgt = std::max(o.max_vwgt, vwgt[s][v]);
      }
    }
  }
}

// Codes of the vertices of the next level from those of this one (cmap: this level -> next),
// numbered in coarse vertex order; false if a coarse vertex straddles the cut.
bool encodeCoarseLevel(int fine_n, const int32_t* code, const int32_t* cmap, int coarse_n,
                       std::vector<uint8_t>& coarse_side, std::vector<int32_t>& coarse_code, int coarse_count[2]) {
  coarse_side.assign(static_cast<size_t>(coarse_n), 2);
  uint8_t* cs = coarse_side.data();
  for (int v = 0; v < fine_n; ++v) {
    const uint8_t side = static_cast<uint8_t>(sideOf(code[v]));
    uint8_t& c = cs[cmap[v]];
    if (c == 2) c = side;
    else if (c != side) return false;
  }
  coarse_code.resize(static_cast<size_t>(coarse_n));
  for (int c = 0; c < coarse_n; ++c) coarse_code[c] = encode(cs[c], coarse_count);
  return true;
}

}  // namespace

void splitBySide(const GraphView& g, const std::vector<uint8_t>& where, const int32_t* labels, Hierarchy& hierarchy,
                 int coarsen_to, const bool want[2], BlockPool* pool, Subproblem out[2], ExtractionScratch& scratch) {
  // Codes of every level first (vertex passes only): level k+1 is restricted too while it stays
  // pure and some side still wanted at level k has more than coarsen_to vertices there.
  std::vector<ExtractionScratch::Level>& levels = scratch.levels;
  if (levels.empty()) levels.emplace_back();
  levels[0].code.resize(static_cast<size_t>(g.n));
  levels[0].count[0] = levels[0].count[1] = 0;
  for (int v = 0; v < g.n; ++v) levels[0].code[v] = encode(where[v], levels[0].count);
  levels[0].want[0] = want[0];
  levels[0].want[1] = want[1];
  int depth = 0;  // coarse levels restricted for at least one side
  for (; depth < hierarchy.depth(); ++depth) {
    bool next_want[2];
    for (int s = 0; s < 2; ++s) next_want[s] = levels[depth].want[s] && levels[depth].count[s] > coarsen_to;
    if (!next_want[0] && !next_want[1]) break;
    if (static_cast<int>(levels.size()) < depth + 2) levels.emplace_back();
    ExtractionScratch::Level& next = levels[depth + 1];
    next.count[0] = next.count[1] = 0;
    const int fine_n = depth == 0 ? g.n : hierarchy.coarse[depth - 1].n;
    if (!encodeCoarseLevel(fine_n, levels[depth].code.data(), hierarchy.cmap[depth].data(),
                           hierarchy.coarse[depth].n, scratch.coarse_side, next.code, next.count))
      break;  // a coarse vertex straddles the cut: the children coarsen from here
    next.want[0] = next_want[0];
    next.want[1] = next_want[1];
  }
  for (int s = 0; s < 2; ++s) {
    int side_depth = 0;
    while (side_depth < depth && levels[side_depth + 1].want[s]) ++side_depth;
    out[s].hierarchy.coarse.resize(static_cast<size_t>(side_depth));
    out[s].hierarchy.cmap.resize(static_cast<size_t>(side_depth));
  }

  // Then the edges, coarsest level first: each parent level is released once extracted, so its
  // memory serves the children's finer (larger) levels.
  for (int level = depth; level >= 0; --level) {
    const ExtractionScratch::Level& cur = levels[level];
    const bool next = level < depth;
    SideOutput side_out[2];
    for (int s = 0; s < 2; ++s) {
      if (!cur.want[s]) continue;
      if (level == 0) {
        side_out[s].graph = &out[s].graph;
        out[s].labels.allocate(static_cast<size_t>(cur.count[s]), pool);
        side_out[s].labels = out[s].labels.data();
      } else {
        side_out[s].graph = &out[s].hierarchy.coarse[level - 1];
      }
      if (next && levels[level + 1].want[s]) {
        RawArray<int32_t>& cmap = out[s].hierarchy.cmap[level];
        cmap.allocate(static_cast<size_t>(cur.count[s]), pool);
        side_out[s].cmap = cmap.data();
      }
    }
    const GraphView fine = level == 0 ? g : hierarchy.coarse[level - 1].view();
    extractLevel(fine, cur.code.data(), cur.count, labels, next ? hierarchy.cmap[level].data() : nullptr,
                 next ? levels[level + 1].code.data() : nullptr, pool, side_out);
    if (level > 0) hierarchy.coarse[level - 1] = OwnedGraph{};
    if (next) hierarchy.cmap[level].release();
  }
}

}  // namespace topocoll::mapping::detail
